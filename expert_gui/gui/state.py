"""What the panels share: the open collection, the loaded model, topics and qrels, the query.

Panels never call each other; they read and set this state and react to its signals, so each
panel can be built, tested and screenshotted alone.

One rule holds throughout: the model belongs to the collection on screen. Opening another
collection closes a model trained on something else, and its topics and qrels go with it.

While a run trains its measured model again on every document (`retraining`), that model, saved
and calibrated, answers; the panels say so (`measured_answers`) until the run replaces it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.store.model_folders import model_fits
from expert_gui.gui.workers import TaskRunner


class AppState(QObject):
    collection_changed = Signal(object)  # Collection
    model_changed = Signal(object)  # LogLinearModel or None
    topics_changed = Signal()  # topics and/or qrels
    query_requested = Signal(str)  # run this query (from any panel)
    profile_requested = Signal(str)  # show this person's profile (a person id, from any panel)
    ranked = Signal(object)  # the log-linear Ranking of the current query
    message = Signal(str)  # a line for the status bar
    model_dropped = Signal(str)  # a model was closed: it did not belong to the new collection
    collection_requested = Signal(object)  # a panel asks to open this collection path
    reread_requested = Signal(object)  # read the open collection again with these TextSettings
    model_requested = Signal(object)  # a panel asks to open this model folder
    people_changed = Signal()  # rank (and evaluate) only these people
    busy_detail = Signal(str, str)  # what a background task (by slot) does now; "": its name
    retraining_changed = Signal()  # a run began or ended training its measured model again

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
        self.people: list[str] = []  # person ids; empty: everybody
        # A run's model folder while the run trains the measured model saved there again on
        # every document: a model open from it is that measured model, replaced when it ends.
        self.retraining: Path | None = None

    def set_collection(self, collection, path: str | Path | None) -> None:
        """Show another collection: its own topics and qrels (none until opened), and the model
        only if it was trained on it."""
        self.collection = collection
        self.collection_path = Path(path) if path is not None else None
        if self.topics or self.qrels:
            self.topics, self.topics_path, self.qrels, self.qrels_path = {}, None, {}, None
            self.topics_changed.emit()
        model = self.model
        if model is not None and not self.fits(model):
            name = self.model_path.name if self.model_path is not None else "the trained model"
            self.set_model(None, None)
            trained_on = Path(model.collection_source).name if model.collection_source \
                else "another collection"
            self.model_dropped.emit(
                f"Closed {name}: it was trained on {collection.name} before its files or its "
                "people edits changed; train again to rank the people as they are now."
                if model.collection_source == collection.source else
                f"Closed {name}: it was trained on {trained_on}, not on {collection.name}.")
        self.collection_changed.emit(collection)

    def fits(self, model) -> bool:
        """Whether `model` may answer for the open collection (always, when none is open)."""
        return self.collection is None or model_fits(model, self.collection)

    def set_model(self, model, path: str | Path | None) -> None:
        if model is not None and not self.fits(model):
            raise ValueError("the model was not trained on the open collection")
        self.model = model
        self.model_path = Path(path) if path is not None else None
        self.ranking = None
        self.model_changed.emit(model)

    def set_retraining(self, folder: str | Path | None) -> None:
        self.retraining = Path(folder) if folder is not None else None
        self.retraining_changed.emit()

    def measured_answers(self) -> bool:
        """Whether the open model is a run's measured model, answering while the run trains it
        again on every document (the held-out documents measured it; it has not seen them)."""
        return (self.model is not None and self.retraining is not None
                and self.model_path == self.retraining and retrained(self.model) is None)

    def set_topics(self, topics: dict[str, str], path: str | Path | None) -> None:
        self.topics = dict(topics)
        self.topics_path = Path(path) if path is not None else None
        self.topics_changed.emit()

    def set_qrels(self, qrels: dict[str, dict[str, int]], path: str | Path | None) -> None:
        self.qrels = qrels
        self.qrels_path = Path(path) if path is not None else None
        self.topics_changed.emit()

    def set_people(self, person_ids: list[str]) -> None:
        """Rank, and measure, only these people (none: everybody)."""
        self.people = list(person_ids)
        self.people_changed.emit()

    def set_ranking(self, ranking) -> None:
        self.ranking = ranking
        self.ranked.emit(ranking)
