"""Small widgets the panels share: read-only tables, a progress line, a probability bar."""

from __future__ import annotations

import math
import time

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QGroupBox,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QStatusBar,
    QStyle,
    QStyledItemDelegate,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

ACCENT = QColor("#3b7dd8")
ACCENT_ON_SELECTION = QColor("#cfe0f7")
BETTER = QColor("#d9f2d9")
WORSE = QColor("#f8d7d7")


def percent(share: float) -> str:
    """A share as a percentage that never reads 0% or 100% when it is neither: 0.25% of the
    mass over 2,000 people was shown as '0%'."""
    if 0 < share < 0.005:
        return f"{share * 100:.2g}%"
    if 0.995 < share < 1:
        return f"{share:.1%}" if share < 0.9995 else "more than 99.9%"
    return f"{share:.0%}"


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 document', '2,345 documents'."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def format_bytes(n: int | None) -> str:
    if not n:
        return "–"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return ""


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
    compact(table)
    return table


def compact(widget: QWidget, lines: int = 2) -> QWidget:
    """Let a scrolling view shrink to a few lines (Qt's default minimum is larger), so the
    window fits a small screen or a large scale factor; it scrolls instead."""
    widget.setMinimumHeight(widget.fontMetrics().height() * lines + 8)
    return widget


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
    """Put `rows` in the table. Columns sized to their contents are sized once, after the last
    cell: sized at every cell, 50 supporting documents took 0.2 s to list on DPDK."""
    table.setSortingEnabled(False)
    header = table.horizontalHeader()
    fitted = [c for c in range(table.columnCount())
              if header.sectionResizeMode(c) == QHeaderView.ResizeMode.ResizeToContents]
    for c in fitted:
        header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, value if isinstance(value, QTableWidgetItem) else item(value))
    for c in fitted:
        header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)


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


def elide_words(metrics, text: str, width: int) -> str:
    """`text` cut after its last whole word that fits in `width` pixels, with "…" ("Training
    stopped, partial…", never "Training stopped, partial model l"); a first word longer than
    the width is cut as Qt cuts it."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        shown = " ".join(words[:n]).rstrip(",;:·—-") + "…"
        if metrics.horizontalAdvance(shown) <= width:
            return shown
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class ElidedLabel(QLabel):
    """One line of plain text that shortens itself with "…" instead of widening the window (a
    long path or model name in the status bar once pushed a maximised window off the screen).
    The whole text is in the tooltip. `words`: cut after a whole word (a message), not in the
    middle (a path)."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, words: bool = False):
        super().__init__(parent)
        self.words = words
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 8)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        """The whole text, not the shortened one on screen."""
        return self._full

    def _margins(self) -> int:
        m = self.contentsMargins()
        return m.left() + m.right() + 2 * self.margin() + 4

    def sizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + self._margins(),
                     super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.minimumWidth() + self._margins(), super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.contentsRect().width() - 2, 0)
        shown = (elide_words(self.fontMetrics(), self._full, width) if self.words else
                 self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideMiddle, width))
        if shown != QLabel.text(self):
            super().setText(shown)


