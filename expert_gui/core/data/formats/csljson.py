"""CSL-JSON (Zotero's and Better BibTeX's "CSL JSON", Mendeley, Pandoc): a JSON array of items,
each a record, read item by item with its line (jsonitems.py): a damaged item is reported and
skipped.

Text: `title`, `abstract`, `keyword`; people: `author` (`family`/`given` with their particles,
or `literal`; an `ORCID` where given); id: `id` (or `citation-key`); date: `issued`
(`date-parts`, or `literal`/`raw` text); DOI, PMID, `page`, `volume`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.jsonitems import get_text, json_items
from expert_gui.core.data.formats.names import Name, name_from_parts
from expert_gui.core.data.formats.people import author_id
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi, normal_pmid
from expert_gui.core.data.formats.sniff import export_kind

NAME = "csl-json"


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "CSL-JSON", "CSL-JSON")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "CSL-JSON")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    for item, line in json_items(path, bibliography.report, progress, "CSL items"):
        bibliography.add(_record(item, path, line, bibliography))


def _record(item: dict, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    get = partial(get_text, item)
    title = clean(get("title"))
    doc_id = get("id").strip() or get("citation-key").strip() or \
        line_id(path, line)
    return Record(
        file=str(path), line=line, id=doc_id, title=title,
        text=[title, clean(get("abstract")), clean(get("keyword"))],
        authors=csl_authors(item.get("author")), date=csl_date(item.get("issued")),
        doi=normal_doi(get("DOI")), pmid=normal_pmid(get("PMID")), pages=get("page"),
        volume=get("volume"), journal=clean(get("container-title")))


def csl_authors(people) -> list[Author]:
    """CSL's names (`family`/`given` with their particles, or `literal`; Crossref's `name` for
    an organisation), each with its ORCID and its affiliations (Crossref's `affiliation`)."""
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
            literal = part("literal", "name")
            name = Name(literal) if literal else None
        orcid = author_id("orcid", part("ORCID", "orcid"))
        places = person.get("affiliation")
        places = tuple(p["name"].strip() for p in places if isinstance(p, dict)
                       and isinstance(p.get("name"), str) and p["name"].strip()) \
            if isinstance(places, list) else ()
        if name is not None:
            authors.append(Author(name, (orcid,) if orcid else (), affiliations=places))
    return authors


def csl_date(issued) -> str:
    """A CSL date (`date-parts`, or `literal`/`raw` text) as `loose_date` writes it."""
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
