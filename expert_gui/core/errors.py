"""The project's typed errors: the only exceptions bad input may raise.

Each names the file (and line, where there is one) and says what was expected, so the CLI and
the GUI can show it to the user as it is.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path


class ExpertGuiError(Exception):
    """Base of every error the user can cause with bad input or settings."""


class InputFileError(ExpertGuiError):
    """A file that cannot be read as what it should be.

    `cli_hint` names the command-line option that would fix it (`--associations FILE`); the CLI
    adds it to the message, the app leaves it out (it offers no such option).
    """

    def __init__(self, path: str | Path, line: int | None, message: str, *, cli_hint: str = ""):
        self.path = str(path)
        self.line = line
        self.message = message
        self.cli_hint = cli_hint
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class CollectionError(InputFileError):
    """A collection file that cannot be parsed at all (malformed beyond a per-record problem)."""


class TopicsError(InputFileError):
    """A topics, qrels or run file that cannot be parsed."""


class ModelFileError(InputFileError):
    """A model folder that is missing, truncated, tampered with or of a newer format."""


class EmbeddingsFileError(InputFileError):
    """A pretrained word-vector file that cannot be parsed."""


class QueryError(ExpertGuiError):
    """A query that cannot be answered (for example, an unknown person id)."""


class UnknownPersonError(QueryError):
    """A person id the model does not know; `suggestions` are the closest ids it does know."""

    def __init__(self, person_id: str, suggestions: list[str]):
        self.person_id = person_id
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"no person with id {person_id!r}{hint}")


class TrainingError(ExpertGuiError):
    """Training stopped for a reason the user must see (for example, a non-finite loss)."""


class OutputFolderError(ExpertGuiError):
    """An output the program may not or cannot write: foreign content, unwritable, a full disk,
    or in use."""

    def __init__(self, path: str | Path, message: str):
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")


def write_error(path: str | Path, exc: OSError, needed: int = 0,
                kept: str = "") -> OutputFolderError:
    """The error for a write that failed: a full disk says how much space the write needed and
    how much is free, a read-only mount says so; `kept` says what is left as it was."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        free = _free_space(Path(path))
        need = f"{byte_size(needed)} needed, " if needed else ""
        have = f"{byte_size(free)} free" if free is not None else "free space unknown"
        message = f"no space left on the device ({need}{have})"
    elif exc.errno == errno.EROFS:
        message = "cannot write here: read-only file system"
    else:
        message = f"cannot write here: {exc.strerror or exc}"
    return OutputFolderError(path, message + (f"; {kept}" if kept else ""))


def byte_size(n: int) -> str:
    """'1.4 MiB': a size in bytes for a message."""
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{n:,} bytes" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return ""


def _free_space(path: Path) -> int | None:
    """Bytes free on the file system of `path` (or of its nearest existing folder)."""
    for folder in (path, *path.parents):
        try:
            return shutil.disk_usage(folder).free
        except OSError:
            continue
    return None
