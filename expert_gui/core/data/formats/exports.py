"""A folder of bibliographic exports, of any kinds mixed (several Web of Science downloads of
one search, or its Web of Science, Scopus and PubMed exports): one collection, in which the
same paper exported twice is one document (bibliography.py).

The folder's own files are read, in name order, each by the reader its content calls for
(sniff.py); files that are no export (a README, a PDF) and files that cannot be read are
reported and passed over. A folder holding only one table is the table format's; a folder with
an associations file is another format's.
"""

from __future__ import annotations

from itertools import islice, takewhile
from pathlib import Path
from types import ModuleType

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats import (
    bibtex,
    csljson,
    endnote_xml,
    medline,
    pubmed_xml,
    ris,
    table,
    wos,
)
from expert_gui.core.data.formats.associations import companion
from expert_gui.core.data.formats.bibliography import Bibliography
from expert_gui.core.data.formats.reading import Progress, file_state, report_skipped, walk_files
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.errors import CollectionError

NAME = "exports"
READERS: dict[str, ModuleType] = {m.NAME: m for m in (wos, medline, pubmed_xml, endnote_xml,
                                                       csljson, ris, bibtex, table)}
# Files looked at to recognise such a folder (a large folder of text files is not walked).
_LOOKED_AT = 64


def looks_like(path: Path) -> bool:
    """A folder whose own files include exports: two or more, or one that is not a table, and
    no associations file."""
    if not path.is_dir() or companion(path, "associations") is not None:
        return False
    kinds = [k for _, k in islice(_files(path), _LOOKED_AT) if k is not None]
    return len(kinds) > 1 or kinds[:1] not in ([], ["table"])


def _files(folder: Path, skipped: list | None = None):
    """(file, its export kind or None) for the folder's own files, in name order."""
    for f in takewhile(lambda f: f.parent == folder, walk_files(folder, skipped)):
        yield f, export_kind(f)


def exports(path: Path, skipped: list | None = None) -> list[tuple[Path, str]]:
    if not path.is_dir():
        raise CollectionError(path, None, "expected a folder of exports")
    found = []
    for f, kind in _files(path, skipped):
        if kind is None:
            if skipped is not None:
                skipped.append((f, "not an export this program reads; not read"))
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
    progress.total = sum(f.stat().st_size for f, _ in files)
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
