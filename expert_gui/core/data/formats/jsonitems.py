"""The items of a JSON export, one at a time, each with the line where it starts: a top-level
array (CSL-JSON), or the array under some keys of the top object (OpenAlex's `results`,
Crossref's `message.items`). Read with the standard library's json, item by item: each item's
end is found first by its brackets and strings alone (`_end_of`, linear, nothing built), so an
item over the record cap is reported and never decoded, and a damaged one (a value past
`schema.decode`'s bounds: an integer of too many digits, NaN, a key given twice; or broken JSON
whose brackets still close) is reported with its reason and reading goes on at the next item,
in a minified file too. Where the brackets do not close, reading goes on at the next item that
starts a line as the others do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from expert_gui.core import schema
from expert_gui.core.data.formats import reading
from expert_gui.core.data.formats.reading import Progress, decode_bytes
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

_SPACE = re.compile(r"\s*")
_STRUCTURE = re.compile(r'["\[\]{}]')
# The rest of a string after its opening quote, to its closing one (possessive: linear, even
# where it never closes).
_STRING_REST = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)
_SCALAR = re.compile(r"[^\s,\]}]*")


def json_items(path: Path, report: LoadReport, progress: Progress, what: str,
               where: tuple[str, ...] = ()) -> Iterator[tuple[dict, int]]:
    """(item, line) for each item of the array at the keys `where` of the top object, or of a
    top-level array. An object on that way that lacks the next key is itself the one item (a
    single OpenAlex work, a Crossref `message` that is one work). An item that is no object is
    reported and passed over. `what` names the items, for the report ("CSL items")."""
    data = read_regular(path, CollectionError)
    text = decode_bytes(data, path, report)
    progress.advance(len(data), f"reading {path.name}")
    lines = _Lines(text)
    pos = _SPACE.match(text).end()
    for key in where:
        found = _value_of(text, pos, key, path, lines) if text.startswith("{", pos) else None
        if found is None:
            if text.startswith("{", pos):  # an object without the key: the one item
                yield _whole(text, pos, path, lines, what), lines(pos)
                return
            break
        pos = found
    if not text.startswith("[", pos):
        raise CollectionError(path, lines(pos), f"expected a JSON array of {what} ('[')")
    for item, line in _array(text, pos + 1, path, report, lines):
        if isinstance(item, dict):
            yield item, line
        else:
            report.add("malformed-record", path, line, f"expected one of the {what} (a JSON "
                                                       f"object), found {type(item).__name__}")


def _decode(text: str, pos: int) -> tuple[object, int]:
    return schema.decode(text, pos)


def _whole(text: str, pos: int, path: Path, lines: _Lines, what: str) -> dict:
    end = _end_of(text, pos)
    if end is not None and end - pos > reading.MAX_RECORD:
        raise CollectionError(path, lines(pos), f"{_too_long(what)}; not read")
    try:
        return _decode(text, pos)[0]
    except (ValueError, RecursionError) as exc:
        raise CollectionError(path, lines(pos), f"expected {what} as JSON: {_why(exc)}") \
            from None


def _value_of(text: str, pos: int, key: str, path: Path, lines: _Lines) -> int | None:
    """Where the value of `key` starts in the object at `pos`; None when it has no such key.
    The other values are decoded only to be passed over."""
    pos = _SPACE.match(text, pos + 1).end()
    try:
        while text.startswith('"', pos):
            name, pos = _decode(text, pos)
            pos = _SPACE.match(text, pos).end()
            if not text.startswith(":", pos):
                break
            pos = _SPACE.match(text, pos + 1).end()
            if name == key:
                return pos
            end = _end_of(text, pos)  # passed over, not built
            if end is None:
                break
            pos = _SPACE.match(text, end).end()
            if not text.startswith(",", pos):
                break
            pos = _SPACE.match(text, pos + 1).end()
    except (ValueError, RecursionError) as exc:
        raise CollectionError(path, lines(pos), f"expected a JSON object: {_why(exc)}") from None
    if text.startswith("}", pos):
        return None
    raise CollectionError(path, lines(pos), "expected a JSON object ('\"key\": value', "
                                            "',' between them, '}' at its end)")


def _array(text: str, pos: int, path: Path, report: LoadReport,
           lines: _Lines) -> Iterator[tuple[object, int]]:
    indent = None  # what starts an item's line: where to go on when an item's brackets never close
    number = 0  # of the item, from 1: where it is in a file of one line
    while True:
        pos = _SPACE.match(text, pos).end()
        if text.startswith("]", pos) or pos >= len(text):
            return
        start = pos
        number += 1
        if indent is None:
            indent = "\n" + text[text.rfind("\n", 0, start) + 1:start]
        end = _end_of(text, start)
        after = -1 if end is None else _SPACE.match(text, end).end()
        closed = after >= 0 and text.startswith((",", "]"), after)  # the next item is found
        if closed and end - start > reading.MAX_RECORD:
            report.add("record-too-long", path, lines(start),
                       f"item {number:,}: {_too_long('an item')}; not read")
            pos = after + text.startswith(",", after)
            continue
        try:
            item, pos = _decode(text, start)
        except (ValueError, RecursionError) as exc:
            line = text.find(indent + "{", start + 1) if indent.strip("\n") else -1
            report.add("malformed-record", path, lines(start),
                       f"item {number:,}: expected a JSON object ({_why(exc)}); "
                       + ("skipped" if closed or line >= 0 else
                          "the rest of the file was not read"))
            if line >= 0 and (not closed or line < after):  # brackets closed too late
                pos = line + len(indent)
            elif closed:
                pos = after + text.startswith(",", after)
            else:
                return
            continue
        yield item, lines(start)
        pos = _SPACE.match(text, pos).end()
        if text.startswith(",", pos):
            pos += 1
        elif not text.startswith("]", pos):
            report.add("malformed-record", path, lines(pos),
                       "expected ',' or ']' after an item; the rest of the file was not read")
            return


def _end_of(text: str, pos: int) -> int | None:
    """Where the JSON value at `pos` ends, told by its brackets and strings alone (nothing is
    built, and a value's content is not checked: decoding does that); None when its brackets or
    a string never close."""
    if not text.startswith(("[", "{", '"'), pos):
        return _SCALAR.match(text, pos).end()
    depth = 0
    while True:
        m = _STRUCTURE.search(text, pos)
        if m is None:
            return None
        pos = m.end()
        if m.group() == '"':
            string = _STRING_REST.match(text, pos)
            if string is None:
                return None
            pos = string.end()
        elif m.group() in "[{":
            depth += 1
        else:
            depth -= 1
        if depth <= 0:
            return pos


def _too_long(what: str) -> str:
    return (f"{what} of more than {reading.MAX_RECORD:,} characters, the most a record may "
            "hold")


def _why(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    if isinstance(exc, schema.SchemaError):
        return str(exc).removeprefix("the document: ")
    return str(exc) or type(exc).__name__


class _Lines:
    """The line of a position in a text, counted on from the last position asked about (which
    is never after this one but once, on an error)."""

    def __init__(self, text: str):
        self._text, self._pos, self._line = text, 0, 1

    def __call__(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._line = 0, 1
        self._line += self._text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line


def get_text(item: dict, key: str) -> str:
    """A value as text: a string or number as it is, a list of them joined by "; "."""
    value = item.get(key)
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value if isinstance(v, str | int))
    return str(value) if isinstance(value, str | int | float) and \
        not isinstance(value, bool) else ""
