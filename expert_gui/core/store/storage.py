"""Model files and training checkpoints: safetensors for arrays, JSON for everything else.

A model folder holds `model.safetensors` (W_p, W_c, b_c) and `manifest.json` (format version,
training settings, vocabulary, text settings with the stop words themselves, people, collection
fingerprint, history, the calibration on held-out documents when there is one, and a SHA-256 of
the tensor file and the manifest together), so a truncated, altered or mismatched file is caught
before it is used; every key of the manifest and
every tensor is checked against the schema of `manifest.py` (types, lengths matching the tensor
shapes, unique ids, finite float32 weights). Nothing is ever unpickled. The hash guards against
accidents (a file cut short, a bit flipped, two files from different saves), not against a
person who edits a manifest and hashes it again: a model from someone else is as trustworthy as
its sender.

A new model is written in full beside the old one and swapped in by one rename (see
`save_model`); a checkpoint is a folder swapped in by two renames, and after a crash at any
point `latest_checkpoint` finds the newest complete one. A write that fails (a full disk, a
read-only mount) raises OutputFolderError naming the space needed, and leaves what was there.

Format versions: 1 hashed the tensors only, so a changed manifest went unnoticed; it is no
longer read. 2 (this one) hashes the manifest with them.
"""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import suppress
from pathlib import Path

import numpy as np

from expert_gui.core import schema
from expert_gui.core.data.inputs import open_regular, read_regular
from expert_gui.core.data.text import TextSettings, Vocabulary, inline_stopwords
from expert_gui.core.errors import ModelFileError, OutputFolderError, byte_size, write_error
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.store.manifest import (
    CHECKPOINT_KEYS,
    MODEL_KEYS,
    OPTIONAL_CHECKPOINT_KEYS,
    OPTIONAL_MODEL_KEYS,
    digest,
)
from expert_gui.core.store.outputs import (
    LOCK,
    MARKER,
    check_output_folder,
    claim_output_folder,
    create_new,
    fsync_folder,
    owned_by_layout,
    remove_own,
)

log = logging.getLogger(__name__)

FORMAT = "expert-gui-model"
CHECKPOINT_FORMAT = FORMAT + "-checkpoint"
FORMAT_VERSION = 2
# Format 1 hashed the tensors only: a manifest changed by accident (or on purpose, down to
# format 1) could not be caught, so it is refused.
OLDEST_FORMAT_VERSION = 2
MODEL_FILE = "model.safetensors"
MANIFEST_FILE = "manifest.json"
CHECKPOINT_DIR = "checkpoint"
CHECKPOINT_STATE = "state.json"
_TENSORS = ("word_embeddings", "candidate_weights", "candidate_bias")
# Trained weights stay far below this (L2-regularised, they are under 100); above it their
# squares and products, taken in float32 for the nearest words, would overflow to inf.
MAX_ABS_WEIGHT = 1e6
# The widest embedding training allows (train/settings.py takes its bound from here): with the
# manifest's words and people it bounds the size of a model's tensor file.
MAX_DIM = 8192
# A tensor file opens with its header, JSON naming each tensor's type, shape and offsets: a few
# hundred bytes for a model, a few thousand for a checkpoint. One past this was not written by
# the program, and is refused before it is read.
MAX_TENSOR_HEADER = 1 << 16
# A manifest (or a checkpoint's state.json) holds a model's words, people and calibration: about
# 0.5 MB for DPDK's 65,536 words and 1,473 people, a few MB for a million documents' 29,460.
# Parsing JSON takes several times its size in memory, so one past this is refused unread.
MAX_MODEL_DOCUMENT = 256 << 20
# A save in another process swaps the manifest and renames the tensors within milliseconds; a
# load that fails while the folder changed under it read half of each, and reads it again, up
# to this many times this many seconds apart, before it refuses (it refused 125 in 1,640).
LOAD_TRIES, LOAD_RETRY_WAIT = 10, 0.05

