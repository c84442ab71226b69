"""Help > About: what the app is and cites, the versions a bug report needs (app, Python, Qt,
PySide6, torch), the compute device, and the user's folders with buttons to open them."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from expert_gui import APP_NAME, PAPER_CITATION, __version__
from expert_gui.core.paths import user_folders


def versions() -> list[tuple[str, str]]:
    """Read from the installed packages' metadata, so torch is not imported for it."""
    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return [(APP_NAME, __version__), ("Python", platform.python_version()),
            ("Qt", qVersion()), ("PySide6", pyside_version), ("torch", installed("torch")),
            ("NumPy", installed("numpy"))]


def folders() -> list[tuple[str, Path]]:
    return list(user_folders().items())


def open_folder(path: Path) -> bool:
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class AboutDialog(QDialog):
    def __init__(self, device: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("about-dialog")
        self.setWindowTitle(f"About {APP_NAME}")
        layout = QVBoxLayout(self)
        header = QHBoxLayout()
        icon = QLabel()
        icon.setPixmap(self.windowIcon().pixmap(64, 64))
        header.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        intro = QLabel(
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>Given a topic, who here has the most expertise? The explorer learns it from an "
            "organisation's documents and who wrote them, without labelled data.</p>"
            f"<p>It implements the log-linear model of:<br><i>{PAPER_CITATION}</i></p>")
        intro.setWordWrap(True)
        intro.setObjectName("about-text")
        header.addWidget(intro, 1)
        layout.addLayout(header)

        self.details = [*versions(), ("Device", device)]
        grid = QGridLayout()
        row = 0
        for name, value in self.details:
            grid.addWidget(QLabel(f"{name}:"), row, 0)
            label = QLabel(value)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(label, row, 1, 1, 2)
            row += 1
        self.folder_buttons: dict[str, QPushButton] = {}
        for name, path in folders():
            grid.addWidget(QLabel(f"{name}:"), row, 0)
            label = QLabel(str(path))
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(label, row, 1)
            button = QPushButton("Open")
            button.setToolTip(f"Open {path} in the file manager")
            button.clicked.connect(lambda _=False, p=path: open_folder(p))
            grid.addWidget(button, row, 2)
            self.folder_buttons[name] = button
            self.details.append((f"{name} folder", str(path)))
            row += 1
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy details", QDialogButtonBox.ButtonRole.ActionRole)
        copy.setToolTip("Copy the versions, device and folders, for a bug report")
        copy.clicked.connect(self.copy_details)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def details_text(self) -> str:
        return "\n".join(f"{name}: {value}" for name, value in self.details)

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details_text())
