"""The query box's completion: the word being typed (the last one) from the words the model
(or, before any, the collection) knows, most frequent first; its list opens below the line
that explains the ranking, which it had covered."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QWidget


class WordCompleter(QCompleter):
    """Completes the word being typed (the last one), not the whole query."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.words = QStringListModel(self)
        self.setModel(self.words)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchStartsWith)
        self.setModelSorting(QCompleter.ModelSorting.UnsortedModel)  # most frequent first
        self.setMaxVisibleItems(12)
        self._clear_of: QWidget | None = None

    def keep_clear_of(self, widget: QWidget) -> None:
        """Open the list below `widget` (it lies under the box), where the screen has room."""
        self._clear_of = widget
        self.popup().installEventFilter(self)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Qt places the list under the box on every keystroke (a move once it is open); the
        # line may grow while the list is open (a ranking arrives, its layout settles).
        popup = self.popup()
        if self._clear_of is not None and (
                (watched is popup and event.type() in (QEvent.Type.Show, QEvent.Type.Move))
                or (watched is self._clear_of and event.type() == QEvent.Type.Resize
                    and popup.isVisible())):
            self._place_below(popup, self._clear_of)
        return super().eventFilter(watched, event)

    def _place_below(self, popup: QWidget, widget: QWidget) -> None:
        below = widget.mapToGlobal(QPoint(0, widget.height())).y()
        box_top = self.widget().mapToGlobal(QPoint(0, 0)).y()
        top = popup.geometry().top()
        if top < box_top or top >= below:
            return  # above the box (no room under it), or clear already
        if below + popup.height() <= popup.screen().availableGeometry().bottom():
            popup.move(popup.x(), below)

    def set_words(self, words: list[str]) -> None:
        # the same words (a model retrained on the same collection) leave the list alone: a
        # reset hides the open popup, and keys on their way to it are lost
        if words != self.words.stringList():
            self.words.setStringList(words)

    def splitPath(self, path: str) -> list[str]:
        last = path.split(" ")[-1]
        return [last] if last else ["\0"]  # after a space: no word begun, no list

    def pathFromIndex(self, index) -> str:
        text = self.widget().text() if self.widget() is not None else ""
        head = text.rsplit(" ", 1)[0] + " " if " " in text else ""
        return head + str(index.data())