# What the program writes in a model folder; anything else there is the user's and is never
# deleted or overwritten.
CHECKPOINT_LAYOUT = {CHECKPOINT_STATE: None, "state.safetensors": None}
MODEL_LAYOUT = {
    MARKER: None, MARKER + ".tmp": None, LOCK: None,
    MODEL_FILE: None, MODEL_FILE + ".tmp": None, MODEL_FILE + ".new": None, MANIFEST_FILE: None,
    MANIFEST_FILE + ".tmp": None,
    CHECKPOINT_DIR: CHECKPOINT_LAYOUT, CHECKPOINT_DIR + ".tmp": CHECKPOINT_LAYOUT,
    CHECKPOINT_DIR + ".old": CHECKPOINT_LAYOUT,
}


def claim_model_folder(folder: str | Path) -> Path:
    """The model folder, created or recognised as the program's own (see outputs.py)."""
    _refuse_newer(Path(folder).expanduser())
    return claim_output_folder(folder, "model", is_legacy=_is_model_folder)


def check_model_folder(folder: str | Path) -> None:
    """Raise OutputFolderError unless a model could be written to `folder`; changes nothing."""
    _refuse_newer(Path(folder).expanduser())
    check_output_folder(folder, is_legacy=_is_model_folder)


def _is_model_folder(folder: Path) -> bool:
    """A folder written before folders were marked: model files and checkpoints only."""
    return owned_by_layout(folder, MODEL_LAYOUT)


def _refuse_newer(folder: Path) -> None:
    """A model or checkpoint of a newer format is never overwritten: this version could not
    write what that one would read, and every reader here refuses it anyway."""
    documents = [folder / MANIFEST_FILE] + [folder / (CHECKPOINT_DIR + suffix) / CHECKPOINT_STATE
                                            for suffix in ("", ".tmp", ".old")]
    for path in documents:
        try:
            version = schema.parse(read_regular(path, ModelFileError)).get("format_version")
        except (ModelFileError, ValueError, AttributeError, schema.SchemaError):
            continue  # absent or damaged: nothing a newer version would miss
        if isinstance(version, int) and version > FORMAT_VERSION:
            raise OutputFolderError(folder, f"{path.relative_to(folder)} was written by a newer "
                                            f"expert-gui (format {version}; this version writes "
                                            f"format {FORMAT_VERSION}) and would be lost; "
                                            "choose another folder, or upgrade")


def save_model(model: LogLinearModel, folder: str | Path) -> Path:
    """Write a model folder (created if needed, refused if it holds a user's files).

    The new model is written in full beside the old one, the tensors as `model.safetensors.new`
    and the manifest as `manifest.json.tmp`, and swapped in by one rename, the manifest's: the
    manifest holds the hash of its tensors, so `load_model` takes the tensor file that matches
    it, and `model.safetensors.new` is renamed into place at once. A crash or a full disk
    before the swap leaves the old model as it was; after it, the new one is complete.
    """
    from safetensors.numpy import save

    folder = claim_model_folder(folder)
    blob = save({name: np.ascontiguousarray(getattr(model, name), dtype=np.float32)
                 for name in _TENSORS})
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "settings": model.settings,
        "text_settings": inline_stopwords(model.text_settings).to_dict(),
        "vocabulary": {"words": model.vocab.words, "counts": model.vocab.counts.tolist()},
        "people": {"ids": list(model.person_ids), "names": list(model.person_names)},
        "collection_fingerprint": model.collection_fingerprint,
        "collection_source": model.collection_source,
        "history": model.history,
    }
    if model.calibration is not None:
        manifest["calibration"] = model.calibration
    if model.collection_format:
        manifest["collection_format"] = model.collection_format
    manifest["sha256"] = digest(blob, manifest)
    data = json.dumps(manifest, indent=1).encode("utf-8")
    new_tensors, new_manifest = folder / (MODEL_FILE + ".new"), folder / (MANIFEST_FILE + ".tmp")
    _settle(folder)
    try:
        _write_synced(new_tensors, blob)
        _write_synced(new_manifest, data)
        fsync_folder(folder)
        os.replace(new_manifest, folder / MANIFEST_FILE)  # the swap
    except OSError as exc:  # a full disk, a read-only mount, EIO (a rename too)
        for path in (new_tensors, new_manifest):  # this save's: the manifest on disk names
            with suppress(OSError):               # model.safetensors (_settle saw to it)
                path.unlink(missing_ok=True)
        kept = "the model before is unchanged" if (folder / MANIFEST_FILE).exists() else \
            "nothing was written"
        raise write_error(folder, exc, len(blob) + len(data), kept) from exc
    fsync_folder(folder)
    try:
        os.replace(new_tensors, folder / MODEL_FILE)
    except OSError as exc:  # the model is saved: its manifest names the tensors of .new
        log.warning("%s: the model is saved, but %s could not be renamed %s (%s); it is read "
                    "from there, and renamed at the next save", folder, new_tensors.name,
                    MODEL_FILE, exc.strerror or exc)
    fsync_folder(folder)
    return folder


