"""A git repository: each non-merge commit message is a document, its author the person.

Identities are read through git itself (`git log --use-mailmap`), so the repository's .mailmap
merges them. A document's id is the commit's abbreviated hash (12 digits or more, as git keeps
it unique), its date the author date; a person's id is the mapped name lower-cased with '-'
between words, the e-mail address when the name has no letters or digits.

A repository may come from someone else, and git obeys its `.git/config`: a promisor remote
reached over ssh whose `core.sshCommand` runs as soon as a missing object is fetched, a
`core.fsmonitor` command, a `mailmap.file` outside. So git runs here under a configuration the
repository cannot change (`_SAFE`: no transport at all, no command, no file from elsewhere),
with none of the user's GIT_* variables, and on the git folder found here, inside the folder
read: a `.git` file or link naming another repository is refused, never followed.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.reading import Progress, file_state
from expert_gui.core.data.inputs import kind_of
from expert_gui.core.data.text import TOKEN_RE
from expert_gui.core.errors import CollectionError

NAME = "git"
_FORMAT = "%h%x1f%aN%x1f%aE%x1f%aI%x1f%B"  # %aI: the author date, ISO 8601
_CHUNK = 1 << 20
# Settings that override the repository's own (the command line wins over every file): no
# transport is allowed, so a lazy fetch of a partial clone fails instead of running ssh or an
# upload-pack command; the commands and paths a config may name are emptied.
_SAFE = ("protocol.allow=never", "core.sshCommand=false", "core.fsmonitor=false",
         f"core.hooksPath={os.devnull}", "core.alternateRefsCommand=", "credential.helper=",
         "mailmap.file=", "log.showSignature=false", "gc.auto=0", "maintenance.auto=false")
# The environment's own configuration files, and a lazy fetch (git 2.44 and later; the
# settings above hold older ones), are off too.
_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_NO_LAZY_FETCH": "1",
        "GIT_TERMINAL_PROMPT": "0", "GIT_NO_REPLACE_OBJECTS": "1"}
# The first line of a `.git` file, `gitdir: PATH`, is all git reads of it.
_GITFILE_LIMIT = 4096
# A `commondir` or `alternates` file names a folder or a few; a repository's config is a few
# KiB (a thousand remote branches: about 100 KiB). Longer ones are refused, not read.
_LISTED_LIMIT = 1 << 16
_CONFIG_LIMIT = 16 << 20
# A section header [include], [includeIf "..."] or [include.sub] (case-insensitive).
_INCLUDE = re.compile(r"\s*\[\s*include", re.IGNORECASE)


def looks_like(path: Path) -> bool:
    """A repository's own folder (a `.git` in it, or a bare one), never a folder inside one:
    git is never left to look for a repository in the folders above."""
    return path.is_dir() and ((path / ".git").exists()
                              or ((path / "HEAD").is_file() and (path / "objects").is_dir()))


def _git_dir(path: Path) -> tuple[Path, bool]:
    """The repository's git folder and whether it has a working tree (False: a bare one).

    Refused when it lies outside `path`: a `.git` file (`gitdir: ...`) or link naming another
    repository, a worktree's `commondir`, objects borrowed through `alternates`, or any link in
    the git folder, would read commits, authors or files from outside the collection; and when
    git could block or read without end (a FIFO or a device in it, a config that includes
    other files).
    """
    root = _resolve(path, path)
    dot = path / ".git"
    if dot.is_file() and not dot.is_symlink():
        with open(dot, "rb") as f:
            line = f.read(_GITFILE_LIMIT).decode("utf-8", "replace").splitlines()[:1]
        if not line or not line[0].startswith("gitdir:"):
            raise CollectionError(dot, 1, "expected a .git folder, or a file 'gitdir: PATH'")
        git_dir, worktree = _inside(path / line[0][7:].strip(), root, dot), True
    elif dot.exists() or dot.is_symlink():
        git_dir, worktree = _inside(dot, root, dot), True
    elif (path / "HEAD").is_file() and (path / "objects").is_dir():
        git_dir, worktree = root, False
    else:
        raise CollectionError(path, None, "expected a git repository: no .git in the folder")
    _only_files_inside(git_dir, root)  # before a file of it is read
    folders = [git_dir]
    for name in ("commondir", "objects/info/alternates"):
        listed = git_dir / name
        if listed.is_file():
            for n, line in enumerate(_head(listed, _LISTED_LIMIT).splitlines(), 1):
                if line.strip() and not line.startswith("#"):
                    where = git_dir / ("objects" if "alternates" in name else "") / line.strip()
                    folders.append(_inside(where, root, listed, n))
                    _only_files_inside(folders[-1], root)
    for folder in folders:
        for name in ("config", "config.worktree"):
            _no_includes(folder / name)
    return git_dir, worktree


def _head(path: Path, limit: int) -> str:
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise CollectionError(path, None, f"more than {limit:,} bytes; git's own files of this "
                                          "name are a few lines")
    return data.decode("utf-8", "replace")


def _only_files_inside(folder: Path, root: Path) -> None:
    """Files, folders and links within `root` only: git would block forever on a FIFO in its
    folder (a ref, HEAD, its config) and read a device such as /dev/zero without end."""
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(parent, name)
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:  # removed since it was listed (git gc)
                continue
            if stat.S_ISLNK(mode):
                mode = os.stat(_inside(path, root, path)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise CollectionError(path, None, f"expected the files of a git repository; "
                                                  f"found {kind_of(mode)}")


def _no_includes(config: Path) -> None:
    """Refuse a configuration that includes other files: git reads them before any setting of
    the command line, wherever they are (another user's, a FIFO, /dev/zero)."""
    if not config.is_file():
        return
    for n, line in enumerate(_head(config, _CONFIG_LIMIT).splitlines(), 1):
        if _INCLUDE.match(line):
            raise CollectionError(config, n, f"includes other files ({line.strip()}); "
                                             "expert-gui reads a repository under a "
                                             "configuration of its own: remove the include")


def _resolve(path: Path, where: Path, line: int | None = None) -> Path:
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # missing, or a link that loops
        raise CollectionError(where, line, f"cannot follow {path}: "
                                           f"{getattr(exc, 'strerror', None) or exc}") from None


def _inside(path: Path, root: Path, where: Path, line: int | None = None) -> Path:
    """`path` resolved, refused unless it lies in the collection's folder `root`."""
    target = _resolve(path, where, line)
    if not target.is_relative_to(root):
        raise CollectionError(where, line, f"points to {target}, outside the folder read; "
                                           "only a repository's own files are read (read that "
                                           "repository itself, or clone it here)")
    return target


def _command(path: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    """git's command line and environment for `args` on the repository of `path`."""
    if shutil.which("git") is None:
        raise CollectionError(path, None, "reading a git repository needs the git program")
    git_dir, worktree = _git_dir(path)
    command = ["git", "--no-pager", f"--git-dir={git_dir}"]
    if worktree:
        command.append(f"--work-tree={_resolve(path, path)}")
    for setting in _SAFE:
        command += ["-c", setting]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return command + list(args), {**env, **_ENV}


def _failure(path: Path, stderr: bytes) -> CollectionError:
    message = stderr.decode("utf-8", "replace").strip().splitlines()
    return CollectionError(path, None, "expected a git repository with commits: "
                                       + (message[-1] if message else "git failed"))


def _git(path: Path, *args: str) -> str:
    command, env = _command(path, *args)
    done = subprocess.run(command, capture_output=True, env=env, cwd=path,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise _failure(path, done.stderr)
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
    command, env = _command(path, "log", "--use-mailmap", "--no-merges", "--no-color",
                            "--no-ext-diff", "--no-textconv", "--encoding=UTF-8", "--abbrev=12",
                            "-z", f"--format={_FORMAT}", "HEAD")
    errors = tempfile.TemporaryFile()  # read once git ends: a pipe could fill and block it
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env=env, cwd=path,
                            stdin=subprocess.DEVNULL)
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
        if proc.wait() != 0:  # history cut short (an object missing): not a silent half
            errors.seek(0)
            raise _failure(path, errors.read())
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
        errors.close()


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
