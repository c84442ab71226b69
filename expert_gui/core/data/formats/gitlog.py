"""A git repository: each non-merge commit message is a document, its author the person.

Identities are read through git itself (`git log --use-mailmap`), so the repository's .mailmap
merges them. A document's id is the commit's abbreviated hash (12 digits or more, as git keeps
it unique), its date the author date; a person's id is the mapped name lower-cased with '-'
between words, the e-mail address when the name has no letters or digits.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.reading import Progress, file_state
from expert_gui.core.data.text import TOKEN_RE
from expert_gui.core.errors import CollectionError

NAME = "git"
_FORMAT = "%h%x1f%aN%x1f%aE%x1f%aI%x1f%B"  # %aI: the author date, ISO 8601
_CHUNK = 1 << 20


def looks_like(path: Path) -> bool:
    return path.is_dir() and ((path / ".git").exists()
                              or ((path / "HEAD").is_file() and (path / "objects").is_dir()))


def _git(path: Path, *args: str) -> str:
    if shutil.which("git") is None:
        raise CollectionError(path, None, "reading a git repository needs the git program")
    done = subprocess.run(["git", "-C", str(path), *args], capture_output=True)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise CollectionError(path, None, "expected a git repository with commits: "
                                          + (message[-1] if message else "git failed"))
    return done.stdout.decode("utf-8", "replace").strip()


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    if associations is not None or people is not None:
        raise CollectionError(path, None, "a git repository names its own authors; "
                                          "--associations and --people do not apply")
    state = [f"{path.resolve()}\tHEAD\t{_git(path, 'rev-parse', 'HEAD')}"]
    mailmap = path / ".mailmap"
    if mailmap.is_file():
        state.append(file_state(mailmap))
    return state


def person_id(name: str, email: str) -> str:
    return "-".join(TOKEN_RE.findall(name.lower())) or email.lower()


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    sources(path, associations, people)  # checks the repository and the arguments
    progress.total = int(_git(path, "rev-list", "--count", "--no-merges", "HEAD"))
    proc = subprocess.Popen(
        ["git", "-C", str(path), "-c", "log.showSignature=false", "log", "--use-mailmap",
         "--no-merges", "--no-color", "--encoding=UTF-8", "--abbrev=12", "-z",
         f"--format={_FORMAT}", "HEAD"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    where = f"{path} (git log)"
    try:
        pending = b""
        n = 0
        while chunk := proc.stdout.read(_CHUNK):
            records = (pending + chunk).split(b"\0")
            pending = records.pop()
            for record in records:
                n += 1
                _add_commit(record, where, n, builder)
            progress.advance(len(records), f"reading commits of {path.name}")
        if pending:
            _add_commit(pending, where, n + 1, builder)
            progress.advance(1, f"reading commits of {path.name}")
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()


def _add_commit(record: bytes, where: str, n: int, builder: CollectionBuilder) -> None:
    try:
        text = record.decode("utf-8")
    except UnicodeDecodeError:
        text = record.decode("utf-8", "replace")
        builder.report.add("invalid-utf8", where, n, f"commit {text[:12]}: bytes that are not "
                                                     "valid UTF-8 replaced by U+FFFD")
    fields = text.split("\x1f", 4)
    if len(fields) != 5:
        builder.report.add("malformed-record", where, n, "expected a commit record from git log")
        return
    commit, name, email, date, message = fields
    pid = person_id(name, email)
    builder.add_person(pid, name or email, where, n)
    builder.add_document(commit, message.strip(), where, n, people=[pid], date=date)
