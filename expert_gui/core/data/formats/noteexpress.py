"""NoteExpress's tagged format (`.net`, `.txt`), as CNKI, Wanfang and VIP export it: one field a
line, its name in braces ("{Title}: ...", "{Author}: 张三"), records starting at
`{Reference Type}:` (tagged.py).

Text: `{Title}`, `{Translated Title}` (the English title Wanfang adds), `{Abstract}`,
`{Keywords}` (one a line, or ";"-separated); people: `{Author}`, one a line or ";"-separated
(CNKI: "潘紫麟;刘庆鹏;"), each one person as written; `{Translated Author}` (the same people
in pinyin) are not more people. Affiliations: `{Author Address}`, one for each author in order
where there are as many as authors (Wanfang), else all of them for every author (CNKI's ";"-
separated list). Date `{Year}`; journal `{Journal}` (or `{Secondary Title}`); volume, pages,
DOI; id: the file's name and the record's line.
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
from expert_gui.core.data.formats.tagged import Fields, first, tagged_records, values

NAME = "noteexpress"
_TAG = re.compile(r"\{([^{}]{1,40})\}\s*[:：][ \t]*(.*)$")
_SEPARATORS = str.maketrans({"；": ";"})


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "NoteExpress", "NoteExpress")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "NoteExpress")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    for line, fields in tagged_records(path, bibliography.report, progress, _TAG,
                                       frozenset({"Reference Type"}),
                                       "NoteExpress records ('{Reference Type}: ...')"):
        bibliography.add(_record(fields, path, line, bibliography))


def _split(fields: Fields, tag: str) -> list[str]:
    return [p.strip() for v in values(fields, tag) for p in v.split(";") if p.strip()]


def _record(fields: Fields, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    fields = [[t.strip(), v.translate(_SEPARATORS)] for t, v in fields]
    names = [name for v in values(fields, "Author") for written in split_names(v)
             if (name := parse_name(written)) is not None]
    lines = [v.strip().rstrip(";") for v in values(fields, "Author Address")]
    if len(lines) == len(names) > 1 and all(";" not in v for v in lines):
        places = [(p,) for p in lines]  # one address a line, an author's each
    else:
        places = [tuple(_split(fields, "Author Address"))] * len(names)
    title = clean(first(fields, "Title"))
    return Record(
        file=str(path), line=line, id=line_id(path, line), title=title,
        text=[title, clean(first(fields, "Translated Title")),
              clean(" ".join(values(fields, "Abstract"))),
              clean("; ".join(_split(fields, "Keywords")))],
        authors=[Author(n, affiliations=p) for n, p in zip(names, places, strict=True)],
        date=loose_date(first(fields, "Year")), doi=normal_doi(first(fields, "DOI")),
        pages=first(fields, "Pages"), volume=first(fields, "Volume"),
        journal=clean(first(fields, "Journal", "Secondary Title")))
