"""The collection formats, one module each, and the detection that picks one for a path.

Every format module has `NAME`, `looks_like(path)`, `sources(path, associations, people)` (the
strings that identify its input for the cache) and `read(path, builder, *, associations, people,
progress)`, which streams records into a `CollectionBuilder`. The bibliographic exports (BibTeX,
RIS, tables, Web of Science, MEDLINE, PubMed XML, EndNote XML, CSL-JSON, EndNote and ADS tagged,
RefWorks, CNKI's own text, NoteExpress, Zotero RDF, OpenAlex, Crossref, Embase's one-field-a-row
CSV) also have
`read_records(path, bibliography, progress)`, which hands `Record`s to a `Bibliography`
(bibliography.py): that merges duplicates and resolves people across one file or a folder of
them (exports.py) before the builder sees them.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from expert_gui.core.data.formats import (
    bibtex,
    cnki,
    crossref,
    csljson,
    embase_rows,
    endnote_xml,
    exports,
    folder,
    gitlog,
    medline,
    noteexpress,
    openalex,
    plaintext,
    pubmed_xml,
    refer,
    refworks,
    ris,
    table,
    trec,
    wos,
    zotero_rdf,
)
from expert_gui.core.data.formats.sniff import unread_kind
from expert_gui.core.errors import CollectionError

# Detection order: the most specific layouts first; a plain folder of text files is the fallback.
# The bibliographic exports are told by content (sniff.py), so `savedrecs.txt` or a `.xml` file
# finds its reader whatever its name.
FORMATS: dict[str, ModuleType] = {m.NAME: m for m in (
    folder, gitlog, trec, exports, bibtex, ris, wos, medline, pubmed_xml, endnote_xml, csljson,
    refer, refworks, cnki, noteexpress, zotero_rdf, openalex, crossref, embase_rows, table,
    plaintext)}


def detect_format(path: Path) -> str:
    """The format of a collection path, by file names and content."""
    if not path.exists():
        raise CollectionError(path, None, "no such file or folder")
    for name, module in FORMATS.items():
        if module.looks_like(path):
            return name
    known = None if path.is_dir() else unread_kind(path)
    if known is not None:
        raise CollectionError(path, None, known)
    raise CollectionError(path, None, "cannot tell the collection format: expected a folder, a "
                                      "TREC file, an export (BibTeX, RIS, Web of Science, "
                                      "PubMed, CSL-JSON, EndNote XML or tagged, RefWorks, CNKI, "
                                      "NoteExpress, Zotero RDF, OpenAlex, Crossref), a table "
                                      "(.csv, .tsv, .xlsx) with text and authors columns, or a "
                                      "git repository", cli_hint="--format " + "|".join(FORMATS))


def reader(name: str, path: Path) -> ModuleType:
    try:
        return FORMATS[name]
    except KeyError:
        raise CollectionError(path, None, f"unknown format {name!r}; expected one of "
                                          + ", ".join(FORMATS)) from None
