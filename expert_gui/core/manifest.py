"""The schema of the JSON files of a model folder: `manifest.json` and a checkpoint's
`state.json`. Every key, its type and its limits are checked before anything in a file is used,
and the file is hashed together with its tensors (`digest`), so a manifest whose content was
changed, even into valid JSON, is refused rather than giving wrong answers.

To add a key to the manifest (say, a ranker's weights), write a check for it here, put it in
`OPTIONAL_MODEL_KEYS` (read when present; older files without it stay readable) and write the key
in `storage.save_model`. Unknown keys are refused, so a file is never half understood.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from typing import Any

from expert_gui.core.text import KNOWN_NUMBER_RULES, PAD_TOKEN, TextSettings

Check = Callable[[Any, str], None]
"""A check takes a value and where it is in the document ("people.ids[3]") and raises
SchemaError when the value is not what the schema says."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


class SchemaError(ValueError):
    """A value that breaks the schema; `where` is its place in the document."""

    def __init__(self, where: str, message: str):
        self.where = where
        super().__init__(f"{where or 'the document'}: {message}")


def parse(data: bytes, constants: Mapping[str, float] | None = None) -> Any:
    """JSON without repeated keys, and without NaN or Infinity except the `constants` given."""
    def constant_value(name: str) -> float:
        if constants is None or name not in constants:
            raise SchemaError("", f"{name} is not a number JSON allows")
        return constants[name]

    def no_repeats(pairs: list) -> dict:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set = set()
            repeated = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise SchemaError("", f"the key {repeated!r} is given twice")
        return out

    try:
        return json.loads(data.decode("utf-8"), parse_constant=constant_value,
                          object_pairs_hook=no_repeats)
    except RecursionError:
        raise SchemaError("", "nested too deeply") from None


def canonical(document: Mapping) -> bytes:
    """The document's content as bytes, independent of spacing and key order."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def digest(blob: bytes, document: Mapping) -> str:
    """SHA-256 of the tensor file and the document (all but its own `sha256` key), together."""
    h = hashlib.sha256(blob)
    h.update(b"\n")
    h.update(canonical({k: v for k, v in document.items() if k != "sha256"}))
    return h.hexdigest()


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
                                     f"found {_short(value)}")
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
                    raise SchemaError(f"{where}[{i}]", f"{_short(v)} already at "
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
            item(value[key], _join(where, key))
        for key, v in value.items():
            if key in required:
                continue
            item = optional_keys.get(key, other)
            if item is None:
                raise SchemaError(where, f"unknown key {_short(key)}")
            item(v, _join(where, key))
    return check


def text_settings(value, where: str) -> None:
    """A TextSettings dict with every field of its type; stop words never a path."""
    kinds = {f.name: tuple if f.default_factory is not MISSING else type(f.default)
             for f in fields(TextSettings)}
    checks = {name: {int: integer(1), str: string, tuple: list_of(string)}.get(kind, json_value)
              for name, kind in kinds.items()}
    checks["numbers"] = one_of(KNOWN_NUMBER_RULES)
    obj(required={}, optional_keys=checks)(value, where)
    stopwords = value.get("stopwords", TextSettings().stopwords)
    if stopwords not in ("english", "none"):
        raise SchemaError(_join(where, "stopwords"),
                          f"names a file ({_short(stopwords)}); a model carries its stop words "
                          "and never reads a path it names: retrain it with this version")
    try:
        TextSettings.from_dict(value)
    except (TypeError, ValueError) as exc:
        raise SchemaError(where, str(exc)) from None


def _vocabulary(value, where: str) -> None:
    obj({"words": list_of(nonempty_string, unique=True, min_length=1),
         "counts": list_of(integer(0))})(value, where)
    if value["words"][0] != PAD_TOKEN:
        raise SchemaError(f"{where}.words[0]", f"expected the padding token {PAD_TOKEN!r}")
    if len(value["counts"]) != len(value["words"]):
        raise SchemaError(f"{where}.counts", f"{len(value['counts'])} counts for "
                                             f"{len(value['words'])} words")


def _people(value, where: str) -> None:
    obj({"ids": list_of(nonempty_string, unique=True, min_length=1),
         "names": list_of(string)})(value, where)
    if len(value["names"]) != len(value["ids"]):
        raise SchemaError(f"{where}.names", f"{len(value['names'])} names for "
                                            f"{len(value['ids'])} people")


_HISTORY_ENTRY = obj({"epoch": integer(1)}, {"step": integer(0), "train_loss": number,
                                             "val_loss": optional(number)}, other=json_value)

# What a model's manifest and a checkpoint's state both carry.
_COMMON_KEYS: dict[str, Check] = {
    "format_version": integer(1),
    "sha256": sha256_hex,
    "settings": obj({}, other=json_value),
    "text_settings": text_settings,
    "collection_fingerprint": string,
}
MODEL_KEYS: dict[str, Check] = {
    **_COMMON_KEYS,
    "vocabulary": _vocabulary,
    "people": _people,
    "collection_source": string,
    "history": list_of(_HISTORY_ENTRY),
}


def _calibration(value, where: str) -> None:
    """The held-out documents and the weights of `auto` (core/calibration.py)."""
    from expert_gui.core.rankers.fusion import MEMBERS

    fraction = obj({"fraction": number, "minimum": integer(0), "maximum": integer(0),
                    "seed": integer(), "documents": list_of(nonempty_string, unique=True)})
    fusion = obj({"members": list_of(one_of(MEMBERS), unique=True, min_length=1),
                  "weights": list_of(number, min_length=1),
                  "normalisation": constant("z-score")})
    measures = obj({}, other=obj({"AP": number, "RR": number}))
    obj({"held_out": fraction, "fusion": fusion, "measures": measures})(value, where)
    members, weights = value["fusion"]["members"], value["fusion"]["weights"]
    if len(weights) != len(members) or min(weights) < 0:
        raise SchemaError(f"{where}.fusion.weights", f"expected {len(members)} weights of at "
                                                     f"least 0, found {weights}")


OPTIONAL_MODEL_KEYS: dict[str, Check] = {"calibration": _calibration}

_RUN = obj({"epoch": integer(0), "batch": integer(0), "step": integer(0),
            "epoch_loss": number, "epoch_instances": integer(0),
            "best_val": lambda v, w: None if v in (None, math.inf) else number(v, w),
            "best_epoch": integer(0), "bad_epochs": integer(0),
            "history": list_of(_HISTORY_ENTRY)})
CHECKPOINT_KEYS: dict[str, Check] = {
    **_COMMON_KEYS,
    "param_groups": list_of(obj({}, other=json_value), min_length=1),
    "run": _RUN,
}
# Where the run came from and how long it was to be, so an interrupted run (a folder with only
# its checkpoint) can be listed as "step N of M" and matched to its collection.
OPTIONAL_CHECKPOINT_KEYS: dict[str, Check] = {"collection_source": string,
                                              "total_steps": integer(0)}


def check_document(document, expected_format: str, keys: Mapping[str, Check],
                   optional_keys: Mapping[str, Check] | None = None) -> None:
    try:
        obj({"format": constant(expected_format), **keys}, optional_keys)(document, "")
    except RecursionError:
        raise SchemaError("", "nested too deeply") from None


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
