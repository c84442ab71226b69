"""`expert-gui` with no command: the window opens on the demo collection, the event loop runs,
and closing the window ends it with status 0.

It runs in a child process: once a QApplication's event loop has quit, Qt no longer delivers
the cross-thread signals the other tests rely on.
"""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gui

SCRIPT = """
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from expert_gui.gui.app import create_application, run_gui
from expert_gui.gui.main_window import MainWindow

def close_it():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    print("windows", len(windows), windows[0].windowTitle(), flush=True)
    for w in windows:
        w.close()

create_application()
QTimer.singleShot(1500, close_it)
print("status", run_gui(), flush=True)
"""


def test_run_gui_shows_the_window_and_returns_when_it_closes(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EXPERT_GUI_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "windows 1 Expertise Explorer" in done.stdout
    assert "status 0" in done.stdout
    assert (tmp_path / "log" / "expert-gui.log").is_file()
