"""Helpers for the GUI tests: the tiny collection in tests/fixtures/gui_collection, a random
model over it, and waiting for background work."""

import csv
import shutil
from pathlib import Path

import numpy as np

from expert_gui.core.model.loglinear import LogLinearModel

GUI_COLLECTION = Path(__file__).parent.parent / "fixtures" / "gui_collection"
# Another collection: other people and words (4 people, no topics).
OTHER_COLLECTION = Path(__file__).parent.parent / "fixtures" / "training"

# Settings small enough for a 2-core CI box: a few seconds of training.
TINY_TRAINING = {"dim": 16, "window": 4, "batch_size": 4, "epochs": 3, "checkpoint_every": 0}


def random_model(collection, dim: int = 8, seed: int = 0) -> LogLinearModel:
    rng = np.random.default_rng(seed)
    return LogLinearModel(
        word_embeddings=rng.normal(0, 1, (len(collection.vocab), dim)).astype(np.float32),
        candidate_weights=rng.normal(0, 1, (collection.n_people, dim)).astype(np.float32),
        candidate_bias=rng.normal(0, 0.1, collection.n_people).astype(np.float32),
        vocab=collection.vocab,
        text_settings=collection.settings,
        person_ids=list(collection.person_ids),
        person_names=list(collection.person_names),
        collection_fingerprint=collection.fingerprint,
        collection_source=collection.source,
    )


def save_random_model(collection, name: str, mtime: float | None = None, **kwargs) -> Path:
    """A random model of `collection` saved in the user's models folder."""
    import os

    from expert_gui.core.paths import models_dir
    from expert_gui.core.store.storage import save_model

    folder = save_model(random_model(collection, **kwargs), models_dir() / name)
    if mtime is not None:
        for f in folder.iterdir():
            os.utime(f, (mtime, mtime))
    return folder


def open_collection(qtbot, window, path: Path = GUI_COLLECTION) -> None:
    before = window.state.collection
    window.collection_panel.open_collection(path)
    qtbot.waitUntil(lambda: window.state.collection is not before and not
                    window.state.runner.running("load"), timeout=30_000)


def set_training(window, **values) -> None:
    for name, value in {**TINY_TRAINING, **values}.items():
        window.training_panel.form.set_value(name, value)


PLANTED = "zorblax"  # a word planted in a held-out document only


def planted_copy(tmp_path):
    """The GUI collection with a word in one of the documents the app's training holds out
    (the split depends on who wrote what, not on the words), and that document's authors."""
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out

    folder = shutil.copytree(GUI_COLLECTION, tmp_path / "planted")
    split = hold_out(load_collection(folder, use_cache=False), HeldOutSettings(seed=0))
    target = split.doc_ids[0]
    path = folder / "documents.tsv"
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    for row in rows:
        if row[0] == target:
            row[1] += f" {PLANTED}" * 6
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter="\t", lineterminator="\n").writerows(rows)
    with open(folder / "associations.tsv", encoding="utf-8", newline="") as f:
        authors = {r["person_id"] for r in csv.DictReader(f, delimiter="\t")
                   if r["doc_id"] == target}
    return folder, authors
