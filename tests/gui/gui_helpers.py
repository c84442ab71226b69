"""Helpers for the GUI tests: the tiny collection in tests/fixtures/gui_collection, a random
model over it, and waiting for background work."""

from pathlib import Path

import numpy as np

from expert_gui.core.model import LogLinearModel

GUI_COLLECTION = Path(__file__).parent.parent / "fixtures" / "gui_collection"

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
    )


def open_collection(qtbot, window, path: Path = GUI_COLLECTION) -> None:
    window.collection_panel.open_collection(path)
    qtbot.waitUntil(lambda: window.state.collection is not None and not
                    window.state.runner.running("load"), timeout=30_000)


def set_training(window, **values) -> None:
    for name, value in {**TINY_TRAINING, **values}.items():
        window.training_panel.form.set_value(name, value)
