"""A RIS file (`.ris`), the export format of reference managers and bibliographic databases:
each record (`TY  - ` ... `ER  - `) is a document, its authors (AU, A1) the people.

Records are found line by line, so each has its line, and each is parsed with rispy. Its text is
the title (TI, T1), abstract (AB, N2) and keywords (KW); its id the ID tag, or the file's name and
the record's line when there is none; its date the year (PY, Y1); its DOI (DO) finds it again in
other exports. Names are read as every reader reads them (names.py), so "Van Gysel, Christophe"
here and in a .bib file are the same person, as are "Liu R." and "Liu, R.". A record cut short
(no ER) is read and reported; text outside records is reported.
"""

from __future__ import annotations

import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import parse_name
from expert_gui.core.data.formats.reading import (
    Continued,
    Progress,
    file_state,
    own_authors_file,
    read_lines,
)
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

NAME = "ris"
_TITLE_KEYS = ("title", "primary_title")
_TEXT_KEYS = ("abstract", "notes_abstract", "keywords")
_PEOPLE_KEYS = ("authors", "first_authors")
_YEAR = re.compile(r"\d{4}")
# The tags after which a line without a tag is kept a line of its own: rispy's list tags (it
# reads such a line as one more value) and those that start and end a record.
_LISTED = frozenset({"A1", "A2", "A3", "A4", "AU", "KW", "N1", "UR", "TY", "ER"})


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def _is_tag(line: str, tag: str) -> bool:
    return line.startswith(tag) and line[2:5] == "  -"


def _tag_of(line: str) -> str | None:
    """The tag of a line as rispy reads it; None for a line that goes on with the field before."""
    return line[:2] if line[2:5] == "  -" and line[:2].isupper() and line[:1].isalpha() else None


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "RIS", ".ris")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "RIS")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    report = bibliography.report
    record: list[Continued] | None = None  # its lines, those that go on a field joined to it
    start, found, stray = 0, False, None
    last_tag = None
    for line, text in read_lines(path, report, progress):
        text = text.rstrip("\r\n")
        if record is None:
            if _is_tag(text, "TY"):
                record, start, found = [Continued(text, line)], line, True
                last_tag = "TY"
            elif text.strip() and stray is None:
                stray = line
            continue
        tag = _tag_of(text)
        if tag is None and last_tag not in _LISTED:
            record[-1].add(text.strip(), line)  # as rispy joins it, in one pass
        else:
            record.append(Continued(text.rstrip() if tag else text, line))
            last_tag = tag or last_tag
        if _is_tag(text, "ER"):
            _add_record(_joined(record, path, report), path, start, bibliography)
            record = None
    if record is not None:
        report.add("malformed-record", path, start,
                   "expected 'ER  - ' before the end of the file; the record was read as it "
                   "stands")
        _add_record([*_joined(record, path, report), "ER  - "], path, start, bibliography)
    if not found:
        raise CollectionError(path, stray or 1, "expected RIS records ('TY  - ' ... 'ER  - ')")
    if stray is not None:
        report.add("malformed-record", path, stray,
                   "text outside the records ignored (from this line)")


def _joined(record: list[Continued], path: Path, report: LoadReport) -> list[str]:
    for field in record:
        field.report_cut(report, path, field.lines[0][:2])
    return [" ".join(field.lines) for field in record]


def _add_record(lines: list[str], path: Path, line: int, bibliography: Bibliography) -> None:
    import rispy

    try:
        [entry] = rispy.loads("\n".join(lines))
    except Exception as exc:  # rispy's own errors have no common base class
        bibliography.report.add("malformed-record", path, line, f"expected a RIS record: "
                                                                f"{exc}; skipped")
        return
    clean = bibliography.cleaner(path)

    def values(key: str) -> list[str]:
        value = entry.get(key)
        return [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]

    title = next((clean(t) for key in _TITLE_KEYS for t in values(key) if clean(t)), "")
    texts = [title] + [clean(t) for key in _TEXT_KEYS for t in values(key)]
    authors = [Author(name) for key in _PEOPLE_KEYS for written in values(key)
               if (name := parse_name(written)) is not None]
    year = next((m.group() for key in ("year", "publication_year") for v in values(key)
                 if (m := _YEAR.search(v))), "")
    doc_id = str(entry.get("id") or "").strip() or line_id(path, line)
    bibliography.add(Record(
        file=str(path), line=line, id=doc_id, title=title, text=texts, authors=authors,
        date=year, doi=normal_doi(" ".join(values("doi"))),
        pages=" ".join(values("start_page")), volume=" ".join(values("volume"))))