def _settle(folder: Path) -> None:
    """Finish a save cut short after its swap (rename `model.safetensors.new`, which the
    manifest's hash names, into place), or drop one cut short before it, so a new save never
    overwrites the tensors of the model it replaces. When that rename fails (the file is
    immutable, or open in another program), the save stops here: `.new` holds the tensors of
    the model on disk, and is kept."""
    new = folder / (MODEL_FILE + ".new")
    if not (new.exists() or new.is_symlink()):
        return
    try:
        manifest = read_manifest(folder)
        matches = digest(_read_tensor_file(new, manifest), manifest) == manifest["sha256"]
    except ModelFileError:
        matches = False
    try:
        if matches:
            os.replace(new, folder / MODEL_FILE)
            fsync_folder(folder)
        else:
            new.unlink()
    except OSError as exc:
        kept = "nothing was written"
        if (folder / MANIFEST_FILE).exists():
            kept = "the model before is unchanged" + (
                f", its tensors in {new.name}, which could not be renamed {MODEL_FILE}"
                if matches else "")
        raise write_error(folder, exc, kept=kept) from exc


def read_manifest(folder: str | Path) -> dict:
    """A model folder's manifest, checked against the schema (the tensors are not read)."""
    path = Path(folder) / MANIFEST_FILE
    manifest = _read_document(path, FORMAT)
    try:
        schema.check_document(manifest, FORMAT, MODEL_KEYS, OPTIONAL_MODEL_KEYS)
    except schema.SchemaError as exc:
        raise ModelFileError(path, None, str(exc)) from None
    return manifest


def load_model(folder: str | Path) -> LogLinearModel:
    """Read a model folder written by `save_model`; any damage raises ModelFileError. A load
    that meets a save of another process (the folder changed while it read) reads it again."""
    folder = Path(folder)
    tries_left = LOAD_TRIES
    while True:
        before = _save_state(folder)
        try:
            return _load_model(folder)
        except ModelFileError:
            tries_left -= 1
            if not tries_left or _save_state(folder) == before:
                raise
        time.sleep(LOAD_RETRY_WAIT)


def _save_state(folder: Path) -> tuple:
    """What a save changes in a model folder: its files' identities, sizes and times."""
    state = []
    for name in (MANIFEST_FILE, MODEL_FILE, MODEL_FILE + ".new"):
        try:
            st = os.stat(folder / name)
            state.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            state.append(None)
    return tuple(state)


