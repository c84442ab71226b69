"""What a relaunch brings back besides the layout, the collection and the model: the query with
its method and results, and the person profiled; and, at start-up, the training of the open
collection that was interrupted (killed, crashed), offered to continue."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, QTimer

from expert_gui.core.paths import models_dir
from expert_gui.core.store.model_folders import INTERRUPTED, list_model_folders
from expert_gui.gui.app_settings import read_text

KEYS = ("session/query", "session/method", "session/person")


class Session(QObject):
    """Saves the query, method and profiled person as they change; `start()` (the start-up
    collection is about to open) restores them once the collection, then the model, is open."""

    def __init__(self, window, settings: QSettings):
        super().__init__(window)
        self.window, self.settings = window, settings
        self._restore: dict[str, str] = {}  # what is left to restore
        self._startup = False  # the start-up collection is still loading
        qp, state = window.query_panel, window.state
        qp.query_edit.returnPressed.connect(self.save)
        qp.method_combo.currentIndexChanged.connect(lambda _: self.save())
        window.profile_panel.person_shown.connect(self._save_person)
        state.collection_changed.connect(self._collection_opened)
        state.model_changed.connect(self._model_opened)

    def start(self) -> None:
        self._startup = True
        self._restore = {key.split("/")[1]: read_text(self.settings, key) for key in KEYS}

    def save(self) -> None:
        if self._startup:
            return  # not before the last session's are restored
        qp = self.window.query_panel
        self.settings.setValue("session/query", qp.query_edit.text().strip())
        self.settings.setValue("session/method", qp.chosen_method())

    def _save_person(self, person: str) -> None:
        if not self._startup:
            self.settings.setValue("session/person", person)

    def _collection_opened(self, collection) -> None:
        if not self._startup:  # the query box now holds this collection's query, or none
            self.save()
            return
        query, method = self._restore.pop("query", ""), self._restore.pop("method", "")
        typed = self.window.query_panel.query_edit.text().strip()
        query = typed or query  # typed while the collection loaded: the user's, not the last
        if query or method:  # restoring changes the method: saved only once it is done
            self.window.query_panel.restore(query, method)
        self._startup = False
        # Once the panels show the collection (they react to the same signal, some after this).
        QTimer.singleShot(0, lambda: self.offer_interrupted_run(self.window.state.collection))
        if self.window.state.model is not None:
            self._model_opened(self.window.state.model)

    def _model_opened(self, model) -> None:
        person = self._restore.get("person")
        if self._startup or model is None or not person:
            return
        del self._restore["person"]
        if person in model.person_ids:
            self.window.profile_panel.show_person(person)

    def offer_interrupted_run(self, collection) -> None:
        """The newest interrupted run of the collection, offered to continue (not only in the
        saved-models list, where a user who did not see it die would not look)."""
        tp = self.window.training_panel
        if collection is None or tp.is_training():
            return
        runs = [f for f in list_model_folders(models_dir())
                if f.kind == INTERRUPTED and f.belongs_to(collection)]
        if runs and tp.confirm_startup_continue(runs[0]):
            tp.continue_run(runs[0])
