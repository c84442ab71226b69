"""CSL-JSON (Zotero's and Better BibTeX's "CSL JSON", Mendeley, Pandoc): a JSON array of items,
each a record. Read with the standard library's json, item by item, so each has its line and a
damaged item is reported and skipped: reading goes on at the next item that starts a line as
the others do.

Text: `title`, `abstract`, `keyword`; people: `author` (`family`/`given` with their particles,
or `literal`; an `ORCID` where given); id: `id` (or `citation-key`); date: `issued`
(`date-parts`, or `literal`/`raw` text); DOI, PMID, `page`, `volume`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from expert_gui.core import schema
from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import Name, name_from_parts
from expert_gui.core.data.formats.people import author_id
from expert_gui.core.data.formats.reading import (
    Progress,
    decode_bytes,
    file_state,
    own_authors_file,
)
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi, normal_pmid
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import CollectionError

NAME = "csl-json"
_SPACE = re.compile(r"\s*")


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "CSL-JSON", "CSL-JSON")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "CSL-JSON")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    report = bibliography.report
    data = read_regular(path, CollectionError)
    text = decode_bytes(data, path, report)
    progress.advance(len(data), f"reading {path.name}")
    _line = _Lines(text)
    pos = _SPACE.match(text).end()
    if not text.startswith("[", pos):
        raise CollectionError(path, _line(pos), "expected a JSON array of CSL items ('[')")
    pos += 1
    indent = None  # what starts an item's line: where to go on after a damaged item
    while True:
        pos = _SPACE.match(text, pos).end()
        if text.startswith("]", pos) or pos >= len(text):
            break
        start = pos
        if indent is None:
            indent = "\n" + text[text.rfind("\n", 0, start) + 1:start]
        try:
            item, pos = schema.decode(text, pos)
        except ValueError as exc:
            where = f"line {exc.lineno}, column {exc.colno}: {exc.msg}" \
                if isinstance(exc, json.JSONDecodeError) else str(exc)
            resume = text.find(indent + "{", start + 1) if indent.strip("\n") else -1
            report.add("malformed-record", path, _line(start),
                       f"expected a JSON object ({where}); "
                       + ("skipped" if resume >= 0 else "the rest of the file was not read"))
            if resume < 0:
                return
            pos = resume + len(indent)
            continue
        if isinstance(item, dict):
            bibliography.add(_record(item, path, _line(start), bibliography))
        else:
            report.add("malformed-record", path, _line(start),
                       f"expected a CSL item (a JSON object), found {type(item).__name__}")
        pos = _SPACE.match(text, pos).end()
        if text.startswith(",", pos):
            pos += 1
        elif not text.startswith("]", pos):
            report.add("malformed-record", path, _line(pos),
                       "expected ',' or ']' after an item; the rest of the file was not read")
            return


class _Lines:
    """The line of a position in a text, counted on from the last position asked about (which
    is never after this one but once, on an error)."""

    def __init__(self, text: str):
        self._text, self._pos, self._line = text, 0, 1

    def __call__(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._line = 0, 1
        self._line += self._text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line


def _record(item: dict, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)

    def get(key: str) -> str:
        value = item.get(key)
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value if isinstance(v, str | int))
        return str(value) if isinstance(value, str | int | float) and \
            not isinstance(value, bool) else ""

    title = clean(get("title"))
    doc_id = get("id").strip() or get("citation-key").strip() or \
        line_id(path, line)
    return Record(
        file=str(path), line=line, id=doc_id, title=title,
        text=[title, clean(get("abstract")), clean(get("keyword"))],
        authors=_authors(item.get("author")), date=_date(item.get("issued")),
        doi=normal_doi(get("DOI")), pmid=normal_pmid(get("PMID")), pages=get("page"),
        volume=get("volume"))


def _authors(people) -> list[Author]:
    authors = []
    for person in people if isinstance(people, list) else []:
        if not isinstance(person, dict):
            continue

        def part(*keys: str, person: dict = person) -> str:
            return " ".join(v for k in keys if isinstance(v := person.get(k), str) and v)

        if person.get("family"):
            name = name_from_parts(part("non-dropping-particle", "family"),
                                   part("given", "dropping-particle"), part("suffix"))
        else:
            literal = part("literal")
            name = Name(literal) if literal else None
        orcid = author_id("orcid", part("ORCID", "orcid"))
        if name is not None:
            authors.append(Author(name, (orcid,) if orcid else ()))
    return authors


def _date(issued) -> str:
    if not isinstance(issued, dict):
        return loose_date(issued) if isinstance(issued, str) else ""
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        numbers = [str(p).strip() for p in parts[0][:3]]
        if all(n.isdigit() for n in numbers):
            return loose_date("/".join(numbers))
    for key in ("literal", "raw"):
        if isinstance(issued.get(key), str):
            return loose_date(issued[key])
    return ""
