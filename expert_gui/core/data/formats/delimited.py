"""Rows of tab- or comma-separated files: lines split at the delimiter, with CSV-style quoting
where, and only where, it is valid.

A field that opens with `"` is a quoted field when it closes as CSV quoting does (a `"` followed
by the delimiter or the end of the line, inner quotes doubled); it may then hold delimiters and
line breaks. Otherwise its quotes are text and the line is read as it stands: a title that begins
with a quote never swallows the records after it. In a tab-separated file a quoted field never
takes in a line that holds a tab: that line is a record of its own. Every record that spans lines, every field
read with its quotes, and every record with more fields than the first one is reported with its
line, so nothing is merged or dropped silently (one empty field after the last, from a delimiter
ending the line, is not a field).

A header row is recognised by its column names; without one, columns are taken by position.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from expert_gui.core.data.formats.reading import (
    MAX_RECORD,
    TICK_LINES,
    UNREADABLE,
    Progress,
    TextFile,
)
from expert_gui.core.data.report import LoadReport

# Accepted header names for each role, first match wins.
DOC_ID_COLUMNS = ("doc_id", "docid", "docno", "document_id", "document", "id")
PERSON_ID_COLUMNS = ("person_id", "person", "author_id", "author", "candidate", "expert", "id")
NAME_COLUMNS = ("name", "display_name", "full_name")
TEXT_COLUMNS = ("title", "text", "abstract", "keywords", "body", "content")
PEOPLE_COLUMNS = ("people", "authors", "person_ids")
DATE_COLUMNS = ("date", "year", "timestamp")
# A person's (in a people file) or each author's (in a table of publications), split on ';'.
AFFILIATION_COLUMNS = ("affiliations", "affiliation")

_QUOTE = '"'
_LINE_ENDS = "\r\n"


def delimiter_of(path: Path) -> str:
    return "," if path.name.removesuffix(".gz").endswith(".csv") else "\t"


def read_rows(path: Path, report: LoadReport,
              progress: Progress) -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, fields) for every non-blank record of the file."""
    with TextFile(path, report, progress) as f:
        lines = _NumberedLines(f)
        try:
            yield from _records(lines, delimiter_of(path), path, report)
        except UNREADABLE as exc:
            raise f.unreadable(lines.last + 1, exc) from exc


