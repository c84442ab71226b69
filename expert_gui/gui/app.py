"""Start the Qt application: logging to the user's log folder, the application's name, version
and icon, the main window (shown before anything slow), then the last collection and model."""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path

from expert_gui import APP_NAME, ORGANIZATION, __version__
from expert_gui.assets import icon_files
from expert_gui.core.paths import log_dir, unwritable, user_folders
from expert_gui.desktop_entry import DESKTOP_FILE
from expert_gui.gui.dialogs import LOG_FILE_NAME


def setup_logging() -> Path:
    """Everything at INFO and above goes to the log file; the dialogs point the user there.
    A log file that cannot be written (a read-only home, a FIFO in its place) is noted for the
    window to say, and the log goes to stderr instead."""
    from expert_gui.gui.app_settings import not_a_file, note

    path = log_dir() / LOG_FILE_NAME
    root = logging.getLogger()
    if not any(isinstance(h, logging.FileHandler) and Path(h.baseFilename) == path
               for h in root.handlers):
        why = not_a_file(path)  # opening a FIFO to write would block the start-up
        handler: logging.Handler | None = None
        if not why:
            try:
                handler = logging.FileHandler(path, encoding="utf-8")
            except OSError as exc:
                why = unwritable(path.parent) or exc.strerror or str(exc)
        if handler is None:
            note(f"{path}: {why}; the log goes to the terminal")
            handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(min(root.level or logging.INFO, logging.INFO))
    return path


def note_user_folders() -> None:
    """Say which user folders cannot be written, and what the app does without them."""
    from expert_gui.gui.app_settings import note

    without = {"Models": "trained models cannot be saved there",
               "Cache": "collections are read without a cache"}
    for name, folder in user_folders().items():
        why = unwritable(folder)
        if why and name in without:
            note(f"{folder}: {why}; {without[name]}")


def create_application():
    """The QApplication (reused when one exists, as under pytest-qt), named as the platform
    expects: name, organisation and version, the desktop entry it belongs to, and its icon."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(Path(DESKTOP_FILE).stem)
    app.setWindowIcon(application_icon())
    pg.setConfigOptions(antialias=True, background="w", foreground="#333333")
    collect_garbage_on_the_gui_thread()
    return app


_collector = None  # the one GarbageCollector of the process


def collect_garbage_on_the_gui_thread() -> None:
    """Python collects reference cycles in whichever thread allocates past a threshold: in a
    worker it deleted Qt objects of the GUI thread (a training run's first import of
    torch._dynamo, collecting windows closed before, crashed or hung the app). pyqtgraph's
    GarbageCollector turns the automatic collection off and collects on a GUI-thread timer."""
    global _collector
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _collector = GarbageCollector(interval=1.0)


def application_icon():
    """The app's icon (resources/icons) at every shipped size."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for size, path in icon_files().items():
        if size != "svg":
            icon.addFile(str(path))
    return icon


def install_excepthook(window) -> None:
    """An exception escaping a slot becomes a dialog and a log entry instead of a dead app."""
    from expert_gui.gui.dialogs import show_error

    def hook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        show_error(window, "Unexpected error", value, "".join(traceback.format_exception(
            kind, value, tb)))

    sys.excepthook = hook


def run_gui(screenshot_dir: str | None = None, fast_exit: bool = False,
            collection: Path | None = None) -> int:
    """Open the main window, on `collection` when given (else the last one); with
    `screenshot_dir`, save a PNG of every panel there and quit. `fast_exit`: once the window
    has closed and saved what it writes, end the process at once (`end_process`) instead of
    returning."""
    setup_logging()
    note_user_folders()
    from expert_gui.gui.platform_check import platform_problem

    problem = platform_problem()
    if problem is not None:  # Qt would abort with one line about a "platform plugin"
        logging.getLogger("expert_gui.gui").error("%s", problem)
        print(problem, file=sys.stderr)
        return 1
    app = create_application()
    from PySide6.QtCore import QTimer

    from expert_gui.gui.main_window import MainWindow

    window = MainWindow()
    install_excepthook(window)
    window.show()
    if screenshot_dir is not None:
        from expert_gui.gui.screenshots import ScreenshotError, take_screenshots

        window.reset_layout()
        try:
            paths = take_screenshots(window, Path(screenshot_dir))
        except ScreenshotError as exc:  # said, and the process ends, instead of waiting on
            print(f"expert-gui --screenshot: error: {exc}", file=sys.stderr)
            window.state.runner.stop_all()
            window.close()
            return 2
        for p in paths:
            print(p)
        window.close()
        return 0
    # After the first paint: the window is up at once, and the loads report their progress.
    QTimer.singleShot(0, lambda: window.open_startup_collection(collection))
    status = app.exec()
    if fast_exit:
        end_process(status)  # the work that writes files has ended (MainWindow.closeEvent)
    window.state.runner.shut_down()  # nothing may still run when Python tears Qt down
    return status


def end_process(status: int) -> None:
    """End the process without Python's teardown: after the window closed, finalizing every
    module (a garbage collection over torch, scikit-learn and Qt's wrappers) took 4-7 s, with
    nothing left to save: the settings are synced, the tasks that write files have ended and
    the log is flushed here. Tasks that only read end with the process."""
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(status)
