"""The query box's completion: the word being typed (the last one) from the words the model
(or, before any, the collection) knows, most frequent first."""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import QCompleter


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