class StatusBar(QStatusBar):
    """A status bar whose messages are cut after a whole word, with the whole message in
    `currentMessage()` and the tooltip ('Traine' and 'held-out MA' were cut mid-word), and
    whose permanent labels each take at most a share of its width, so a message keeps room."""

    PERMANENT_SHARE = 0.3  # of the bar's width, for each permanent label at most

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self._until = 0.0  # when the message times out (time.monotonic(); 0: never)

    def showMessage(self, text: str, timeout: int = 0) -> None:
        self._full = text
        self._until = time.monotonic() + timeout / 1000 if timeout else 0.0
        self.setToolTip(text)
        super().showMessage(self._shown(text), timeout)

    def clearMessage(self) -> None:
        self._full = ""
        self.setToolTip("")
        super().clearMessage()

    def currentMessage(self) -> str:
        return self._full if super().currentMessage() else ""

    def _shown(self, text: str) -> str:
        permanent = [w for w in self.findChildren(QWidget) if w.parentWidget() is self and
                     w.isVisible() and w.width() > 0 and w.x() > 0]
        right = min((w.x() for w in permanent), default=self.width())
        return elide_words(self.fontMetrics(), text, max(right - 16, 0))

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:
        super().addPermanentWidget(widget, stretch)
        widget.installEventFilter(self)  # a label shown or widened later narrows the message

    def eventFilter(self, watched, event) -> bool:
        if event.type() in (QEvent.Type.Show, QEvent.Type.Hide, QEvent.Type.Move,
                            QEvent.Type.Resize):
            self._refit_later()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        for w in self.findChildren(ElidedLabel):
            if w.parentWidget() is self:
                w.setMaximumWidth(max(int(self.width() * self.PERMANENT_SHARE), 60))
        self._refit_later()

    def _refit_later(self) -> None:
        """Fit the message again once the layout has settled (a message fitted when it was
        shown was cut mid-word when "preparing the methods…" appeared beside it)."""
        if super().currentMessage() and self._full:
            left = int((self._until - time.monotonic()) * 1000) if self._until else 0
            if self._until == 0.0 or left > 0:
                QTimer.singleShot(0, lambda: self._refit(left))

    def _refit(self, left: int) -> None:
        if super().currentMessage() and self._full:
            super().showMessage(self._shown(self._full), left)


class ColumnFitter(QObject):
    """Lays out a table's columns to its width, so the important ones never leave the screen.

    `content` columns get their contents' width, `fixed` ones the given width (down to
    MIN_FIXED when space is short), and the `elastic` ones (long names and ids) share what is
    left, in order of importance: the first keeps its whole width while it can, the next take
    the rest, shortened with "…"; one left too narrow to read (under READABLE characters: an id
    cut to "2-…") is hidden until there is room. The table never scrolls sideways. Columns in
    `omitted` (a Name column that only repeats the ids) are hidden and their room shared.
    """

    MIN_FIXED = 40
    MIN_ELASTIC = 16
    READABLE = 6  # characters an elastic column must show, or it is hidden
    HEADER_SPARE = 8  # characters a content column's header may take beyond its cells

    def __init__(self, table: QTableView, *, content=(), fixed: dict | None = None,
                 elastic=()):
        super().__init__(table)
        self.table = table
        self.content, self.fixed, self.elastic = tuple(content), dict(fixed or {}), tuple(elastic)
        self.omitted: frozenset[int] = frozenset()
        header = table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(16)
        for c in range(table.model().columnCount()):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Fixed)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)  # a long header: "Auto (fus…"
        table.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def natural_width(self, column: int, cells: int | None = None) -> int:
        """Its cells' width (`cells`, when `fit` has it already) or its header's."""
        cells = self.table.sizeHintForColumn(column) if cells is None else cells
        return max(cells, self.table.horizontalHeader().sectionSizeHint(column))

    def content_width(self, column: int, cells: int | None = None) -> int:
        """A `content` column's width: its cells', and of its header only a few characters
        more (a long header, "Auto (fusion): weighted sum of z-scores", is shortened, whole in
        its tooltip, rather than take the names' room; `fit` gives it whole where the names
        leave room)."""
        cells = self.table.sizeHintForColumn(column) if cells is None else cells
        spare = self.HEADER_SPARE * self.table.fontMetrics().averageCharWidth()
        return max(cells, min(self.table.horizontalHeader().sectionSizeHint(column),
                              cells + spare))

    def fit(self) -> None:
        table = self.table
        available = table.viewport().width()
        elastic = tuple(c for c in self.elastic if c not in self.omitted)
        # Each column's cells measured once (every row's size hint: most of a fit's time).
        cells = {c: table.sizeHintForColumn(c) for c in (*self.content, *elastic)}
        widths = {c: self.content_width(c, cells[c]) for c in self.content}
        room = available - sum(widths.values()) - self.MIN_ELASTIC * len(elastic)
        wanted = sum(self.fixed.values())
        scale = 1.0 if room >= wanted else max(room, 0) / max(wanted, 1)
        widths.update({c: max(int(w * scale), self.MIN_FIXED) for c, w in self.fixed.items()})
        left = max(available - sum(widths.values()), 0)
        natural = {c: max(self.natural_width(c, cells[c]), 1) for c in elastic}
        readable = self.READABLE * table.fontMetrics().averageCharWidth()
        hidden = set(self.omitted)
        if elastic:
            if sum(natural.values()) <= left:  # room for all: whole headers, the rest to the last
                widths.update(natural)
                spare = left - sum(natural.values())
                for c in self.content:
                    wider = min(max(self.natural_width(c, cells[c]) - widths[c], 0), spare)
                    widths[c] += wider
                    spare -= wider
                widths[elastic[-1]] += spare
            else:  # by importance: each takes its width, leaving the rest a sliver each
                for i, c in enumerate(elastic):
                    after = len(elastic) - i - 1
                    widths[c] = max(min(natural[c], left - self.MIN_ELASTIC * after),
                                    self.MIN_ELASTIC)
                    if i and widths[c] < min(natural[c], readable):
                        hidden.add(c)  # too narrow to read: its room goes to the first
                        widths[elastic[0]] += widths[c]
                    left = max(left - widths[c], 0)
                    if c in hidden:
                        widths[c] = 0
        for c in range(table.model().columnCount()):
            table.setColumnHidden(c, c in hidden)
        for c, w in widths.items():
            if c not in hidden:
                table.setColumnWidth(c, w)


