"""Rows of tab- or comma-separated files through the csv module (quoting, embedded newlines).

A header row is recognised by its column names; without one, columns are taken by position.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from expert_gui.core.collection import LoadReport
from expert_gui.core.errors import CollectionError
from expert_gui.core.formats.reading import UNREADABLE, Progress, TextFile

# A field may hold a whole document; the limit is a C long on every platform (Windows: 32 bits).
_FIELD_LIMIT = 2**31 - 1

# Accepted header names for each role, first match wins.
DOC_ID_COLUMNS = ("doc_id", "docid", "docno", "document_id", "document", "id")
PERSON_ID_COLUMNS = ("person_id", "person", "author_id", "author", "candidate", "expert", "id")
NAME_COLUMNS = ("name", "display_name", "full_name")
TEXT_COLUMNS = ("title", "text", "abstract", "keywords", "body", "content")
PEOPLE_COLUMNS = ("people", "authors", "person_ids")
DATE_COLUMNS = ("date", "year", "timestamp")


def delimiter_of(path: Path) -> str:
    return "," if path.name.removesuffix(".gz").endswith(".csv") else "\t"


def read_rows(path: Path, report: LoadReport,
              progress: Progress) -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, fields) for every non-blank record of the file."""
    csv.field_size_limit(_FIELD_LIMIT)
    with TextFile(path, report, progress) as f:
        reader = csv.reader(f.text, delimiter=delimiter_of(path))
        end = 0
        try:
            for n, row in enumerate(reader, 1):
                start, end = end + 1, reader.line_num
                if row and (len(row) > 1 or row[0].strip()):
                    yield start, row
                if n & 1023 == 0:
                    f.tick()
        except csv.Error as exc:
            raise CollectionError(path, end + 1, f"expected a delimited record: {exc}") from exc
        except UNREADABLE as exc:
            raise f.unreadable(end + 1, exc) from exc


def find_column(header: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first header cell (case-insensitive) that is one of `names`, by their order."""
    cells = [h.strip().lower() for h in header]
    for name in names:
        if name in cells:
            return cells.index(name)
    return None
