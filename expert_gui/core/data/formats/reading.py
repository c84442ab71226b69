"""What every format reader shares: UTF-8 lines with their numbers, progress, and the stop flag.

Files are streamed, so a large collection is never held whole. Bytes that are not valid UTF-8
become U+FFFD and every line that held some is reported with its file and line, never dropped.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import stat
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from expert_gui.core.data.formats.people_edits import EDITS_FILE
from expert_gui.core.data.inputs import content_hash, kind_of, open_regular, resolve
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError, byte_size

# Seconds between two progress events; the stop flag is asked as often.
_EVENT_INTERVAL = 0.1
# Lines read between two looks at the clock for a progress event.
TICK_LINES = 1024

# Decoding errors: U+FFFD in place of the bad bytes, counted per thread so a reader can tell
# whether a file had any without looking at every line.
_COUNTING_REPLACE = "expert_gui.count_and_replace"
_bad_bytes = threading.local()


def _count_and_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _bad_bytes.count = _bad_bytes_seen() + 1
    return "\ufffd", exc.end


def _bad_bytes_seen() -> int:
    return getattr(_bad_bytes, "count", 0)


codecs.register_error(_COUNTING_REPLACE, _count_and_replace)


class LoadProgress(NamedTuple):
    """One progress event of a load: `done` of `total` units (bytes, or commits for git)."""

    done: int
    total: int
    message: str


class Stop(Exception):
    """Raised inside a load when `should_stop()` says so; `load_collection` returns None."""


class Progress:
    """Rate-limited progress events and the stop check for one load."""

    def __init__(self, callback: Callable[[LoadProgress], None] | None = None,
                 should_stop: Callable[[], bool] | None = None):
        self._callback = callback
        self._should_stop = should_stop
        self.total = 0
        self.done = 0
        self._last = 0.0

    def advance(self, n: int, message: str) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= _EVENT_INTERVAL:
            self._last = now
            self.event(message)

    def event(self, message: str) -> None:
        """Send an event now, and stop if asked to."""
        if self._should_stop is not None and self._should_stop():
            raise Stop
        if self._callback is not None:
            self._callback(LoadProgress(self.done, self.total, message))


def present(docs: list[Path], *others: Path | None) -> list[Path]:
    """The documents and whichever of the other input files exist, in reading order."""
    return [*docs, *(f for f in others if f is not None)]


def file_state(path: Path) -> str:
    """What identifies a file for the cache: its path and a hash of its content (hashed first:
    a file that cannot be opened, a link that loops, says so as a CollectionError)."""
    state = content_hash(path, CollectionError)
    return f"{path.resolve()}\t{state}"


def total_size(files: Iterable[Path]) -> int:
    """The bytes a load reads, for its progress; a file gone since it was found (deleted while
    its folder loads) counts nothing here, and its reader says it is gone."""
    total = 0
    for f in files:
        try:
            total += f.stat().st_size
        except OSError:
            pass
    return total


def own_authors_file(path: Path, associations: Path | None, people: Path | None, kind: str,
                     suffix: str) -> None:
    """Refuse what does not apply to one file whose records name their own authors (a .bib or
    .ris file): a folder, and --associations or --people."""
    if path.is_dir():
        raise CollectionError(path, None, f"expected a {suffix} file, not a folder")
    if associations is not None or people is not None:
        raise CollectionError(path, None, f"a {kind} file names its own authors; "
                                          "--associations and --people do not apply")


# What reading a file that is not what it claims raises (a cut or corrupt gzip stream, ...).
UNREADABLE = (OSError, EOFError, zlib.error)
# The most a record may hold: a line of a text file (its characters, without the line's end), or
# a whole plain-text document (its bytes). A longer one is reported with its file and line and
# not read, and never held in memory (a 2 GB line in a TSV is a broken file, not a document).
MAX_RECORD = 1 << 24
_SKIP = 1 << 20  # characters read at a time while passing over a line that is too long
# The most a gzipped file may expand, times its size (or times 1 MiB, for a small file): text
# compresses 3 to 10 times, so more is a compressed bomb (a 4 MB file of 10^9 empty lines) or
# little but repetitions, which would take a time and memory its size does not announce.
MAX_INFLATION = 100
_INFLATION_FLOOR = 1 << 20
# Empty lines in a row after which the rest of the run is passed over in bulk, a megabyte at a
# time, instead of line by line: 10^9 of them took hours one at a time, and a few seconds so.
_BLANK_RUN = 1024


BOM = "\ufeff"  # the byte-order mark, as text


def encoding_of(head: bytes) -> str:
    """The encoding a file's first bytes announce: UTF-16 by its byte-order mark (Web of
    Science's "UTF-16" exports), else UTF-8 (its byte-order mark skipped)."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return "utf-8-sig"


