"""EndNote XML (File > Export > XML): `<xml><records><record>...`, often the whole library on
one line, every value wrapped in `<style>`. Read with the standard library (xmlrecords.py); no
maintained library reads it.

Text: `titles/title`, `abstract`, `keywords/keyword`; people: `contributors/authors/author`
(an author field holding several names typed into one, "Guild, F.J., A.J. Kinloch, and A.C.
Taylor", is split, and reported); id: the file's name and the record's `rec-number`; DOI:
`electronic-resource-num`; date: `dates/year`.
"""

from __future__ import annotations

import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import parse_name, split_names
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, normal_doi
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.formats.xmlrecords import text_of, xml_records

NAME = "endnote-xml"
_AND = re.compile(r"\s(?:and|&)\s")


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "EndNote XML", "EndNote XML")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "EndNote XML")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    report = bibliography.report
    clean = bibliography.cleaner(path)
    stem = path.name.split(".")[0]
    for record, line, column in xml_records(path, ("xml",), frozenset({"record"}), report,
                                            progress):
        number = text_of(record.find("rec-number")) or f"column {column}"
        doc_id = f"{stem}:{number}"
        authors = []
        for field in record.iterfind("contributors/authors/author"):
            written = text_of(field).strip(" ,;")
            several = written.count(",") > 1 or ("," in written and _AND.search(written))
            names = split_names(written, "comma") if several else [written]
            if len(names) > 1:
                report.add("name-repaired", path, line, f"{doc_id}: one author field holds "
                           f"{len(names)} names, read as {len(names)} authors: {written!r}")
            authors += [Author(n) for n in map(parse_name, names) if n is not None]
        title = clean(text_of(record.find("titles/title")))
        keywords = "; ".join(text_of(k) for k in record.iterfind("keywords/keyword"))
        date = loose_date(text_of(record.find("dates/year"))
                          or text_of(record.find("dates/pub-dates/date")))
        bibliography.add(Record(
            file=str(path), line=line, id=doc_id, title=title,
            text=[title, clean(text_of(record.find("abstract"))), clean(keywords)],
            authors=authors, date=date,
            doi=normal_doi(text_of(record.find("electronic-resource-num"))),
            pages=text_of(record.find("pages")), volume=text_of(record.find("volume"))))