def _load_model(folder: Path) -> LogLinearModel:
    from safetensors import SafetensorError
    from safetensors.numpy import load

    manifest = read_manifest(folder)
    path, blob = _tensors_of(folder, manifest)
    try:
        tensors = load(blob)
    except SafetensorError as exc:
        raise ModelFileError(path, None, f"not a valid tensor file: {exc}") from exc
    _check_tensors(tensors, path)
    return LogLinearModel(
        word_embeddings=tensors["word_embeddings"],
        candidate_weights=tensors["candidate_weights"],
        candidate_bias=tensors["candidate_bias"],
        vocab=Vocabulary(manifest["vocabulary"]["words"],
                         np.asarray(manifest["vocabulary"]["counts"], dtype=np.int64)),
        text_settings=TextSettings.from_dict(manifest["text_settings"]),
        person_ids=list(manifest["people"]["ids"]),
        person_names=list(manifest["people"]["names"]),
        settings=manifest["settings"],
        collection_fingerprint=manifest["collection_fingerprint"],
        collection_source=manifest["collection_source"],
        history=manifest["history"],
        calibration=manifest.get("calibration"),
        collection_format=manifest.get("collection_format", ""),
    )


def _tensors_of(folder: Path, manifest: dict) -> tuple[Path, bytes]:
    """The tensor file whose hash the manifest holds: `model.safetensors`, or, after a save cut
    short just after its swap, `model.safetensors.new`."""
    path = folder / MODEL_FILE
    newer = folder / (MODEL_FILE + ".new")
    if newer.exists():
        try:
            blob = _read_tensor_file(newer, manifest)
        except ModelFileError:
            blob = b""  # a save's leftover, not the manifest's tensors
        if blob and digest(blob, manifest) == manifest["sha256"]:
            return newer, blob
    blob = _read_tensor_file(path, manifest)
    _verify(blob, manifest, path, "the tensor file and manifest.json do not match (truncated "
                                  "or altered)")
    return path, blob


def _read_tensor_file(path: Path, manifest: dict | None = None) -> bytes:
    """A safetensors file's bytes, read only once its size is what its header says, and, given
    a model's manifest, once the header names the three tensors, float32, of the shapes its
    words and people imply: a file padded or swapped for a huge one is refused before a byte
    of it is held (an 8 GB one used to be read whole)."""
    with open_regular(path, ModelFileError) as f:
        size = os.fstat(f.fileno()).st_size
        prefix = f.read(8)
        length = int.from_bytes(prefix, "little")
        if len(prefix) < 8 or length > min(MAX_TENSOR_HEADER, size - 8):
            raise ModelFileError(path, None, f"not a valid tensor file: its header (of "
                                             f"{length:,} bytes) is not one expert-gui writes "
                                             "(truncated or altered)")
        try:
            header = schema.parse(f.read(length))
            entries = {name: _entry(t) for name, t in header.items() if name != "__metadata__"}
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ModelFileError(path, None, "not a valid tensor file: its header is not "
                                             f"valid ({exc})") from None
        if manifest is not None:
            _check_header(entries, manifest, path)
        expected = 8 + length + max((end for *_, (_, end) in entries.values()), default=0)
        if size != expected:
            raise ModelFileError(path, None, f"{byte_size(size)} where its header names "
                                             f"{byte_size(expected)} (truncated, padded or "
                                             "altered)")
        f.seek(0)
        return f.read(size)


def _entry(tensor: dict) -> tuple[str, list[int], tuple[int, int]]:
    """A header's tensor as (type, shape, (start, end) of its bytes); ValueError if malformed."""
    start, end = (int(n) for n in tensor["data_offsets"])
    if not 0 <= start <= end:
        raise ValueError(f"offsets {start}, {end}")
    return str(tensor["dtype"]), [int(n) for n in tensor["shape"]], (start, end)


