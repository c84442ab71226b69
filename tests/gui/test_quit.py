"""Quitting is prompt: once the window has closed and the work that writes files has ended
(a stopped training saves its checkpoint), the process ends without waiting for work that only
reads, and without Python's seconds-long teardown of every module.

Each case runs the app in a child process, as `expert-gui` runs it."""

import os
import subprocess
import sys

import pytest
from gui_helpers import GUI_COLLECTION

pytestmark = pytest.mark.gui

SCRIPT = """
import atexit, threading, sys
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from expert_gui.gui.app import create_application, run_gui
from expert_gui.gui.main_window import MainWindow

def reads_for_ever():  # a task that only reads and cannot be asked to stop
    threading.Event().wait()

def window():
    [w] = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    w.confirm_stop_training = lambda: True
    atexit.register(lambda: print("python teardown ran", flush=True))
    return w

def close_when(w, ready):
    timer = QTimer(w)
    timer.timeout.connect(lambda: (timer.stop(), w.close()) if ready() else None)
    timer.start(100)

{case}

create_application()
QTimer.singleShot(1000, case)
status = run_gui(fast_exit=True)
print("returned", status, flush=True)
"""

READING = """
def case():
    w = window()
    w.state.runner.start("people-map", reads_for_ever)
    close_when(w, lambda: True)
"""

TRAINING = """
def case():
    w = window()
    def train(_collection):
        for name, value in dict(dim=8, window=4, batch_size=4, epochs=500,
                                checkpoint_every=0).items():
            w.training_panel.form.set_value(name, value)
        w.training_panel.start_training()
        close_when(w, lambda: len(w.training_panel.plot.steps) > 3)
    w.state.collection_changed.connect(train)
    w.collection_panel.open_collection(Path(r"{collection}"))
"""


def run(tmp_path, case: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EXPERT_GUI_HOME=str(tmp_path))
    return subprocess.run([sys.executable, "-c", SCRIPT.replace("{case}", case)], env=env,
                          capture_output=True, text=True, timeout=600)


def test_quit_does_not_wait_for_reading_work_nor_for_pythons_teardown(tmp_path):
    done = run(tmp_path, READING)
    assert done.returncode == 0, done.stderr
    assert "returned" not in done.stdout  # ended by end_process, not by returning
    assert "python teardown ran" not in done.stdout
    assert (tmp_path / "config" / "gui.ini").is_file()  # the layout was saved first


def test_quit_while_training_saves_the_checkpoint_first(tmp_path):
    done = run(tmp_path, TRAINING.replace("{collection}", str(GUI_COLLECTION)))
    assert done.returncode == 0, done.stderr
    assert "python teardown ran" not in done.stdout
    checkpoints = list((tmp_path / "data" / "models").glob("*/checkpoint/state.json"))
    assert checkpoints, done.stderr  # stopped and saved before the process ended
