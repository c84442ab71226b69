"""What a model folder holds and which collection it belongs to, read without loading tensors.

A folder in the models folder is one of: a finished model (`manifest.json`), a model saved when
its training was stopped (`manifest.json` marked `stopped`, plus `checkpoint/`), or a run that
was interrupted before it could save a model (killed, crashed, power loss: only `checkpoint/`).
The app lists all three; the last two can be continued from their checkpoint.

A model belongs to a collection when it was trained on that load of it (same fingerprint), or
on its people with words the collection has: the same files copied or moved since, or the
collection less the documents held out of training (whose words the model may lack). Anything
else would answer queries about people or words that are not the collection's.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from expert_gui.core.errors import ModelFileError
from expert_gui.core.store.storage import (
    CHECKPOINT_DIR,
    CHECKPOINT_STATE,
    MANIFEST_FILE,
    read_checkpoint_state,
    read_manifest,
)

COMPLETE, PARTIAL, INTERRUPTED, DAMAGED = "complete", "partial", "interrupted", "damaged"


def people_key(person_ids) -> str:
    """A short hash of a list of people: equal keys, the same people in the same order."""
    return hashlib.sha256("\x1f".join(person_ids).encode("utf-8")).hexdigest()[:32]


_collection_words: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def collection_words(collection) -> frozenset:
    """The collection's vocabulary as a set (built once per collection)."""
    words = _collection_words.get(collection)
    if words is None:
        words = _collection_words[collection] = frozenset(collection.vocab.words)
    return words


def _belongs(fingerprint: str, people: str, words: frozenset | None, collection) -> bool:
    if fingerprint and fingerprint == collection.fingerprint:
        return True
    return words is not None and people == people_key(collection.person_ids) \
        and words <= collection_words(collection)


def model_fits(model, collection) -> bool:
    """True when `model` was trained on `collection` (see the module's docstring)."""
    return _belongs(model.collection_fingerprint, people_key(model.person_ids),
                    frozenset(model.vocab.words), collection)


@dataclass(frozen=True)
class ModelFolder:
    """One folder of the models folder, as the saved-models list shows it."""

    path: Path
    kind: str  # COMPLETE, PARTIAL, INTERRUPTED or DAMAGED
    modified: float  # seconds since the epoch: the newest work in the folder
    collection_fingerprint: str = ""
    collection_source: str = ""
    people: str = ""  # people_key of its people ("" for an interrupted run)
    words: frozenset | None = None  # its vocabulary (None for an interrupted run)
    n_people: int = 0
    n_words: int = 0
    dim: int = 0
    step: int = 0  # steps done (partial and interrupted runs)
    total_steps: int = 0  # steps the run was set to take; 0 when not recorded
    epoch: int = 0  # epochs completed
    epochs: int = 0
    settings: dict = field(default_factory=dict)
    problem: str = ""  # why a DAMAGED folder cannot be used
    held_out: dict = field(default_factory=dict)  # the calibration's measures, method -> AP, RR
    held_out_documents: int = 0  # how many held-out documents measured them
    # 0, or the documents the model kept was trained on again after its calibration (all of
    # the collection's: evaluation/every_document.py); the held-out figures are the measured's
    retrained_documents: int = 0
    # Each epoch completed: its step, mean training and validation loss, held-out MAP (the
    # model's, or the checkpoint's for an interrupted run).
    history: tuple = ()

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def can_continue(self) -> bool:
        return self.kind in (PARTIAL, INTERRUPTED)

    def belongs_to(self, collection) -> bool:
        if self.kind == INTERRUPTED:  # no vocabulary yet: by where it was read from (resuming
            # checks the fingerprint and says so when the files changed)
            return self.collection_fingerprint == collection.fingerprint or bool(
                self.collection_source) and self.collection_source == collection.source
        return _belongs(self.collection_fingerprint, self.people, self.words, collection)

    def progress_text(self) -> str:
        return progress_text(self.step, self.total_steps, self.epoch, self.epochs)

    def status_text(self) -> str:
        """What the list says about the folder besides its name."""
        if self.kind == INTERRUPTED:
            return f"interrupted at {self.progress_text()}"
        if self.kind == DAMAGED:
            return f"cannot be opened: {self.problem}"
        size = f"{self.n_people:,} people, {self.n_words:,} words, dim {self.dim}"
        if self.kind == PARTIAL:
            return f"partial: stopped at {self.progress_text()}; {size}"
        return size


