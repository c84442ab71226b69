"""Start the Qt application (placeholder main window until the GUI issue lands)."""

from __future__ import annotations

import sys


def run_gui(screenshot_dir: str | None = None) -> int:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Expertise Explorer")
    win = QMainWindow()
    win.setWindowTitle("Expertise Explorer")
    win.resize(1280, 800)
    win.show()
    return app.exec()