class WhenShown(QObject):
    """Calls `func` with the latest arguments at once while `widget` is on screen, else when it
    is next shown: a panel behind a tab of a shown window does none of its work for every query
    (the nearest terms and the Model 2 comparison took 0.13 s of each query on DPDK). `latest()`
    gives the value a deferred call must still be about (the query on screen), or it is
    dropped."""

    def __init__(self, widget: QWidget, func, latest=None):
        super().__init__(widget)
        self.widget, self.func, self.latest = widget, func, latest
        self.pending: tuple | None = None
        self._dock = None  # the dock whose tab choice is watched
        widget.installEventFilter(self)

    def __call__(self, *args) -> None:
        window = self.widget.window()
        hidden = window.isVisible() and window is not self.widget and (
            not self.widget.isVisible() or self.widget.visibleRegion().isEmpty())
        if hidden:  # a tab not chosen is "visible", but has nothing on screen
            self.pending = args
            self._watch_dock()
        else:
            self.pending = None
            self.func(*args)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Show and self.pending is not None:
            QTimer.singleShot(0, self._flush)
        return False

    def _watch_dock(self) -> None:
        """A dock whose tab is chosen says so (its widget is not shown again)."""
        dock = self.widget.parentWidget()
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        if dock is not None and dock is not self._dock:
            self._dock = dock
            dock.visibilityChanged.connect(
                lambda visible: QTimer.singleShot(0, self._flush) if visible else None)

    def _flush(self) -> None:
        if self.pending is None:
            return
        args, self.pending = self.pending, None
        if self.latest is None or args[0] is self.latest():  # not a superseded one
            self.func(*args)


QUERY_CHARS = 60  # of a query shown in a header


