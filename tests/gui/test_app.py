"""`expert-gui` with no command: the window opens on the last (or demo) collection, the event
loop runs, and closing the window ends it with status 0."""

import logging
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from expert_gui.gui.app import run_gui
from expert_gui.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_run_gui_shows_the_window_and_returns_when_it_closes(qtbot, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    seen = []

    def close_it():
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)
                   and w.isVisible()]
        seen.extend(windows)
        for w in windows:
            w.state.runner.stop_all()
            w.close()
        QApplication.instance().quit()

    QTimer.singleShot(300, close_it)
    try:
        assert run_gui() == 0
    finally:
        root = logging.getLogger()
        for h in [h for h in root.handlers if isinstance(h, logging.FileHandler)]:
            root.removeHandler(h)
            h.close()
    assert len(seen) == 1 and seen[0].windowTitle() == "Expertise Explorer"
