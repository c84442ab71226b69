"""TREC text files: `<DOC><DOCNO>id</DOCNO> ... </DOC>`, several per file, optionally gzipped.

The path is one such file or a folder of them. Markup inside a document (TREC fields, HTML) is
stripped in one linear pass; `<DOCHDR>` (web crawl headers) is dropped.
Associations come from `--associations` or an `associations.*` file beside the documents, in the
TREC/SERT form `person_id doc_id [score]`.
"""

from __future__ import annotations

import gzip
import html
import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.associations import companion, read_associations, read_people
from expert_gui.core.data.formats.reading import (
    UNREADABLE,
    Progress,
    file_state,
    present,
    read_lines,
    report_skipped,
    total_size,
    walk_files,
)
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.errors import CollectionError

NAME = "trec"
_DOC_TAG = re.compile(r"<(/?)DOC>", re.IGNORECASE)
_DOCNO = (re.compile(r"<DOCNO>", re.IGNORECASE), re.compile(r"</DOCNO>", re.IGNORECASE))
_DOCHDR = (re.compile(r"<DOCHDR>", re.IGNORECASE), re.compile(r"</DOCHDR>", re.IGNORECASE))
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
        raise CollectionError(path, None, "expected an associations file beside it "
                                          "(associations.txt or .tsv, 'person_id doc_id [score]' "
                                          "a line)", cli_hint="--associations FILE")
    people = people or (companion(path, "people") if path.is_dir() else None)
    return [d for d in docs if d not in (assoc, people)], assoc, people


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    return [file_state(f) for f in present(*input_files(path, associations, people))]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    skipped: list = []
    docs, assoc, people = input_files(path, associations, people, skipped)
    report_skipped(builder.report, skipped)
    progress.total = total_size(present(docs, assoc, people))
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
    docno = _element(body, *_DOCNO)
    doc_id = body[docno[1]:docno[2]].strip() if docno else ""
    if not doc_id:
        builder.report.add("malformed-record", path, line,
                           "expected <DOCNO>id</DOCNO> in the document; document skipped")
        return
    rest = body[: docno[0]] + " " + body[docno[3]:]
    parts, pos = [], 0
    while (header := _element(rest, *_DOCHDR, pos)) is not None:  # web crawl headers: dropped
        parts += [rest[pos:header[0]], " "]
        pos = header[3]
    parts.append(rest[pos:])
    builder.add_document(doc_id, strip_markup("".join(parts)), path, line)


def _element(text: str, opener: re.Pattern, closer: re.Pattern,
             pos: int = 0) -> tuple[int, int, int, int] | None:
    """(start, content start, content end, end) of the first opener ... closer from `pos`.

    Two searches, each from where the last stopped, so a text of many openers and no closer
    costs one pass (a lazy `<X>.*?</X>` pattern retried at every opener took quadratic time).
    """
    start = opener.search(text, pos)
    if start is None:
        return None
    end = closer.search(text, start.end())
    if end is None:
        return None
    return start.start(), start.end(), end.start(), end.end()


_MARKUP = re.compile(r"<(?:(!--)|/?([A-Za-z][A-Za-z0-9]*)|[!?/])")
_SKIPPED_CONTENT = {tag: re.compile(rf"</{tag}\b", re.IGNORECASE) for tag in _SKIPPED_TAGS}


def strip_markup(text: str) -> str:
    """The text of an HTML (or TREC field) fragment: tags, comments and script or style content
    dropped, entities decoded.

    One pass from left to right: each construct is looked for from where the last one ended,
    and a closer found missing once (an unclosed comment, a '<' without '>') is never looked for
    again, so the time is linear in the text (html.parser took quadratic time on a text of many
    unclosed `<!--`). A construct that is never closed is kept as text.
    """
    out, pos, start = [], 0, 0
    missing: dict[object, int] = {}  # closer -> a position from which it is known absent

    def find(closer, at: int) -> int:
        if at >= missing.get(closer, len(text) + 1):
            return -1
        if isinstance(closer, str):
            found = text.find(closer, at)
        else:
            m = closer.search(text, at)
            found = m.start() if m else -1
        if found < 0:
            missing[closer] = at
        return found

    while (m := _MARKUP.search(text, start)) is not None:
        closer = "-->" if m.group(1) else ">"
        end = find(closer, m.end())
        if end < 0:
            start = m.start() + 1  # not markup after all: its '<' stays text
            continue
        end += len(closer)
        tag = (m.group(2) or "").lower()
        if tag in _SKIPPED_CONTENT and not m.group(0).startswith("</"):
            close = find(_SKIPPED_CONTENT[tag], end)
            if close >= 0:
                after = find(">", close)
                end = len(text) if after < 0 else after + 1
        out += [text[pos:m.start()], " "]
        pos = start = end
    out.append(text[pos:])
    return html.unescape("".join(out)).strip()
