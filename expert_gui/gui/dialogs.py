"""How errors reach the user: one readable dialog, and the full story in the log file."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QMessageBox, QWidget

from expert_gui.core.errors import ExpertGuiError
from expert_gui.core.paths import log_dir

log = logging.getLogger("expert_gui.gui")

LOG_FILE_NAME = "expert-gui.log"


def error_text(exc: BaseException) -> str:
    """The user's own mistakes (typed errors) read as they are; anything else says it is a bug."""
    if isinstance(exc, ExpertGuiError):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}): {exc}"


def show_error(parent: QWidget | None, title: str, exc: BaseException, details: str = "") -> None:
    """Log the error and show it without blocking the event loop (the dialog is non-modal)."""
    log.error("%s: %s\n%s", title, exc, details)
    box = QMessageBox(QMessageBox.Icon.Warning, title, error_text(exc), parent=parent)
    box.setInformativeText(f"Details are in the log: {log_dir() / LOG_FILE_NAME}")
    if details:
        box.setDetailedText(details)
    box.setModal(False)
    box.setObjectName("error-dialog")
    box.show()
