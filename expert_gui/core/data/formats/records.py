"""One bibliographic record as every export reader hands it over, before duplicates are merged
and names resolved (`bibliography.py`): where it was read, its ids, its text and its authors.

Text is cleaned here, once for every format: placeholders such as "[No abstract available]" are
not text, HTML entities are decoded (`&ldquo;`, `&#233;`) and a closed list of inline tags
(`<i>`, `<sup>`, `<bold>`, MathML) is removed, so "P<0.05" or a title "<Creep.pdf>" stays as
written.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from expert_gui.core.data.formats.names import Name

# Whole values that stand for "nothing here" in exports (Scopus, Rayyan, Lens, R's write.csv).
_PLACEHOLDER = re.compile(r"\[\s*no\b[^\]]*\bavailable\s*\]\.?|n/?a|null|\{na\}|nan",
                          re.IGNORECASE)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_INLINE_TAGS = ("i", "b", "u", "em", "strong", "sup", "sub", "sc", "bold", "italic", "inf",
                "br", "p", "span", "a", "yen", "scp", "tt", "small", "big", "ovl", "uline")
_TAG = re.compile(r"</?(?:" + "|".join(_INLINE_TAGS) + r"|mml:[a-z]+|jats:[a-z\-]+)"
                  r"(?:\s[^<>]{0,200})?/?>", re.IGNORECASE)
# Tags that end a block of text (a paragraph, JATS's title of an abstract): a space, not nothing.
_BLOCK_TAG = re.compile(r"</?(?:p|br|jats:[a-z\-]+)\b", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\u00a0]+")
_DOI = re.compile(r"10\.\d{4,9}/\S+")


@dataclass
class Author:
    """One author of a record: a name as the source gives it (None for a person named by an id
    alone), the author ids that go with it ("orcid:0000-0002-...", "scopus:7004287779",
    "rid:H-2769-2012"), or `fixed`, a person id to take as it is (a table's ids column)."""

    name: Name | None
    ids: tuple[str, ...] = ()
    fixed: str = ""
    affiliations: tuple[str, ...] = ()


@dataclass
class Record:
    """One record of an export. `text` is its title, abstract and keywords in that order (the
    document's text); `title`, `doi`, `pmid`, `year`-bearing `date`, `pages` and `volume` tell
    the same paper in two exports apart (duplicates.py)."""

    file: str
    line: int | None
    id: str
    title: str = ""
    text: list[str] = field(default_factory=list)
    authors: list[Author] = field(default_factory=list)
    date: str = ""
    doi: str = ""
    pmid: str = ""
    pages: str = ""
    volume: str = ""
    journal: str = ""


class TextCleaner:
    """Cleans one source's text values and counts the placeholders it left out, for the report."""

    def __init__(self):
        self.placeholders: dict[str, int] = {}

    def __call__(self, value: str | None) -> str:
        if not value:
            return ""
        text = value.strip()
        if len(text) < 40 and _PLACEHOLDER.fullmatch(text):
            self.placeholders[text] = self.placeholders.get(text, 0) + 1
            return ""
        if "&" in text:
            text = decode_entities(text)
        if "<" in text:
            text = _TAG.sub(_tag_gap, text)
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if "  " in text or "\t" in text or "\u00a0" in text:
            text = _SPACES.sub(" ", text)
        return text.strip()


def _tag_gap(tag: re.Match) -> str:
    return " " if _BLOCK_TAG.match(tag.group()) else ""


def decode_entities(text: str) -> str:
    """HTML entities decoded ("&#246;", "&amp;"); a lone "&" stays."""
    return _ENTITY.sub(lambda m: html.unescape(m.group()), text)


def is_placeholder(value: str) -> bool:
    return len(value) < 40 and _PLACEHOLDER.fullmatch(value.strip()) is not None


def normal_doi(value: str) -> str:
    """A DOI in lower case without its resolver ("https://doi.org/", "doi:"), or "" when the
    value holds none."""
    m = _DOI.search(value or "")
    return m.group().rstrip(".,;").lower() if m else ""


def line_id(path: str | PurePath, line: int) -> str:
    """The id of a record that names none: its file's name before the first dot, and its line
    ("savedrecs:12"), so that it is the same in every load of that file."""
    return f"{PurePath(path).name.split('.')[0]}:{line}"


def normal_pmid(value: str) -> str:
    """A PMID, read from the start of a value ("34101365 [http://www.ncbi...]", Ovid's)."""
    value = (value or "").strip().split(" ", 1)[0]
    return value if value.isdigit() and value.strip("0") else ""
