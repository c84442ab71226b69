"""The pairs the user pinned (every solve keeps them) or forbade (no solve assigns them), by the
papers' and people's ids so that they outlive a new Run; each removable."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from expert_gui.gui.panels.reviewers.assignment_view import PIN
from expert_gui.gui.widgets import ColumnFitter, fill_table, item, make_table


class PinsView(QWidget):
    removed = Signal(list)  # the (paper id, person id) pairs to release

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.note = QLabel("No pair is pinned or forbidden. Pin (P) or forbid (F) one in the "
                           "By paper or By person tab, then Solve again.")
        self.note.setWordWrap(True)
        self.table = make_table(["", "Paper", "Title", "Person", "Name"])
        self.table.setObjectName("pins")
        self.fitter = ColumnFitter(self.table, content=(0,), elastic=(2, 4, 1, 3))
        self.remove_button = QPushButton("Remove (Del)")
        self.remove_button.setToolTip("Release the selected pair; then Solve again")
        self.remove_button.clicked.connect(self._remove_selected)
        self.remove_all = QPushButton("Remove all")
        self.remove_all.clicked.connect(lambda: self.removed.emit(list(self._keys)))
        delete = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table)
        delete.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete.activated.connect(self._remove_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.remove_all)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._keys: list[tuple[str, str]] = []
        self.show_marks({}, None, None)

    def show_marks(self, marks: dict[tuple[str, str], str], papers, collection) -> None:
        """`marks`: (paper id, person id) -> PIN or FORBID; titles and names where known."""
        self._keys = sorted(marks, key=lambda k: (marks[k] != PIN, k))
        titles = {} if papers is None else {p: i for i, p in enumerate(papers.doc_ids)}
        rows = []
        for paper_id, person_id in self._keys:
            pinned = marks[(paper_id, person_id)] == PIN
            i = titles.get(paper_id)
            title = papers.title(i, 200) if i is not None else ""
            person = None if collection is None else collection.person_index.get(person_id)
            name = collection.person_names[person] if person is not None else ""
            rows.append([item("pinned" if pinned else "forbidden"),
                         item(paper_id, tooltip=paper_id), item(title, tooltip=title),
                         item(person_id, tooltip=person_id), item(name, tooltip=name)])
        fill_table(self.table, rows)
        self.fitter.fit()
        self.note.setVisible(not rows)
        self.remove_button.setEnabled(bool(rows))
        self.remove_all.setEnabled(bool(rows))

    def _remove_selected(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self._keys):
            self.removed.emit([self._keys[row]])
