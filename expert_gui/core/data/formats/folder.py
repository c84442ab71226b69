"""A folder of `documents.tsv|csv|jsonl`, `associations.tsv|csv` and optional `people.tsv|csv`.

The layout of `../shared/data/*/`; the path may be the folder or its documents file. Delimited
documents: a header naming `doc_id` (or `id`) and the text columns (`title`, `text`,
`abstract`, ... joined in file order), optionally a `date` (or `year`, `timestamp`) column;
without a header, the first column is the id and the last the text. A first line is a header
when it names at least two columns, so a header-less file whose first id or text is a column's
name (`title`) keeps that document (and the report says so). A header with an authors
column, or without an id column, is read as a table (table.py): people inline, ids made from the
lines, and no associations file needed. JSONL: one object a line with `id` or `doc_id`, the text
fields, optionally a `date` (or `year`, `timestamp`) and its people inline
(`"people": ["id", ...]`).
"""

from __future__ import annotations

from itertools import chain
from pathlib import Path

from expert_gui.core import schema
from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats import table
from expert_gui.core.data.formats.associations import companion, read_associations, read_people
from expert_gui.core.data.formats.delimited import (
    DATE_COLUMNS,
    DOC_ID_COLUMNS,
    PEOPLE_COLUMNS,
    TEXT_COLUMNS,
    find_column,
    read_rows,
)
from expert_gui.core.data.formats.presets import detect_columns
from expert_gui.core.data.formats.reading import (
    Progress,
    file_state,
    present,
    read_lines,
    refuse_link_out,
    total_size,
)
from expert_gui.core.data.inputs import require_regular
from expert_gui.core.errors import CollectionError

NAME = "folder"
DOCUMENT_FILES = tuple(f"documents.{ext}" for ext in
                       ("tsv", "csv", "jsonl", "tsv.gz", "csv.gz", "jsonl.gz"))


def looks_like(path: Path) -> bool:
    return documents_file(path) is not None


def documents_file(path: Path) -> Path | None:
    """The documents file of a folder, or the path itself when it is one (`documents.tsv`)."""
    if not path.is_dir():
        return path if path.name in DOCUMENT_FILES else None
    for name in DOCUMENT_FILES:
        if (path / name).exists():
            require_regular(path / name, CollectionError)
            refuse_link_out(path, path / name)
            return path / name
    return None