class TextFile:
    """A plain or gzipped UTF-8 (or, with its byte-order mark, UTF-16) file opened as text for
    streaming, as a context manager.

    Lines end at \\n, \\r\\n or \\r (the csv module's rule); `lines()` gives them, a line longer
    than MAX_RECORD characters reported and read as an empty one. Bytes that are not valid UTF-8
    become U+FFFD; when the file had any, leaving the context reads it once more to report each
    such line, so valid files pay nothing. `tick()` sends a progress event now and then.
    """

    def __init__(self, path: Path, report: LoadReport, progress: Progress):
        self.path = path
        self._report = report
        self._progress = progress
        self._label = f"reading {path.name}"

    def __enter__(self) -> TextFile:
        self._raw = open_regular(self.path, CollectionError)
        stream = inflated(self._raw, self.path) if self.path.name.endswith(".gz") else self._raw
        try:
            self._encoding = encoding_of(stream.peek(2)[:2])
        except UNREADABLE:
            self._encoding = "utf-8-sig"  # reading it says what is wrong, with its line
        self.text = io.TextIOWrapper(stream, encoding=self._encoding, errors=_COUNTING_REPLACE,
                                     newline="")
        self._bad_before = _bad_bytes_seen()
        self._done = 0
        return self

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number from 1, text with its ending) for each of the file's lines (see the
        class); a long run of empty lines comes as a few items, each of many line endings."""
        return _bounded_lines(self.text, self.path, self._report)

    def tick(self) -> None:
        pos = self._raw.tell()
        self._progress.advance(pos - self._done, self._label)
        self._done = pos

    def __exit__(self, kind, exc, tb) -> None:
        size = os.fstat(self._raw.fileno()).st_size
        self.text.close()
        if kind is None:
            self._progress.advance(size - self._done, self._label)
            if _bad_bytes_seen() != self._bad_before:
                self._report_bad_lines()

    def unreadable(self, line: int, exc: Exception) -> CollectionError:
        """The error for a file that stops making sense at `line` (cut short, not gzip, ...),
        or that expands past its bound there."""
        if isinstance(exc, _Inflated):
            return CollectionError(self.path, line, f"reading stopped here: {exc}")
        return CollectionError(self.path, line, f"expected a readable text file: {exc}")

    def _report_bad_lines(self) -> None:
        """Each line that held bytes that are not UTF-8, read again with those bytes escaped
        (as lone surrogates, which valid UTF-8 never gives), line for line as the first time."""
        if self._encoding == "utf-16":
            self._report.add("invalid-utf8", self.path, None, "bytes that are not valid UTF-16 "
                                                              "replaced by U+FFFD")
            return
        with open_regular(self.path, CollectionError) as raw, \
                (inflated(raw, self.path) if self.path.name.endswith(".gz") else raw) as f:
            text = io.TextIOWrapper(f, encoding="utf-8-sig", errors="surrogateescape",
                                    newline="")
            for line_no, line in _bounded_lines(text):
                bad = _ESCAPED.search(line)
                if bad is not None:
                    self._report.add("invalid-utf8", self.path, line_no,
                                     f"bytes that are not valid UTF-8 at column {bad.start() + 1}"
                                     " replaced by U+FFFD")


_ESCAPED = re.compile("[\udc80-\udcff]")
_ENDS = ("\r\n", "\n", "\r")
_LINE_END = re.compile("[\r\n]")
_NOT_ENDING = re.compile("[^\r\n]")


def inflated(raw: BinaryIO, path: Path) -> io.BufferedReader:
    """The content of a gzipped file open as `raw`, which may expand at most MAX_INFLATION times
    its size: past that, reading it raises an OSError that names the bound and the way round it
    (`TextFile.unreadable` adds the line)."""
    size = os.fstat(raw.fileno()).st_size
    limit = MAX_INFLATION * max(size, _INFLATION_FLOOR)
    return io.BufferedReader(_Inflation(gzip.GzipFile(fileobj=raw), path, size, limit))


class _Inflated(OSError):
    """A gzipped file that expanded past its bound; TextFile.unreadable names the line."""


class _Inflation(io.RawIOBase):
    """A gzip stream that raises once more than `limit` bytes came out of it."""

    def __init__(self, stream: gzip.GzipFile, path: Path, size: int, limit: int):
        super().__init__()
        self._stream, self._path, self._size, self._limit = stream, path, size, limit
        self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._stream.readinto(buffer)
        self._out += n
        if self._out > self._limit:
            raise _Inflated(
                f"expands to more than {byte_size(self._limit)} from "
                f"{byte_size(self._size)}, over {MAX_INFLATION} times its size, the most a "
                "compressed text file may (text compresses 3 to 10 times): a compressed bomb, "
                "or a file of little but repetitions; decompress it yourself (gunzip) and open "
                "the text if it is meant")
        return n

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()


class _Ahead:
    """A text stream with what was read ahead of its lines put back in front of it."""

    def __init__(self, text: io.TextIOWrapper):
        self._text = text
        self._ahead = ""

    def read(self, n: int) -> str:
        if not self._ahead:
            return self._text.read(n)
        out, self._ahead = self._ahead[:n], self._ahead[n:]
        return out

    def put_back(self, text: str) -> None:
        self._ahead = text + self._ahead

    def readline(self, limit: int) -> str:
        """A line with its ending (at \n, \r\n or \r), of at most `limit` characters."""
        if not self._ahead:
            return self._text.readline(limit)
        m = _LINE_END.search(self._ahead, 0, limit)
        if m is None:
            if len(self._ahead) >= limit:
                return self.read(limit)
            head, self._ahead = self._ahead, ""
            return head + self._text.readline(limit - len(head))
        end = m.end()
        if self._ahead[m.start()] == "\r":
            if end == len(self._ahead):  # a "\n" may follow in the stream
                self._ahead += self._text.read(1)
            if self._ahead.startswith("\n", end):
                end += 1
        return self.read(end)


def _bounded_lines(text: io.TextIOWrapper, path: Path | None = None,
                   report: LoadReport | None = None) -> Iterator[tuple[int, str]]:
    """(line number, line with its ending) of a text stream. A line of more than MAX_RECORD
    characters is passed over without being held, reported (when `report` is given) and given
    as "\n"; after _BLANK_RUN empty lines in a row, the rest of the run comes as items of up to
    a megabyte of line endings, numbered by their first line."""
    source = _Ahead(text)
    number = 0
    blanks = 0  # empty lines in a row
    while True:
        if blanks >= _BLANK_RUN:
            run, lines = _blank_run(source)
            if run:
                yield number + 1, run
                number += lines
                continue
            blanks = 0
        line = source.readline(MAX_RECORD + 2)
        if number == 0:  # byte-order marks past the one the codec takes (a file saved twice)
            line = line.lstrip(BOM)
        if not line:
            return
        number += 1
        if len(line) <= MAX_RECORD:  # short whatever its ending: the common case, kept cheap
            blanks = blanks + 1 if line[0] in "\r\n" else 0
            yield number, line
            continue
        blanks = 0
        end = next((e for e in _ENDS if line.endswith(e)), "")
        if len(line) - len(end) <= MAX_RECORD:
            yield number, line
            continue
        while not line.endswith("\n") and line:
            if line.endswith("\r"):  # the line's end, unless a "\n" follows
                after = source.read(1)
                if after != "\n":
                    source.put_back(after)
                break
            line = source.readline(_SKIP)
        if report is not None:
            report.add("record-too-long", path, number,
                       f"a line of more than {MAX_RECORD:,} characters, the most a record may "
                       "hold; not read")
        yield number, "\n"


def _blank_run(source: _Ahead) -> tuple[str, int]:
    """The line endings that come next, up to a megabyte of them, and how many lines they end
    (("", 0) when a line of text comes next); a "\r\n" is never cut in two. Counted, not
    matched: a run of "\n" (the common one) is one pass of str.count."""
    run = source.read(_SKIP)
    newlines = run.count("\n")
    if newlines == len(run):
        return run, newlines
    text = _NOT_ENDING.search(run)
    if text is not None:
        source.put_back(run[text.start():])
        run = run[:text.start()]
    elif run.endswith("\r"):
        after = source.read(1)
        if after == "\n":
            run += after
        else:
            source.put_back(after)
    return run, run.count("\n") + run.count("\r") - run.count("\r\n")


class Continued:
    """One field of a tagged export whose value goes on over the lines after its tag's (RIS,
    MEDLINE, Web of Science, EndNote and RefWorks tagged): its `lines` gathered, for the reader
    to join once at its end, since joining as it grows is quadratic (a 4 MB abstract in
    86-character lines took two minutes). Past MAX_RECORD characters the lines after its first
    are not kept: `cut` says so, and `report_cut` reports it."""

    __slots__ = ("lines", "size", "line", "last", "cut")

    def __init__(self, first: str, line: int):
        self.lines = [first]
        self.size = len(first)
        self.line = self.last = line
        self.cut = False

    def add(self, text: str, line: int) -> None:
        self.last = line
        if self.cut:
            return
        self.size += len(text) + 1
        if self.size > MAX_RECORD:
            self.cut, self.lines = True, self.lines[:1]
        else:
            self.lines.append(text)

    def report_cut(self, report: LoadReport, path: Path, tag: str) -> None:
        if self.cut:
            report.add("record-too-long", path, self.line,
                       f"the {tag} field over lines {self.line}-{self.last} of more than "
                       f"{MAX_RECORD:,} characters, the most a record may hold; only its first "
                       "line read")


def read_lines(path: Path, report: LoadReport, progress: Progress) -> Iterator[tuple[int, str]]:
    """(line number from 1, text with its line ending) for a plain or gzipped text file (see
    `TextFile.lines`)."""
    with TextFile(path, report, progress) as f:
        line_no = 0
        tick = TICK_LINES
        try:
            for line_no, text in f.lines():  # noqa: B007 - line_no used below
                yield line_no, text
                if line_no >= tick:
                    f.tick()
                    tick = line_no + TICK_LINES
        except UNREADABLE as exc:
            raise f.unreadable(line_no + 1, exc) from exc


def decode_bytes(data: bytes, path: Path, report: LoadReport) -> str:
    """A whole small file's bytes as text (UTF-8, or UTF-16 with its byte-order mark), reporting
    each line that is not valid UTF-8."""
    if encoding_of(data[:2]) == "utf-16":
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            report.add("invalid-utf8", path, None, "bytes that are not valid UTF-16 replaced by "
                                                   "U+FFFD")
            return data.decode("utf-16", errors="replace")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        _report_invalid_lines(data.splitlines(), path, report)
        text = data.decode("utf-8", errors="replace")
    return text.lstrip(BOM)


def _report_invalid_lines(lines: Iterable[bytes], path: Path, report: LoadReport) -> None:
    """Report each of a file's lines (numbered from 1) that is not valid UTF-8."""
    for line_no, line in enumerate(lines, 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            report.add("invalid-utf8", path, line_no, f"bytes that are not valid UTF-8 at "
                                                      f"column {exc.start + 1} replaced by U+FFFD")


def walk_files(folder: Path, skipped: list[tuple[Path, str]] | None = None) -> Iterator[Path]:
    """The regular files under a folder, lazily, folder by folder in sorted order.

    Hidden files and folders, anything that is not a regular file (a FIFO, a device), links to
    folders, links that leave the folder, and folders that cannot be read are left out, each
    added to `skipped` with the reason: a collection someone else prepared never pulls this
    machine's files (a link to /etc/passwd) into a model that may then be shared.
    """
    def note(path: Path, why: str) -> None:
        if skipped is not None:
            skipped.append((path, why))

    def unreadable(exc: OSError) -> None:
        note(Path(exc.filename or folder), f"folder not read: {exc.strerror or exc}")

    root = folder.resolve()
    for base, dirs, files in _walk(folder, unreadable):
        for d in sorted(dirs):
            if d.startswith("."):
                note(base / d, "hidden folder; not read")
            elif os.path.islink(base / d):  # _walk does not follow them
                note(base / d, f"a link to a folder ({os.readlink(base / d)}); not read")
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(base / d))
        for name in sorted(files):
            path = base / name
            if name.startswith("."):
                note(path, "hidden file; not read")
                continue
            if name == EDITS_FILE or name.endswith(f".{EDITS_FILE}"):
                if name != EDITS_FILE or base != folder:  # the folder's own edits are applied
                    note(path, "the people edits of the collection beside it; not read")
                continue
            try:
                target = outside(root, path)
            except OSError as exc:  # a link this user may not follow (/proc/1/cwd)
                note(path, f"a link that cannot be followed ({exc.strerror or exc}); not read")
                continue
            if target is not None:
                note(path, f"a link to {target}, outside the collection's folder; not read")
                continue
            try:
                mode = path.stat().st_mode
            except OSError as exc:
                note(path, f"not read: {exc.strerror or exc}")
                continue
            if stat.S_ISREG(mode):
                yield path
            else:
                note(path, f"{kind_of(mode)}; not read")


