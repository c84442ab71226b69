"""Crossref's REST API works (`/works?query=...` saved as JSON): `{"message-type": "work-list",
"message": {"items": [...]}}`, or one work (`"message-type": "work"`). Crossref's items are
CSL-JSON with a few lists (csljson.py reads their names and dates), read item by item with
their lines (jsonitems.py).

Text: `title`, `subtitle`, `abstract` (JATS, its tags removed); people: `author` (`given`,
`family`, `name` for an organisation) with their ORCID and `affiliation`; id and DOI: `DOI`;
date: `issued`; journal `container-title`, `volume`, `page`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.csljson import csl_authors, csl_date
from expert_gui.core.data.formats.jsonitems import get_text, json_items
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Record, line_id, normal_doi
from expert_gui.core.data.formats.sniff import export_kind

NAME = "crossref"


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "Crossref", "Crossref JSON")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "Crossref")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    clean = bibliography.cleaner(path)
    for item, line in json_items(path, bibliography.report, progress, "Crossref works",
                                 ("message", "items")):
        get = partial(get_text, item)
        title = clean(": ".join(t for t in (get("title"), get("subtitle")) if t))
        doi = normal_doi(get("DOI"))
        bibliography.add(Record(
            file=str(path), line=line, id=doi or line_id(path, line), title=title,
            text=[title, clean(get("abstract"))], authors=csl_authors(item.get("author")),
            date=csl_date(item.get("issued") or item.get("published")), doi=doi,
            pages=get("page"), volume=get("volume"), journal=clean(get("container-title"))))
