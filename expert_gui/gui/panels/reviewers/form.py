"""The assignment's settings: K people per paper, at most M and at least m papers per person,
the co-author window of the conflicts, the method and recency the affinities are made with, who
may review (the pool) and a file of conflicts. Each has a tooltip that says what it means; all
are remembered in the app's settings (`reviewers/...`) between sessions, a damaged value
ignored and noted as every remembered setting is (app_settings.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QWidget,
)

from expert_gui.core.data.recency import Recency
from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.reviewers.assignment import AssignSettings
from expert_gui.gui.app_settings import note, read_path, read_text, settings
from expert_gui.gui.panels.query_options import number_field, parse_recency
from expert_gui.gui.widgets import ElidedLabel

KEY = "reviewers/"
EVERYBODY, CHOSEN = "everybody", "chosen"
MAX_LOAD = 100_000

TIPS = {
    "per_paper": "K: exactly this many people review each paper.",
    "max_per_person": "M: nobody reviews more than this many papers. The papers need K x "
                      "papers reviews; the pool gives at most M x people.",
    "min_per_person": "m: everybody in the pool reviews at least this many papers (0: some may "
                      "review none). The minimums must add up to no more than the reviews the "
                      "papers need.",
    "coauthor_years": "A paper's authors' co-authors in the collection may not review it. "
                      "Count only documents of the last this many years before the "
                      "collection's newest (undated ones always count). Empty: every document.",
    "method": "What gives each paper's affinity with each person: Auto ranks papers from "
              "outside with fixed weights (Log-linear, Model 1 (d), Model 2 (jm)); another "
              "method gives its z-score per paper.",
    "pool": "Who may review: everybody in the collection, or only the people chosen with the "
            "Query panel's People button (a reviewer pool, a programme committee).",
    "conflicts": "A file of more conflicts of interest: rows of 'paper_id, person_id' (comma "
                 "or tab), or a person alone for a conflict with every paper; a person by id or "
                 "name. Read at each Run.",
}


def _spin(low: int, high: int, value: int, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setToolTip(tip)
    spin.setAccelerated(True)
    return spin


class AssignForm(QWidget):
    """The settings; `changed` whenever one changes (a text field when left or on Enter)."""

    changed = Signal()
    conflicts_requested = Signal()  # the user asks to choose a conflicts file

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.per_paper = _spin(1, 1000, 3, TIPS["per_paper"])
        self.max_per_person = _spin(1, MAX_LOAD, 6, TIPS["max_per_person"])
        self.min_per_person = _spin(0, MAX_LOAD, 0, TIPS["min_per_person"])
        self.coauthor_years = number_field("all years", TIPS["coauthor_years"],
                                           r"\d{0,3}([.,]\d{0,2})?", 6)
        self.method_combo = QComboBox()
        for method in METHODS:
            self.method_combo.addItem(label(method), method)
        self.method_combo.setToolTip(TIPS["method"])
        self.since = number_field("any year", "Only the people's documents from this year on "
                                  "count (undated ones count fully); a person without one may "
                                  "not review. Empty: every year.", r"\d{0,4}", 6)
        self.half_life = number_field("no decay", "Recent work counts more: a document counts "
                                      "half as much for every this many years it is older "
                                      "than the collection's newest. Empty: no decay.",
                                      r"\d{0,4}([.,]\d{0,3})?", 5)
        self.pool_combo = QComboBox()
        self.pool_combo.addItem("Everybody", EVERYBODY)
        self.pool_combo.addItem("The people chosen", CHOSEN)
        self.pool_combo.setToolTip(TIPS["pool"])
        self.conflicts_label = ElidedLabel("No file")
        self.conflicts_label.setToolTip(TIPS["conflicts"])
        self.conflicts_button = QPushButton("Choose…")
        self.conflicts_button.setToolTip(TIPS["conflicts"])
        self.conflicts_button.clicked.connect(self.conflicts_requested)
        self.clear_conflicts = QToolButton()
        self.clear_conflicts.setText("✕")
        self.clear_conflicts.setToolTip("No conflicts file")
        self.clear_conflicts.clicked.connect(lambda: self.set_conflicts_file(None))
        self.conflicts_file: Path | None = None

        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self._label("People per paper (K)", "per_paper"), self.per_paper)
        form.addRow(self._label("Most papers per person (M)", "max_per_person"),
                    self.max_per_person)
        form.addRow(self._label("Fewest papers per person (m)", "min_per_person"),
                    self.min_per_person)
        years = QHBoxLayout()
        years.addWidget(self.coauthor_years, 1)
        years.addWidget(QLabel("years"))
        form.addRow(self._label("Co-authors within", "coauthor_years"), years)
        form.addRow(self._label("Affinity by", "method"), self.method_combo)
        recency = QHBoxLayout()
        recency.addWidget(self.since, 1)
        recency.addWidget(QLabel("half-life"))
        recency.addWidget(self.half_life, 1)
        form.addRow(QLabel("Documents since"), recency)
        form.addRow(self._label("Who may review", "pool"), self.pool_combo)
        conflicts = QHBoxLayout()
        conflicts.addWidget(self.conflicts_label, 1)
        conflicts.addWidget(self.conflicts_button)
        conflicts.addWidget(self.clear_conflicts)
        form.addRow(self._label("Conflicts file", "conflicts"), conflicts)

        for spin in (self.per_paper, self.max_per_person, self.min_per_person):
            spin.valueChanged.connect(lambda _: self._changed())
        for combo in (self.method_combo, self.pool_combo):
            combo.currentIndexChanged.connect(lambda _: self._changed())
        for edit in (self.coauthor_years, self.since, self.half_life):
            edit.editingFinished.connect(self._changed)
            edit.textChanged.connect(lambda text: None if text else self._changed())
        self._restoring = False

    def _label(self, text: str, tip: str) -> QLabel:
        shown = QLabel(text)
        shown.setToolTip(TIPS[tip])
        return shown

    def _changed(self) -> None:
        if not self._restoring:
            self.remember()
            self.changed.emit()

    # -- values -----------------------------------------------------------------------------------
    def quotas(self) -> tuple[int, int, int]:
        return self.per_paper.value(), self.max_per_person.value(), self.min_per_person.value()

    def recency(self) -> Recency:
        return parse_recency(self.since.text(), self.half_life.text())

    def years(self) -> float | None:
        text = self.coauthor_years.text().strip().replace(",", ".")
        return float(text) if text else None

    def method(self) -> str:
        return self.method_combo.currentData()

    def pool(self) -> str:
        return self.pool_combo.currentData()

    def settings(self, candidates: tuple[str, ...] | None) -> AssignSettings:
        """The settings as AssignSettings (no manual rows: the worker reads the file); a
        QueryError that says what to change."""
        k, most, least = self.quotas()
        return AssignSettings(k, most, least, self.method(), self.recency(), candidates,
                              self.years())

    def set_chosen_people(self, n: int) -> None:
        """The Query panel's people filter: n chosen (0: none, so only everybody)."""
        item = self.pool_combo.model().item(1)
        item.setEnabled(n > 0)
        self.pool_combo.setItemText(1, f"The {n:,} people chosen" if n else
                                    "The people chosen (none: use the Query panel's People)")
        if not n and self.pool() == CHOSEN:
            self.pool_combo.setCurrentIndex(0)

    def set_conflicts_file(self, path: Path | None) -> None:
        self.conflicts_file = path
        self.conflicts_label.setText(path.name if path is not None else "No file")
        self.conflicts_label.setToolTip(str(path) if path is not None else TIPS["conflicts"])
        self.clear_conflicts.setEnabled(path is not None)
        self._changed()

    # -- remembered -------------------------------------------------------------------------------
    def remember(self) -> None:
        s = settings()
        k, most, least = self.quotas()
        for name, value in (("per_paper", k), ("max_per_person", most),
                            ("min_per_person", least), ("coauthor_years",
                                                        self.coauthor_years.text()),
                            ("method", self.method()), ("since", self.since.text()),
                            ("half_life", self.half_life.text()), ("pool", self.pool()),
                            ("conflicts", str(self.conflicts_file or ""))):
            s.setValue(KEY + name, str(value))

    def restore(self) -> None:
        """The settings of the last session (a value that cannot be used is noted, not
        applied)."""
        s = settings()
        self._restoring = True
        try:
            for spin, name in ((self.per_paper, "per_paper"),
                               (self.max_per_person, "max_per_person"),
                               (self.min_per_person, "min_per_person")):
                text = read_text(s, KEY + name, "a number")
                if text.isdigit() and spin.minimum() <= int(text) <= spin.maximum():
                    spin.setValue(int(text))
                elif text:
                    note(f"the setting {KEY}{name} = {text!r} was ignored: not a number from "
                         f"{spin.minimum()} to {spin.maximum()}")
            for edit, name in ((self.coauthor_years, "coauthor_years"), (self.since, "since"),
                               (self.half_life, "half_life")):
                text = read_text(s, KEY + name)
                if _acceptable(edit, text):
                    edit.setText(text)
            for combo, name in ((self.method_combo, "method"), (self.pool_combo, "pool")):
                index = combo.findData(read_text(s, KEY + name))
                if index >= 0 and combo.model().item(index).isEnabled():
                    combo.setCurrentIndex(index)
            conflicts = read_path(s, KEY + "conflicts")
            self.set_conflicts_file(conflicts if conflicts is not None and conflicts.is_file()
                                    else None)
        finally:
            self._restoring = False

    def capacity(self, papers: int, people: int) -> str:
        """The reviews `papers` need against what a pool of `people` can give (rich text)."""
        k, most, least = self.quotas()
        need, give = papers * k, people * most
        text = (f"{papers:,} papers × {k} = {need:,} reviews; {people:,} people × at most "
                f"{most} = {give:,}" + (f", at least {people * least:,}" if least else ""))
        if need > give:
            return f'<span style="color:#c92a2a">{text}: too few.</span>'
        if people * least > need:
            return f'<span style="color:#c92a2a">{text}: the minimums are too many.</span>'
        return text + "."

    def problem(self) -> str:
        """What cannot be used as typed ("" when all can)."""
        try:
            self.recency()
            years = self.years()
            if years is not None and not years > 0:
                return "the co-author window takes a positive number of years"
            k, most, least = self.quotas()
            AssignSettings(k, most, least)
        except (QueryError, ValueError) as exc:
            return str(exc).replace("--", "")
        return ""



def _acceptable(edit: QLineEdit, text: str) -> bool:
    state = edit.validator().validate(text, 0)
    state = state[0] if isinstance(state, tuple) else state
    return state == QValidator.State.Acceptable
