"""One table of publications: a CSV, TSV or Excel (.xlsx) file, a row per document, whose header
names a text column and a people column (`title,abstract,authors,year`), as librarians have them.

The people of a row are split on `;` (or `|`) and each name is normalised as the BibTeX reader
does ("Van Gysel, Christophe" and "Christophe Van Gysel" are both `christophe-van-gysel`).
Without an id column, a document's id is the file's name and the row's line (`publications:2`).
Two exports are named presets, read in their exact layouts: Zotero's CSV (`Key`, `Author` as
"Last, First; ...", `Title`, `Abstract Note`, `Manual Tags`) and Scopus's CSV (`EID`, `Title`,
`Abstract`, `Author Keywords`, and `Author full names` as "Last, First (author id); ...", whose
Scopus author ids are the people's ids, so namesakes stay apart).

`columns` (a `TableColumns`) overrides what the header suggests; the GUI shows the detected
columns in a preview and lets the user change them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from itertools import islice, takewhile
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibtex import person_from_text
from expert_gui.core.data.formats.delimited import (
    DATE_COLUMNS,
    DOC_ID_COLUMNS,
    TEXT_COLUMNS,
    find_column,
    read_rows,
)
from expert_gui.core.data.formats.reading import Progress, file_state, walk_files
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.errors import CollectionError

NAME = "table"
SUFFIXES = (".csv", ".tsv", ".xlsx", ".csv.gz", ".tsv.gz")
PEOPLE_COLUMNS = ("people", "authors", "author", "creators", "persons", "experts", "person_ids")
# People columns as they come: names to be normalised, Scopus's names with author ids, or ids.
PEOPLE_STYLES = ("names", "scopus", "ids")
_SEPARATORS = re.compile(r"[;|]")
_SCOPUS_NAME = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")
PREVIEW_ROWS = 20


@dataclass(frozen=True)
class TableColumns:
    """Which header cells say what: the text (joined in this order), the people, the id (None:
    ids made from the row's line), the date (None: undated), and how the people are written."""

    text: tuple[str, ...]
    people: str
    id: str | None = None
    people_style: str = "names"
    preset: str = ""
    date: str | None = None

    def __post_init__(self):
        if not self.text:
            raise ValueError("a table needs at least one text column")
        if self.people_style not in PEOPLE_STYLES:
            raise ValueError(f"people_style must be one of {PEOPLE_STYLES}")

    def to_dict(self) -> dict:
        return asdict(self)


PRESETS = {
    "zotero": TableColumns(text=("Title", "Abstract Note", "Manual Tags"), people="Author",
                           id="Key", preset="zotero", date="Publication Year"),
    "scopus": TableColumns(text=("Title", "Abstract", "Author Keywords"),
                           people="Author full names", id="EID", people_style="scopus",
                           preset="scopus", date="Year"),
}
# Header cells that only each export has: a header holding all of them is that export.
_PRESET_MARKS = {"zotero": ("Key", "Item Type", "Abstract Note", "Author"),
                 "scopus": ("Author full names", "Author(s) ID", "EID")}


@dataclass
class TablePreview:
    """The header and first rows of a table, and the columns detected in it (None: none fit)."""

    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    columns: TableColumns | None = None


def detect_columns(header: list[str], need_people: bool = True) -> TableColumns | None:
    """A preset when the header is that export's, else the first id, text and people columns
    by name (case-insensitive); None without a text column, or without a people column when
    one is needed."""
    cells = [h.strip() for h in header]
    for name, marks in _PRESET_MARKS.items():
        if all(m in cells for m in marks):
            return PRESETS[name]
    text = tuple(c for c in cells if c.lower() in TEXT_COLUMNS)
    people, ident, date = (_named(cells, names)
                           for names in (PEOPLE_COLUMNS, DOC_ID_COLUMNS, DATE_COLUMNS))
    if not text or (people is None and need_people):
        return None
    return TableColumns(text=text, people=people or "", id=ident, date=date)


def _named(cells: list[str], names: tuple[str, ...]) -> str | None:
    """The header cell of the first of `names` that the header has."""
    i = find_column(cells, names)
    return None if i is None else cells[i]


def is_table_file(path: Path) -> bool:
    return path.name.lower().endswith(SUFFIXES)


def looks_like(path: Path) -> bool:
    """A table file whose header fits, or a folder holding exactly one such file."""
    table = table_file(path)
    if table is None:
        return False
    try:
        return preview(table, rows=0).columns is not None
    except CollectionError:
        return False


def table_file(path: Path) -> Path | None:
    """The table file a path opens as: itself, or the only table file of a folder."""
    if not path.is_dir():
        return path if is_table_file(path) else None
    # walk_files yields the folder's own files first: stop there, not after walking the tree
    top = takewhile(lambda f: f.parent == path, walk_files(path))
    found = [f for f in top if is_table_file(f)]
    return found[0] if len(found) == 1 else None


def sources(path: Path, associations: Path | None, people: Path | None,
            columns: TableColumns | None = None) -> list[str]:
    table = _input(path, associations, people)
    chosen = [json.dumps(columns.to_dict(), sort_keys=True)] if columns is not None else []
    return [file_state(table), *chosen]


def _input(path: Path, associations: Path | None, people: Path | None) -> Path:
    if associations is not None or people is not None:
        raise CollectionError(path, None, "a table names its own people; --associations and "
                                          "--people do not apply")
    table = table_file(path)
    if table is None:
        raise CollectionError(path, None, "expected a .csv, .tsv or .xlsx table (or a folder "
                                          "holding one)")
    return table


def preview(path: Path, rows: int = PREVIEW_ROWS) -> TablePreview:
    """The header, the first `rows` rows and the detected columns; for the GUI's preview."""
    records = _records(table_file(path) or path, CollectionBuilder().report, Progress())
    try:
        _, header = next(records, (0, []))
        shown = [row for _, row in islice(records, rows)]
    finally:
        records.close()
    return TablePreview(header, shown, detect_columns(header))


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress, columns: TableColumns | None = None) -> None:
    table = _input(path, associations, people)
    progress.total = table.stat().st_size
    records = _records(table, builder.report, progress)
    try:
        first = next(records, None)
        if first is None:
            raise CollectionError(table, None, "expected a header row; the table is empty")
        line, header = first
        columns = columns or detect_columns(header)
        if columns is None:
            raise CollectionError(table, line, "expected a header naming a text column ("
                                  + ", ".join(TEXT_COLUMNS) + ") and a people column ("
                                  + ", ".join(PEOPLE_COLUMNS) + ")")
        read_rows_into(records, header, columns, table, line, builder)
    finally:
        records.close()


