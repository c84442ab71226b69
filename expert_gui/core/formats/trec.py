"""TREC text files: `<DOC><DOCNO>id</DOCNO> ... </DOC>`, several per file, optionally gzipped.

The path is one such file or a folder of them. Markup inside a document (TREC fields, HTML) is
stripped with the standard library's HTML parser; `<DOCHDR>` (web crawl headers) is dropped.
Associations come from `--associations` or an `associations.*` file beside the documents, in the
TREC/SERT form `person_id doc_id [score]`.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from itertools import islice
from pathlib import Path

from expert_gui.core.collection import CollectionBuilder
from expert_gui.core.errors import CollectionError
from expert_gui.core.formats.associations import companion, read_associations, read_people
from expert_gui.core.formats.reading import (
    UNREADABLE,
    Progress,
    file_state,
    present,
    read_lines,
    report_skipped,
    walk_files,
)
from expert_gui.core.inputs import open_regular

NAME = "trec"
_DOC_TAG = re.compile(r"<(/?)DOC>", re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE | re.DOTALL)
_DOCHDR = re.compile(r"<DOCHDR>.*?</DOCHDR>", re.IGNORECASE | re.DOTALL)
_SKIPPED_TAGS = ("script", "style")


def looks_like(path: Path) -> bool:
    """A file (or one of the first files of a folder) whose text starts with `<DOC>`; only those
    few files are looked at, so a large folder is not walked."""
    files = islice(_document_files(path), 5) if path.is_dir() else [path]
    return any(_head(f).lstrip().upper().startswith(b"<DOC>") for f in files)


def _head(path: Path, size: int = 512) -> bytes:
    try:
        with open_regular(path, CollectionError) as raw:
            if path.name.endswith(".gz"):
                with gzip.GzipFile(fileobj=raw) as f:
                    return f.read(size)
            return raw.read(size)
    except (CollectionError, *UNREADABLE):
        return b""


def _companion_dir(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def _document_files(path: Path, skipped: list | None = None) -> Iterator[Path]:
    if not path.is_dir():
        return iter([path])
    return (f for f in walk_files(path, skipped)
            if not f.name.startswith(("associations.", "people.")) or f.parent != path)


def input_files(path: Path, associations: Path | None, people: Path | None,
                skipped: list | None = None) -> tuple[list[Path], Path, Path | None]:
    docs = list(_document_files(path, skipped))
    if not docs:
        raise CollectionError(path, None, "expected TREC files (<DOC> ... </DOC>)")
    assoc = associations or companion(_companion_dir(path), "associations")
    if assoc is None:
        raise CollectionError(path, None, "expected an associations file "
                                          "('person_id doc_id [score]' a line): --associations")
    people = people or (companion(path, "people") if path.is_dir() else None)
    return [d for d in docs if d not in (assoc, people)], assoc, people


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    return [file_state(f) for f in present(*input_files(path, associations, people))]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    skipped: list = []
    docs, assoc, people = input_files(path, associations, people, skipped)
    report_skipped(builder.report, skipped)
    progress.total = sum(f.stat().st_size for f in present(docs, assoc, people))
    for f in docs:
        read_trec_file(f, builder, progress, required=not path.is_dir())
    read_associations(assoc, builder, progress)
    if people is not None:
        read_people(people, builder, progress)


def read_trec_file(path: Path, builder: CollectionBuilder, progress: Progress, *,
                   required: bool = True) -> None:
    """Every `<DOC>` of one file; a broken document is reported. A file without any raises when
    it is the collection, and is reported and skipped when it is one file of a folder."""
    parts: list[str] | None = None  # the open document's text, None outside a document
    start = 0
    found = False
    stray, n_stray = None, 0  # first line holding text outside any document, and how many
    for line_no, text in read_lines(path, builder.report, progress):
        pos = 0
        while True:
            m = _DOC_TAG.search(text, pos)
            piece = text[pos:m.start()] if m else text[pos:]
            if parts is not None:
                parts.append(piece)
            elif piece.strip():
                stray = stray or line_no
                n_stray += 1
            if m is None:
                break
            pos = m.end()
            closing = m.group(1) == "/"
            if parts is None and closing:
                builder.report.add("malformed-record", path, line_no,
                                   "</DOC> without <DOC> (ignored)")
            elif parts is None:
                parts, start, found = [], line_no, True
            elif closing:
                _add_document("".join(parts), path, start, builder)
                parts = None
            else:
                builder.report.add("malformed-record", path, start,
                                   f"expected </DOC> before the <DOC> on line {line_no}; "
                                   "document skipped")
                parts, start = [], line_no
    if not found and required:
        raise CollectionError(path, stray or 1, "expected TREC documents (<DOC> ... </DOC>)")
    if not found:
        builder.report.add("malformed-record", path, stray or 1,
                           "expected TREC documents (<DOC> ... </DOC>); file skipped")
        return
    if parts is not None:
        builder.report.add("malformed-record", path, start,
                           "expected </DOC> before the end of the file; document skipped")
    if stray is not None:
        builder.report.add("malformed-record", path, stray,
                           f"text outside <DOC> ... </DOC> ignored ({n_stray} line(s) from here)")


def _add_document(body: str, path: Path, line: int, builder: CollectionBuilder) -> None:
    m = _DOCNO.search(body)
    if m is None or not m.group(1):
        builder.report.add("malformed-record", path, line,
                           "expected <DOCNO>id</DOCNO> in the document; document skipped")
        return
    rest = _DOCHDR.sub(" ", body[: m.start()] + " " + body[m.end():])
    builder.add_document(m.group(1), strip_markup(rest), path, line)


class _TextOnly(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in _SKIPPED_TAGS and self._skipping:
            self._skipping -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self._skipping:
            self.parts.append(data)


def strip_markup(text: str) -> str:
    """The text of an HTML (or TREC field) fragment: tags dropped, entities decoded."""
    parser = _TextOnly()
    parser.feed(text)
    parser.close()
    return "".join(parser.parts).strip()