def input_files(path: Path, associations: Path | None,
                people: Path | None) -> tuple[Path, Path | None, Path | None]:
    """The documents file and the associations and people files that go with it (None: none)."""
    docs = documents_file(path)
    if docs is None:
        raise CollectionError(path, None, "expected a folder holding documents.tsv, "
                                          "documents.csv or documents.jsonl")
    path = docs.parent
    assoc = associations or companion(path, "associations")
    if assoc is None and not docs.name.startswith("documents.jsonl") and not _names_people(docs):
        raise CollectionError(path, None, "expected associations.tsv or associations.csv "
                                          "beside the documents, or an authors column in "
                                          "them", cli_hint="--associations FILE")
    people = people or companion(path, "people")
    return docs, assoc, people


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    docs, assoc, people = input_files(path, associations, people)
    return [file_state(f) for f in present([docs], assoc, people)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    docs, assoc, people = input_files(path, associations, people)
    progress.total = total_size(present([docs], assoc, people))
    if docs.name.startswith("documents.jsonl"):
        _read_jsonl(docs, builder, progress)
    else:
        _read_delimited(docs, builder, progress)
    if assoc is not None:
        read_associations(assoc, builder, progress)
    if people is not None:
        read_people(people, builder, progress)


def _names_people(docs: Path) -> bool:
    """A delimited documents file whose header has a people (authors) column, as JSONL may."""
    columns = table.preview(docs, rows=0).columns
    return columns is not None and bool(columns.people)


def _read_delimited(path: Path, builder: CollectionBuilder, progress: Progress) -> None:
    where = str(path)
    id_col, text_cols, width = 0, None, 2  # text_cols None: the last column of each row
    rows = read_rows(path, builder.report, progress)
    head = next(rows, None)
    if head is None:
        return
    named = _column_names(head[1])
    if len(named) == 1:
        builder.report.add("header-like-record", path, head[0],
                           f"the first line names one column ({named[0]!r}) and is read as a "
                           "document: a header names at least two (an id and a text column)")
    columns = detect_columns(head[1], need_people=False) if len(named) > 1 else None
    if columns is not None and (columns.people or columns.id is None):
        # its people inline, or no id column: read as a table (ids made from the lines)
        if columns.id is None:
            builder.report.add("ids-from-lines", path, head[0],
                               f"a header without an id column ({', '.join(named)}): each "
                               f"document is called by its line ({path.name.split('.')[0]}:N)")
        table.read_rows_into(rows, head[1], columns, path, head[0], builder)
        return
    date_col = None
    first = len(named) > 1
    for line, row in chain([head], rows):
        if first:
            first = False
            i = find_column(row, DOC_ID_COLUMNS)
            if i is not None:
                cells = [c.strip().lower() for c in row]
                text_cols = [k for k, c in enumerate(cells) if c in TEXT_COLUMNS]
                if not text_cols:
                    raise CollectionError(path, line, "expected a text column (one of "
                                                      + ", ".join(TEXT_COLUMNS) + ")")
                id_col, width = i, max(i, *text_cols) + 1
                date_col = find_column(row, DATE_COLUMNS)
                continue
        if len(row) < width:
            builder.report.add("malformed-record", path, line,
                               f"expected a document id and its text, found {len(row)} field(s)")
            continue
        doc_id = row[id_col].strip()
        if not doc_id:
            builder.report.add("malformed-record", path, line, "empty document id")
            continue
        if text_cols is None:
            text = row[-1]
        elif len(text_cols) == 1:
            text = row[text_cols[0]]
        else:
            text = "\n".join(row[k] for k in text_cols)
        date = row[date_col] if date_col is not None and date_col < len(row) else ""
        builder.add_document(doc_id, text, where, line, date=date)


def _column_names(row: list[str]) -> list[str]:
    """The cells of a row that name a column of a documents file."""
    known = {*DOC_ID_COLUMNS, *TEXT_COLUMNS, *PEOPLE_COLUMNS, *DATE_COLUMNS}
    return [c.strip() for c in row if c.strip().lower() in known]


def _read_jsonl(path: Path, builder: CollectionBuilder, progress: Progress) -> None:
    for line, raw in read_lines(path, builder.report, progress):
        if not raw.strip():
            continue
        try:
            record = schema.parse(raw)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            builder.report.add("malformed-record", path, line, "expected a JSON object")
            continue
        if "\\u" in raw and _has_surrogate(record):
            builder.report.add("invalid-utf8", path, line, "a \\u escape of a lone surrogate, "
                                                           "which is no character; read as U+FFFD")
            record = _without_surrogates(record)
        doc_id = record.get("doc_id", record.get("id"))
        if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool) or str(doc_id) == "":
            builder.report.add("malformed-record", path, line,
                               "expected an \"id\" or \"doc_id\" field (string)")
            continue
        parts = [record[k] for k in TEXT_COLUMNS if k in record]
        people = next((record[k] for k in PEOPLE_COLUMNS if k in record), [])
        date = next((record[k] for k in DATE_COLUMNS if k in record), "")
        if not all(isinstance(p, str) for p in parts) or not isinstance(people, list):
            builder.report.add("malformed-record", path, line,
                               "expected text fields as strings and people as a list")
            continue
        ids = []
        for person in people:
            if isinstance(person, dict):
                person_id, name = person.get("id", person.get("person_id")), person.get("name")
                if isinstance(person_id, str) and person_id:
                    builder.add_person(person_id, name if isinstance(name, str) else "",
                                       path, line)
                person = person_id
            if not isinstance(person, str) or not person:
                builder.report.add("malformed-record", path, line,
                                   f"expected a person id, found {person!r}")
                continue
            ids.append(person)
        date = "" if date is None or isinstance(date, bool) else str(date)
        builder.add_document(str(doc_id), "\n".join(parts), path, line, people=ids, date=date)


def _has_surrogate(value) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    return isinstance(value, list) and any(map(_has_surrogate, value))


def _without_surrogates(value):
    """JSON's \\u escapes can spell a lone surrogate, which no file, terminal or widget takes:
    each becomes U+FFFD, as bytes that are not UTF-8 do."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    return value
