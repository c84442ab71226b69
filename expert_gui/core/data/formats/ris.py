"""A RIS file (`.ris`), the export format of reference managers and bibliographic databases:
each record (`TY  - ` ... `ER  - `) is a document, its authors (AU, A1) the people.

Records are found line by line, so each has its line, and each is parsed with rispy. Its text is
the title (TI, T1), abstract (AB, N2) and keywords (KW); its id the ID tag, or the file's name and
the record's line when there is none. Names are normalised as the BibTeX reader does, so
"Van Gysel, Christophe" here and in a .bib file are the same person. A record cut short (no ER)
is read and reported; text outside records is reported.
"""

from __future__ import annotations

from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibtex import person_from_text
from expert_gui.core.data.formats.reading import (
    Progress,
    file_state,
    own_authors_file,
    read_lines,
)
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.errors import CollectionError

NAME = "ris"
_TEXT_KEYS = ("title", "primary_title", "abstract", "notes_abstract", "keywords")
_PEOPLE_KEYS = ("authors", "first_authors")


def looks_like(path: Path) -> bool:
    if path.is_dir():
        return False
    if path.suffix.lower() == ".ris":
        return True
    try:
        with open_regular(path, CollectionError) as f:
            head = f.read(512).lstrip(b"\xef\xbb\xbf \t\r\n")
    except (CollectionError, OSError):
        return False
    return _is_tag(head[:6].decode("latin-1"), "TY")


def _is_tag(line: str, tag: str) -> bool:
    return line.startswith(tag) and line[2:5] == "  -"


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "RIS", ".ris")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    own_authors_file(path, associations, people, "RIS", ".ris")
    progress.total = path.stat().st_size
    record: list[str] | None = None
    start, found, stray = 0, False, None
    for line, text in read_lines(path, builder.report, progress):
        text = text.rstrip("\r\n")
        if record is None:
            if _is_tag(text, "TY"):
                record, start, found = [text], line, True
            elif text.strip() and stray is None:
                stray = line
            continue
        record.append(text)
        if _is_tag(text, "ER"):
            _add_record(record, path, start, builder)
            record = None
    if record is not None:
        builder.report.add("malformed-record", path, start,
                           "expected 'ER  - ' before the end of the file; the record was read "
                           "as it stands")
        _add_record([*record, "ER  - "], path, start, builder)
    if not found:
        raise CollectionError(path, stray or 1, "expected RIS records ('TY  - ' ... 'ER  - ')")
    if stray is not None:
        builder.report.add("malformed-record", path, stray,
                           "text outside the records ignored (from this line)")


def _add_record(lines: list[str], path: Path, line: int, builder: CollectionBuilder) -> None:
    import rispy

    try:
        [entry] = rispy.loads("\n".join(lines))
    except Exception as exc:  # rispy's own errors have no common base class
        builder.report.add("malformed-record", path, line, f"expected a RIS record: {exc}; "
                                                           "skipped")
        return
    texts = []
    for key in _TEXT_KEYS:
        value = entry.get(key)
        texts += value if isinstance(value, list) else [value] if value else []
    where = str(path)
    people = []
    for key in _PEOPLE_KEYS:
        for name in entry.get(key) or []:
            person_id, display = person_from_text(name)
            if person_id and person_id not in people:
                builder.add_person(person_id, display, where, line)
                people.append(person_id)
    doc_id = str(entry.get("id") or "").strip() or f"{path.name.split('.')[0]}:{line}"
    builder.add_document(doc_id, "\n".join(t for t in texts if isinstance(t, str)), where, line,
                         people=people)
