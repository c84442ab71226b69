"""A folder of bibliographic exports, of any kinds mixed (several Web of Science downloads of
one search, or its Web of Science, Scopus and PubMed exports, a sub-folder for each download or
vendor): one collection, in which the same paper exported twice is one document
(bibliography.py).

The folder's files and those of its sub-folders are read, folder by folder in name order, each
by the reader its content calls for (sniff.py); files that are no export (a README, a PDF) and
files that cannot be read are reported and passed over. A folder holding only one table, beside
no other export, is the table format's; a folder with an associations file is another format's.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from types import ModuleType

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats import (
    bibtex,
    cnki,
    crossref,
    csljson,
    embase_rows,
    endnote_xml,
    medline,
    noteexpress,
    openalex,
    pubmed_xml,
    refer,
    refworks,
    ris,
    table,
    wos,
    zotero_rdf,
)
from expert_gui.core.data.formats.associations import companion
from expert_gui.core.data.formats.bibliography import Bibliography
from expert_gui.core.data.formats.reading import (
    Progress,
    file_state,
    report_skipped,
    total_size,
)
from expert_gui.core.data.formats.sniff import LOOKED_AT, kinds_in, only_table, unread_kind
from expert_gui.core.errors import CollectionError

NAME = "exports"
READERS: dict[str, ModuleType] = {m.NAME: m for m in (
    wos, medline, pubmed_xml, endnote_xml, csljson, ris, bibtex, refer, refworks, cnki,
    noteexpress, zotero_rdf, openalex, crossref, embase_rows, table)}


def looks_like(path: Path) -> bool:
    """A folder whose files (its sub-folders' too) include exports: two or more, or one that is
    not a table of the folder itself, and no associations file."""
    if not path.is_dir() or companion(path, "associations") is not None:
        return False
    return only_table(path) is None and any(k for _, k in islice(kinds_in(path), LOOKED_AT))


def exports(path: Path, skipped: list | None = None) -> list[tuple[Path, str]]:
    if not path.is_dir():
        raise CollectionError(path, None, "expected a folder of exports")
    found = []
    for f, kind in kinds_in(path, skipped):
        if kind is None:
            if skipped is not None:
                known = unread_kind(f)
                skipped.append((f, f"not read: {known}" if known else
                                "not an export this program reads; not read"))
        else:
            found.append((f, kind))
    if not found:
        raise CollectionError(path, None, "expected exports in the folder (Web of Science, "
                                          "PubMed, Scopus, BibTeX, RIS, CSL-JSON, EndNote XML)")
    return found


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    _no_companions(path, associations, people)
    return [file_state(f) for f, _ in exports(path)]


def _no_companions(path: Path, associations: Path | None, people: Path | None) -> None:
    if associations is not None or people is not None:
        raise CollectionError(path, None, "exports name their own authors; --associations and "
                                          "--people do not apply")


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    _no_companions(path, associations, people)
    skipped: list = []
    files = exports(path, skipped)
    report_skipped(builder.report, skipped)
    progress.total = total_size(f for f, _ in files)
    bibliography = Bibliography(builder)
    failed = []
    for f, kind in files:
        try:
            READERS[kind].read_records(f, bibliography, progress)
        except CollectionError as exc:
            failed.append(exc)
            builder.report.add("skipped-file", exc.path, exc.line,
                               f"not read: {exc.message}")
    if not bibliography.records and failed:
        raise CollectionError(path, None, "no export in the folder could be read: "
                              + "; ".join(map(str, failed[:3])))
    bibliography.finish()
