"""A folder of plain-text files: one document per file, its id the path relative to the folder.

Associations (`--associations`, or `associations.*` in the folder) use the ids as relative paths
with forward slashes. A file holding NUL bytes is not text, and one of more than MAX_RECORD bytes is no document: each
is reported and skipped.
"""

from __future__ import annotations

from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.associations import companion, read_associations, read_people
from expert_gui.core.data.formats.reading import (
    MAX_RECORD,
    Progress,
    decode_bytes,
    file_state,
    present,
    report_skipped,
    total_size,
    walk_files,
)
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import CollectionError

NAME = "text"


def looks_like(path: Path) -> bool:
    return path.is_dir()


def input_files(path: Path, associations: Path | None, people: Path | None,
                skipped: list | None = None) -> tuple[list[Path], Path, Path | None]:
    if not path.is_dir():
        raise CollectionError(path, None, "expected a folder of plain-text files")
    assoc = associations or companion(path, "associations")
    if assoc is None:
        raise CollectionError(path, None, "expected exports (Web of Science, Scopus, PubMed, "
                                          "BibTeX, RIS, EndNote, Zotero, ...), a table of "
                                          "publications or documents.tsv in the folder or its "
                                          "sub-folders, or plain-text documents with an "
                                          "associations file (associations.tsv) saying who wrote "
                                          "each; found none of these",
                              cli_hint="--associations FILE")
    people = people or companion(path, "people")
    docs = [f for f in walk_files(path, skipped) if f not in (assoc, people)]
    return docs, assoc, people


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    return [file_state(f) for f in present(*input_files(path, associations, people))]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    skipped: list = []
    docs, assoc, people = input_files(path, associations, people, skipped)
    report_skipped(builder.report, skipped)
    progress.total = total_size(present(docs, assoc, people))
    for f in docs:
        data = read_regular(f, CollectionError, limit=MAX_RECORD + 1)
        if len(data) > MAX_RECORD:
            builder.report.add("record-too-long", f, None, f"a file of more than {MAX_RECORD:,} "
                                                           "bytes, the most a document may hold; "
                                                           "not read")
        elif b"\0" in data:
            builder.report.add("malformed-record", f, None, "expected a text file (it holds NUL "
                                                            "bytes); skipped")
        else:
            builder.add_document(f.relative_to(path).as_posix(),
                                 decode_bytes(data, f, builder.report), f, 1)
        progress.advance(len(data), f"reading {f.name}")
    read_associations(assoc, builder, progress)
    if people is not None:
        read_people(people, builder, progress)
