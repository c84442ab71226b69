"""The app starts whatever its settings file and folders hold (issue 24 items 9 and 11): a FIFO
as gui.ini, a malformed value, a read-only home or one that is a file; it starts with defaults
and says which setting or folder it went without."""

import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtWidgets import QMessageBox

from expert_gui.core.paths import config_dir
from expert_gui.gui.main_window import MainWindow

pytestmark = pytest.mark.gui

SCRIPT = """
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from expert_gui.gui.app import create_application, run_gui
from expert_gui.gui.main_window import MainWindow

def close_it():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    print("windows", len(windows), flush=True)
    for box in windows[0].findChildren(QMessageBox, "startup-notice"):
        print("notice", box.informativeText().replace(chr(10), " "), flush=True)
    windows[0].close()

create_application()
QTimer.singleShot(3000, close_it)
print("status", run_gui(), flush=True)
"""


def start_app(home) -> str:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EXPERT_GUI_HOME=str(home))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "windows 1" in done.stdout and "status 0" in done.stdout
    assert "Traceback" not in done.stderr
    return done.stdout


def test_a_fifo_as_the_settings_file_starts_with_defaults(tmp_path):
    # issue 24 item 11: the app hung before its window
    (tmp_path / "config").mkdir()
    os.mkfifo(tmp_path / "config" / "gui.ini")
    out = start_app(tmp_path)
    assert (f"notice {tmp_path / 'config' / 'gui.ini'}: a FIFO (named pipe), not a settings "
            "file; the app starts with its defaults") in out
    assert (tmp_path / "config" / "gui.ini").is_fifo()  # left as it was


def test_a_home_that_is_a_file_starts_and_says_what_it_goes_without(tmp_path):
    # issue 24 item 9: the app ended in a traceback
    home = tmp_path / "home"
    home.write_text("not a folder")
    out = start_app(home)
    assert f"{home / 'log' / 'expert-gui.log'}: {home} is a file, not a folder; the log goes " \
           "to the terminal" in out
    assert f"{home / 'config'}: {home} is a file, not a folder; settings changed now are not " \
           "kept" in out
    assert f"{home / 'cache'}: {home} is a file, not a folder; collections are read without " \
           "a cache" in out
    assert "trained models cannot be saved there" in out


def test_a_read_only_home_starts(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(home)],
            capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        out = start_app(home)
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)
    assert "read-only file system; the log goes to the terminal" in out
    assert "read-only file system; collections are read without a cache" in out


@pytest.fixture
def fresh_notices(monkeypatch):
    from expert_gui.gui import app_settings

    monkeypatch.setattr(app_settings, "_notices", [])
    monkeypatch.setattr(app_settings, "_noted", set())


@pytest.mark.parametrize("line, why", [
    ("collection=a, b", "last/collection in .* was ignored: expected a path, found a list of 2"),
    ("collection=" + "x" * 100_000, "expected a path, found 100,000 characters"),
    ("model=" + "/m" * 3000, "last/model in .* was ignored: expected a path, found 6,000 char"),
])
def test_a_malformed_setting_is_ignored_and_named(qtbot, fresh_notices, line, why):
    # issue 24 item 11: a list or a 50 MB path showed "Unexpected error" and opened nothing
    import re

    (config_dir() / "gui.ini").write_text(f"[last]\n{line}\n[welcome]\ndismissed=1, 2\n",
                                          encoding="utf-8")
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_startup_collection()
    boxes = win.findChildren(QMessageBox, "startup-notice")
    assert boxes
    text = boxes[0].informativeText()
    assert re.search(why, text), text
    assert "welcome/dismissed" in text and "expected true or false" in text
    assert win.welcome_bar is not None  # the default: shown
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=60_000)  # the demo
    win.state.runner.stop_all()
    assert "[last]" not in (config_dir() / "gui.ini").read_text() or \
        line not in (config_dir() / "gui.ini").read_text()  # dropped, so said once


def test_good_settings_give_no_notice(qtbot, fresh_notices, collection_path):
    from expert_gui.gui.app_settings import settings

    settings().setValue("last/collection", str(collection_path))
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_startup_collection()
    assert not win.findChildren(QMessageBox, "startup-notice")
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=30_000)
    win.state.runner.stop_all()
