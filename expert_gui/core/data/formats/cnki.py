"""CNKI's own text export (知网 "自定义" and "查新" exports, and E-Study's): one field a line,
its English and Chinese label first ("Title-题名: ...", "Author-作者: 张三;李四;"), a blank
line between records (tagged.py). A record starts at the file's first label: `SrcDatabase-来源库`
in the web site's exports, `DataType` in E-Study's.

Text: `Title`, `Summary` (the abstract), `Keyword` (";" or ";;" between keywords); people:
`Author`, ";"-separated, each one person as written (CNKI gives no family and given parts), with
the record's `Organ` (";"-separated) as their affiliations; date `Year`, else `PubTime`; journal
`Source`; pages `Page`, else `PageCount` where it is a range; DOI `DOI`; id: CNKI's file name in
`Link` or `URL` (`FileName=XXJK201307097`, the same paper in another CNKI export), else the file's
name and the record's line.
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

NAME = "cnki"
# "Title-题名:", "Organ-作者机构:", "DOI-DOI:" (a label in Chinese, or a few in English), and
# E-Study's "DataType:"; the colon may be a fullwidth one. Group 1 is the English label.
_TAG = re.compile(r"(DataType(?=[:：])|[A-Za-z][A-Za-z/]*(?=-))"
                  r"(?:-(?:[^\s:：]*[\u4e00-\u9fff][^\s:：]*|DOI|ISSN|ISBN|URL|CN))?"
                  r"[:：][ \t]*(.*)$")
_FILE_NAME = re.compile(r"[?&]filename=([A-Za-z0-9_]+)", re.IGNORECASE)
# CNKI separates people, places and keywords by ";" (";;" between keywords in some exports),
# sometimes by a fullwidth "；".
_SEPARATORS = str.maketrans({"；": ";"})


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "CNKI", "CNKI text")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "CNKI")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    start = next((m.group(1) for line in head_text(path).lstrip("\ufeff").splitlines()
                  if (m := _TAG.match(line.strip()))), "SrcDatabase")
    for line, fields in tagged_records(path, bibliography.report, progress, _TAG,
                                       frozenset({start}), "CNKI records ('SrcDatabase-来源库: "
                                       "...', 'Title-题名: ...')"):
        bibliography.add(_record(fields, path, line, bibliography))


def _record(fields: Fields, path: Path, line: int, bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    fields = [[t, v.translate(_SEPARATORS)] for t, v in fields]
    places = tuple(p.strip() for v in values(fields, "Organ") for p in v.split(";")
                   if p.strip())
    authors = [Author(name, affiliations=places) for v in values(fields, "Author")
               for written in split_names(v) if (name := parse_name(written)) is not None]
    title = clean(first(fields, "Title"))
    keywords = "; ".join(k.strip() for v in values(fields, "Keyword") for k in v.split(";")
                         if k.strip())
    pages = first(fields, "Page") or next(
        (p for p in values(fields, "PageCount") if "-" in p), "")
    link = next((m.group(1) for v in values(fields, "Link", "URL")
                 if (m := _FILE_NAME.search(v))), "")
    return Record(
        file=str(path), line=line, id=f"cnki:{link}" if link else line_id(path, line),
        title=title, text=[title, clean(" ".join(values(fields, "Summary"))), clean(keywords)],
        authors=authors, date=loose_date(first(fields, "Year") or first(fields, "PubTime")),
        doi=normal_doi(first(fields, "DOI")), pages=pages, volume=first(fields, "Volume"),
        journal=clean(first(fields, "Source")))
