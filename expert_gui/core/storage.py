"""Model files and training checkpoints: safetensors for arrays, JSON for everything else.

A model folder holds `model.safetensors` (W_p, W_c, b_c) and `manifest.json` (format version,
training settings, vocabulary, text settings, people, collection fingerprint, history, the
calibration on held-out documents when there is one, and the SHA-256 of the tensor file, so a truncated or altered file is caught before it is used). Nothing
is ever unpickled. Every file is written under a temporary name and renamed into place, so a
crash leaves the previous file or none, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np

from expert_gui.core.errors import ModelFileError
from expert_gui.core.model import LogLinearModel
from expert_gui.core.text import TextSettings, Vocabulary

FORMAT = "expert-gui-model"
FORMAT_VERSION = 1
MODEL_FILE = "model.safetensors"
MANIFEST_FILE = "manifest.json"
CHECKPOINT_DIR = "checkpoint"
_TENSORS = ("word_embeddings", "candidate_weights", "candidate_bias")


def save_model(model: LogLinearModel, folder: str | Path) -> Path:
    """Write a model folder (created if needed); returns its path."""
    from safetensors.numpy import save

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    blob = save({name: np.ascontiguousarray(getattr(model, name), dtype=np.float32)
                 for name in _TENSORS})
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "settings": model.settings,
        "text_settings": model.text_settings.to_dict(),
        "vocabulary": {"words": model.vocab.words, "counts": model.vocab.counts.tolist()},
        "people": {"ids": list(model.person_ids), "names": list(model.person_names)},
        "collection_fingerprint": model.collection_fingerprint,
        "collection_source": model.collection_source,
        "history": model.history,
    }
    if model.calibration is not None:
        manifest["calibration"] = model.calibration
    _write_atomic(folder / MODEL_FILE, blob)
    _write_atomic(folder / MANIFEST_FILE, json.dumps(manifest, indent=1).encode("utf-8"))
    return folder


def load_model(folder: str | Path) -> LogLinearModel:
    """Read a model folder written by `save_model`; any damage raises ModelFileError."""
    from safetensors import SafetensorError
    from safetensors.numpy import load

    folder = Path(folder)
    manifest = _read_manifest(folder / MANIFEST_FILE, FORMAT)
    path = folder / MODEL_FILE
    blob = _read_bytes(path)
    if hashlib.sha256(blob).hexdigest() != manifest.get("sha256"):
        raise ModelFileError(path, None, "the tensor file does not match its manifest "
                             "(truncated, altered, or from another save); retrain or re-copy it")
    try:
        tensors = load(blob)
        vocab = Vocabulary(manifest["vocabulary"]["words"],
                           np.asarray(manifest["vocabulary"]["counts"], dtype=np.int64))
        model = LogLinearModel(
            word_embeddings=tensors["word_embeddings"],
            candidate_weights=tensors["candidate_weights"],
            candidate_bias=tensors["candidate_bias"],
            vocab=vocab,
            text_settings=TextSettings.from_dict(manifest["text_settings"]),
            person_ids=list(manifest["people"]["ids"]),
            person_names=list(manifest["people"]["names"]),
            settings=manifest["settings"],
            collection_fingerprint=manifest["collection_fingerprint"],
            collection_source=manifest["collection_source"],
            history=manifest["history"],
            calibration=manifest.get("calibration"),
        )
    except (SafetensorError, KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(folder, None, f"not a valid model: {exc!r}") from exc
    _check_shapes(model, folder)
    return model


def save_checkpoint(folder: str | Path, tensors: dict, meta: dict) -> None:
    """Write a training checkpoint (torch tensors + JSON state) atomically, as one folder."""
    from safetensors.torch import save

    folder = Path(folder)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    blob = save({k: v.detach().cpu().contiguous() for k, v in tensors.items()})
    (tmp / "state.safetensors").write_bytes(blob)
    meta = {"format": FORMAT + "-checkpoint", "format_version": FORMAT_VERSION,
            "sha256": hashlib.sha256(blob).hexdigest(), **meta}
    (tmp / "state.json").write_text(json.dumps(meta), encoding="utf-8")
    for f in tmp.iterdir():
        _fsync(f)
    old = folder.with_name(folder.name + ".old")
    if folder.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)


def load_checkpoint(folder: str | Path) -> tuple[dict, dict]:
    """The tensors (torch, on CPU) and JSON state of a checkpoint folder."""
    from safetensors import SafetensorError
    from safetensors.torch import load

    folder = Path(folder)
    meta = _read_manifest(folder / "state.json", FORMAT + "-checkpoint")
    path = folder / "state.safetensors"
    blob = _read_bytes(path)
    if hashlib.sha256(blob).hexdigest() != meta.get("sha256"):
        raise ModelFileError(path, None, "the checkpoint's tensors do not match its state file")
    try:
        return load(blob), meta
    except SafetensorError as exc:
        raise ModelFileError(path, None, f"not a valid checkpoint: {exc}") from exc


def _read_manifest(path: Path, expected_format: str) -> dict:
    try:
        manifest = json.loads(_read_bytes(path).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise ModelFileError(path, line, f"not valid JSON (truncated or altered?): {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != expected_format:
        raise ModelFileError(path, None, f"not an {expected_format} file")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ModelFileError(path, None, f"unknown format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(path, None, f"written by a newer expert-gui (format {version}; this "
                             f"version reads up to {FORMAT_VERSION}); please upgrade")
    return manifest


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ModelFileError(path, None, f"cannot read: {exc.strerror or exc}") from exc


def _check_shapes(model: LogLinearModel, folder: Path) -> None:
    v, e = model.word_embeddings.shape
    problems = []
    if v != len(model.vocab):
        problems.append(f"{v} word vectors for {len(model.vocab)} words")
    if model.candidate_weights.shape != (model.n_people, e):
        problems.append(f"candidate weights {model.candidate_weights.shape} for "
                        f"{model.n_people} people of dimension {e}")
    if model.candidate_bias.shape != (model.n_people,):
        problems.append(f"bias {model.candidate_bias.shape} for {model.n_people} people")
    if len(model.person_names) != model.n_people:
        problems.append("people ids and names differ in number")
    if problems:
        raise ModelFileError(folder, None, "inconsistent model: " + "; ".join(problems))


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _fsync(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())
