"""Issue 43's hostile inputs: model folders, saves, git and two instances (items 1-4, 10, 13).

Run by hostile_inputs.py: CASES as its own (item, what, make, command); HOOKS maps a flag of
the command to a function that installs a failure in the process before the CLI runs.

What these attacks do happens outside what the CLI prints (a command run by git, a file
outside the model folder written, a folder that no longer opens), so `--watch` sets the case's
input up afresh for each side (from what `make` recorded in WATCH) and adds, after the CLI's
last line, what it finds: whether the watched files outside are unchanged, whether git ran
the planted command, whether the model folder still opens.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "resources" / "demo"
# What `make` records and `--watch` checks: {"fresh": [[work, template]], "outside": {path:
# sha256 or null when it must not exist}, "open": a model folder to open after the run}.
WATCH = Path(tempfile.gettempdir()) / "hostile-43-store-watch.json"
GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="Ann Example", GIT_AUTHOR_EMAIL="ann@example.org",
               GIT_COMMITTER_NAME="CI", GIT_COMMITTER_EMAIL="ci@example.org",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=GIT_ENV, check=True,
                          capture_output=True, text=True).stdout


def _repo(folder: Path, messages: list[str]) -> Path:
    folder.mkdir()
    _git(folder, "init", "-q")
    for i, message in enumerate(messages):
        (folder / f"f{i}.c").write_text(message)
        _git(folder, "add", ".")
        _git(folder, "commit", "-q", "-m", message)
    return folder


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def _record(fresh: list[tuple[Path, Path]], outside: dict[Path, bytes | None],
            open_folder: Path | None = None) -> None:
    for path, content in outside.items():
        if content is not None:
            path.write_bytes(content)
    WATCH.write_text(json.dumps({
        "fresh": [[str(w), str(t)] for w, t in fresh],
        "outside": {str(p): (c.decode("latin-1") if c is not None else None)
                    for p, c in outside.items()},
        "open": str(open_folder) if open_folder else None}))


def make_git_ssh(data: Path) -> Path:
    """A partial clone whose missing first commit is fetched over ssh by a planted command."""
    marker = data / "git-ran-a-command"
    repo = _repo(data / "git-promisor", ["ring: first buffer", "ring: second buffer"])
    first = _git(repo, "rev-list", "--max-parents=0", "HEAD").split()[0]
    (repo / ".git" / "objects" / first[:2] / first[2:]).unlink()
    for key, value in {"core.repositoryformatversion": "1", "extensions.partialClone": "origin",
                       "remote.origin.promisor": "true",
                       "remote.origin.url": "ssh://example.invalid/x",
                       "core.sshCommand": f"touch {marker}; false",
                       "core.fsmonitor": f"touch {marker}; false"}.items():
        _git(repo, "config", key, value)
    _record([], {marker: None})
    return repo


def make_git_gitdir(data: Path) -> Path:
    """A folder holding only a `.git` file that names another repository."""
    other = _repo(data / "git-other", ["secret: a message from outside the collection"] * 3)
    folder = data / "git-gitdir"
    folder.mkdir()
    (folder / ".git").write_text(f"gitdir: {other / '.git'}\n")
    return folder


def make_git_include(data: Path) -> Path:
    """A repository whose config includes a FIFO outside it: git blocks on it for ever."""
    repo = _repo(data / "git-include", ["ring: first buffer"])
    fifo = data / "git-include-fifo"
    os.mkfifo(fifo)
    with open(repo / ".git" / "config", "a", encoding="utf-8") as f:
        f.write(f"[include]\n\tpath = {fifo}\n")
    return repo


def make_model(data: Path) -> Path:
    from hostile_inputs import make_model  # that module imports this one

    return make_model(data)


def make_model_links(data: Path) -> Path:
    """A model folder (the program's marker in it) with links at the names a save writes: one
    to a file outside, one dangling."""
    template, work = data / "links-template", data / "links-model"
    shutil.copytree(make_model(data), template)
    outside, dangling = data / "users-notes.txt", data / "created-through-a-link"
    (template / "manifest.json.tmp").symlink_to(outside)
    (template / "model.safetensors.new").symlink_to(dangling)
    _record([(work, template)], {outside: b"the user's notes\n", dangling: None})
    return work


def make_sparse_model(data: Path) -> Path:
    """A model whose model.safetensors is 8 GB (sparse: no disk)."""
    model = data / "model-sparse"
    shutil.copytree(make_model(data), model)
    os.truncate(model / "model.safetensors", 8 << 30)
    return model


def make_rename_twice(data: Path) -> Path:
    """An empty folder to train into while model.safetensors cannot be replaced."""
    work = data / "rename-twice"
    _record([], {}, open_folder=work)
    return work


def _watch() -> None:
    """Set the case's input up afresh; after the CLI, say what happened outside it."""
    import expert_gui.cli as cli

    watch = json.loads(WATCH.read_text())
    for work, template in watch["fresh"]:
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(template, work, symlinks=True)
    outside = {Path(p): c for p, c in watch["outside"].items()}
    for path, content in outside.items():
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(content.encode("latin-1"))
    if watch["open"]:
        shutil.rmtree(watch["open"], ignore_errors=True)
    real = cli.main

    def main(args):
        code = real(args)
        changed = [p.name for p, c in outside.items()
                   if _digest(p) != (c and hashlib.sha256(c.encode("latin-1")).hexdigest())]
        notes = [f"OUTSIDE CHANGED: {', '.join(changed)}" if changed else
                 "outside: unchanged"] if outside else []
        if watch["open"]:
            from expert_gui.core.store.storage import load_model
            try:
                load_model(watch["open"])
                notes.append("the folder opens")
            except Exception as exc:  # what the user would meet
                notes.append(f"THE FOLDER DOES NOT OPEN: {str(exc)[-80:]}")
        printed = sys.stderr.getvalue() + sys.stdout.getvalue()  # as hostile_inputs takes it
        said = [x for x in printed.splitlines() if x.strip()][-1:]
        print("[" + "; ".join(notes) + "] " + " ".join(said))  # the line the table shows
        return code

    cli.main = main


def _fail_model_rename() -> None:
    """EIO for every rename onto model.safetensors (immutable, or open in another program)."""
    real = os.replace

    def replace(src, dst):
        if Path(dst).name == "model.safetensors":
            raise OSError(5, os.strerror(5), str(src))
        return real(src, dst)

    os.replace = replace


def _save_between() -> None:
    """Another process's whole save of the model, between the load's manifest and tensors."""
    from expert_gui.core.store import storage

    real, done = storage._tensors_of, []

    def tensors_of(folder, manifest):
        if not done:
            done.append(True)
            with contextlib.suppress(Exception):
                model = storage.load_model(folder)
                model.word_embeddings = model.word_embeddings + 1
                storage.save_model(model, folder)
        return real(folder, manifest)

    storage._tensors_of = tensors_of


def make_model_copy(data: Path) -> Path:
    model = data / "model-saved-between"
    shutil.copytree(make_model(data), model)
    return model


TRAIN = ["--epochs", "1", "--dim", "16", "--threads", "1"]
CASES = {
    "git-ssh-command": ("43.1", "git: a promisor remote with core.sshCommand", make_git_ssh,
                        ["stats", "--no-cache", "{input}", "--watch"]),
    "git-gitdir-file": ("43.2", "git: only a .git file naming another repository",
                        make_git_gitdir, ["stats", "--no-cache", "{input}"]),
    "git-include-fifo": ("43.1", "git: .git/config includes a FIFO", make_git_include,
                         ["stats", "--no-cache", "{input}"]),
    "model-tmp-links": ("43.3", "model folder: links at manifest.json.tmp, .new",
                        make_model_links,
                        ["train", str(DEMO), "--out", "{input}", *TRAIN, "--watch"]),
    "rename-twice": ("43.4", "EIO renaming model.safetensors, at both saves of a run",
                     make_rename_twice, ["train", str(DEMO), "--out", "{input}", *TRAIN,
                                         "--fail-model-rename", "--watch"]),
    "model-8gb": ("43.10", "model.safetensors of 8 GB (sparse)", make_sparse_model,
                  ["query", "{input}", "solar cells"]),
    "load-while-saving": ("43.13", "a save by another process in the middle of a load",
                          make_model_copy, ["query", "{input}", "solar cells",
                                            "--save-between"]),
}
HOOKS = {"--watch": _watch, "--fail-model-rename": _fail_model_rename,
         "--save-between": _save_between}
