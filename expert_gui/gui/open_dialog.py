"""One Open for every collection: a file (a table, BibTeX, RIS, TREC, or any file of a collection
folder) or a folder (documents and associations, a git repository, text files, a folder holding
one table), from the same dialog and the same shortcut (Ctrl+O).

A file dialog picks either files or folders, not both: this one picks files, and its "Open
folder" button takes the folder that is selected, or else the one shown.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLineEdit, QPushButton, QWidget

OPEN_FOLDER = "Open folder"


class CollectionDialog(QFileDialog):
    """Files or folders; `chosen()` is the path once accepted."""

    def __init__(self, parent: QWidget | None, filters, start: str = "",
                 title: str = "Open a collection: a file or a folder"):
        super().__init__(parent, title, start)
        self.setObjectName("collection-dialog")
        # Qt's own dialog: a platform's native one cannot take an extra button.
        self.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        self.setFileMode(QFileDialog.FileMode.ExistingFile)
        self.setNameFilters(list(filters))
        self._chosen: Path | None = None
        self.folder_button = QPushButton(OPEN_FOLDER)
        self.folder_button.setObjectName("open-folder")
        self.folder_button.setToolTip("Open the selected folder (or, with none selected, the "
                                      "folder shown) as a collection")
        self.folder_button.clicked.connect(self.accept_folder)
        box = self.findChild(QDialogButtonBox)
        if box is not None:
            box.addButton(self.folder_button, QDialogButtonBox.ButtonRole.ActionRole)

    def _close_completions(self) -> None:
        for edit in self.findChildren(QLineEdit):
            completer = edit.completer()
            if completer is not None and completer.popup().isVisible():
                completer.popup().hide()

    def _typed(self) -> Path | None:
        """The path typed in the name field (relative to the folder shown), if any."""
        edit = self.findChild(QLineEdit, "fileNameEdit")
        text = edit.text().strip() if edit is not None else ""
        if not text:
            return None
        path = Path(text).expanduser()
        return path if path.is_absolute() else Path(self.directory().absolutePath()) / path

    def accept_folder(self) -> None:
        selected = [Path(p) for p in self.selectedFiles() if Path(p).is_dir()]
        self._chosen = selected[0] if selected else Path(self.directory().absolutePath())
        self.done(QFileDialog.DialogCode.Accepted)

    def accept(self) -> None:
        """Enter: a folder typed is shown (Qt went to the root for a whole path typed, and left
        its completion list open to take the next click), a file typed or selected opens."""
        self._close_completions()
        typed = self._typed()
        if typed is not None and typed.is_dir():
            self.setDirectory(str(typed))
            self.findChild(QLineEdit, "fileNameEdit").clear()
            return
        if typed is not None and typed.is_file():
            self._chosen = typed
            self.done(QFileDialog.DialogCode.Accepted)
            return
        files = [Path(p) for p in self.selectedFiles()]
        if files and files[0].is_file():
            self._chosen = files[0]
        super().accept()

    def chosen(self) -> Path | None:
        return self._chosen


def choose_collection_path(parent: QWidget | None, filters, start: str = "",
                           title: str = "Open a collection: a file or a folder") -> Path | None:
    """Ask for a collection file or folder (or another set of documents: `title` says which);
    None when cancelled."""
    dialog = CollectionDialog(parent, filters, start, title)
    if dialog.exec() != QFileDialog.DialogCode.Accepted:
        return None
    return dialog.chosen()
