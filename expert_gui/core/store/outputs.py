"""Output folders: written only when they are the program's own, by one writer at a time.

`claim_output_folder` accepts a folder that does not exist yet (it is created), an empty one, or
one that holds the marker file `.expert-gui` written at its first claim; a folder an older
version wrote (before markers) is recognised by its content and marked. Anything else is
refused with a message, so a user's files are never overwritten, and `remove_own` deletes a
folder only when everything in it is what the program writes there. `locked` holds a folder
against a second writer (an OS file lock, released when the process dies, even by kill -9).

A folder may come from someone else, with a link planted at a name the program writes (say
`manifest.json.tmp` pointing at a file of the user's): every file is written through
`create_new`, which never opens a link, so nothing outside the folder is ever written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from filelock import FileLock, Timeout

from expert_gui.core.errors import OutputFolderError, write_error
from expert_gui.core.paths import unwritable

MARKER = ".expert-gui"
LOCK = ".expert-gui.lock"
# A new file, never through a link: O_EXCL refuses any entry already there, a dangling link
# included, and O_NOFOLLOW says so where the platform has it.
_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
           | getattr(os, "O_BINARY", 0))
# `new_folder` names a folder stem, stem-2, ... stem-N: more instances than this starting in
# the same second is no plausible use, and the bound keeps a folder full of them from looping.
MAX_SAME_NAME = 1000
# What a folder's layout may hold: a file name -> None, a sub-folder's name -> its own layout.
Layout = Mapping[str, "Layout | None"]


def claim_output_folder(folder: str | Path, kind: str,
                        is_legacy: Callable[[Path], bool] = lambda folder: False) -> Path:
    """Make `folder` ready for the program to write `kind` output (a model, an experiment)
    into, or refuse it; `is_legacy(folder)` recognises an unmarked folder an older version
    wrote."""
    folder = Path(folder).expanduser()
    check_output_folder(folder, is_legacy)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        marker = folder / MARKER
        if not marker.exists():
            tmp = folder / (MARKER + ".tmp")
            with create_new(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps({"written_by": "expert-gui", "kind": kind}) + "\n")
            os.replace(tmp, marker)
    except OSError as exc:
        raise write_error(folder, exc) from exc
    return folder


def new_folder(parent: str | Path, stem: str) -> Path:
    """A folder created for one run: `parent/stem`, or `stem-2`, `stem-3`, ... when another
    run (this app in another window, the same second) took that name first. Creating it is the
    choice, so two runs never pick the same folder."""
    parent = Path(parent).expanduser()
    check_writable_folder(parent)  # says which folder is wrong (a file where the home should be)
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for n in range(1, MAX_SAME_NAME + 1):
            folder = parent / (stem if n == 1 else f"{stem}-{n}")
            try:
                folder.mkdir()
                return folder
            except FileExistsError:
                continue
    except OSError as exc:
        raise write_error(parent, exc) from exc
    raise OutputFolderError(parent / stem, f"{MAX_SAME_NAME:,} folders of this name exist "
                                           "already; move some away or choose another name")


def create_new(path: str | Path, mode: str = "wb", **text: Any) -> IO:
    """`path` opened for writing as a new file (`text`: open's encoding and newline), after
    removing what was there: a stale temporary file of a save cut short, or a link someone
    planted (the link itself, never what it points to). A link put back in between makes the
    open fail (FileExistsError) rather than follow it."""
    with suppress(FileNotFoundError):
        os.unlink(path)
    return os.fdopen(os.open(path, _CREATE, 0o666), mode, **text)


def check_output_folder(folder: str | Path,
                        is_legacy: Callable[[Path], bool] = lambda folder: False) -> None:
    """Raise OutputFolderError unless `claim_output_folder` could write into `folder`; changes
    nothing (so a command can check its output folder before long work)."""
    folder = Path(folder).expanduser()
    if folder.is_dir():
        entries = sorted(os.listdir(folder))
        if entries and MARKER not in entries and not is_legacy(folder):
            shown = ", ".join(entries[:5]) + (" ..." if len(entries) > 5 else "")
            raise OutputFolderError(folder, f"the folder holds files expert-gui did not write "
                                            f"({shown}); choose a new or empty folder")
    check_writable_folder(folder)


def check_writable_folder(folder: str | Path) -> None:
    """Raise OutputFolderError unless `folder` is a folder the program can write in, or one it
    can create; changes nothing."""
    folder = Path(folder).expanduser()
    if folder.exists() or folder.is_symlink():
        if not folder.is_dir():
            raise OutputFolderError(folder, "expected a folder; this is a file")
        why = unwritable(folder)
        if why:
            raise OutputFolderError(folder, f"cannot write here: {why}")
        return
    parent = folder.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OutputFolderError(folder, f"cannot create it: {parent} is not a folder")
    why = unwritable(parent)
    if why:
        raise OutputFolderError(folder, f"cannot create it: {parent} is not writable ({why})")


def check_output_file(path: str | Path) -> None:
    """Raise OutputFolderError unless a file can be written at `path` (a new one, or one to
    replace); changes nothing, so a command checks its output before the work."""
    path = Path(path).expanduser()
    if path.exists():
        if path.is_dir():
            raise OutputFolderError(path, "expected a file name; this is a folder")
        if not path.is_file():
            raise OutputFolderError(path, "expected a regular file to write; this is "
                                          "something else (a FIFO, a device)")
    if not path.parent.is_dir():  # `replacing` writes beside the file; it creates no folder
        raise OutputFolderError(path, f"no folder {path.parent} to write it in; create the "
                                      "folder, or name a file in one that exists")
    check_writable_folder(path.parent)


@contextmanager
def replacing(path: str | Path, mode: str = "w", size: int = 0,
              errors: str = "strict") -> Iterator[IO]:
    """A file open for writing (`mode` "w": text in UTF-8, `errors` as open's, or "wb") whose
    content replaces `path` once it is complete and synced: a crash or a full disk midway
    leaves the file before as it was, and a link at `path` is replaced, never written through.
    A failed write raises OutputFolderError; `size`, the bytes the file will hold when known,
    is named as the space needed. Every file the program writes in an output folder is
    written here."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with create_new(tmp, mode, **({} if "b" in mode else {
                "encoding": "utf-8", "newline": "", "errors": errors})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(OSError):
            tmp.unlink()
        if not isinstance(exc, OSError):
            raise
        kept = "the file before is unchanged" if path.exists() else ""
        raise write_error(path, exc, size, kept) from exc


