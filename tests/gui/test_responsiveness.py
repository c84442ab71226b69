"""The event loop keeps running while a model trains: timer events and training progress
interleave on the GUI thread. How late the loop runs (the stall in ms) is a machine-dependent
figure and is measured by benchmarks/gui_responsiveness.py, not asserted here."""

import pytest
from gui_helpers import open_collection, set_training
from PySide6.QtCore import QTimer

pytestmark = pytest.mark.gui


def test_timer_events_and_training_progress_interleave(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=1000, batch_size=8, dim=32)
    panel = window.training_panel
    steps_at_tick: list[int] = []
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: steps_at_tick.append(len(panel.plot.steps)))
    panel.start_training()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 0, timeout=60_000)
    timer.start()
    qtbot.waitUntil(lambda: len(set(steps_at_tick)) >= 5, timeout=60_000)
    timer.stop()
    assert panel.is_training()
    panel.stop_training()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=30_000)
    # The timer saw the plot at five or more different step counts: the loop handled its
    # events between training's progress reports, not after the training.
    assert steps_at_tick == sorted(steps_at_tick)
    assert len(set(steps_at_tick)) >= 5
