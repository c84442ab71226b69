"""`expert-gui --screenshot DIR`: bring every panel into a realistic state and save a PNG of each.

Opens the demo collection (or the one given), trains a small model when none is loaded, ranks a
topic, profiles its first person, evaluates the topic set, and photographs the window at 1280x800 with each panel in front.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from expert_gui.assets import demo_collection_path

WINDOW_SIZE = (1280, 800)
# A model that has learnt the demo's vocabulary (on the demo the paper's e = 300 and 10 epochs
# leave P(c|q) nearly uniform; this takes about a minute on two CPU cores).
SCREENSHOT_TRAINING = {"checkpoint_every": 0}  # the rest: the demo's train_settings.json
FILES = {
    "Collection": "collection.png",
    "Training": "training.png",
    "Query": "query.png",
    "Entropy": "entropy.png",
    "Nearest terms": "nearest-terms.png",
    "Model 2 comparison": "comparison.png",
    "Profile": "profile.png",
}


def wait_until(condition: Callable[[], bool], timeout_s: float) -> bool:
    """Run the event loop until `condition()` holds (the workers report through it)."""
    app = QApplication.instance()
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents()
        time.sleep(0.01)
    return True


class ScreenshotError(Exception):
    """A step the screenshots need failed (the error dialog's text) or never ended."""


def _await(window, what: str, condition: Callable[[], bool], timeout_s: float) -> None:
    """Run the event loop until `condition()` holds. An error shown meanwhile (a training that
    cannot write its model folder) or the timeout ends the screenshots with ScreenshotError:
    the run used to wait on, for ever, for a model that would never come."""
    app = QApplication.instance()
    deadline = time.monotonic() + timeout_s
    while not condition():
        errors = window.findChildren(QMessageBox, "error-dialog")
        if errors:
            raise ScreenshotError(f"{what} failed: {errors[0].text()}")
        if time.monotonic() > deadline:
            raise ScreenshotError(f"{what} had not ended after {timeout_s:g} s")
        app.processEvents()
        time.sleep(0.01)


def prepare(window, collection: Path | None = None, query: str | None = None,
            training: dict | None = None, timeout_s: float = 600) -> None:
    """Open, train, query and evaluate, waiting for each background step; ScreenshotError when
    one fails or does not end within `timeout_s`."""
    state = window.state
    path = collection or demo_collection_path()
    if path is None:
        raise ScreenshotError("no demo collection installed; pass a collection")
    window.collection_panel.open_collection(path)
    _await(window, f"opening {path}",
           lambda: state.collection is not None and not state.runner.running("load"), timeout_s)
    if state.model is None:
        for name, value in (SCREENSHOT_TRAINING if training is None else training).items():
            window.training_panel.form.set_value(name, value)
        window.training_panel.start_training()
        _await(window, "training", lambda: state.model is not None and
               window.training_panel.run_settled(), timeout_s)
    if query is None:
        query = next(iter(state.topics.values()), state.collection.vocab.words[1])
    _await(window, "the comparison's Model 2",
           lambda: window.comparison_panel.model2 is not None, timeout_s)
    window.query_panel.set_query(query)
    window.query_panel.results.selectRow(0)
    ranking = state.ranking
    if ranking is not None and len(ranking):
        top = ranking.person_ids[ranking.people[0]]
        window.collection_panel.select_person(top)
        window.collection_panel.documents_list.setCurrentRow(0)
        state.profile_requested.emit(top)
        _await(window, "the profile", lambda: window.profile_panel.profile is not None,
               timeout_s)
    if state.topics:
        window.entropy_panel.compute()
        _await(window, "the entropy", lambda: window.entropy_panel.result is not None,
               timeout_s)
    if state.topics and state.qrels:
        window.comparison_panel.evaluate()
        _await(window, "the evaluation",
               lambda: window.comparison_panel.evaluation is not None, timeout_s)
    _await(window, "the word map", lambda: window.neighbours_panel.word_map is not None,
           timeout_s)
    _await(window, "the map of people", lambda: window.profile_panel.people_map is not None,
           timeout_s)
    _await(window, "the background work", lambda: not state.runner.any_running(), timeout_s)


def save_panels(window, out_dir: Path) -> list[Path]:
    """One PNG of the whole window per panel, that panel in front."""
    out_dir.mkdir(parents=True, exist_ok=True)
    window.resize(*WINDOW_SIZE)
    paths = []
    for title, name in FILES.items():
        window.show_panel(title)
        wait_until(lambda: False, 0.3)  # let plots redraw from their timers
        path = out_dir / name
        window.grab().save(str(path))
        paths.append(path)
    return paths


def take_screenshots(window, out_dir: Path, collection: Path | None = None) -> list[Path]:
    prepare(window, collection)
    return save_panels(window, out_dir)
