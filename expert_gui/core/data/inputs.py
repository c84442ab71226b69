"""Opening a user's input files: regular files only, and a fingerprint of their content.

A FIFO named as a topics file or a model's manifest blocks a reader forever, and a device such
as /dev/zero never ends, so every input file (collection files, topics, qrels, models,
checkpoints, word vectors, stop-word lists) is opened through `open_regular`, which refuses
anything but a regular file, naming it, before a byte is read.

Within `recording_reads()`, every file read from its start to its end is hashed as it is read,
so a load can be fingerprinted by what it read, not by what the files held before or after
(a file rewritten during a load, then restored, must not make the mix look like the original).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

import xxhash

from expert_gui.core.errors import InputFileError

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))
_CHUNK = 1 << 20


def resolve(path: str | Path) -> Path:
    """`Path(path).resolve()`, a link that loops raising OSError (ELOOP) as on Python 3.13,
    not RuntimeError as before it."""
    try:
        return Path(path).resolve()
    except RuntimeError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None


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
    reads = _reads.get()
    if reads is None:
        return os.fdopen(fd, "rb")
    raw = _Hashing(io.FileIO(fd, "rb"), str(resolve(path)), reads)
    return io.BufferedReader(raw, buffer_size=1 << 18)


def read_regular(path: str | Path, error: type[InputFileError] = InputFileError,
                 limit: int = -1) -> bytes:
    """The whole content of a regular file, or its first `limit` bytes (read a piece at a time:
    `read(limit)` would set aside `limit` bytes for a file of a few)."""
    with open_regular(path, error) as f:
        try:
            if limit < 0:
                return f.read()
            parts, left = [], limit
            while left and (part := f.read(min(left, _CHUNK))):
                parts.append(part)
                left -= len(part)
            return b"".join(parts)
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


# Where `recording_reads` collects the hashes of what was read; None when not recording.
_reads: ContextVar[dict[str, str] | None] = ContextVar("expert_gui_reads", default=None)
CHANGED = ""  # the hash recorded for a file read twice, differently: it changed in between


@contextmanager
def recording_reads() -> Iterator[dict[str, str]]:
    """Record, for each file opened through `open_regular` (in this thread) and read from its
    start to its end without seeking elsewhere, the XXH3 of the bytes read, by resolved path;
    a file read so twice with different bytes maps to CHANGED."""
    reads: dict[str, str] = {}
    token = _reads.set(reads)
    try:
        yield reads
    finally:
        _reads.reset(token)


class _Hashing(io.RawIOBase):
    """A file that hashes what is read from it, recorded on closing when the read went from
    the start to the end in order (a seek back to the start begins again)."""

    def __init__(self, raw: io.FileIO, key: str, reads: dict[str, str]):
        super().__init__()
        self._raw, self._key, self._reads = raw, key, reads
        self._hash = xxhash.xxh3_128()
        self._pos = 0
        self._in_order = True
        self._at_end = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._raw.fileno()

    def readinto(self, buffer) -> int:
        n = self._raw.readinto(buffer)
        if n:
            self._hash.update(memoryview(buffer)[:n])
            self._pos += n
        elif n == 0:
            self._at_end = True
        return n

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        pos = self._raw.seek(offset, whence)
        if pos == 0:
            self._hash.reset()
            self._in_order, self._at_end = True, False
        elif pos != self._pos:
            self._in_order = False
        self._pos = pos
        return pos

    def close(self) -> None:
        if not self.closed:
            if self._in_order and self._at_end:
                digest = self._hash.hexdigest()
                seen = self._reads.setdefault(self._key, digest)
                if seen != digest:
                    self._reads[self._key] = CHANGED
            self._raw.close()
        super().close()
