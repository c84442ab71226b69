"""Opening a user's input files: regular files only, and a fingerprint of their content.

A FIFO named as a topics file or a model's manifest blocks a reader forever, and a device such
as /dev/zero never ends, so every input file (collection files, topics, qrels, models,
checkpoints, word vectors, stop-word lists) is opened through `open_regular`, which refuses
anything but a regular file, naming it, before a byte is read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

import xxhash

from expert_gui.core.errors import InputFileError

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))
_CHUNK = 1 << 20


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def require_regular(path: str | Path, error: type[InputFileError] = InputFileError) -> None:
    """Raise `error` unless the path is a regular file (following links)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError as exc:
        raise error(path, None, "no such file") from exc
    except OSError as exc:
        raise error(path, None, f"cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(mode):
        raise error(path, None, f"expected a regular file, found {kind_of(mode)}")


def open_regular(path: str | Path, error: type[InputFileError] = InputFileError) -> BinaryIO:
    """A regular file opened for reading in binary mode; anything else raises `error`.

    The file is checked before it is opened and again once open (it may have been swapped in
    between); opening does not block, even on a FIFO.
    """
    require_regular(path, error)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise error(path, None, f"cannot open: {exc.strerror or exc}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise error(path, None, f"expected a regular file, found {kind_of(mode)}")
    return os.fdopen(fd, "rb")


def read_regular(path: str | Path, error: type[InputFileError] = InputFileError,
                 limit: int = -1) -> bytes:
    """The whole content of a regular file, or its first `limit` bytes."""
    with open_regular(path, error) as f:
        try:
            return f.read(limit)
        except OSError as exc:
            raise error(path, None, f"cannot read: {exc.strerror or exc}") from exc


def content_hash(path: str | Path, error: type[InputFileError] = InputFileError) -> str:
    """A fast 128-bit hash (XXH3) of a file's bytes: what identifies its content for a cache.

    Size and modification time are not enough: a file rewritten within the same second at the
    same size (or restored by a tool that keeps times) would look unchanged.
    """
    digest = xxhash.xxh3_128()
    hash_into(digest, path, error)
    return digest.hexdigest()


def hash_into(digest, path: str | Path, error: type[InputFileError] = InputFileError) -> None:
    """Feed a regular file's bytes to a hash object, through one reused buffer."""
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    with open_regular(path, error) as f:
        try:
            while n := f.readinto(buffer):
                digest.update(view[:n])
        except OSError as exc:
            raise error(path, None, f"cannot read: {exc.strerror or exc}") from exc
