"""What the panels share: the open collection, the loaded model, topics and qrels, the query.

Panels never call each other; they read and set this state and react to its signals, so each
panel can be built, tested and screenshotted alone.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from expert_gui.gui.workers import TaskRunner


class AppState(QObject):
    collection_changed = Signal(object)  # Collection
    model_changed = Signal(object)  # LogLinearModel or None
    topics_changed = Signal()  # topics and/or qrels
    query_requested = Signal(str)  # run this query (from any panel)
    profile_requested = Signal(str)  # show this person's profile (a person id, from any panel)
    ranked = Signal(object)  # the log-linear Ranking of the current query
    message = Signal(str)  # a line for the status bar

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.runner = TaskRunner(self)
        self.collection = None
        self.collection_path: Path | None = None
        self.model = None
        self.model_path: Path | None = None
        self.topics: dict[str, str] = {}
        self.topics_path: Path | None = None
        self.qrels: dict[str, dict[str, int]] = {}
        self.qrels_path: Path | None = None
        self.ranking = None

    def set_collection(self, collection, path: str | Path | None) -> None:
        self.collection = collection
        self.collection_path = Path(path) if path is not None else None
        self.collection_changed.emit(collection)

    def set_model(self, model, path: str | Path | None) -> None:
        self.model = model
        self.model_path = Path(path) if path is not None else None
        self.ranking = None
        self.model_changed.emit(model)

    def set_topics(self, topics: dict[str, str], path: str | Path | None) -> None:
        self.topics = dict(topics)
        self.topics_path = Path(path) if path is not None else None
        self.topics_changed.emit()

    def set_qrels(self, qrels: dict[str, dict[str, int]], path: str | Path | None) -> None:
        self.qrels = qrels
        self.qrels_path = Path(path) if path is not None else None
        self.topics_changed.emit()

    def set_ranking(self, ranking) -> None:
        self.ranking = ranking
        self.ranked.emit(ranking)
