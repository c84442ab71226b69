"""Which export a file is, told by its first kilobytes: `savedrecs.txt` may be Web of Science
plain text or tab-delimited, `.xml` PubMed or EndNote, `.json` CSL-JSON. The byte-order mark
comes first (UTF-8, UTF-16 in either order), then blank lines are skipped.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from expert_gui.core.data.formats.presets import detect_columns
from expert_gui.core.data.formats.reading import encoding_of
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import CollectionError

HEAD_BYTES = 8192
TABLE_SUFFIXES = (".csv", ".tsv", ".xlsx", ".csv.gz", ".tsv.gz")
_WOS_FIRST = re.compile(r"(?:FN|VR) \S|PT [A-Z]\b")
_WOS_TAG = re.compile(r"^(?:AU|AF|TI|UT|PT) ", re.MULTILINE)
_XML_ROOT = re.compile(r"\s*<([A-Za-z_][\w.:\-]*)")
_XML_SKIP = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>\[]*(?:\[.*?\])?\s*>)", re.S)
_CSL_KEY = re.compile(r'"(?:type|title|author|issued|citation-key)"\s*:')
_BIBTEX_ENTRY = re.compile(r"^\s*@\w+\s*[{(]", re.MULTILINE)


def head_text(path: Path, size: int = HEAD_BYTES) -> str:
    """The start of a file as text ("" when it cannot be read)."""
    try:
        head = read_regular(path, CollectionError, size)
    except (CollectionError, OSError):
        return ""
    return head.decode(encoding_of(head), errors="ignore")


def export_kind(path: Path) -> str | None:
    """'wos', 'medline', 'pubmed-xml', 'endnote-xml', 'csl-json', 'ris', 'bibtex' or 'table'
    (a known export's table, or any .csv, .tsv or .xlsx file); None for anything else."""
    name = path.name.lower()
    if name.endswith(TABLE_SUFFIXES):
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
    if s.startswith("[") and s[1:].lstrip().startswith("{") and _CSL_KEY.search(s):
        return "csl-json"
    if first.startswith("TY  -"):
        return "ris"
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
    return None


def _is_export_header(line: str) -> bool:
    """A tab-separated first line that is a known export's header (Web of Science's tags)."""
    columns = detect_columns(next(csv.reader([line], delimiter="\t"), []))
    return columns is not None and bool(columns.preset)
