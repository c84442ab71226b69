"""The query panel's people filter: rank only the people of a list (current staff, a reviewer
pool), pasted or read from a file, one person id or name a line (core/data/candidates.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.data.candidates import match_candidates
from expert_gui.core.errors import InputFileError


class PeopleFilterDialog(QDialog):
    """Edit the list; OK keeps it only when every line names one person (the error says which
    line does not). An empty list ranks everybody."""

    def __init__(self, person_ids: list[str], person_names: list[str], chosen: list[str],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Rank only these people")
        self.setObjectName("people-filter")
        self.person_ids, self.person_names = person_ids, person_names
        self.chosen: list[str] = list(chosen)
        self.text = QPlainTextEdit("\n".join(chosen))
        self.text.setPlaceholderText("One person id or name a line, e.g. a reviewer pool. "
                                     "Empty: everybody.")
        self.problem = QLabel("")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #c92a2a")
        load = QPushButton("Load file…")
        load.clicked.connect(self._load)
        everyone = QPushButton("Everybody")
        everyone.clicked.connect(self.text.clear)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(load, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(everyone, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"The model knows {len(person_ids):,} people. Rankings, exports "
                                "and P(expert) then hold only those listed here."))
        layout.addWidget(self.text, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(480, 420)

    def _load(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "People to rank", "",
                                              "Text (*.txt *.tsv *.csv);;All files (*)")
        if path:
            self.load(Path(path))

    def load(self, path: Path) -> None:
        try:
            self.text.setPlainText(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError) as exc:
            self.problem.setText(f"Cannot read {path}: {exc}")

    def accept(self) -> None:
        text = self.text.toPlainText()
        if not text.strip():
            self.chosen = []
            super().accept()
            return
        try:
            indices = match_candidates(text, self.person_ids, self.person_names)
        except InputFileError as exc:
            self.problem.setText(str(exc))
            return
        self.chosen = [self.person_ids[i] for i in indices]
        super().accept()
