"""Checks of JSON documents, small and composable: every key, its type and its limits are checked
before anything in a file is used (model manifests, checkpoints, the collection cache), so a file is
never half understood. `parse` refuses repeated keys and NaN."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any, str], None]
"""A check takes a value and where it is in the document ("people.ids[3]") and raises
SchemaError when the value is not what the schema says."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


class SchemaError(ValueError):
    """A value that breaks the schema; `where` is its place in the document."""

    def __init__(self, where: str, message: str):
        self.where = where
        super().__init__(f"{where or 'the document'}: {message}")


# The deepest a JSON document may nest. What this program reads nests a few levels (a model's
# calibration: 5); deeper is damage or an attack. Refused before it is parsed, so no later walk
# of a document (the schema's checks, json.dumps for a manifest's hash) comes near Python's
# recursion limit, where a 100,000-deep train_settings.json used to end in a traceback.
MAX_DEPTH = 64
# The most digits an integer may have: every count, step, seed and size here fits in 64 bits
# (20 digits). Python refuses to convert more than 4,300 (its own guard: converting is
# quadratic in the digits) with a ValueError that no reader expected.
MAX_INT_DIGITS = 20
_EMPTY_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(range(256)).translate(None, b'"[]{}')


def parse(data: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON without repeated keys, NaN or Infinity, integers longer than MAX_INT_DIGITS or
    nesting deeper than `max_depth`: every JSON document the program is handed (manifests,
    checkpoints, the cache, a collection's train_settings.json, JSON Lines records) is read here
    or by `decode`. Raises SchemaError, or json.JSONDecodeError where the text is not JSON (both
    ValueErrors), or UnicodeDecodeError for bytes that are not UTF-8."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    check_depth(text, max_depth)
    return _DECODER.decode(text)


def decode(text: str, pos: int = 0, max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """The JSON value that starts at `pos` in `text` and where it ends, with `parse`'s limits:
    for a reader that takes a file's values one by one (CSL-JSON's items), so that a bad one is
    reported with its line and the others are read."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except RecursionError:  # Python's own limit, met before `max_depth` could be checked
        raise _too_deep(max_depth) from None
    check_depth(text, max_depth, pos, end)
    return value, end


def check_depth(text: str, max_depth: int = MAX_DEPTH, start: int = 0,
                end: int | None = None) -> None:
    """Raise SchemaError when the JSON text (or its part from `start` to `end`) nests deeper
    than `max_depth`; a bracket inside a string does not count. Fast where it can be: text with
    fewer brackets than `max_depth` is not looked at, and the rest is reduced to its brackets
    outside strings by byte operations before they are counted."""
    if text.count("[", start, end) + text.count("{", start, end) <= max_depth:
        return
    data = text[start:end].encode("utf-8", "surrogatepass")
    if b"\\" in data:  # no escaped quote may be taken for a string's end
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    data = data.translate(None, _NOT_BRACKETS)
    data = b"".join(data.split(b'"')[::2])  # what is outside strings
    height = 0  # of the pairs taken away: each pass takes away the innermost ones
    while height <= max_depth:
        inner = _EMPTY_PAIR.sub(b"", data)
        if inner == data:
            break
        data, height = inner, height + 1
    for c in data:  # what is left: brackets never closed, or closed by the other kind
        height += 1 if c in b"[{" else -1
        if height > max_depth:
            break
    if height > max_depth:
        raise _too_deep(max_depth)


def _too_deep(max_depth: int) -> SchemaError:
    return SchemaError("", f"nested more than {max_depth} deep; no document this program reads "
                           "nests so deep")


def _refuse_constant(name: str) -> float:
    raise SchemaError("", f"{name} is not a number JSON allows")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise SchemaError("", f"an integer of {len(digits.lstrip('-')):,} digits; no number "
                              f"here has more than {MAX_INT_DIGITS}")
    return int(digits)


def _no_repeats(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        repeated = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise SchemaError("", f"the key {repeated!r} is given twice")
    return out


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_bounded_int,
                            object_pairs_hook=_no_repeats)


def canonical(document: Mapping) -> bytes:
    """The document's content as bytes, independent of spacing and key order."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


# -- checks ---------------------------------------------------------------------------------------
def string(value, where: str) -> None:
    if not isinstance(value, str):
        raise SchemaError(where, f"expected a string, found {_kind(value)}")


def nonempty_string(value, where: str) -> None:
    string(value, where)
    if not value:
        raise SchemaError(where, "expected a non-empty string")


# A check may carry `whole`: a test of a whole list at once, which `list_of` tries first (a
# model's vocabulary and a cache's document ids are long); only a list that fails it is checked
# item by item, to name the bad one.
string.whole = lambda values: set(map(type, values)) <= {str}
nonempty_string.whole = lambda values: set(map(type, values)) <= {str} and "" not in values


def sha256_hex(value, where: str) -> None:
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise SchemaError(where, "expected 64 lower-case hexadecimal digits")


def integer(minimum: int | None = None) -> Check:
    def check(value, where: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise SchemaError(where, f"expected an integer, found {_kind(value)}")
        if minimum is not None and value < minimum:
            raise SchemaError(where, f"expected an integer of at least {minimum}, found {value}")
    check.whole = lambda values: set(map(type, values)) <= {int} and (
        minimum is None or not values or min(values) >= minimum)
    return check


def number(value, where: str) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or \
            not math.isfinite(value):
        raise SchemaError(where, f"expected a finite number, found {_kind(value)}")


def optional(check: Check) -> Check:
    def maybe(value, where: str) -> None:
        if value is not None:
            check(value, where)
    return maybe


def constant(expected) -> Check:
    def check(value, where: str) -> None:
        if value != expected:
            raise SchemaError(where, f"expected {expected!r}, found {value!r}")
    return check


def one_of(choices: tuple) -> Check:
    def check(value, where: str) -> None:
        if value not in choices:
            raise SchemaError(where, f"expected one of {', '.join(map(repr, choices))}, "
                                     f"found {short(value)}")
    return check


def list_of(item: Check, *, unique: bool = False, min_length: int = 0) -> Check:
    def check(value, where: str) -> None:
        if not isinstance(value, list):
            raise SchemaError(where, f"expected a list, found {_kind(value)}")
        if len(value) < min_length:
            raise SchemaError(where, f"expected at least {min_length} item(s)")
        whole = getattr(item, "whole", None)
        if whole is None or not whole(value):
            for i, v in enumerate(value):
                item(v, f"{where}[{i}]")
        if unique and len(set(value)) != len(value):
            seen: dict = {}
            for i, v in enumerate(value):
                if v in seen:
                    raise SchemaError(f"{where}[{i}]", f"{short(v)} already at "
                                                       f"{where}[{seen[v]}]")
                seen[v] = i
    return check


def json_value(value, where: str) -> None:
    """Any JSON value (numbers finite): for free-form records such as training settings."""
    if isinstance(value, dict):
        for k, v in value.items():
            json_value(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            json_value(v, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(where, "expected a finite number")


def obj(required: Mapping[str, Check], optional_keys: Mapping[str, Check] | None = None,
        other: Check | None = None) -> Check:
    """An object with these keys; keys in neither mapping are checked by `other` when it is
    given, else refused."""
    optional_keys = optional_keys or {}

    def check(value, where: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(where, f"expected an object, found {_kind(value)}")
        for key, item in required.items():
            if key not in value:
                raise SchemaError(where, f"missing the key {key!r}")
            item(value[key], join(where, key))
        for key, v in value.items():
            if key in required:
                continue
            item = optional_keys.get(key, other)
            if item is None:
                raise SchemaError(where, f"unknown key {short(key)}")
            item(v, join(where, key))
    return check


def check_document(document, expected_format: str, keys: Mapping[str, Check],
                   optional_keys: Mapping[str, Check] | None = None) -> None:
    obj({"format": constant(expected_format), **keys}, optional_keys)(document, "")


def join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
