"""The on-disk cache of a loaded collection: .npy arrays and one JSON file, no pickle.

The file `xxh3` holds a hash of all the others, so a damaged cache is caught on opening, and
everything is checked before use, as strictly as a model file: the hash, the JSON's schema, and
each array's type, shape and bounds (an offset past the end, a person index out of range), so a
damaged cache raises CollectionError instead of misleading the trainer (a cache written before
documents had dates is refused too, and read again; one without people's affiliations reads as
a collection that records none). A cache is written under a temporary name and renamed, so a
crash leaves either the old cache or none; a write that fails (a full disk) removes what it
wrote and raises OutputFolderError.

Loads of one collection may run at once (two windows, the app and the CLI): each works in
folders of its own beside the caches (`work_folder`: the text spilled while reading, a cache
being written, one moved aside), each held by an OS lock while its process lives, so a load
killed at any point leaves nothing a later one does not remove (`remove_stale`); a load that
finds the cache written by another when it renames its own keeps that one (the same files
give the same cache).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import xxhash
from filelock import FileLock, Timeout

from expert_gui.core import schema
from expert_gui.core.data.affiliations import MAX_AFFILIATION_CHARS, MAX_AFFILIATIONS
from expert_gui.core.data.dates import YEAR
from expert_gui.core.data.inputs import hash_into, read_regular
from expert_gui.core.data.text import check_text_settings
from expert_gui.core.errors import CollectionError, write_error

# The collection's arrays, memory-mapped when read; beside them `vocab_counts.npy` and, for a
# collection with dates, `doc_dates.npy` and `doc_date_units.npy` (how precise each was given).
ARRAYS = ("assoc_indptr", "assoc_people", "tokens", "doc_offsets", "text_bytes", "text_offsets")
_FILES = (*(f"{name}.npy" for name in ARRAYS), "vocab_counts.npy")
_DAYS = np.dtype("datetime64[D]")
_DATED = ("doc_dates", "doc_date_units")


def write(folder: str | Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write `arrays` (ARRAYS, `vocab_counts`, optionally `doc_dates` and `doc_date_units`) and
    `meta` to `folder`."""
    folder = Path(folder)
    text = json.dumps(meta)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with work_folder(folder.parent, folder.name, "tmp") as work:
            tmp = work / "cache"
            try:
                tmp.mkdir()
                for name, values in arrays.items():
                    np.save(tmp / f"{name}.npy", values, allow_pickle=False)
                (tmp / "collection.json").write_text(text, encoding="utf-8")
                (tmp / "xxh3").write_text(digest(tmp), encoding="ascii")
            except OSError as exc:  # a full disk: what was written of it goes
                needed = sum(a.nbytes for a in arrays.values()) + len(text.encode("utf-8"))
                raise write_error(folder, exc, needed) from exc
            _put(tmp, folder)
    except OSError as exc:
        raise write_error(folder, exc) from exc


def _put(tmp: Path, folder: Path) -> None:
    """Rename the cache written in `tmp` to `folder`. A folder already there is the damaged
    cache this load replaces (moved aside, then removed), or the same cache that another load
    of these files wrote meanwhile (kept)."""
    with contextlib.suppress(OSError):
        os.replace(tmp, folder)
        return
    if _intact(folder):
        return
    with work_folder(folder.parent, folder.name, "old") as old:
        with contextlib.suppress(FileNotFoundError):  # another load moved it first
            os.replace(folder, old / "cache")
        try:
            os.replace(tmp, folder)
        except OSError:
            if not _intact(folder):  # not another load's cache: the rename itself failed
                raise


def _intact(folder: Path) -> bool:
    """Whether `folder` holds a cache that `read` accepts."""
    try:
        read(folder)
    except (CollectionError, OSError):
        return False
    return True


