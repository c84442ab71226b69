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
