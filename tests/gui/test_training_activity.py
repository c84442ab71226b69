"""Nothing stale while a model trains: a paused run shows no speed or ETA, and after the last
step the panel and the status bar say what the run is doing, with its progress."""

import threading

import pytest
from gui_helpers import open_collection, set_training

from expert_gui.core.evaluation import calibration

pytestmark = pytest.mark.gui


def test_a_paused_run_shows_no_speed_and_no_eta(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=200)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: panel.speed_label.text() not in ("–", ""), timeout=60_000)
    panel.toggle_pause()
    qtbot.wait(500)  # events of the step in flight may still arrive
    assert (panel.speed_label.text(), panel.eta_label.text()) == ("paused", "paused")
    assert window.training_label.text() == "Training paused"
    panel.toggle_pause()
    qtbot.waitUntil(lambda: panel.speed_label.text() not in ("paused", "–"), timeout=60_000)
    panel.stop_training()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=60_000)


def test_after_the_last_step_the_run_says_it_calibrates_with_progress(qtbot, window,
                                                                      monkeypatch):
    release = threading.Event()
    real = calibration.calibrate

    def slow_calibrate(model, split, *, progress=None, **kwargs):
        progress((1, len(split.documents)))
        release.wait(60)
        return real(model, split, progress=progress, **kwargs)

    monkeypatch.setattr(calibration, "calibrate", slow_calibrate)
    open_collection(qtbot, window)
    set_training(window, epochs=1)
    panel = window.training_panel
    panel.start_training()
    try:
        qtbot.waitUntil(lambda: "Calibrating" in panel.status_label.text(), timeout=60_000)
        text = panel.status_label.text()
        assert "Calibrating auto and P(expert) on " in text and " held-out documents… 1 / " in text
        assert " · Calibrating auto and P(expert) on " in window.training_label.text()
        last = panel.step_label.text()
        total = last.split(" / ")[1].split(" ")[0]
        assert last.startswith(f"{total} / {total}")  # after the last step
        assert (panel.speed_label.text(), panel.eta_label.text()) == ("–", "–")
    finally:
        release.set()
    # the model opens after the run's last events are shown (the thread ends before they are)
    qtbot.waitUntil(lambda: panel.run_settled() and window.state.model is not None,
                    timeout=60_000)
    assert "Calibrating" not in panel.status_label.text()
    assert window.state.model is not None and window.state.model.calibration


def test_a_run_waits_for_the_method_being_indexed_and_the_others_wait_for_the_run(
        qtbot, window, monkeypatch):
    """The first time left of every run was 2.5-4 times too long: the app indexed every method
    for the collection or model just opened while the steps ran beside it."""
    from PySide6.QtCore import QThread

    from expert_gui.gui import prepared_rankers
    from expert_gui.gui.panels.training.run_state import HELD_TEXT

    release = threading.Event()
    said = []  # the methods the background worker built, and the run's start and end
    real = prepared_rankers.make_ranker

    def indexing(method, **kwargs):
        if QThread.currentThread().objectName() == "task-rankers":
            said.append(method)
            release.wait(60)
        return real(method, **kwargs)

    monkeypatch.setattr(prepared_rankers, "make_ranker", indexing)
    window.state.runner.finished.connect(lambda slot: slot == "training" and said.append("end"))
    open_collection(qtbot, window)
    qtbot.waitUntil(lambda: len(said) == 1, timeout=30_000)  # a method is being indexed
    set_training(window, epochs=1)
    panel = window.training_panel
    said.append("start")
    panel.start_training()
    try:
        qtbot.waitUntil(lambda: panel.activity() == HELD_TEXT, timeout=30_000)
        assert HELD_TEXT in panel.status_label.text()
        assert window.training_label.text() == HELD_TEXT
        assert panel._task.held and not panel.is_paused()  # not the user's pause
    finally:
        release.set()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    qtbot.waitUntil(lambda: "end" in said and said[-1] != "end", timeout=60_000)
    # nothing else was indexed in the background while the run trained; after it, the rest
    start, end = said.index("start"), said.index("end")
    assert start == 1 and end == start + 1, said
    assert len(said) > 3
