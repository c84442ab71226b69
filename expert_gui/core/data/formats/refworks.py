"""RefWorks tagged format (RefWorks, CNKI's "RefWorks" export, ADS's): records start at `RT` (the
type), a line each `TAG value` with RefWorks's two-character tags (tagged.py), in any case (CNKI
writes `vo`).

Text: `T1`, `AB`, `K1` (keywords); people: `A1`, one a line or joined by ";" (CNKI: "袁进;王娜"),
with the record's affiliations `AD`; id: `ID`, else the file's name and the record's line; date
`YR` (or `FD`); DOI `DO`; journal `JF` (or `JO`), volume `VO`, pages `SP`-`OP`.
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
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.formats.tagged import first, tagged_records, values

NAME = "refworks"
# RefWorks's tags (a line of an abstract that starts "In this..." is no tag).
_TAGS = ("RT SR ID A1 A2 A3 A4 A5 A6 T1 T2 T3 JF JO YR FD VO IS SP OP K1 AB NO ED PB PP SN AV "
         "AD AN LA CL SF OT LK DO CN DB DS IP RD ST U1 U2 U3 U4 U5 UL SL LL CR WT WV WP OL")
_TAG = re.compile(r"(" + "|".join(_TAGS.split()) + r")(?: (.*))?$", re.IGNORECASE)


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "RefWorks", "RefWorks tagged")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "RefWorks")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    clean = bibliography.cleaner(path)
    for line, fields in tagged_records(path, bibliography.report, progress, _TAG,
                                       frozenset({"RT"}), "RefWorks records ('RT ...')"):
        affiliations = tuple(a.strip() for v in values(fields, "AD") for a in v.split(";")
                             if a.strip())
        authors = [Author(name, affiliations=affiliations) for v in values(fields, "A1")
                   for w in split_names(v) if (name := parse_name(w)) is not None]
        title = clean(first(fields, "T1"))
        pages = "-".join(values(fields, "SP", "OP"))
        bibliography.add(Record(
            file=str(path), line=line, id=first(fields, "ID") or line_id(path, line),
            title=title, text=[title, clean(" ".join(values(fields, "AB"))),
                               clean("; ".join(values(fields, "K1")))],
            authors=authors, date=loose_date(first(fields, "YR", "FD")),
            doi=normal_doi(first(fields, "DO")), pages=pages, volume=first(fields, "VO"),
            journal=clean(first(fields, "JF", "JO"))))