def _walk(top: Path, onerror: Callable[[OSError], None]
          ) -> Iterator[tuple[Path, list[str], list[str]]]:
    """`os.walk` from the top down, links to folders not followed, without recursion: Python
    3.11's recurses once per level, and a folder nested 1,000 deep raised RecursionError.
    The caller may prune `dirs` (in place) as with os.walk; they are visited in its order."""
    stack = [top]
    while stack:
        base = stack.pop()
        dirs, files = [], []
        try:
            with os.scandir(base) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
        except OSError as exc:
            onerror(exc)
            continue
        yield base, dirs, files
        stack.extend(base / d for d in reversed(dirs) if not os.path.islink(base / d))


def outside(root: Path, path: Path) -> Path | None:
    """Where `path`, a link, leads when that is outside the folder `root` (resolved); None for
    a file that is not a link, or whose link stays inside."""
    if not os.path.islink(path):  # (False too for a path too long to look at: opened, it fails)
        return None
    target = resolve(path)
    return None if target.is_relative_to(root) else target


def refuse_link_out(folder: Path, path: Path, cli_hint: str = "") -> None:
    """Raise CollectionError when `path`, a file a collection's folder names by its name, is a
    link out of the folder (the walk skips those; a file found by name cannot be skipped)."""
    try:
        target = outside(folder.resolve(), path)
    except OSError as exc:
        raise CollectionError(path, None, f"a link that cannot be followed "
                                          f"({exc.strerror or exc}); not read",
                              cli_hint=cli_hint) from exc
    if target is not None:
        raise CollectionError(path, None, f"a link to {target}, outside the collection's folder; "
                                          "not read", cli_hint=cli_hint)


def report_skipped(report: LoadReport, skipped: list[tuple[Path, str]]) -> None:
    for path, why in skipped:
        report.add("skipped-file", path, None, why)
