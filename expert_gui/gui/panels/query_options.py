"""What the query panel asks besides the words: whether the text is a topic or a paper from
outside the collection (who could review it?), and how recent work must be to count (since a
year, a half-life in years; both optional). A paper is pasted whole into a box of many lines
(`PaperEdit`, Ctrl+Enter ranks): a one-line box keeps a pasted abstract's line breaks but shows
the whole of it on one line, where it cannot be read or checked.

The choices make a `Variant` (prepared_rankers.py), whose ranker make_ranker builds with
`outside` and `recency`; no method carries P(expert) under either (`no_p_expert`)."""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from expert_gui.core.data.recency import HALF_LIVES, YEARS, Recency
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.query_type import OUTSIDE_PAPER, p_expert_missing
from expert_gui.gui.prepared_rankers import Variant
from expert_gui.gui.widgets import ElidedLabel

TOPIC, PAPER = "topic", "paper"
KIND_LABELS = {TOPIC: "a topic", PAPER: "a paper to review"}

def no_p_expert(variant: Variant) -> str:
    """Why rankings of `variant` carry no P(expert) ("" for the default variant)."""
    if not (variant.outside or variant.recency):
        return ""
    return "no P(expert): " + p_expert_missing(variant.outside, bool(variant.recency))


def variant_words(variant: Variant) -> str:
    """'for a paper from outside, documents from 2019 on' ("" for the default)."""
    parts = [f"for a {OUTSIDE_PAPER}"] if variant.outside else []
    if variant.recency:
        parts.append(variant.recency.describe())
    return ", ".join(parts)


class PaperEdit(QPlainTextEdit):
    """A paper's title and abstract, or its whole text, as pasted; Ctrl+Enter submits."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("paper-edit")
        self.setPlaceholderText("Paste the paper's title and abstract (or its whole text), "
                                "then press Ctrl+Enter to rank who could review it.")
        self.setTabChangesFocus(True)
        self.setMinimumHeight(self.fontMetrics().lineSpacing() * 3 + 12)

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    def text(self) -> str:
        return self.toPlainText()


def parse_recency(since: str, half_life: str) -> Recency:
    """The recency of a year and a half-life as typed (either may be empty); QueryError for
    values it cannot take."""
    since, half = since.strip(), half_life.strip().replace(",", ".")
    try:
        years = float(half) if half else None
    except ValueError:
        raise QueryError(f"the half-life is a number of years, not {half!r}") from None
    if since and len(since) != 4:
        raise QueryError(f"since takes a year of four digits, not {since}")
    return Recency(int(since) if since else None, years)


def number_field(placeholder: str, tip: str, pattern: str, chars: int) -> QLineEdit:
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)
    edit.setToolTip(tip)
    edit.setClearButtonEnabled(True)
    edit.setValidator(QRegularExpressionValidator(QRegularExpression(pattern), edit))
    edit.setMaximumWidth(edit.fontMetrics().horizontalAdvance("0") * chars + 40)
    edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance("0") * min(chars, 4) + 30)
    return edit


class QueryOptions(QWidget):
    """Topic or paper, and recency; `changed` when a choice is made (a field when left or on
    Enter). `variant()` raises QueryError for a recency out of range."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.kind_combo = QComboBox()
        self.kind_combo.setObjectName("query-kind")
        for kind, text in KIND_LABELS.items():
            self.kind_combo.addItem(text, kind)
        self.kind_combo.setToolTip(
            "A topic: who knows most about it. A paper to review, from outside the collection "
            "(a submission, a proposal): who could review it? Paste its title and abstract. "
            "Auto then ranks with fixed weights, the same for every collection")
        self.kind_combo.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.kind_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind_combo.setMinimumContentsLength(len(KIND_LABELS[PAPER]))
        self.since_edit = number_field(
            "any year", f"Only documents from this year on count ({YEARS[0]}-{YEARS[1]}); "
            "undated documents count fully. Empty: every year. Enter applies it", r"\d{0,4}", 6)
        self.half_life_edit = number_field(
            "years", "Recent work counts more: a document counts half as much for every this "
            "many years it is older than the collection's newest "
            f"({HALF_LIVES[0]:.2f}-{HALF_LIVES[1]:,.0f}). Empty: no decay. Enter applies it",
            r"\d{0,4}([.,]\d{0,3})?", 5)
        self._applied = (self.since_edit.text(), self.half_life_edit.text())
        for edit in (self.since_edit, self.half_life_edit):
            edit.editingFinished.connect(self._recency_edited)
            edit.textChanged.connect(self._cleared)
        self.problem_label = ElidedLabel("", words=True)  # never widens the panel
        self.problem_label.setObjectName("recency-problem")
        self.problem_label.setStyleSheet("color: #c92a2a;")
        self.problem_label.setVisible(False)
        self.problem = ""  # why the recency typed cannot be used

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Ask about"))
        layout.addWidget(self.kind_combo)
        layout.addSpacing(12)
        recent = QLabel("Recent work since")
        recent.setBuddy(self.since_edit)
        layout.addWidget(recent)
        layout.addWidget(self.since_edit)
        half = QLabel("half-life")
        half.setBuddy(self.half_life_edit)
        layout.addWidget(half)
        layout.addWidget(self.half_life_edit)
        layout.addWidget(self.problem_label, 1)
        layout.addStretch(1)

    def kind(self) -> str:
        return self.kind_combo.currentData()

    def outside(self) -> bool:
        return self.kind() == PAPER

    def set_kind(self, kind: str) -> None:
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(kind))

    def set_recency(self, since: int | None = None, half_life: float | None = None) -> None:
        """Fill the fields and apply them (as Enter does)."""
        self.since_edit.setText("" if since is None else str(since))
        self.half_life_edit.setText("" if half_life is None else f"{half_life:g}")
        self._recency_edited()

    def recency(self) -> Recency:
        return parse_recency(self.since_edit.text(), self.half_life_edit.text())

    def variant(self) -> Variant:
        """The choices as a Variant; QueryError (also shown beside the fields) when the recency
        cannot be used."""
        try:
            recency = self.recency()
        except QueryError as exc:
            self.problem = str(exc).replace("--", "")
            self.problem_label.setText(self.problem)
            self.problem_label.setVisible(True)
            raise
        self.problem = ""
        self.problem_label.setVisible(False)
        return Variant(self.outside(), recency)

    def _recency_edited(self) -> None:
        now = (self.since_edit.text(), self.half_life_edit.text())
        if now != self._applied:
            self._applied = now
            self.changed.emit()

    def _cleared(self, text: str) -> None:
        """A field emptied with its clear button applies at once (no Enter to press)."""
        if not text:
            self._recency_edited()

