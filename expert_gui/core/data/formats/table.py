"""One table of publications: a CSV, TSV or Excel (.xlsx) file, a row per document, whose header
names a text column and a people column (`title,abstract,authors,year`), as librarians have them,
or is a known export's (presets.py: Zotero, Scopus of every vintage, Web of Science tab-delimited
and Excel, Lens, Publish or Perish, IEEE, PubMed).

The people of a row are split on `;` (or `|`) and each name is read as every reader reads names
("Van Gysel, Christophe" and "Christophe Van Gysel" are both `christophe-van-gysel`). Without
an id column, a document's id is the file's name and the row's line (`publications:2`). Web of
Science's tab-delimited `savedrecs.txt` is told by its header, in UTF-8 or UTF-16.

`columns` (a `TableColumns`) overrides what the header suggests; the GUI shows the detected
columns in a preview and lets the user change them. A header with no columns to go by is refused
with the columns it has and the options that name them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibliography import Bibliography
from expert_gui.core.data.formats.delimited import TEXT_COLUMNS, read_rows
from expert_gui.core.data.formats.presets import (
    PEOPLE_COLUMNS,
    RowReader,
    TableColumns,
    detect_columns,
)
from expert_gui.core.data.formats.reading import Progress, file_state, total_size
from expert_gui.core.data.formats.sniff import TABLE_SUFFIXES, export_kind, only_table
from expert_gui.core.data.formats.xlsx import sheet_rows
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

NAME = "table"
PREVIEW_ROWS = 20
# Rows looked at after a first row that is no header, for the header (Ovid's copyright line).
_PREAMBLE_ROWS = 4
# Header cells named in an error about unrecognised columns.
_SHOWN_COLUMNS = 30


@dataclass
class TablePreview:
    """The header and first rows of a table, and the columns detected in it (None: none fit)."""

    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    columns: TableColumns | None = None


def is_table_file(path: Path) -> bool:
    """A .csv, .tsv or .xlsx file that is a table (not Embase's one-field-a-row CSV)."""
    return path.name.lower().endswith(TABLE_SUFFIXES) and export_kind(path) == "table"


def looks_like(path: Path) -> bool:
    """A table file (by its name, or a known export's header), or a folder holding exactly one
    table file whose header fits."""
    if not path.is_dir():
        return export_kind(path) == "table"
    table = table_file(path)
    if table is None:
        return False
    try:
        return preview(table, rows=0).columns is not None
    except CollectionError:
        return False


def table_file(path: Path) -> Path | None:
    """The table file a path opens as: itself, or the only table file of a folder that holds
    no other export (its sub-folders' included: those are a folder of exports)."""
    return only_table(path) if path.is_dir() else path


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
    records = _records(table_file(path) or path, LoadReport(), Progress())
    try:
        head, _, rest = _header(records, lambda row: detect_columns(row) is not None)
        shown = [row for _, row in islice(rest, rows)]
    finally:
        records.close()
    header = head[1] if head else []
    return TablePreview(header, shown, detect_columns(header))


def _header(records: Iterator[tuple[int, list[str]]], fits: Callable[[list[str]], bool]):
    """The header row (line, cells; None for an empty table), the lines before it, and the rows
    after it: the first row, unless it does not `fit` and one of the next few rows does (Ovid
    writes a copyright line before its header)."""
    first = next(records, None)
    if first is None or fits(first[1]):
        return first, [], records
    seen = [first]
    for item in islice(records, _PREAMBLE_ROWS):
        if fits(item[1]):
            return item, [line for line, _ in seen], records
        seen.append(item)
    return first, [], chain(seen[1:], records)


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress, columns: TableColumns | None = None) -> None:
    table = _input(path, associations, people)
    progress.total = total_size([table])
    bibliography = Bibliography(builder)
    read_records(table, bibliography, progress, columns)
    bibliography.finish()


def read_records(path: Path, bibliography: Bibliography, progress: Progress,
                 columns: TableColumns | None = None) -> None:
    records = _records(path, bibliography.report, progress)
    try:
        if columns is None:
            fits = lambda row: detect_columns(row) is not None  # noqa: E731
        else:  # the columns given name the header: its people, or its text (papers alone)
            wanted = {columns.people} if columns.people else set(columns.text)
            fits = lambda row: wanted <= {c.strip() for c in row}  # noqa: E731
        first, before, rest = _header(records, fits)
        if first is None:
            raise CollectionError(path, None, "expected a header row; the table is empty")
        line, header = first
        columns = columns or detect_columns(header)
        if columns is None:
            raise _unrecognised(path, line, header)
        if before:
            bibliography.report.add("preamble", path, before[0],
                                    f"{len(before)} line(s) before the header (line {line}), "
                                    "such as a copyright notice, not read")
        rows_into(rest, header, columns, path, line, bibliography)
    finally:
        records.close()


def _unrecognised(path: Path, line: int, header: list[str]) -> CollectionError:
    """The error for a header whose columns are not recognised: what it has, what to name."""
    cells = [h.strip() for h in header if h.strip()]
    found = ", ".join(map(repr, cells[:_SHOWN_COLUMNS])) + (
        f" and {len(cells) - _SHOWN_COLUMNS} more" if len(cells) > _SHOWN_COLUMNS else "")
    text = detect_columns(header, need_people=False)
    if text is not None:
        return CollectionError(
            path, line, f"expected a people column (one of {', '.join(PEOPLE_COLUMNS)}) beside "
            f"the text columns {', '.join(text.text)}; the header has {found or 'no names'}",
            cli_hint="--people-column NAME")
    return CollectionError(
        path, line, "expected a header naming a text column (" + ", ".join(TEXT_COLUMNS)
        + ") and a people column (" + ", ".join(PEOPLE_COLUMNS) + f"); the header has "
        f"{found or 'no names'}", cli_hint="--text-columns A,B --people-column NAME "
                                           "[--id-column NAME]")


def read_rows_into(records: Iterator[tuple[int, list[str]]], header: list[str],
                   columns: TableColumns, path: Path, header_line: int,
                   builder: CollectionBuilder) -> None:
    """The folder format's documents file read as a table (its people may come from an
    associations file instead, `columns.people` empty); its rows are never merged, since
    associations name them by id."""
    bibliography = Bibliography(builder, merge=False)
    rows_into(records, header, columns, path, header_line, bibliography)
    bibliography.finish()


def rows_into(records: Iterator[tuple[int, list[str]]], header: list[str],
              columns: TableColumns, path: Path, header_line: int,
              bibliography: Bibliography) -> None:
    cells = [h.strip() for h in header]
    missing = [c for c in (*columns.text, columns.people, columns.id, columns.date)
               if c and c not in cells]
    if missing:
        raise CollectionError(path, header_line, "the header has no column "
                              + ", ".join(map(repr, missing)))
    rows = RowReader(cells, columns, str(path), bibliography.cleaner(path), bibliography.report)
    for line, row in records:
        bibliography.add(rows.record(line, row))
    rows.finish()


def _records(path: Path, report: LoadReport, progress: Progress) -> Iterator[tuple[int, list[str]]]:
    """(line or row number, cells) of a delimited file or of an .xlsx workbook's first sheet."""
    if path.name.lower().endswith(".xlsx"):
        return sheet_rows(path, report, progress)
    return read_rows(path, report, progress)
