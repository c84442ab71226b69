"""The first sheet of an Excel workbook (.xlsx) as rows of text, read within bounds.

A workbook is a zip of XML parts, and a few kilobytes of it can describe gigabytes: 4 GB of empty
rows in 8 MB (read whole, 23.7 GB of memory before the kernel killed the load), one cell in
column XFD and one in row 1,048,576 (every row padded to 16,384 cells and every row before the
last filled in), one shared string of 2 GB. So each part's inflated size, which the zip declares
and zipfile holds it to (a part that inflates past it fails its CRC), is checked against its
bound before the part is opened; the sheet and its shared strings are then streamed with expat,
holding one row at a time and no more than MAX_RECORD characters of it (a longer row is reported
with its number, as a longer line is); rows come as the file has them: a missing row is not
filled in, and each row holds the cells under the header's named columns, in their order, so
a cell in column XFD costs what a cell in column B does.

openpyxl reads the small parts (which sheet comes first, where its strings are, which styles are
dates) and converts the values, so numbers and dates read as they did through openpyxl.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from expert_gui.core.data.formats import reading
from expert_gui.core.data.formats.reading import MAX_RECORD, Progress
from expert_gui.core.data.formats.xmlrecords import unfinished
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError, byte_size

# The most the first sheet may inflate to. It is streamed, a row at a time, so this bounds time,
# not memory: a gigabyte of sheet XML (about 30 million cells) takes minutes.
MAX_SHEET_BYTES = 1 << 30
# The most the shared strings may inflate to: they are held for the whole sheet (a cell names one
# by its number), about their XML's size in memory; a 50,000-record export with abstracts holds
# about 100 MB of them.
MAX_STRINGS_BYTES = 1 << 28
# The most any other part read may inflate to: the workbook, its relationships, the styles and
# the content types are parsed whole by openpyxl, at some 20 times their size in memory; a real
# one is well under a megabyte.
MAX_PART_BYTES = 1 << 24
# Excel's own limits: a sheet has at most 1,048,576 rows and 16,384 columns (A to XFD). A cell
# past them is not one Excel wrote, and would make the reader count a billion empty rows.
MAX_ROWS = 1 << 20
MAX_COLUMNS = 1 << 14
_WAY_ROUND = ("save the sheet as CSV (UTF-8), which is read a line at a time with no such "
              "bound, or split the workbook")
_CHUNK = 1 << 16  # bytes of XML fed to expat at a time
_TOO_LONG = object()  # a shared string of more than MAX_RECORD characters, not held


def sheet_rows(path: Path, report: LoadReport,
               progress: Progress) -> Iterator[tuple[int, list[str]]]:
    """(row number, cells as text) for each row of the first sheet that holds any text; numbers
    as written, dates in ISO form. The first such row is the header, its named cells only; each
    later row holds its cells under those names, in their order (a cell under no name is not
    kept: nothing could read it)."""
    with open_regular(path, CollectionError) as f:
        try:
            archive = _BoundedZip(f, path)
            book = _workbook(archive, path)
            if book is None:
                raise CollectionError(path, None, "expected a sheet in the workbook")
            sheet_name, strings_name, styles = book
            strings = _shared_strings(archive, strings_name) if strings_name else []
            with archive.open(sheet_name) as sheet:
                yield from _SheetReader(path, report, progress, strings, *styles).rows(sheet)
        except CollectionError:
            raise
        except Exception as exc:  # a zip, XML or workbook error: they have no common base
            raise CollectionError(path, None, f"expected an Excel workbook (.xlsx): {exc}") \
                from exc


class _BoundedZip(zipfile.ZipFile):
    """A zip whose parts are refused, before they are inflated, when they would inflate past
    their bounds (the sheet's and the strings' are set once the workbook names them)."""

    def __init__(self, file, path: Path):
        super().__init__(file)
        self.path = path
        self.bounds: dict[str, tuple[int, str]] = {}

    def open(self, name, mode="r", pwd=None, *, force_zip64=False):
        info = name if isinstance(name, zipfile.ZipInfo) else self.getinfo(name)
        limit, what = self.bounds.get(info.filename, (MAX_PART_BYTES, "a workbook's part"))
        if info.file_size > limit:
            raise CollectionError(
                self.path, None, f"its part {info.filename} inflates to "
                f"{byte_size(info.file_size)}, more than the {byte_size(limit)} {what} may; "
                + _WAY_ROUND)
        return super().open(info, mode, pwd, force_zip64=force_zip64)


def _workbook(archive: _BoundedZip, path: Path) -> tuple[str, str, tuple] | None:
    """The first worksheet's part, the shared strings' part ('' when none), and what converts
    values (the styles that are dates and durations, the workbook's epoch); None without a
    worksheet. As openpyxl's ExcelReader finds them, reading only these parts."""
    from openpyxl.packaging.manifest import Manifest
    from openpyxl.reader.excel import _find_workbook_part
    from openpyxl.reader.workbook import WorkbookParser
    from openpyxl.styles.stylesheet import apply_stylesheet
    from openpyxl.xml.constants import ARC_CONTENT_TYPES, SHARED_STRINGS
    from openpyxl.xml.functions import fromstring

    package = Manifest.from_tree(fromstring(archive.read(ARC_CONTENT_TYPES)))
    parser = WorkbookParser(archive, _find_workbook_part(package).PartName[1:],
                            keep_links=False)
    parser.parse()
    apply_stylesheet(archive, parser.wb)
    names = set(archive.namelist())
    sheet = next((rel.target for _, rel in parser.find_sheets()
                  if rel.target in names and "chartsheet" not in rel.Type), None)
    if sheet is None:
        return None
    strings = package.find(SHARED_STRINGS)
    strings_name = strings.PartName[1:] if strings is not None else ""
    archive.bounds = {sheet: (MAX_SHEET_BYTES, "a sheet"),
                      strings_name: (MAX_STRINGS_BYTES, "the shared strings")}
    wb = parser.wb
    return sheet, strings_name, (wb._date_formats, wb._timedelta_formats, wb.epoch)


def _parser(start, end, text) -> expat.XMLParserType:
    """An expat parser calling back with local names; a part with a DTD is refused (entities
    could expand without bound, and no workbook part has one)."""
    def no_dtd(*args):
        raise ValueError("a workbook part with a document type declaration")

    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.StartDoctypeDeclHandler = no_dtd
    parser.StartElementHandler = lambda name, attrs: start(name.rpartition("}")[2], attrs)
    parser.EndElementHandler = lambda name: end(name.rpartition("}")[2])
    parser.CharacterDataHandler = text
    return parser


def _shared_strings(archive: _BoundedZip, name: str) -> list:
    """The shared strings, each the text of its plain and rich runs (phonetic guides left out,
    as openpyxl leaves them); one of more than MAX_RECORD characters is _TOO_LONG, not held."""
    strings: list = []
    state = {"chunks": None, "size": 0, "in_t": False, "phonetic": 0}

    def start(tag, attrs):
        if tag == "si":
            state["chunks"], state["size"] = [], 0
        elif tag == "rPh":
            state["phonetic"] += 1
        elif tag == "t" and not state["phonetic"]:
            state["in_t"] = True

    def end(tag):
        if tag == "si":
            chunks = state["chunks"]
            strings.append(_TOO_LONG if chunks is None else
                           "".join(chunks).replace("x005F_", ""))
            state["chunks"] = None
        elif tag == "rPh":
            state["phonetic"] -= 1
        elif tag == "t":
            state["in_t"] = False

    def text(data):
        if state["in_t"] and state["chunks"] is not None:
            state["size"] += len(data)
            if state["size"] > MAX_RECORD:
                state["chunks"] = None  # one string, longer than any record: not held
            else:
                state["chunks"].append(data)

    with archive.open(name) as f:
        for _ in _parsed(_parser(start, end, text), f, archive.path, name):
            pass
    return strings


def _parsed(parser: expat.XMLParserType, part, path: Path, name: str) -> Iterator[None]:
    """Feed a part to `parser`, a chunk at a time (longer while a token is unfinished:
    `unfinished`), yielding after each; markup longer than a record may be, which no workbook
    writes, is refused."""
    fed, pending = 0, 0
    while chunk := part.read(max(_CHUNK, pending)):
        parser.Parse(chunk, False)
        yield
        fed += len(chunk)
        pending = unfinished(parser, fed)
        if pending > reading.MAX_RECORD:
            raise CollectionError(path, None, f"its part {name} holds markup (a tag, its "
                                  f"attributes) of more than {reading.MAX_RECORD:,} bytes: not a "
                                  "workbook Excel wrote; " + _WAY_ROUND)
    parser.Parse(b"", True)


class _SheetReader:
    """A sheet's rows from expat's events: each row's cells as text, keyed by column, emitted
    at the row's end."""

    def __init__(self, path: Path, report: LoadReport, progress: Progress, strings: list,
                 date_formats, timedelta_formats, epoch):
        self.path, self.report, self.progress = path, report, progress
        from openpyxl.utils.datetime import from_excel, from_ISO8601
        from openpyxl.worksheet._reader import _cast_number

        self.strings = strings
        self.date_formats, self.timedelta_formats, self.epoch = \
            date_formats, timedelta_formats, epoch
        self.converters = from_excel, from_ISO8601, _cast_number
        self.done: list[tuple[int, list[str]]] = []  # rows ended, not yet given
        self.named: dict[int, int] | None = None  # the header's named columns -> position
        self.number = 0  # of the row being read
        self.cells: dict[int, str] | None = None  # None outside a row
        self.column = 0
        self.count = 0  # cells of the row so far
        self.size = 0  # characters of the row held so far
        self.too_long = False
        self.cell: tuple[int, str, int] | None = None  # column, type, style of the open cell
        self.chunks: list[str] | None = None  # the open cell's text, once it has a <v> or <t>
        self.collecting = False  # inside that <v> or <t>
        self.phonetic = 0

    def rows(self, sheet) -> Iterator[tuple[int, list[str]]]:
        for _ in _parsed(_parser(self.start, self.end, self.text), sheet, self.path, sheet.name):
            yield from self.done
            self.done.clear()
            self.progress.advance(0, f"reading {self.path.name}")  # rate-limited; stop flag
        yield from self.done

    def start(self, tag, attrs):
        if tag == "row":
            self.number = int(attrs["r"]) if "r" in attrs else self.number + 1
            if not 1 <= self.number <= MAX_ROWS:
                raise CollectionError(self.path, None, f"row {self.number:,} of the sheet lies "
                                      f"past Excel's last, row {MAX_ROWS:,}: not a sheet Excel "
                                      "wrote; " + _WAY_ROUND)
            self.cells, self.column, self.count, self.size, self.too_long = {}, 0, 0, 0, False
        elif self.cells is None:
            return
        elif tag == "c":
            self.count += 1
            self.column = _column(attrs["r"]) if "r" in attrs else self.column + 1
            if self.count > MAX_COLUMNS or not 1 <= self.column <= MAX_COLUMNS:
                raise CollectionError(self.path, None, f"row {self.number:,} has a cell past "
                                      f"Excel's last column, XFD ({MAX_COLUMNS:,}): not a "
                                      "sheet Excel wrote; " + _WAY_ROUND)
            self.cell = (self.column, attrs.get("t", "n"), int(attrs.get("s") or 0))
        elif tag == "rPh":
            self.phonetic += 1
        elif self.cell is not None and not self.phonetic and (
                tag == "v" or tag == "t" and self.cell[1] == "inlineStr"):
            self.chunks = [] if self.chunks is None else self.chunks
            self.collecting = True

    def end(self, tag):
        if tag == "row" and self.cells is not None:
            self._end_row()
        elif tag == "c" and self.cell is not None:
            chunks, self.chunks = self.chunks, None
            if chunks is not None and not self.too_long:
                self._keep(self._value("".join(chunks)))
            self.cell = None
        elif tag == "rPh":
            self.phonetic -= 1
        elif tag in ("v", "t"):
            self.collecting = False

    def text(self, data):
        if self.collecting and self.chunks is not None and not self.too_long:
            self.size += len(data)
            if self.size > MAX_RECORD:
                self.too_long, self.chunks = True, None
            else:
                self.chunks.append(data)

    def _value(self, raw: str) -> str:
        """A cell's text from what the file holds (as openpyxl's WorkSheetParser.parse_cell
        reads values), or _TOO_LONG."""
        from_excel, from_iso8601, cast_number = self.converters
        _, kind, style = self.cell
        if not raw:  # <v/>: no value, whatever the type says
            return ""
        if kind == "s":
            try:
                return self.strings[int(raw)]
            except (ValueError, IndexError):
                raise CollectionError(self.path, None, f"row {self.number:,}: a cell names "
                                      f"shared string {raw[:20]!r}, which the workbook does not "
                                      "have") from None
        if kind == "b":
            return "True" if raw.strip() not in ("", "0") else "False"
        if kind == "d":
            return _text(from_iso8601(raw))
        if kind != "n":
            return raw
        try:
            value = cast_number(raw)
        except ValueError:  # more digits than Python converts: the number as written
            return raw
        if style in self.date_formats:
            try:
                return _text(from_excel(value, self.epoch,
                                        timedelta=style in self.timedelta_formats))
            except (OverflowError, ValueError):
                return "#VALUE!"
        return _text(value)

    def _keep(self, value) -> None:
        if value is _TOO_LONG:
            self.too_long = True
            return
        self.size += len(value)
        if self.size > MAX_RECORD:
            self.too_long = True
        elif value and (self.named is None or self.cell[0] in self.named):
            self.cells[self.cell[0]] = value

    def _end_row(self) -> None:
        cells, self.cells = self.cells, None
        if self.too_long:
            self.report.add("record-too-long", self.path, self.number,
                            f"a row of more than {MAX_RECORD:,} characters, the most a record "
                            "may hold; not read")
            return
        if not any(v.strip() for v in cells.values()):
            return
        if self.named is None:  # the header
            self.named = {column: i for i, column in enumerate(sorted(cells))}
        row = [""] * len(self.named)
        for column, value in cells.items():
            row[self.named[column]] = value
        while not row[-1]:
            row.pop()
        self.done.append((self.number, row))


def _column(reference: str) -> int:
    """The column of a cell reference ("XFD1048576" -> 16,384); 0 when it names none."""
    column = 0
    for c in reference:
        if "A" <= c <= "Z":
            column = column * 26 + ord(c) - 64
            if column > MAX_COLUMNS:
                return column
        elif "a" <= c <= "z":
            column = column * 26 + ord(c) - 96
            if column > MAX_COLUMNS:
                return column
        else:
            break
    return column


def _text(value) -> str:
    """A value as text: whole floats without '.0', dates in ISO form."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)