def shortened(text: str, limit: int = QUERY_CHARS) -> str:
    """A query on one line, cut at a word with "…" beyond `limit` characters: a pasted
    abstract once filled a header of nine lines."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0].rstrip(",.;:") + "…"


def boxed(title: str, widget: QWidget) -> QGroupBox:
    """A widget in a titled group box."""
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(widget)
    return box


def set_placeholder(plot: pg.PlotWidget, text: str | None) -> None:
    """While a plot has nothing to show, a centred message over axes that span [0, 1] without
    numbers (pyqtgraph's empty default runs from about -0.4 to 0.4); `None` takes it away."""
    note = getattr(plot, "_placeholder", None)
    if note is None:
        note = pg.TextItem("", color="#868e96", anchor=(0.5, 0.5))
        note.setZValue(100)
        plot._placeholder = note
    empty = text is not None
    for side in ("bottom", "left"):
        plot.getAxis(side).setStyle(showValues=not empty)
    plot.setMouseEnabled(x=not empty, y=not empty)
    if empty:
        note.setText(text)
        if note.scene() is None:
            plot.addItem(note, ignoreBounds=True)
        plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        note.setPos(0.5, 0.5)
    else:
        if note.scene() is not None:
            plot.removeItem(note)
        plot.enableAutoRange()


def placeholder_text(plot: pg.PlotWidget) -> str | None:
    """The message a plot shows instead of data, or None when it shows data."""
    note = getattr(plot, "_placeholder", None)
    return note.textItem.toPlainText() if note is not None and note.scene() is not None else None


def make_plot(title: str = "", x_label: str = "", y_label: str = "") -> pg.PlotWidget:
    """A plot styled by `style_plot`."""
    plot = pg.PlotWidget(title=title or None)
    style_plot(plot, x_label, y_label)
    return plot


def style_plot(plot: pg.PlotWidget, x_label: str, y_label: str) -> None:
    """Axis labels, a light grid and plain axis numbers (no "(x0.001)" SI scaling)."""
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", y_label)
    plot.showGrid(x=True, y=True, alpha=0.25)
    for side in ("bottom", "left"):
        plot.getAxis(side).enableAutoSIPrefix(False)


class WholeNumberAxis(pg.AxisItem):
    """An axis of counts (steps, epochs): ticks only at whole numbers (a short run showed
    steps 1.5 and 2.5)."""

    def tickValues(self, minVal, maxVal, size):
        levels = []
        for spacing, values in super().tickValues(minVal, maxVal, size):
            if spacing < 1:
                continue
            whole = [v for v in values if float(v).is_integer()]
            if whole:
                levels.append((spacing, whole))
        if not levels:  # a range under one step: its whole numbers, if any
            whole = [float(v) for v in range(math.ceil(minVal), math.floor(maxVal) + 1)]
            levels = [(1.0, whole)] if whole else []
        return levels


LABEL_CORNERS = ((0, 1), (1, 1), (0, 0), (1, 0))  # a name's anchors, in the order tried


def place_labels(labels, view=None) -> None:
    """No two names on a map overlap: each label (a pyqtgraph TextItem, the most important
    first) takes the first corner of its point (above right, above left, below right, below
    left) where it covers no label placed before it; a label with no free corner is hidden (its
    point's tooltip still names it). `view`: the ViewBox, whose scale is brought up to date
    first (it follows a zoom only when next painted)."""
    if view is not None:
        view.updateMatrix()
    placed = []
    for label in labels:
        label.setVisible(True)
        label.updateTransform(force=True)  # a label hidden before kept its old scale
        for anchor in LABEL_CORNERS:
            label.setAnchor(anchor)
            rect = label.mapRectToScene(label.boundingRect())
            if not any(rect.intersects(other) for other in placed):
                placed.append(rect)
                break
        else:
            label.setVisible(False)


class LabelPlacer(QObject):
    """Places a map's labels (`place_labels`) when drawn and whenever its view's range or size
    changes, against the view's new scale: placed against the previous one (a zoom is taken
    when the view is next painted), names with room to spare were hidden."""

    def __init__(self, plot: pg.PlotWidget, labels):
        super().__init__(plot)
        self.labels = labels  # returns the labels, the most important first
        self.view = plot.getViewBox()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.place)
        plot.sigRangeChanged.connect(lambda *_: self.timer.start())
        self.view.sigResized.connect(lambda *_: self.timer.start())

    def place(self) -> None:
        place_labels(self.labels(), self.view)
