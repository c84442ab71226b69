"""Small widgets the panels share: read-only tables, a progress line, a probability bar."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

ACCENT = QColor("#3b7dd8")
ACCENT_ON_SELECTION = QColor("#cfe0f7")
BETTER = QColor("#d9f2d9")
WORSE = QColor("#f8d7d7")


def make_table(headers: list[str], *, stretch_last: bool = True) -> QTableWidget:
    """A read-only, row-selecting table with the given column headers."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(stretch_last)
    return table


def item(value, *, align_right: bool | None = None, tooltip: str = "") -> QTableWidgetItem:
    """A table cell: numbers right-aligned and sorted as numbers, everything else as text."""
    it = QTableWidgetItem()
    if isinstance(value, int | float):
        it.setData(Qt.ItemDataRole.DisplayRole, value)
        align_right = True if align_right is None else align_right
    else:
        it.setText(str(value))
    if align_right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if tooltip:
        it.setToolTip(tooltip)
    return it


def fill_table(table: QTableWidget, rows: list[list]) -> None:
    table.setSortingEnabled(False)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, value if isinstance(value, QTableWidgetItem) else item(value))


class BarDelegate(QStyledItemDelegate):
    """Draws a cell's value in [0, 1] (UserRole) as a bar, for P(c|q) beside its number."""

    def paint(self, painter: QPainter, option, index) -> None:
        super().paint(painter, option, index)
        value = index.data(Qt.ItemDataRole.UserRole)
        if value is None:
            return
        r: QRect = option.rect.adjusted(3, 4, -3, -4)
        width = int(round(r.width() * max(0.0, min(1.0, float(value)))))
        painter.save()
        selected = option.state & QStyle.StateFlag.State_Selected
        painter.fillRect(QRect(r.left(), r.top(), width, r.height()),
                         ACCENT_ON_SELECTION if selected else ACCENT)
        painter.restore()


def boxed(title: str, widget: QWidget) -> QGroupBox:
    """A widget in a titled group box."""
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(widget)
    return box


def make_plot(title: str = "", x_label: str = "", y_label: str = "") -> pg.PlotWidget:
    """A plot with a light grid and plain axis numbers (no "(x0.001)" SI scaling)."""
    plot = pg.PlotWidget(title=title or None)
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", y_label)
    plot.showGrid(x=True, y=True, alpha=0.25)
    for side in ("bottom", "left"):
        plot.getAxis(side).enableAutoSIPrefix(False)
    return plot