def _check_header(entries: dict, manifest: dict, path: Path) -> None:
    """Exactly W_p, W_c and b_c, float32, of the shapes the vocabulary and people say, in a
    dimension training allows."""
    names = sorted(entries)
    if names != sorted(_TENSORS):
        raise ModelFileError(path, None, f"expected the tensors {', '.join(_TENSORS)}; found "
                                         f"{', '.join(names) or 'none'}")
    for name in _TENSORS:
        if entries[name][0] != "F32":
            raise ModelFileError(path, None, f"{name}: expected float32 (F32), found "
                                             f"{entries[name][0]}")
    words, people = len(manifest["vocabulary"]["words"]), len(manifest["people"]["ids"])
    wp = entries["word_embeddings"][1]
    dim = wp[1] if len(wp) == 2 else 0
    expected = {"word_embeddings": (words, dim), "candidate_weights": (people, dim),
                "candidate_bias": (people,)}
    for name, shape in expected.items():
        _, found, (start, end) = entries[name]
        if tuple(found) != shape or not 1 <= dim <= MAX_DIM:
            raise ModelFileError(path, None, f"{name}: expected shape {shape} ({words} words, "
                                             f"{people} people, a dimension from 1 to "
                                             f"{MAX_DIM:,}), found {tuple(found)}")
        if end - start != 4 * int(np.prod(shape)):
            raise ModelFileError(path, None, f"{name}: its offsets hold {end - start:,} bytes, "
                                             f"not the {4 * int(np.prod(shape)):,} of its shape")


def _check_tensors(tensors: dict, path: Path) -> None:
    """Finite weights of a plausible size (the names, types and shapes are the header's,
    checked before the file was read)."""
    for name in _TENSORS:
        values = tensors[name]
        if not np.isfinite(values).all():
            raise ModelFileError(path, None, f"{name} holds values that are not finite")
        if values.size and float(np.abs(values).max()) > MAX_ABS_WEIGHT:
            raise ModelFileError(path, None, f"{name} holds weights above {MAX_ABS_WEIGHT:g} "
                                             "in magnitude; no trained model has such weights")


def save_checkpoint(folder: str | Path, tensors: dict, meta: dict) -> None:
    """Write a training checkpoint (torch tensors + JSON state) as one folder.

    The new state is written in full to `checkpoint.tmp/` (and synced), then swapped in: the old
    folder is renamed `checkpoint.old/`, the new one `checkpoint/`, and the old one removed.
    A complete checkpoint exists at every moment; `latest_checkpoint` finds it.
    """
    from safetensors.torch import save

    folder = Path(folder)
    tmp, old = _sibling(folder, ".tmp"), _sibling(folder, ".old")
    remove_own(tmp, CHECKPOINT_LAYOUT)
    blob = save({k: v.detach().cpu().contiguous() for k, v in tensors.items()})
    meta = {"format": CHECKPOINT_FORMAT, "format_version": FORMAT_VERSION, **meta}
    meta["sha256"] = digest(blob, meta)
    state = json.dumps(meta, allow_nan=False).encode("utf-8")
    try:
        tmp.mkdir(parents=True)
        _write_synced(tmp / "state.safetensors", blob)
        _write_synced(tmp / CHECKPOINT_STATE, state)
    except OSError as exc:
        remove_own(tmp, CHECKPOINT_LAYOUT)  # frees what was written of it
        kept = f"{folder.name}/ before this one is kept" if folder.exists() else \
            "no checkpoint was written"
        raise write_error(tmp, exc, len(blob) + len(state), kept) from exc
    fsync_folder(tmp)
    if folder.exists() and not owned_by_layout(folder, CHECKPOINT_LAYOUT):
        raise OutputFolderError(folder, "holds files expert-gui did not write; move them away "
                                        "and try again (nothing was replaced)")
    try:
        if folder.exists():
            remove_own(old, CHECKPOINT_LAYOUT)
            os.replace(folder, old)
        os.replace(tmp, folder)
        fsync_folder(folder.parent)
        remove_own(old, CHECKPOINT_LAYOUT)
    except OSError as exc:  # a rename that fails (EIO): every complete checkpoint is still there
        raise write_error(folder, exc, kept="the newest complete checkpoint is kept, and a "
                                            "resume takes it") from exc