def read_rows_into(records: Iterator[tuple[int, list[str]]], header: list[str],
                   columns: TableColumns, path: Path, header_line: int,
                   builder: CollectionBuilder) -> None:
    """Documents from a table's rows; also the folder format's documents file, whose people
    may come from an associations file instead (`columns.people` empty)."""
    cells = [h.strip() for h in header]
    missing = [c for c in (*columns.text, columns.people, columns.id, columns.date)
               if c and c not in cells]
    if missing:
        raise CollectionError(path, header_line, "the header has no column "
                              + ", ".join(map(repr, missing)))
    text = [cells.index(c) for c in columns.text]
    who = cells.index(columns.people) if columns.people else None
    ident = cells.index(columns.id) if columns.id else None
    when = cells.index(columns.date) if columns.date else None
    stem = path.name.split(".")[0]
    where = str(path)
    for line, row in records:
        row = row + [""] * (len(cells) - len(row))
        doc_id = row[ident].strip() if ident is not None else f"{stem}:{line}"
        if not doc_id:
            doc_id = f"{stem}:{line}"
            builder.report.add("generated-id", path, line, f"no {columns.id!r}; the document "
                                                           f"is called {doc_id!r}")
        people = _people(row[who], columns.people_style, builder, where, line) \
            if who is not None else []
        builder.add_document(doc_id, "\n".join(row[k] for k in text if row[k].strip()), where,
                             line, people=people, date=row[when] if when is not None else "")


def _people(cell: str, style: str, builder: CollectionBuilder, where: str,
            line: int) -> list[str]:
    out = []
    for name in (n.strip() for n in _SEPARATORS.split(cell)):
        if not name:
            continue
        if style == "ids":
            out.append(name)
            continue
        scopus = _SCOPUS_NAME.match(name) if style == "scopus" else None
        if scopus is not None:
            person_id, display = f"scopus:{scopus.group(2)}", person_from_text(scopus.group(1))[1]
        else:
            person_id, display = person_from_text(name)
        if person_id:
            builder.add_person(person_id, display, where, line)
            out.append(person_id)
    return out


def _records(path: Path, report, progress: Progress) -> Iterator[tuple[int, list[str]]]:
    """(line or row number, cells) of a delimited file or of an .xlsx workbook's first sheet."""
    if path.name.lower().endswith(".xlsx"):
        return _xlsx_rows(path, progress)
    return read_rows(path, report, progress)


def _xlsx_rows(path: Path, progress: Progress) -> Iterator[tuple[int, list[str]]]:
    """The rows of a workbook's first sheet as text (numbers as written, dates in ISO form)."""
    import openpyxl

    with open_regular(path, CollectionError) as f:
        try:
            book = openpyxl.load_workbook(f, read_only=True, data_only=True)
        except Exception as exc:  # a zip, XML or workbook error: openpyxl has no common base
            raise CollectionError(path, None, f"expected an Excel workbook (.xlsx): {exc}") \
                from exc
        try:
            sheet = book.worksheets[0] if book.worksheets else None
            if sheet is None:
                raise CollectionError(path, None, "expected a sheet in the workbook")
            for number, values in enumerate(sheet.iter_rows(values_only=True), 1):
                cells = [_cell_text(v) for v in values]
                if any(c.strip() for c in cells):
                    yield number, cells
                if number % 1024 == 0:
                    progress.event(f"reading {path.name}")
        except CollectionError:
            raise
        except Exception as exc:
            raise CollectionError(path, None, f"expected an Excel workbook (.xlsx): {exc}") \
                from exc
        finally:
            book.close()


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)
