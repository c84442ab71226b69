"""PubMed's MEDLINE format (`.nbib`, "Save > PubMed format"): records from `PMID- ` to a blank
line, each line a tag padded to four characters, "- " and a value; a line starting with six
spaces goes on with the value before it.

Text: `TI`, `AB`, `OT` (the authors' keywords); people: each `FAU` (full name) with the `AU`
that follows it (its short form, read alone where there is no `FAU`), a collective name `CN`,
and the ORCID in an `AUID` and the affiliations in the `AD`s after them; id: the PMID; the DOI
is the `LID`/`AID` value marked `[doi]`; date `DP` ("2018 Nov 25"). `PS`/`FPS` (a person the
paper is about) are not authors.
Written here rather than taken from biopython (a large package for about eighty lines) or
`nbib` (unmaintained); neither gives line numbers.
"""

from __future__ import annotations

from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import Name, parse_name
from expert_gui.core.data.formats.people import author_id
from expert_gui.core.data.formats.reading import (
    Continued,
    Progress,
    file_state,
    own_authors_file,
    read_lines,
)
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi, normal_pmid
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.errors import CollectionError

NAME = "medline"


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "MEDLINE", "MEDLINE (.nbib)")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "MEDLINE")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    report = bibliography.report
    fields: list[tuple[str, Continued]] | None = None  # in file order
    start = 0
    stray = None
    found = False
    for line, text in read_lines(path, report, progress):
        text = text.rstrip("\r\n")
        if not text.strip():
            if fields is not None:
                _add(fields, path, start, bibliography)
                fields = None
            continue
        if text.startswith("      ") and fields:
            fields[-1][1].add(text.strip(), line)
            continue
        if len(text) < 5 or text[4] != "-" or not text[:4].strip().isalnum():
            if fields is not None:
                report.add("malformed-record", path, line, "expected a tag ('TI  - ') or a line "
                           "starting with six spaces; this line was left out")
            elif stray is None:
                stray = line
            continue
        tag, value = text[:4].strip(), text[6:].strip()
        if tag == "PMID":
            if fields is not None:
                _add(fields, path, start, bibliography)
            fields, start, found = [], line, True
        if fields is not None:
            fields.append((tag, Continued(value, line)))
        elif stray is None:
            stray = line
    if fields is not None:
        _add(fields, path, start, bibliography)
    if not found:
        raise CollectionError(path, stray or 1, "expected MEDLINE records ('PMID- ...')")
    if stray is not None:
        report.add("malformed-record", path, stray, "text outside the records left out (from "
                   "this line)")


def _add(continued: list[tuple[str, Continued]], path: Path, line: int,
         bibliography: Bibliography) -> None:
    fields = []
    for tag, value in continued:
        value.report_cut(bibliography.report, path, tag)
        fields.append((tag, " ".join(value.lines)))
    clean = bibliography.cleaner(path)
    first: dict[str, str] = {}
    for tag, value in fields:
        first.setdefault(tag, value)
    authors: list[Author] = []
    short_only = True  # whether the last author came from an AU alone (so an AU starts anew)
    for tag, value in fields:
        if tag == "FAU":
            authors.append(Author(parse_name(value)))
            short_only = False
        elif tag == "AU":
            if short_only or authors[-1].name is None:
                authors.append(Author(parse_name(value)))
            short_only = True
        elif tag == "CN":
            authors.append(Author(Name(value) if value else None))
            short_only = True
        elif tag == "AUID" and authors and value.upper().startswith("ORCID"):
            ident = author_id("orcid", value)
            if ident:
                authors[-1].ids = (*authors[-1].ids, ident)
        elif tag == "AD" and authors and value:
            authors[-1].affiliations = (*authors[-1].affiliations, value)
    keywords = "; ".join(v for t, v in fields if t == "OT")
    doi = next((normal_doi(v) for t, v in fields if t in ("LID", "AID") and v.endswith("[doi]")),
               "")
    title = clean(first.get("TI", "") or first.get("BTI", ""))
    pmid = normal_pmid(first.get("PMID", ""))
    bibliography.add(Record(
        file=str(path), line=line, id=pmid or line_id(path, line), title=title,
        text=[title, clean(first.get("AB", "")), clean(keywords)],
        authors=[a for a in authors if a.name is not None], date=loose_date(first.get("DP", "")),
        doi=doi, pmid=pmid, pages=first.get("PG", ""), volume=first.get("VI", "")))