def owned_by_layout(folder: Path, layout: Layout) -> bool:
    """Whether everything in `folder` (recursively) is a name of `layout`, of the right kind."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    for entry in entries:
        if entry.name not in layout:
            return False
        sub = layout[entry.name]
        if sub is None:
            if not entry.is_file(follow_symlinks=False):
                return False
        elif not entry.is_dir(follow_symlinks=False) or not owned_by_layout(Path(entry.path), sub):
            return False
    return True


def remove_own(folder: Path, layout: Layout) -> None:
    """Delete a folder the program wrote; refuse (OutputFolderError) when it holds anything
    else, so a file a user put there is never lost. A missing folder is left as it is."""
    if not (folder.exists() or folder.is_symlink()):
        return
    if folder.is_symlink() or not owned_by_layout(folder, layout):
        raise OutputFolderError(folder, "holds files expert-gui did not write; move them away "
                                        "and try again (nothing was deleted)")
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            remove_own(Path(entry.path), layout[entry.name])
        else:
            os.unlink(entry.path)
    os.rmdir(folder)


@contextmanager
def locked(folder: Path, what: str) -> Iterator[None]:
    """Hold `folder` against every other writer for the duration; a second one is refused."""
    lock = FileLock(str(folder / LOCK), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise OutputFolderError(folder, f"another expert-gui run is {what} into this folder; "
                                        "wait for it to finish or choose another folder") from None
    except OSError as exc:
        raise OutputFolderError(folder, f"cannot lock it: {exc.strerror or exc}") from exc
    try:
        yield
    finally:
        lock.release()


def fsync_folder(folder: Path) -> None:
    """Make the renames inside a folder durable (where the platform allows opening folders)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