# A work folder is `<cache's name>.<kind>-<16 hex digits>`, and its lock that name + ".lock".
_WORK = re.compile(r"\.(?:spill|tmp|old)-[0-9a-f]{16}")
# What versions before work folders left when killed or racing: a cache moved aside.
_LEGACY_OLD = re.compile(r"[0-9a-f]{24}\.old")


@contextlib.contextmanager
def work_folder(root: Path, stem: str, kind: str) -> Iterator[Path]:
    """A new, empty folder in `root` for one load's work (`kind`: "spill", "tmp", "old"),
    removed at the end; its lock file, taken before the folder exists and held until it is
    gone, tells `remove_stale` that its process still lives (the OS frees the lock of a
    process killed, even by kill -9)."""
    name = f"{stem}.{kind}-{secrets.token_hex(8)}"
    lock = FileLock(str(root / f"{name}.lock"), timeout=0)
    lock.acquire()
    try:
        (root / name).mkdir()
        yield root / name
    finally:
        shutil.rmtree(root / name, ignore_errors=True)
        lock.release()
        with contextlib.suppress(OSError):
            os.unlink(root / f"{name}.lock")


def remove_stale(root: Path) -> None:
    """Remove from `root` (the caches' folder) the work folders of loads whose processes died,
    and the caches that earlier versions left moved aside; never touch one in use."""
    try:
        entries = os.listdir(root)
    except OSError:
        return
    for entry in entries:
        if _LEGACY_OLD.fullmatch(entry):
            shutil.rmtree(root / entry, ignore_errors=True)
        elif entry.endswith(".lock") and _WORK.search(entry):
            lock = FileLock(str(root / entry), timeout=0)
            try:
                lock.acquire()
            except (Timeout, OSError):  # held: its load is running
                continue
            try:
                shutil.rmtree(root / entry[:-len(".lock")], ignore_errors=True)
            finally:
                lock.release()
                with contextlib.suppress(OSError):
                    os.unlink(root / entry)