def progress_text(step: int, total_steps: int, epochs_done: int, epochs: int) -> str:
    """'step 1,234 of 2,000 (epoch 8 of 10)': how far a stopped or interrupted run got."""
    of = f" of {total_steps:,}" if total_steps else ""
    epoch = f" (epoch {min(epochs_done + 1, epochs)} of {epochs})" if epochs else ""
    return f"step {step:,}{of}{epoch}"


def is_partial(model) -> bool:
    """A model saved when its training was stopped before the last step."""
    return bool(model.settings.get("stopped"))


def partial_text(model) -> str:
    """'stopped at step 1,234 of 2,000 (epoch 8 of 10)' for a partial model, else ''."""
    if not is_partial(model):
        return ""
    s = model.settings
    return "stopped at " + progress_text(int(s.get("steps", 0)), int(s.get("total_steps", 0)),
                                         len(model.history), int(s.get("epochs", 0)))


_cache: dict[Path, tuple[tuple, ModelFolder]] = {}


def read_model_folder(folder: Path) -> ModelFolder | None:
    """The folder's description, or None when it holds neither a model nor a checkpoint.

    Manifests of large vocabularies take a while to parse, so a folder is read again only when
    its files changed.
    """
    folder = Path(folder)
    manifest = folder / MANIFEST_FILE
    state = folder / CHECKPOINT_DIR / CHECKPOINT_STATE
    stamp = tuple(_mtime(p) for p in (manifest, state))
    if stamp == (None, None):
        return None
    cached = _cache.get(folder)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    modified = max(t for t in stamp if t is not None)
    info = _from_manifest(folder, modified) if stamp[0] is not None else \
        _from_checkpoint(folder, modified)
    _cache[folder] = (stamp, info)
    return info


def list_model_folders(root: Path) -> list[ModelFolder]:
    """Every model or interrupted run under `root`, newest first."""
    found = [info for p in _subfolders(root) if (info := read_model_folder(p)) is not None]
    found.sort(key=lambda m: m.modified, reverse=True)
    return found


def _subfolders(root: Path) -> list[Path]:
    try:
        return [p for p in Path(root).iterdir() if p.is_dir()]
    except OSError:
        return []


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _from_manifest(folder: Path, modified: float) -> ModelFolder:
    try:
        meta = read_manifest(folder)  # checked against the schema
    except ModelFileError as exc:
        return ModelFolder(folder, DAMAGED, modified,
                           problem=f"{Path(exc.path).name}: {exc.message}")
    people = meta["people"]["ids"]
    words = meta["vocabulary"]["words"]
    settings = dict(meta["settings"])
    history = meta.get("history") or []
    calibration = meta.get("calibration") or {}
    return ModelFolder(
        folder, PARTIAL if settings.get("stopped") else COMPLETE, modified,
        collection_fingerprint=str(meta.get("collection_fingerprint") or ""),
        collection_source=str(meta.get("collection_source") or ""),
        people=people_key(people), words=frozenset(words), n_people=len(people),
        n_words=len(words) - 1,  # the padding token aside, as LogLinearModel.n_words
        dim=int(settings.get("dim", 0)), step=int(settings.get("steps", 0)),
        total_steps=int(settings.get("total_steps", 0)), epoch=len(history),
        epochs=int(settings.get("epochs", 0)), settings=settings,
        held_out=dict(calibration.get("measures", {})),
        held_out_documents=len((calibration.get("held_out") or {}).get("documents", ())),
        retrained_documents=int((calibration.get("retrained") or {}).get("documents", 0)),
        history=tuple(history))


def _from_checkpoint(folder: Path, modified: float) -> ModelFolder:
    try:
        meta = read_checkpoint_state(folder / CHECKPOINT_DIR)  # checked against the schema
    except ModelFileError as exc:
        return ModelFolder(folder, DAMAGED, modified,
                           problem=f"{CHECKPOINT_DIR}/{Path(exc.path).name}: {exc.message}")
    settings = dict(meta["settings"])
    run = meta["run"]
    return ModelFolder(
        folder, INTERRUPTED, modified,
        collection_fingerprint=meta["collection_fingerprint"],
        collection_source=meta.get("collection_source", ""),
        dim=int(settings.get("dim", 0)), step=run["step"],
        total_steps=meta.get("total_steps", 0), epoch=run["epoch"],
        epochs=int(settings.get("epochs", 0)), settings=settings, history=tuple(run["history"]))
