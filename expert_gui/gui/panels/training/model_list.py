"""The training panel's saved models: the list (this collection's models first, each with its
date, held-out MAP and settings), opening one (a model of another collection offers to open
that collection; an interrupted run offers to continue) and the questions asked on the way.

A part of `TrainingPanel` (panel.py), which builds the list's widgets and runs the trainings
that fill it."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFileDialog, QListWidgetItem, QMessageBox

from expert_gui.core.errors import ModelFileError
from expert_gui.core.evaluation.every_document import retrained, retrained_note
from expert_gui.core.evaluation.quality import (
    held_out_note,
    held_out_shortfall,
    held_out_warning,
    training_advice,
)
from expert_gui.core.paths import models_dir
from expert_gui.core.store.model_folders import (
    DAMAGED,
    INTERRUPTED,
    ModelFolder,
    list_model_folders,
    read_model_folder,
)
from expert_gui.core.store.storage import load_model
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.panels.training.saved_models import (
    WARNING_SIGN,
    folder_date,
    folder_text,
    folder_warning,
)

# Colours of the saved-models list: runs of another collection and unusable folders are grey,
# a model that learned little (held-out MAP near chance or far below the baselines) red.
OTHER_COLLECTION = QColor("#868e96")
WEAK_MODEL = QColor("#c92a2a")


class ModelList:
    """The saved-models list and the opening of models, mixed into `TrainingPanel` (it uses the
    panel's state, list widgets and run state)."""

    def refresh_models(self) -> None:
        """Models and interrupted runs: this collection's first (newest first), then the rest."""
        selected = self._selected()
        collection = self.state.collection
        # a run's folder is left out while it trains, until its measured model is saved there
        training = self._model_folder if self.is_training() and self._measured is None else None
        folders = [f for f in list_model_folders(models_dir()) if f.path != training]
        mine = [f for f in folders if collection is not None and f.belongs_to(collection)]
        others = [f for f in folders if f not in mine]
        self.models_list.clear()
        for info in mine + others:
            text = folder_text(info, retraining=info.path == self.state.retraining)
            if collection is not None and info not in mine:
                text += f"\n(trained on {source_name(info)})"
            it = QListWidgetItem(text)
            it.setData(Qt.ItemDataRole.UserRole, str(info.path))
            it.setToolTip(f"{info.path}\n{info.status_text()}")
            if info not in mine or info.kind == DAMAGED:
                it.setForeground(OTHER_COLLECTION)
            elif folder_warning(info):
                it.setForeground(WEAK_MODEL)
            self.models_list.addItem(it)
            if selected is not None and info.path == selected.path:
                self.models_list.setCurrentItem(it)
        # Counts go in a wrapping note, not the title: a group box is as wide as its title.
        if collection is None:
            self.models_note.setText(f"{len(folders)} saved.")
        else:
            self.models_note.setText(
                f"{len(mine)} of this collection (newest first), {len(others)} of others "
                f"(grey).")
        self._update_buttons()

    def models_for_collection(self) -> list[ModelFolder]:
        """Saved models (not interrupted runs) of the open collection, newest first."""
        collection = self.state.collection
        if collection is None:
            return []
        return [f for f in list_model_folders(models_dir())
                if f.kind != INTERRUPTED and f.kind != DAMAGED and f.belongs_to(collection)
                and not (self.is_training() and f.path == self._model_folder)]

    @staticmethod
    def _item_path(it: QListWidgetItem) -> Path:
        return Path(it.data(Qt.ItemDataRole.UserRole))

    def _selected(self) -> ModelFolder | None:
        it = self.models_list.currentItem()
        return read_model_folder(self._item_path(it)) if it is not None else None

    def _open_selected(self) -> None:
        it = self.models_list.currentItem()
        if it is not None:
            self.open_model(self._item_path(it))

    def choose_model(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a model folder", str(models_dir()))
        if path:
            self.open_model(Path(path))

    def open_model(self, folder: Path, *, restoring: bool = False) -> None:
        """Open a model folder; an interrupted run offers to continue instead. `restoring`: the
        last session's model, opened only if it belongs to the collection now open."""
        folder = Path(folder)
        info = read_model_folder(folder)
        if info is not None and info.kind == INTERRUPTED:
            if not restoring and self.confirm_continue(info):
                self.continue_run(info)
            return
        self.state.runner.start(
            "model", load_model, folder,
            on_success=lambda m: self._model_loaded(m, folder, restoring),
            on_failure=lambda exc, tb: show_error(self, f"Cannot open {folder.name}", exc, tb))

    def restore_after_collection(self, folder: Path) -> None:
        """Reopen the last session's model once the collection now loading is open."""
        self._restore_folder = Path(folder)

    def _open_waiting_model(self) -> None:
        if self._restore_folder is not None:
            folder, self._restore_folder = self._restore_folder, None
            self.open_model(folder, restoring=True)
        if self._waiting_model is not None:
            (model, folder), self._waiting_model = self._waiting_model, None
            if self.state.fits(model):
                self._model_loaded(model, folder)

    def _model_loaded(self, model, folder: Path, restoring: bool = False) -> None:
        collection = self.state.collection
        if not self.state.fits(model) and self._read_as_trained(model, folder):
            return
        if not self.state.fits(model):
            if restoring:  # never bring back a model that does not belong to the collection
                trained_on = Path(model.collection_source).name if model.collection_source \
                    else "another collection"
                self.state.model_dropped.emit(f"Did not reopen {folder.name}: it was trained on "
                                              f"{trained_on}, not on {collection.name}.")
                return
            source = Path(model.collection_source) if model.collection_source else None
            if source is not None and source.exists() and self.confirm_open_collection(
                    folder, model, source):
                self._waiting_model = (model, folder)
                self.state.collection_requested.emit(source)
            elif source is None or not source.exists():
                show_error(self, f"Cannot open {folder.name} here", ModelFileError(
                    folder, None, f"it was trained on {model.collection_source or 'a collection'}"
                    f" that is not here, and its people and words are not those of "
                    f"{collection.name}"))
            return
        self.state.set_model(model, folder)
        self.state.message.emit(f"Opened model {folder.name}")

    def _read_as_trained(self, model, folder: Path) -> bool:
        """A model of the open collection read with other text settings (an earlier rule):
        the collection is read again as the model was trained, and the model opens then."""
        collection, path = self.state.collection, self.state.collection_path
        source = Path(model.collection_source) if model.collection_source else None
        if (collection is None or path is None or source is None
                or model.text_settings == collection.settings
                or source.resolve() != Path(path).resolve()):
            return False
        self._waiting_model = (model, folder)
        self.state.message.emit(f"Reading {collection.name} again as {folder.name} was trained: "
                                f"{model.text_settings.describe()}")
        self.state.reread_requested.emit(model.text_settings)
        return True

    # -- questions (tests replace these) ------------------------------------------------------------
    def confirm_continue(self, info: ModelFolder) -> bool:
        answer = QMessageBox.question(
            self, "Interrupted training",
            f"{info.name} was interrupted at {info.progress_text()} and holds no finished model "
            "yet. Continue training it from its last checkpoint?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def confirm_startup_continue(self, info: ModelFolder) -> bool:
        answer = QMessageBox.question(
            self, "Interrupted training",
            f"Continue the training interrupted at {info.progress_text()}?\n\n{info.name} "
            f"({folder_date(info)}) stopped before it could save a model; its last "
            "checkpoint is kept. No: it stays in the saved-models list (Training panel).",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def confirm_open_collection(self, folder: Path, model, source: Path) -> bool:
        collection = self.state.collection
        answer = QMessageBox.question(
            self, "The model belongs to another collection",
            f"{folder.name} was trained on {source.name} ({model.n_people:,} people), not on "
            f"{collection.name}, the collection open now: it would rank people and use words "
            f"that are not this collection's.\n\nOpen {source.name} with it?",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Open)
        return answer == QMessageBox.StandardButton.Open


def model_warning(model, collection=None) -> str:
    """Why a model's answers are weak ('' when they hold up): its held-out MAP against chance
    and the baselines, with what to change for `collection`, the model's own (core/evaluation/
    quality.py)."""
    measures, documents, advice = _quality(model, collection)
    return held_out_warning(measures, documents=documents, advice=advice)


def model_note(model, collection) -> str:
    """What else the held-out documents say of a model of `collection` ('' when nothing, or
    no collection is open): its log-linear model is weak where `auto` holds up, or why nothing
    could measure it."""
    if collection is None:
        return ""
    if not model.calibration:
        return held_out_shortfall(collection)
    measures, documents, advice = _quality(model, collection)
    return held_out_note(measures, documents=documents, advice=advice)


def verdict_html(model, collection, kept: bool = True) -> str:
    """What the panel adds after a model's name: its warning in red, or its note ('' when
    neither); then (with `kept`), for a model trained again on every document, that its
    held-out figures are of the model measured before."""
    again = retrained_note(model) if kept else ""
    again = f" {html.escape(again)}" if again else ""
    if warning := model_warning(model, collection):
        return f' <span style="color:#c92a2a">{WARNING_SIGN} {html.escape(warning)}</span>{again}'
    note = model_note(model, collection)
    return (f" {html.escape(note[0].upper() + note[1:])}." if note else "") + again


def plotted_run(model) -> str:
    """Whose training the plot of a model's history shows: a model trained again on every
    document keeps the history of the run measured on the held-out documents."""
    return "the training of the model measured" if retrained(model) else "its training"


def _quality(model, collection) -> tuple:
    """A model's held-out measures, how many documents measured them, and what to change."""
    calibration = model.calibration or {}
    documents = len(calibration.get("held_out", {}).get("documents", ())) or None
    advice = training_advice(model, collection) if calibration and collection else ""
    return calibration.get("measures"), documents, advice


def source_name(info: ModelFolder) -> str:
    return Path(info.collection_source).name if info.collection_source else "another collection"
