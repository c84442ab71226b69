"""The Refer family of tagged exports (tagged.py): EndNote's `.enw` (Google Scholar's "EndNote",
CNKI, EndNote itself, ADS's "EndNote") and NASA ADS's own tagged format. A line is `%` and a
one-character tag, a space and a value.

EndNote: records start at `%0` (the type); text `%T`, `%X` (abstract), `%K` (keywords); people
`%A`, one a line (`%E` editors, `%Y` secondary authors such as a thesis's supervisor, are not
authors); the record's affiliations `%+`; id `%M` (accession number); date `%D`, else `%8`; DOI
`%R`, else a doi.org link in `%U` or `%I`; journal `%J` (`%B`), volume `%V`, pages `%P`.

NASA ADS: records start at `%R` (the bibcode, their id); text `%T`, `%B` (abstract), `%K`;
people `%A`, "Surname, I.; Surname, I." wrapped over lines, each with the affiliation of `%F`
("AA(first's), AB(second's)"); DOI `%Y DOI: ...`; date `%D` ("06/2017"); journal `%J`.
"""

from __future__ import annotations

import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import parse_name, split_names
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi
from expert_gui.core.data.formats.sniff import export_kind, head_text
from expert_gui.core.data.formats.tagged import Fields, first, tagged_records, values

NAME = "refer"
_TAG = re.compile(r"%(\S)(?:[ \t](.*))?$")
# ADS's affiliations: "AA(first author's), AB(second's)", a letter pair per author in order;
# this finds where each starts (`_ads_places`).
_ADS_AFFILIATION = re.compile(r"(?:^|,\s*)[A-Z]{2}\(")
_ADS_DATE = re.compile(r"^(\d{1,2})/(\d{4})$")


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "EndNote or ADS tagged", "tagged (.enw)")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "tagged")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    # EndNote's records start at %0, ADS's at %R (in EndNote, %R is the DOI): the first tag
    # of the file says which
    first_tag = next((m.group(1) for line in head_text(path).splitlines()
                      if (m := _TAG.match(line.strip()))), "0")
    ads = first_tag == "R"
    for line, fields in tagged_records(path, bibliography.report, progress, _TAG,
                                       frozenset(first_tag if ads else "0"),
                                       "EndNote ('%0 Journal Article', '%T ...') or ADS "
                                       "('%R bibcode') tagged records"):
        bibliography.add((_ads if ads else _endnote)(fields, path, line, bibliography))


def _endnote(fields: Fields, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    affiliations = tuple(a.strip() for v in values(fields, "+") for a in v.split(";")
                         if a.strip())
    authors = [Author(name, affiliations=affiliations) for v in values(fields, "A")
               for written in split_names(v) if (name := parse_name(written)) is not None]
    title = clean(first(fields, "T"))
    doi = normal_doi(first(fields, "R")) or next(
        (d for v in values(fields, "U", "I", "N") if "doi" in v.lower()
         and (d := normal_doi(v))), "")
    return Record(
        file=str(path), line=line, id=first(fields, "M") or line_id(path, line), title=title,
        text=[title, clean(" ".join(values(fields, "X"))), clean("; ".join(values(fields, "K")))],
        authors=authors, date=loose_date(first(fields, "D", "8")), doi=doi,
        pages=first(fields, "P"), volume=first(fields, "V"), journal=clean(first(fields, "J", "B")))


def _ads(fields: Fields, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    places = _ads_places(first(fields, "F"))
    written = [w for v in values(fields, "A") for w in split_names(v)]
    authors = []
    for k, w in enumerate(written):
        name = parse_name(w)
        if name is not None:
            place = places[k] if k < len(places) and places[k] not in ("", "-") else ""
            authors.append(Author(name, affiliations=(place,) if place else ()))
    title = clean(first(fields, "T"))
    doi = next((d for v in values(fields, "Y") if (d := normal_doi(v))), "")
    date = first(fields, "D")
    month_year = _ADS_DATE.match(date)
    if month_year:
        date = f"{month_year.group(2)}-{int(month_year.group(1)):02d}" \
            if 1 <= int(month_year.group(1)) <= 12 else month_year.group(2)
    return Record(
        file=str(path), line=line, id=first(fields, "R") or line_id(path, line), title=title,
        text=[title, clean(" ".join(values(fields, "B"))), clean("; ".join(values(fields, "K")))],
        authors=authors, date=loose_date(date), doi=doi, pages=first(fields, "P"),
        volume=first(fields, "V"), journal=clean(first(fields, "J")))


def _ads_places(value: str) -> list[str]:
    """ADS's affiliations in author order: each from its "AA(" to the next one's, less its
    closing parenthesis. Cut at the starts, so the time is linear in the field's length (a
    lazy match to each ")" that ends one was quadratic: minutes for a field of 100 KB)."""
    starts = list(_ADS_AFFILIATION.finditer(value))
    ends = [m.start() for m in starts[1:]] + [len(value)]
    return [value[m.end():end].rstrip().removesuffix(")").strip()
            for m, end in zip(starts, ends, strict=False)]
