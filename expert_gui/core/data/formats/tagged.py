"""Records of the tagged text exports that give one field a line, its tag first (EndNote's and
NASA ADS's `%A Name`, RefWorks's `A1 Name`): each record starts at one of its format's start
tags (`%0`, `%R`, `RT`) and runs to the next; blank lines between records are passed over.

A line that starts with no tag goes on with the field before it (ADS wraps its author lists
and abstracts at 72 characters, "Aratani,\\nYuki"): joined with a space, or with nothing after a
hyphen that ends a word ("gas-\\nphase"). Text before the first record is reported. These formats
are a line each with a tag: a few lines of code, where a library would bring no line numbers
(none that reads them is maintained).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from expert_gui.core.data.formats.reading import Continued, Progress, read_lines
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

Fields = list[list[str]]  # [tag, value] in file order


def tagged_records(path: Path, report: LoadReport, progress: Progress, tag: re.Pattern,
                   starts: frozenset[str], expected: str) -> Iterator[tuple[int, Fields]]:
    """(line where the record starts, its fields) for each record; `tag` matches a line's tag
    (group 1) and value (group 2), a tag matched ignoring case given in upper case (so CNKI's
    `rt` starts a record as `RT` does); `expected` says what a record looks like, for the error
    when the file holds none."""
    ignore_case = bool(tag.flags & re.IGNORECASE)
    fields: list[tuple[str, Continued]] | None = None
    start, stray, found = 0, None, False
    for line, text in read_lines(path, report, progress):
        text = text.rstrip("\r\n")
        if not text.strip():
            continue
        m = tag.match(text)
        if m is None:
            if fields:
                fields[-1][1].add(text.strip(), line)
            elif stray is None:
                stray = line
            continue
        name, value = m.group(1), (m.group(2) or "").strip()
        if ignore_case:
            name = name.upper()
        if name in starts:
            if fields is not None:
                yield start, _joined(fields, report, path)
            fields, start, found = [], line, True
        if fields is not None:
            fields.append((name, Continued(value, line)))
        elif stray is None:
            stray = line
    if fields is not None:
        yield start, _joined(fields, report, path)
    if not found:
        raise CollectionError(path, stray or 1, f"expected {expected}")
    if stray is not None:
        report.add("malformed-record", path, stray, "text outside the records left out (from "
                                                    "this line)")


def _joined(fields: list[tuple[str, Continued]], report: LoadReport, path: Path) -> Fields:
    """Each field's lines as one value: joined by a space, or by nothing after a hyphen that
    ends a word when a lower-case letter follows."""
    out = []
    for name, value in fields:
        value.report_cut(report, path, name)
        parts = value.lines[:1]
        for more in value.lines[1:]:
            last = parts[-1]
            glued = len(last) > 1 and last.endswith("-") and last[-2].isalpha() and \
                more[:1].islower()
            parts.append(more if glued or not last else " " + more)
        out.append([name, "".join(parts)])
    return out


def values(fields: Fields, *tags: str) -> list[str]:
    """The values of the fields with these tags, in file order, empty ones left out."""
    return [v for t, v in fields if t in tags and v]


def first(fields: Fields, *tags: str) -> str:
    """The first non-empty value of the first of these tags that has one."""
    for t in tags:
        found = values(fields, t)
        if found:
            return found[0]
    return ""
