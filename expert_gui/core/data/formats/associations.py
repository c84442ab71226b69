"""Document-person associations and people files, shared by the folder, TREC and text formats.

An associations file is either delimited (`.tsv`/`.csv`: a header naming `doc_id` and
`person_id`, or those two columns in that order) or the TREC/SERT form `person_id doc_id [score]`,
one link a line, for any other name. A people file is `person_id`, display `name` and, when its
header names one, `affiliation` (or `affiliations`: several split on `;`).
"""

from __future__ import annotations

from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.delimited import (
    AFFILIATION_COLUMNS,
    DOC_ID_COLUMNS,
    NAME_COLUMNS,
    PERSON_ID_COLUMNS,
    find_column,
    read_rows,
)
from expert_gui.core.data.formats.reading import Progress, read_lines, refuse_link_out
from expert_gui.core.data.inputs import require_regular
from expert_gui.core.errors import CollectionError

DELIMITED_SUFFIXES = (".tsv", ".csv", ".tsv.gz", ".csv.gz")
COMPANION_SUFFIXES = DELIMITED_SUFFIXES + (".txt", "")


def companion(folder: Path, stem: str) -> Path | None:
    """`folder/stem.tsv|csv|txt` (or no suffix), the first that exists; one that is there but
    is not a regular file (a FIFO, a device), or is a link out of the folder, is refused, not
    passed over."""
    for suffix in COMPANION_SUFFIXES:
        path = folder / f"{stem}{suffix}"
        if path.is_file():
            refuse_link_out(folder, path, cli_hint=f"--{stem} FILE")
            return path
        if suffix and (path.exists() or path.is_symlink()):
            require_regular(path, CollectionError)
    return None


def read_associations(path: Path, builder: CollectionBuilder, progress: Progress) -> None:
    if path.name.endswith(DELIMITED_SUFFIXES):
        _read_delimited(path, builder, progress)
    else:
        _read_trec_form(path, builder, progress)


def _read_delimited(path: Path, builder: CollectionBuilder, progress: Progress) -> None:
    where = str(path)
    doc_col, person_col = 0, 1
    first = True
    for line, row in read_rows(path, builder.report, progress):
        if first:
            first = False
            # a bare "id" column could be either: a header must name both roles
            d = find_column(row, tuple(c for c in DOC_ID_COLUMNS if c != "id"))
            p = find_column(row, tuple(c for c in PERSON_ID_COLUMNS if c != "id"))
            if d is not None or p is not None:
                if d is None or p is None:
                    raise CollectionError(path, line, "expected a header with doc_id and "
                                                      "person_id columns")
                doc_col, person_col = d, p
                continue
        if len(row) <= max(doc_col, person_col):
            builder.report.add("malformed-record", path, line,
                               f"expected a document id and a person id, found {len(row)} field(s)")
            continue
        doc_id, person_id = row[doc_col].strip(), row[person_col].strip()
        if not doc_id or not person_id:
            builder.report.add("malformed-record", path, line, "empty document or person id")
            continue
        builder.add_association(doc_id, person_id, where, line)


def _read_trec_form(path: Path, builder: CollectionBuilder, progress: Progress) -> None:
    for line, text in read_lines(path, builder.report, progress):
        fields = text.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in (2, 3) or (len(fields) == 3 and not _is_number(fields[2])):
            builder.report.add("malformed-record", path, line,
                               "expected 'person_id doc_id [score]'")
            continue
        builder.add_association(fields[1], fields[0], path, line)


def read_people(path: Path, builder: CollectionBuilder, progress: Progress) -> None:
    """`person_id`, `name` rows (header optional), with the affiliations of a column the header
    names; other columns are ignored."""
    id_col, name_col, places_col = 0, 1, None
    first = True
    for line, row in read_rows(path, builder.report, progress):
        if first:
            first = False
            i = find_column(row, PERSON_ID_COLUMNS)
            if i is not None:
                id_col = i
                n = find_column(row, NAME_COLUMNS)
                name_col = n if n is not None else -1
                places_col = find_column(row, AFFILIATION_COLUMNS)
                continue
        person_id = row[id_col].strip() if len(row) > id_col else ""
        if not person_id:
            builder.report.add("malformed-record", path, line, "expected a person id")
            continue
        name = row[name_col].strip() if 0 <= name_col < len(row) else ""
        places = row[places_col].split(";") if places_col is not None and places_col < len(row) \
            else ()
        builder.add_person(person_id, name, path, line, affiliations=places)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