def find_column(header: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first header cell (case-insensitive) that is one of `names`, by their order."""
    cells = [h.strip().lower() for h in header]
    for name in names:
        if name in cells:
            return cells.index(name)
    return None


class _NumberedLines:
    """Lines with their numbers, a pushback for lines a failed quoted field looked ahead at,
    and progress ticks."""

    def __init__(self, file: TextFile):
        self._file = file
        self._lines = file.lines()
        self._back: list[tuple[int, str]] = []
        self.last = 0
        self._tick = TICK_LINES

    def next(self) -> tuple[int, str] | None:
        if self._back:
            return self._back.pop()
        item = next(self._lines, None)
        if item is None:
            return None
        self.last = item[0]
        if self.last >= self._tick:
            self._file.tick()
            self._tick = self.last + TICK_LINES
        return item

    def push_back(self, lines: list[tuple[int, str]]) -> None:
        self._back.extend(reversed(lines))


def _records(lines: _NumberedLines, delimiter: str, path, report: LoadReport):
    """(first line, fields) of each record; see the module's docstring for the rules."""
    width = None  # the first record's number of fields
    single_line_until = 0  # lines a failed quoted field looked at: never opened again, so linear
    while (item := lines.next()) is not None:
        number, text = item
        if _QUOTE not in text:
            row = text.rstrip(_LINE_ENDS).split(delimiter)
        else:
            row, taken, too_long = _quoted_record(number, text, lines, delimiter, width,
                                                  allow_span=number > single_line_until)
            if too_long:
                report.add("record-too-long", path, number,
                           f"a quoted field runs from line {number} to line {taken} and holds "
                           f"more than {MAX_RECORD:,} characters, the most a record may hold; "
                           "not read (split the field, or check that its quotes close)")
                continue
            if row is None:  # no valid quoting: the line as it stands, quotes as text
                single_line_until = max(single_line_until, taken)
                row = text.rstrip(_LINE_ENDS).split(delimiter)
                report.add("quotes-as-text", path, number,
                           "a field opens with a quote that does not close as CSV quoting; "
                           "the line was read as it stands, quotes included")
            elif taken > number:
                report.add("multi-line-record", path, number,
                           f"a quoted field runs from line {number} to line {taken}; the "
                           "record was read as one (check that it swallowed no other record)")
        if len(row) == 1 and not row[0].strip():
            continue
        if width is None:
            width = len(row)
        elif len(row) == width + 1 and not row[-1]:
            row.pop()  # a delimiter ending the line (Web of Science ends every row with a tab)
        elif len(row) > width:
            report.add("field-count", path, number,
                       f"{len(row)} fields where the first record has {width}; the extra "
                       "fields are ignored")
        yield number, row


class _Quoted(NamedTuple):
    """What a record whose first line holds a quote is: its fields (None when its quoting is not
    CSV quoting), the last line it took, and whether it was too long to read."""

    fields: list[str] | None
    last: int
    too_long: bool = False


def _quoted_record(number: int, text: str, lines: _NumberedLines, delimiter: str,
                   width: int | None, allow_span: bool) -> _Quoted:
    """A record whose first line holds a quote.

    Its fields are None when its quoting is not valid CSV quoting (the lines it looked ahead at
    are pushed back). A quoted field may run over several lines only when `allow_span`, and then
    never runs through a line that on its own is a record of the first record's width (a title
    opening with a quote must not swallow the records after it; the line where it closes is not
    judged so, as it holds the rest of the record), and the record it makes must have that
    width. A record that grows past MAX_RECORD characters over its lines is passed
    over to the end of its quoted field, without being held, and reported too long.
    """
    fields: list[str] = []
    taken = [(number, text)]
    through: list[bool] = []  # for each line the field runs through: whether it is a record
    size = len(text)  # a record spanning lines holds at most MAX_RECORD characters too

    def not_quoting() -> _Quoted:
        lines.push_back(taken[1:])
        return _Quoted(None, taken[-1][0])

    pos = 0
    while True:
        if text.startswith(_QUOTE, pos):  # a quoted field
            parts = []
            pos += 1
            while True:
                q = text.find(_QUOTE, pos)
                if len(taken) > 1 and delimiter == "\t" and \
                        "\t" in (text[pos:] if q < 0 else text[pos:q]):
                    return not_quoting()
                if q < 0:  # runs on to the next line
                    if size > MAX_RECORD:
                        return _Quoted(None, _skip_quoted(lines, delimiter, taken[-1][0]), True)
                    parts.append(text[pos:])
                    if len(taken) > 1 and text.strip():
                        through.append(_is_record(text, width, delimiter))
                    item = lines.next() if allow_span else None
                    if item is not None:
                        taken.append(item)
                    if item is None or (width is not None and len(fields) >= width):
                        return not_quoting()
                    text, pos = item[1], 0
                    size += len(text)
                    continue
                parts.append(text[pos:q])
                after = text[q + 1:q + 2]
                if after == _QUOTE:
                    parts.append(_QUOTE)
                    pos = q + 2
                    continue
                if after == delimiter or after in ("", "\r", "\n"):
                    break
                return not_quoting()
            fields.append("".join(parts))
            pos = q + 1
            if after != delimiter:
                break
            pos += 1
        else:  # a plain field, quotes inside it are text
            end = text.find(delimiter, pos)
            if end < 0:
                fields.append(text[pos:].rstrip(_LINE_ENDS))
                break
            fields.append(text[pos:end])
            pos = end + 1
    if len(taken) > 1 and width is not None:
        if not _is_record(fields, width):
            return not_quoting()
        if through and all(through) and _is_record(text, width, delimiter) and \
                _is_record(taken[0][1], width, delimiter, at_least=True):
            return not_quoting()  # records, each on its line, swallowed by a stray quote
    return _Quoted(fields, taken[-1][0])


def _is_record(fields: list[str] | str, width: int | None, delimiter: str = "",
               at_least: bool = False) -> bool:
    """Whether `fields` (or a line split at `delimiter`) are a record's: `width` of them (at
    least `width` when `at_least`), or one more left empty by a delimiter ending the line."""
    if width is None:
        return False
    if isinstance(fields, str):
        n = fields.count(delimiter) + 1
        trailing = fields.rstrip(_LINE_ENDS).endswith(delimiter)
    else:
        n, trailing = len(fields), not fields[-1]
    n -= n == width + 1 and trailing
    return n >= width if at_least else n == width


def _skip_quoted(lines: _NumberedLines, delimiter: str, last: int) -> int:
    """Pass over the lines of a quoted field that runs on from line `last`, holding none, to
    the line where it closes (or the end of the file); that line's number."""
    while (item := lines.next()) is not None:
        last, text = item
        pos = 0
        while (q := text.find(_QUOTE, pos)) >= 0:
            after = text[q + 1:q + 2]
            if after == _QUOTE:
                pos = q + 2
            elif after == delimiter or after in ("", "\r", "\n"):
                return last
            else:
                pos = q + 1
    return last
