"""Which export a file is, told by its first kilobytes: `savedrecs.txt` may be Web of Science
plain text or tab-delimited, EndNote or RefWorks tagged, `.xml` PubMed or EndNote, `.rdf` Zotero,
`.json` CSL-JSON, OpenAlex or Crossref, `.csv` a table or Embase's one-field-a-row layout, a
`.txt` from CNKI its own text export or NoteExpress's. The byte-order mark comes first (UTF-8,
UTF-16 in either order), then blank lines are skipped.

Files of kinds that are no export this app reads but that users are handed by the same databases
(an Excel 97-2003 `.xls`, a Cochrane Library text export, a PDF, a list of formatted references)
are named by `unread_kind`, with what to export instead.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from expert_gui.core.data.formats.presets import detect_columns
from expert_gui.core.data.formats.reading import BOM, encoding_of, walk_files
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import CollectionError

HEAD_BYTES = 8192
# Files looked at to tell what a folder holds (a large folder of text files is not walked).
LOOKED_AT = 64
TABLE_SUFFIXES = (".csv", ".tsv", ".xlsx", ".csv.gz", ".tsv.gz")
_WOS_FIRST = re.compile(r"(?:FN|VR) \S|PT [A-Z]\b")
_WOS_TAG = re.compile(r"^(?:AU|AF|TI|UT|PT) ", re.MULTILINE)
_XML_ROOT = re.compile(r"\s*<([A-Za-z_][\w.:\-]*)")
_XML_SKIP = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>\[]*(?:\[.*?\])?\s*>)", re.S)
_CSL_KEY = re.compile(r'"(?:type|title|author|issued|citation-key)"\s*:')
_BIBTEX_ENTRY = re.compile(r"^\s*@\w+\s*[{(]", re.MULTILINE)
# EndNote's (%0 first) or ADS's (%R first) tagged records: a tag line, and a title or an author.
_REFER_FIRST = re.compile(r"%[0R] \S")
_REFER_TAG = re.compile(r"^%[TA] \S", re.MULTILINE)
_REFWORKS_TAG = re.compile(r"^(?:A1|T1) ", re.MULTILINE)
_OPENALEX = re.compile(r'"(?:id|author)"\s*:\s*"https://openalex\.org/[WA]\d')
_CROSSREF = re.compile(r'"message-type"\s*:\s*"work(?:-list)?"')
_RDF_ROOT = re.compile(r"[\w.\-]+:RDF\b|RDF\b")
# CNKI's own text export ("SrcDatabase-来源库: 期刊", E-Study's "DataType: 1") and a title field.
_CNKI_FIRST = re.compile(r"(?:SrcDatabase-\S*|DataType)\s*[:：]")
_CNKI_TITLE = re.compile(r"^Title-\S*\s*[:：]", re.MULTILINE)
_NOTEEXPRESS_FIRST = re.compile(r"\{Reference Type\}\s*[:：]")
# The header of each record of a Cochrane Library export ("Record #1 of 25"), before its RIS
# record or its plain-text fields ("ID: CN-01234567", "TI: ...").
_RECORD_OF = re.compile(r"Record #\d+ of \d+\s*$")
_RIS_TAG = re.compile(r"^TY  -", re.MULTILINE)
_COCHRANE_TAG = re.compile(r"^(?:ID|AU|TI|SO|YR|KY|AB|US|PT|DOI): ", re.MULTILINE)
_FORMATTED_REFERENCE = re.compile(r"\[\d+\]\s*\S.*\[(?:J|M|D|C|N|P|R|S|EB/OL|J/OL)\]")
_ZOTERO_NS = ("http://www.zotero.org/namespaces/export#", "http://purl.org/net/biblio#")


def kinds_in(folder: Path, skipped: list | None = None) -> Iterator[tuple[Path, str | None]]:
    """(file, its export kind or None) for the files of a folder and its sub-folders, lazily,
    folder by folder in name order."""
    for f in walk_files(folder, skipped):
        yield f, export_kind(f)


def only_table(folder: Path) -> Path | None:
    """The table a folder opens as: its one table file, when the first `LOOKED_AT` files of the
    folder and its sub-folders hold no other export."""
    found = [(f, k) for f, k in islice(kinds_in(folder), LOOKED_AT) if k is not None]
    if len(found) == 1 and found[0][1] == "table" and found[0][0].parent == folder:
        return found[0][0]
    return None


def head_text(path: Path, size: int = HEAD_BYTES) -> str:
    """The start of a file as text, without its byte-order marks ("" when it cannot be
    read)."""
    try:
        head = read_regular(path, CollectionError, size)
    except (CollectionError, OSError):
        return ""
    return head.decode(encoding_of(head), errors="ignore").lstrip(BOM)


def export_kind(path: Path) -> str | None:
    """'wos', 'medline', 'pubmed-xml', 'endnote-xml', 'zotero-rdf', 'csl-json', 'openalex',
    'crossref', 'ris', 'bibtex', 'refer' (EndNote or ADS tagged), 'refworks', 'cnki' (CNKI's own
    text export), 'noteexpress', 'embase-rows' or 'table' (a known export's table, or any other
    .csv, .tsv or .xlsx file); None for anything else."""
    name = path.name.lower()
    if name.endswith(TABLE_SUFFIXES):
        if name.endswith(".csv") and _is_embase_rows(head_text(path)):
            return "embase-rows"
        return "table"
    if name.endswith(".bib"):
        return "bibtex"
    if name.endswith(".ris"):
        return "ris"
    text = head_text(path)
    s = text.lstrip()
    first = (s.splitlines() or [""])[0]  # a line ends at \n, \r\n or \r, as the readers' do
    if _WOS_FIRST.match(first) and _WOS_TAG.search(s):
        return "wos"
    if first.startswith("PMID-"):
        return "medline"
    if s.startswith("<"):
        return _xml_kind(s)
    if s.startswith("{") or s.startswith("["):
        kind = _json_kind(s)
        if kind is not None:
            return kind
    if first.startswith("TY  -") or _RECORD_OF.match(first) and _RIS_TAG.search(s):
        return "ris"
    if _CNKI_FIRST.match(first) and _CNKI_TITLE.search(s):
        return "cnki"
    if _NOTEEXPRESS_FIRST.match(first):
        return "noteexpress"
    if _REFER_FIRST.match(first) and _REFER_TAG.search(s):
        return "refer"
    if first.startswith("RT ") and _REFWORKS_TAG.search(s):
        return "refworks"
    if s.startswith("@") or _BIBTEX_ENTRY.search(text):
        return "bibtex"
    if "\t" in first and _is_export_header(first):
        return "table"
    return None


def _xml_kind(text: str) -> str | None:
    pos = 0
    while m := _XML_SKIP.match(text, pos):
        if m.end() == pos:
            break
        pos = m.end()
    root = _XML_ROOT.match(text, pos)
    if root is None:
        return None
    if root.group(1) in ("PubmedArticleSet", "PubmedArticle", "PubmedBookArticle"):
        return "pubmed-xml"
    if root.group(1) == "xml" and "<records" in text:
        return "endnote-xml"
    if _RDF_ROOT.fullmatch(root.group(1)) and any(ns in text for ns in _ZOTERO_NS):
        return "zotero-rdf"
    return None


def _json_kind(text: str) -> str | None:
    """OpenAlex (a page of works, a work, a list of works), Crossref (a work or a list of
    them, as its REST API gives them), else CSL-JSON (an array of items)."""
    if _CROSSREF.search(text):
        return "crossref"
    if _OPENALEX.search(text):
        return "openalex"
    if text.startswith("[") and text[1:].lstrip().startswith("{") and _CSL_KEY.search(text):
        return "csl-json"
    return None


# The fields of Embase's CSV with one field a row ("TITLE","..."): the labels of its columns
# layout (presets.py's "embase"), in upper case.
EMBASE_LABELS = frozenset({
    "TITLE", "ORIGINAL TITLE", "AUTHOR NAMES", "AUTHOR ADDRESSES", "CORRESPONDENCE ADDRESS",
    "EDITORS", "SOURCE", "SOURCE TITLE", "PUBLICATION YEAR", "VOLUME", "ISSUE", "FIRST PAGE",
    "LAST PAGE", "DATE OF PUBLICATION", "PUBLICATION TYPE", "ABSTRACT", "AUTHOR KEYWORDS",
    "EMTREE DRUG INDEX TERMS", "EMTREE MEDICAL INDEX TERMS", "EMBASE ACCESSION ID",
    "MEDLINE PMID", "PUI", "DOI", "FULL TEXT LINK", "EMBASE LINK", "ISSN", "ARTICLE LANGUAGE",
    "COPYRIGHT"})


def _is_embase_rows(text: str) -> bool:
    """The first two rows of a CSV each start with one of Embase's field labels, the first
    being its title."""
    rows = [r for r in csv.reader(text.splitlines()[:64]) if r and any(c.strip() for c in r)]
    labels = [r[0].strip().upper() for r in rows[:2]]
    return len(labels) == 2 and labels[0] == "TITLE" and labels[1] in EMBASE_LABELS \
        and len(rows[0]) <= 3


def _is_export_header(line: str) -> bool:
    """A tab-separated first line that is a known export's header (Web of Science's tags)."""
    columns = detect_columns(next(csv.reader([line], delimiter="\t"), []))
    return columns is not None and bool(columns.preset)


_RE_EXPORT = ("export the records again as RIS, BibTeX or EndNote tagged text (Web of Science: "
              "Plain text or Tab delimited; CNKI: RefWorks, EndNote or 自定义 text)")
# Files that start with these bytes, by what they are and what to do instead.
_MAGIC = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Excel 97-2003 workbook (.xls) or another "
     "Office 97-2003 file", "save it as .xlsx or CSV (Excel, LibreOffice) and open that, or "
     + _RE_EXPORT),
    (b"%PDF", "a PDF", _RE_EXPORT),
    (b"{\\rtf", "a Rich Text document", _RE_EXPORT),
    (b"SQLite format 3\x00", "a database file (a reference manager's own library)",
     "export the library from the reference manager as RIS, BibTeX or CSV"),
    (b"PK\x03\x04", "a zip archive or an office document",
     "unpack an archive and open its folder; save a document as .xlsx or CSV; or "
     + _RE_EXPORT),
)


def unread_kind(path: Path) -> str | None:
    """What a file that no reader reads is, and what to export instead, in one sentence (or
    why it could not be read); None when it is nothing known."""
    try:
        head = read_regular(path, CollectionError, HEAD_BYTES)
    except (CollectionError, OSError) as exc:
        why = exc.message if isinstance(exc, CollectionError) else exc.strerror or str(exc)
        return f"{path.name} could not be read ({why})"
    for magic, what, instead in _MAGIC:
        if head.startswith(magic):
            return f"{path.name} is {what}, which this app does not read: {instead}"
    text = head.decode(encoding_of(head), errors="ignore").lstrip(BOM + " \r\n\t")
    first = (text.splitlines() or [""])[0]
    if _RECORD_OF.match(first) and _COCHRANE_TAG.search(text):
        return (f"{path.name} is a Cochrane Library text export, which this app does not read: "
                "export the records again from the Cochrane Library as RIS")
    if text[:15].lower().startswith(("<!doctype html", "<html", "<table", "<meta")):
        return (f"{path.name} is a web page (as some databases' \"Excel\" export is), which this "
                "app does not read: open it in Excel or LibreOffice and save it as .xlsx or CSV, "
                "or " + _RE_EXPORT)
    if _FORMATTED_REFERENCE.match(first):
        return (f"{path.name} is a list of formatted references (GB/T 7714), which this app does "
                "not read: " + _RE_EXPORT)
    return None