def load_checkpoint(folder: str | Path) -> tuple[dict, dict]:
    """The tensors (torch, on CPU) and JSON state of a checkpoint folder."""
    from safetensors import SafetensorError
    from safetensors.torch import load

    folder = Path(folder)
    meta = read_checkpoint_state(folder)
    path = folder / "state.safetensors"
    blob = _read_tensor_file(path)
    _verify(blob, meta, path, "the checkpoint's tensors do not match its state file (a save "
                              "cut short, or altered)")
    try:
        return load(blob), meta
    except SafetensorError as exc:
        raise ModelFileError(path, None, f"not a valid checkpoint: {exc}") from exc


def latest_checkpoint(model_folder: str | Path) -> tuple[Path, dict, dict] | None:
    """The newest complete checkpoint of a model folder as (folder, tensors, state), or None.

    Besides `checkpoint/`, a save cut short leaves a complete `checkpoint.tmp/` (the newer
    state) or `checkpoint.old/` (the previous one) behind; each is verified by its hash and the
    one furthest on is taken. When none is complete, the error of `checkpoint/` is raised.
    """
    model_folder = Path(model_folder)
    candidates, errors = [], []
    for rank, suffix in enumerate(("", ".tmp", ".old")):
        folder = model_folder / (CHECKPOINT_DIR + suffix)
        if not (folder / CHECKPOINT_STATE).exists():
            continue
        try:
            step = read_checkpoint_state(folder)["run"]["step"]
        except ModelFileError as exc:
            errors.append(exc)
            continue
        candidates.append((-step, rank, folder))
    for _, _, folder in sorted(candidates):
        try:
            return (folder, *load_checkpoint(folder))
        except ModelFileError as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
    return None


def read_checkpoint_state(folder: Path) -> dict:
    """A checkpoint's JSON state, checked against the schema (the tensors are not read)."""
    path = folder / CHECKPOINT_STATE
    meta = _read_document(path, CHECKPOINT_FORMAT)
    try:
        schema.check_document(meta, CHECKPOINT_FORMAT, CHECKPOINT_KEYS,
                              OPTIONAL_CHECKPOINT_KEYS)
    except schema.SchemaError as exc:
        raise ModelFileError(path, None, str(exc)) from None
    return meta


def _read_document(path: Path, expected_format: str) -> dict:
    """A JSON document of a model folder, with its format and version checked first."""
    data = read_regular(path, ModelFileError, limit=MAX_MODEL_DOCUMENT + 1)
    if len(data) > MAX_MODEL_DOCUMENT:
        raise ModelFileError(path, None, f"larger than the {MAX_MODEL_DOCUMENT >> 20} MiB a "
                                         "model's JSON holds: not written by this program")
    try:
        document = schema.parse(data)
    except UnicodeDecodeError as exc:
        raise ModelFileError(path, None, f"not valid UTF-8 (truncated or altered?): {exc}") \
            from exc
    except json.JSONDecodeError as exc:
        raise ModelFileError(path, exc.lineno, f"not valid JSON (truncated or altered?): "
                                               f"{exc.msg}") from exc
    except schema.SchemaError as exc:
        raise ModelFileError(path, None, str(exc)) from None
    if not isinstance(document, dict) or document.get("format") != expected_format:
        raise ModelFileError(path, None, f"not an {expected_format} file")
    version = document.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(path, None, f"unknown format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(path, None, f"written by a newer expert-gui (format {version}; this "
                             f"version reads up to {FORMAT_VERSION}); please upgrade")
    if version < OLDEST_FORMAT_VERSION:
        raise ModelFileError(path, None, f"format {version}, whose hash does not cover this "
                             "file, so a change to it could not be detected; this version "
                             f"reads format {OLDEST_FORMAT_VERSION} and later: train the model "
                             "again (its settings are in this file)")
    return document


def _verify(blob: bytes, document: dict, path: Path, message: str) -> None:
    """The document's hash, of the tensors and of itself together."""
    if document["sha256"] != digest(blob, document):
        raise ModelFileError(path, None, message)


def _sibling(folder: Path, suffix: str) -> Path:
    return folder.with_name(folder.name + suffix)


def _write_synced(path: Path, data: bytes) -> None:
    with create_new(path) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
