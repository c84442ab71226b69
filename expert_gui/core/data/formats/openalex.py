"""OpenAlex works as its API gives them (`/works?search=...` saved as JSON): a page `{"meta":
..., "results": [...]}`, one work, or a list of works; read item by item with their lines
(jsonitems.py).

Text: `title` (else `display_name`), the abstract rebuilt from `abstract_inverted_index` (each
word at its positions), `keywords`; people: `authorships[].author` (`display_name`), identified
by its ORCID and its OpenAlex author id (ids beat names: namesakes with two ids are two
people), with the `institutions` of that authorship; id: the work's OpenAlex id ("W2741809807");
date `publication_date` (else `publication_year`); DOI, PMID (`ids.pmid`); journal, volume and
pages from `primary_location.source` and `biblio`.
"""

from __future__ import annotations

import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.jsonitems import get_text, json_items
from expert_gui.core.data.formats.names import parse_name
from expert_gui.core.data.formats.people import author_id
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi, normal_pmid
from expert_gui.core.data.formats.sniff import export_kind

NAME = "openalex"
_OPENALEX_ID = re.compile(r"(?:https://openalex\.org/)?([WA]\d+)$")
# The longest abstract rebuilt, in words (an inverted index claims its positions; a damaged one
# could claim a billion).
MAX_ABSTRACT_WORDS = 100_000


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "OpenAlex", "OpenAlex JSON")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "OpenAlex")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    for item, line in json_items(path, bibliography.report, progress, "OpenAlex works",
                                 ("results",)):
        bibliography.add(_record(item, path, line, bibliography))


def _record(work: dict, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    title = clean(get_text(work, "title") or get_text(work, "display_name"))
    keywords = "; ".join(k["display_name"] for k in _dicts(work.get("keywords"))
                         if isinstance(k.get("display_name"), str))
    ident = _OPENALEX_ID.search(get_text(work, "id"))
    ids = work.get("ids") if isinstance(work.get("ids"), dict) else {}
    pmid = get_text(ids, "pmid").rstrip("/")  # "https://pubmed.ncbi.nlm.nih.gov/34101365"
    pmid = pmid[len(pmid.rstrip("0123456789")):]  # its last digits, in time linear in its length
    biblio = work.get("biblio") if isinstance(work.get("biblio"), dict) else {}
    location = work.get("primary_location") if isinstance(work.get("primary_location"),
                                                          dict) else {}
    source = location.get("source") if isinstance(location.get("source"), dict) else {}
    pages = "-".join(p for p in (get_text(biblio, "first_page"), get_text(biblio, "last_page"))
                     if p)
    return Record(
        file=str(path), line=line, id=ident.group(1) if ident else line_id(path, line),
        title=title, text=[title, clean(_abstract(work.get("abstract_inverted_index"), path,
                                                  line, bibliography)), clean(keywords)],
        authors=_authors(work.get("authorships")),
        date=get_text(work, "publication_date") or get_text(work, "publication_year"),
        doi=normal_doi(get_text(work, "doi")), pmid=normal_pmid(pmid),
        pages=pages, volume=get_text(biblio, "volume"),
        journal=clean(get_text(source, "display_name")))


def _dicts(value) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _authors(authorships) -> list[Author]:
    authors = []
    for authorship in _dicts(authorships):
        person = authorship.get("author") if isinstance(authorship.get("author"), dict) else {}
        written = get_text(person, "display_name") or get_text(authorship, "raw_author_name")
        name = parse_name(written) if written else None
        if name is None:
            continue
        ident = _OPENALEX_ID.search(get_text(person, "id"))
        ids = (author_id("orcid", get_text(person, "orcid")),
               f"openalex:{ident.group(1)}" if ident else "")
        places = tuple(p["display_name"] for p in _dicts(authorship.get("institutions"))
                       if isinstance(p.get("display_name"), str))
        authors.append(Author(name, tuple(i for i in ids if i), affiliations=places))
    return authors


def _abstract(index, path: Path, line: int, bibliography: Bibliography) -> str:
    """The abstract an inverted index ({"word": [positions]}) holds, its words in order."""
    if not isinstance(index, dict):
        return ""
    at: dict[int, str] = {}
    past = 0
    for word, positions in index.items():
        for p in positions if isinstance(positions, list) else ():
            if isinstance(p, int) and not isinstance(p, bool) and 0 <= p < MAX_ABSTRACT_WORDS:
                at[p] = word
            else:
                past += 1
    if past:
        bibliography.report.add("malformed-record", path, line, f"{past:,} abstract words at "
                                "positions that are no number from 0 to "
                                f"{MAX_ABSTRACT_WORDS - 1:,}; left out")
    return " ".join(at[p] for p in sorted(at))