def read(folder: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and the JSON of a cache written by `write`, every one checked."""
    folder = Path(folder)
    path = folder / "collection.json"
    if read_regular(folder / "xxh3", CollectionError) != digest(folder).encode():
        raise CollectionError(folder, None, "the cache does not match its hash (damaged)")
    try:
        meta = schema.parse(read_regular(path, CollectionError))
        schema.obj(_KEYS, _OPTIONAL_KEYS)(meta, "")
    except (schema.SchemaError, ValueError) as exc:
        raise CollectionError(path, None, f"not a valid collection cache: {exc}") from None
    try:
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)
                  for name in ARRAYS}
        arrays["vocab_counts"] = np.load(folder / "vocab_counts.npy", allow_pickle=False)
        if meta["dates"]:  # a cache from before the units is refused, and read again
            for name in _DATED:
                arrays[name] = np.load(folder / f"{name}.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise CollectionError(folder, None, f"not a valid collection cache: {exc}") from None
    _check_arrays(arrays, meta, folder)
    return arrays, meta


def digest(folder: Path) -> str:
    """XXH3 of every file of a cache (the file `xxh3` holds it), in a fixed order."""
    h = xxhash.xxh3_128()
    dates = tuple(f"{name}.npy" for name in _DATED if (folder / f"{name}.npy").exists())
    for name in (*_FILES, *dates, "collection.json"):
        h.update(name.encode())
        hash_into(h, folder / name, CollectionError)
    return h.hexdigest()


def _boolean(value, where: str) -> None:
    if not isinstance(value, bool):
        raise schema.SchemaError(where, "expected true or false")


def _person_affiliations(value, where: str) -> None:
    """Each affiliation once (`places`), and each person's as indices into it (`people`),
    within the bounds the builder keeps (affiliations.py)."""
    schema.obj({"places": schema.list_of(schema.nonempty_string, unique=True),
                "people": schema.list_of(schema.list_of(schema.integer(0), unique=True))}
               )(value, where)
    n = len(value["places"])
    for i, place in enumerate(value["places"]):
        if len(place) > MAX_AFFILIATION_CHARS:
            raise schema.SchemaError(f"{where}.places[{i}]", "expected at most "
                                     f"{MAX_AFFILIATION_CHARS} characters")
    for i, row in enumerate(value["people"]):
        if len(row) > MAX_AFFILIATIONS or (row and max(row) >= n):
            raise schema.SchemaError(f"{where}.people[{i}]", f"expected at most "
                                     f"{MAX_AFFILIATIONS} indices below {n}")


def _keys() -> dict:
    text = schema.list_of(schema.string)
    problem = schema.obj({"kind": schema.string, "file": schema.string,
                          "line": schema.optional(schema.integer(0)), "message": schema.string})
    report = schema.obj({"format": schema.string, "files": text,
                         "counts": schema.obj({}, other=schema.integer(0)),
                         "problems": schema.list_of(problem)})
    unique = schema.list_of(schema.string, unique=True)
    return {"name": schema.string, "source": schema.string, "fingerprint": schema.string,
            "doc_ids": unique, "person_ids": unique, "person_names": text,
            "vocab": schema.list_of(schema.nonempty_string, unique=True, min_length=1),
            "settings": check_text_settings, "report": report, "dates": _boolean}


_KEYS = _keys()
# Written only for a collection that records them.
_OPTIONAL_KEYS = {"person_affiliations": _person_affiliations,
                  # only for people written more than one way: the spellings a user can split off
                  "person_spellings": schema.obj({}, other=schema.list_of(schema.nonempty_string))}


def _check_arrays(arrays: dict, meta: dict, folder: Path) -> None:
    """Types, shapes and bounds of a cache's arrays, against its JSON and against each other."""
    n_docs, n_people, n_words = len(meta["doc_ids"]), len(meta["person_ids"]), len(meta["vocab"])

    def bad(name: str, message: str):
        raise CollectionError(folder / f"{name}.npy", None, f"not a valid collection cache: "
                                                            f"{message}")

    kinds = {"assoc_indptr": "i", "assoc_people": "i", "tokens": "u", "doc_offsets": "i",
             "text_bytes": "u", "text_offsets": "i"}
    for name, kind in kinds.items():
        a = arrays[name]
        if a.ndim != 1 or a.dtype.kind != kind:
            bad(name, f"expected a 1-D array of kind {kind!r}, found {a.dtype} {a.shape}")
    places = meta.get("person_affiliations")
    if len(meta["person_names"]) != n_people or \
            (places is not None and len(places["people"]) != n_people):
        bad("assoc_people", "people ids, names and affiliations differ in number")
    for name, end in (("doc_offsets", len(arrays["tokens"])),
                      ("assoc_indptr", len(arrays["assoc_people"])),
                      ("text_offsets", len(arrays["text_bytes"]))):
        offsets = arrays[name]
        if len(offsets) != n_docs + 1 or offsets[0] != 0 or offsets[-1] != end or \
                (n_docs and np.diff(offsets).min() < 0):
            bad(name, f"expected {n_docs + 1} non-decreasing offsets from 0 to {end}")
    for name, limit in (("assoc_people", n_people), ("tokens", n_words)):
        values = arrays[name]
        if len(values) and (int(values.min()) < 0 or int(values.max()) >= limit):
            bad(name, f"expected indices below {limit}")
    dates = arrays.get("doc_dates")
    if dates is not None and (dates.dtype != _DAYS or dates.shape != (n_docs,)):
        bad("doc_dates", f"expected {n_docs} days, found {dates.dtype} {dates.shape}")
    units = arrays.get("doc_date_units")
    if units is not None and (units.dtype != np.uint8 or units.shape != (n_docs,)
                              or (n_docs and int(units.max()) > YEAR)):
        bad("doc_date_units", f"expected {n_docs} date units of 0 to {YEAR}, found "
                              f"{units.dtype} {units.shape}")
