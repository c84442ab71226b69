"""Training panel: the settings form (the paper's defaults), Train / Pause / Stop, the live loss
plot, speed, ETA and memory, and the list of saved models to reopen without retraining."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.errors import ModelFileError
from expert_gui.core.paths import models_dir
from expert_gui.core.storage import MANIFEST_FILE, load_model, read_manifest
from expert_gui.core.train_settings import DEVICES, OPTIMIZERS, TrainSettings
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.state import AppState
from expert_gui.gui.workers import TaskBusy

REDRAW_MS = 100  # the loss plot redraws at most ten times a second
SMOOTHING = 0.9  # exponential moving average of the training loss, for a readable curve

# Where the form departs from the trainer's defaults: training leaves one core to the window.
GUI_DEFAULTS = {"threads": max(1, (os.cpu_count() or 2) - 1)}

# Fields the form shows as a file chooser, and fields with a fixed set of choices.
PATH_FIELDS = ("embeddings",)
# What a zero means, shown in place of the number.
SPECIAL_ZERO = {"learning_rate": "optimizer's default"}
CHOICES = {"optimizer": OPTIMIZERS, "device": DEVICES}

TOOLTIPS = {
    "window": "n: words per training instance (n-gram). The paper uses 8 (section 4.4); "
              "Figure 2 sweeps it.",
    "dim": "Size e of the word and candidate embeddings. The paper uses 300.",
    "batch_size": "Instances per gradient step. The paper uses 1024.",
    "l2": "L2 regularization weight lambda of the loss (Eq. 4). The paper uses 0.01.",
    "optimizer": "Adadelta as in the paper, or Adam.",
    "learning_rate": "0 uses the optimiser's own default (1.0 for Adadelta, 0.001 for Adam).",
    "rho": "Adadelta's decay rate (the paper: 0.95).",
    "eps": "Adadelta's epsilon (the paper: 1e-6).",
    "epochs": "Passes over all training instances.",
    "overlapping": "Take every n-gram (sliding window) instead of non-overlapping ones.",
    "validation_fraction": "Share of instances held out to measure the validation loss.",
    "early_stopping": "Stop when the MAP on the held-out documents (2% of the documents, kept "
                      "out of training as queries) has not improved for `patience` epochs, and "
                      "keep the best epoch.",
    "patience": "Epochs without improvement before early stopping.",
    "seed": "Random seed: the same seed and settings give the same model.",
    "device": "Where to train: auto picks a GPU when there is one.",
    "mixed_precision": "Compute in bf16/fp16 on a GPU (faster, slightly less exact).",
    "cuda_graphs": "Replay each training step from one captured CUDA graph (NVIDIA GPUs only; "
                   "fewer launches, so faster at small batches). Experimental.",
    "checkpoint_every": "Save a checkpoint every this many steps (0: only at the end). "
                        "Stopping always keeps the last one.",
    "candidate_chunk": "Candidates per chunk of the softmax over people (bounds memory).",
    "embeddings": "Optional pretrained word vectors (word2vec/GloVe text) to start W_p from.",
    "threads": "CPU threads for training (0: torch's default, every core). The app starts "
               "with one core fewer, so the window stays responsive while it trains.",
}


def smooth(values: np.ndarray, alpha: float = SMOOTHING) -> np.ndarray:
    """Bias-corrected exponential moving average (as TensorBoard draws a noisy loss)."""
    out = np.empty(len(values))
    avg = 0.0
    for i, v in enumerate(values):
        avg = alpha * avg + (1 - alpha) * v
        out[i] = avg / (1 - alpha ** (i + 1))
    return out


def format_duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "–"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def format_bytes(n: int | None) -> str:
    if not n:
        return "–"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return ""


def saved_models() -> list[tuple[Path, dict]]:
    """Model folders in the user's data folder, newest first, with their manifests."""
    found = []
    for manifest in models_dir().glob(f"*/{MANIFEST_FILE}"):
        try:
            meta = read_manifest(manifest.parent)
        except ModelFileError:
            continue  # a damaged folder is listed by nothing; opening it by hand explains why
        found.append((manifest.parent, meta))
    found.sort(key=lambda pm: pm[0].stat().st_mtime, reverse=True)
    return found


class LossPlot(pg.PlotWidget):
    """Training loss (raw and smoothed) and validation loss, redrawn from a timer."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setLabel("bottom", "step")
        self.setLabel("left", "cross-entropy loss")
        self.showGrid(x=True, y=True, alpha=0.25)
        for side in ("bottom", "left"):
            self.getAxis(side).enableAutoSIPrefix(False)
        self.addLegend(offset=(-10, 10))
        self.raw_curve = self.plot([], [], pen=pg.mkPen("#9dbce8", width=1), name="training")
        self.smooth_curve = self.plot([], [], pen=pg.mkPen("#1f5fbf", width=2),
                                      name="training (smoothed)")
        self.val_curve = self.plot([], [], pen=pg.mkPen("#d9480f", width=2), symbol="o",
                                   symbolSize=6, symbolBrush="#d9480f", name="validation")
        self.clear_data()
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

    def clear_data(self) -> None:
        self.steps: list[int] = []
        self.losses: list[float] = []
        self.val_steps: list[int] = []
        self.val_losses: list[float] = []
        self.dirty = True

    def add(self, step: int, train_loss: float | None, val_loss: float | None) -> None:
        """One progress event. The epoch's closing event repeats its last step (skipped); every
        event repeats the last validation loss, so a new one is one that changed."""
        if train_loss is not None and math.isfinite(train_loss) and (
                not self.steps or self.steps[-1] != step):
            self.steps.append(step)
            self.losses.append(train_loss)
            self.dirty = True
        if val_loss is not None and math.isfinite(val_loss) and (
                not self.val_losses or self.val_losses[-1] != val_loss):
            self.val_steps.append(step)
            self.val_losses.append(val_loss)
            self.dirty = True

    def redraw(self) -> None:
        if not self.dirty:
            return
        self.dirty = False
        x = np.asarray(self.steps, dtype=np.float64)
        y = np.asarray(self.losses, dtype=np.float64)
        self.raw_curve.setData(x, y)
        self.smooth_curve.setData(x, smooth(y) if len(y) else y)
        self.val_curve.setData(np.asarray(self.val_steps, float),
                               np.asarray(self.val_losses, float))


SUGGESTED_SETTINGS_FILE = "train_settings.json"


def suggested_settings_path(source: str) -> Path | None:
    """The collection's suggested training settings file, if its folder has one."""
    if not source:
        return None
    folder = Path(source)
    folder = folder if folder.is_dir() else folder.parent
    path = folder / SUGGESTED_SETTINGS_FILE
    return path if path.is_file() else None


def form_defaults() -> TrainSettings:
    return dataclasses.replace(TrainSettings(), **GUI_DEFAULTS)


class SettingsForm(QWidget):
    """A form built from `TrainSettings`' fields, so every setting the trainer has is offered
    with its default (the paper's, section 4.4), except the few in GUI_DEFAULTS."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.widgets: dict[str, QWidget] = {}
        layout = QFormLayout(self)
        layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        defaults = form_defaults()
        for f in dataclasses.fields(TrainSettings):
            value = getattr(defaults, f.name)
            widget = self._widget_for(f.name, value)
            if widget is None:
                continue
            tip = TOOLTIPS.get(f.name, "")
            widget.setToolTip(tip)
            label = QLabel(f.name.replace("_", " ").capitalize())
            label.setToolTip(tip)
            layout.addRow(label, widget)
            self.widgets[f.name] = widget

    def _widget_for(self, name: str, value) -> QWidget | None:
        if name in CHOICES:
            w = QComboBox()
            w.addItems(list(CHOICES[name]))
            w.setCurrentText(str(value))
            return w
        if name in PATH_FIELDS:
            return _PathField(value or "")
        if isinstance(value, bool):
            w = QCheckBox()
            w.setChecked(value)
            return w
        if isinstance(value, int):
            w = QSpinBox()
            w.setRange(0, 2**31 - 1)
            w.setGroupSeparatorShown(True)
            w.setValue(value)
            return w
        if isinstance(value, float):
            w = QDoubleSpinBox()
            w.setDecimals(6)
            w.setRange(0.0, 1e9)
            w.setSingleStep(10 ** math.floor(math.log10(abs(value))) if value else 0.01)
            if name in SPECIAL_ZERO:
                w.setSpecialValueText(SPECIAL_ZERO[name])
            w.setValue(value)
            return w
        if value is None or isinstance(value, str):
            return QLineEdit("" if value is None else value)
        return None  # tuples and nested settings keep their defaults

    def settings(self) -> TrainSettings:
        values = {}
        defaults = form_defaults()
        for name, w in self.widgets.items():
            default = getattr(defaults, name)
            if isinstance(w, QComboBox):
                values[name] = w.currentText()
            elif isinstance(w, _PathField):
                values[name] = w.text() or (None if default is None else "")
            elif isinstance(w, QCheckBox):
                values[name] = w.isChecked()
            elif isinstance(w, QSpinBox | QDoubleSpinBox):
                values[name] = w.value()
            elif isinstance(w, QLineEdit):
                values[name] = w.text() or (None if default is None else "")
        return dataclasses.replace(defaults, **values)

    def reset(self) -> None:
        """Back to the defaults (the paper's, section 4.4)."""
        defaults = form_defaults()
        for name in self.widgets:
            self.set_value(name, getattr(defaults, name))

    def set_value(self, name: str, value) -> None:
        w = self.widgets[name]
        if isinstance(w, QComboBox):
            w.setCurrentText(str(value))
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QSpinBox | QDoubleSpinBox):
            w.setValue(value)
        else:
            w.setText("" if value is None else str(value))


class _PathField(QWidget):
    def __init__(self, text: str):
        super().__init__()
        self.edit = QLineEdit(text)
        self.edit.setPlaceholderText("none (random initialisation)")
        button = QPushButton("…")
        button.setFixedWidth(32)
        button.clicked.connect(self._choose)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(button)

    def _choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Pretrained word vectors", "",
                                              "Word vectors (*.txt *.vec *.bin *.gz);;All (*)")
        if path:
            self.edit.setText(path)

    def text(self) -> str:
        return self.edit.text().strip()

    def setText(self, text: str) -> None:
        self.edit.setText(text)

    def setToolTip(self, tip: str) -> None:
        self.edit.setToolTip(tip)


class TrainingPanel(QWidget):
    training_state_changed = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("training-panel")
        self._task = None
        self._model_folder: Path | None = None

        self.form = SettingsForm()
        form_scroll = QScrollArea()
        form_scroll.setWidget(self.form)
        form_scroll.setWidgetResizable(True)
        form_scroll.setMinimumWidth(330)

        self.train_button = QPushButton("Train")
        self.train_button.setToolTip("Train a model on the open collection (Ctrl+T)")
        self.train_button.clicked.connect(self.start_training)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setToolTip("Pause or resume training (Ctrl+P)")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop training; the model so far is kept (Ctrl+.)")
        self.stop_button.clicked.connect(self.stop_training)
        buttons = QHBoxLayout()
        for b in (self.train_button, self.pause_button, self.stop_button):
            buttons.addWidget(b)

        self.plot = LossPlot()
        self.plot.setMinimumHeight(260)
        self.step_label = QLabel("–")
        self.speed_label = QLabel("–")
        self.eta_label = QLabel("–")
        self.memory_label = QLabel("–")
        self.loss_label = QLabel("–")
        numbers = QGridLayout()
        for col, (title, label) in enumerate((("Step", self.step_label),
                                              ("Loss (train / val)", self.loss_label),
                                              ("Instances/s", self.speed_label),
                                              ("ETA", self.eta_label),
                                              ("Device memory", self.memory_label))):
            head = QLabel(title)
            head.setStyleSheet("color: #666;")
            numbers.addWidget(head, 0, col)
            label.setStyleSheet("font-weight: bold;")
            numbers.addWidget(label, 1, col)

        self.models_list = QListWidget()
        self.models_list.itemActivated.connect(lambda it: self.open_model(
            Path(it.data(Qt.ItemDataRole.UserRole))))
        open_selected = QPushButton("Open")
        open_selected.clicked.connect(self._open_selected)
        open_other = QPushButton("Other…")
        open_other.setToolTip("Open a model folder from anywhere")
        open_other.clicked.connect(self.choose_model)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh_models)
        self.continue_button = QPushButton("Continue training")
        self.continue_button.setToolTip("Resume the selected model from its last checkpoint "
                                        "(a stopped training), on the open collection")
        self.continue_button.clicked.connect(self.continue_training)
        model_buttons = QHBoxLayout()
        for b in (open_selected, self.continue_button, open_other, refresh):
            model_buttons.addWidget(b)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        settings_box = QGroupBox("Settings")
        sl = QVBoxLayout(settings_box)
        sl.addWidget(form_scroll)
        self.text_label = QLabel("Text: open a collection.")
        self.text_label.setWordWrap(True)
        self.text_label.setToolTip("How the open collection's text became words (section 4.4); "
                                   "a model keeps the rule it was trained with")
        sl.addWidget(self.text_label)
        ll.addWidget(settings_box, 1)
        ll.addLayout(buttons)
        models_box = QGroupBox("Saved models")
        ml = QVBoxLayout(models_box)
        ml.addWidget(self.models_list)
        ml.addLayout(model_buttons)
        ll.addWidget(models_box)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        self.status_label = QLabel("Open a collection, then click Train.")
        self.status_label.setWordWrap(True)
        rl.addWidget(self.status_label)
        rl.addWidget(self.plot, 1)
        rl.addLayout(numbers)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([380, 860])
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        state.collection_changed.connect(self._on_collection_changed)
        self.refresh_models()
        self._update_buttons()

    # -- state ------------------------------------------------------------------------------------
    def _on_collection_changed(self, collection) -> None:
        self.text_label.setText("Text: " + (collection.settings.describe() if collection is not None
                                            else "open a collection."))
        if collection is not None and not self.is_training():
            self.apply_suggested_settings(collection)
        self._update_buttons()

    def apply_suggested_settings(self, collection) -> None:
        """Fill the form from `train_settings.json` beside the collection's files, when there is
        one: a small collection (the demo) needs smaller batches and more epochs than the paper's
        defaults to train well in seconds."""
        path = suggested_settings_path(collection.source)
        if path is None:
            return
        try:
            values = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(values, dict):
                raise ValueError("expected a JSON object of training settings")
        except (OSError, ValueError) as exc:
            self.state.message.emit(f"Ignored {path}: {exc}")
            return
        self.form.reset()
        for name, value in values.items():
            if name in self.form.widgets:
                self.form.set_value(name, value)
        self.state.message.emit(f"Training settings suggested by {path.name} applied")

    def is_training(self) -> bool:
        return self.state.runner.running("training") is not None

    def can_train(self) -> bool:
        return self.state.collection is not None and not self.is_training()

    def _update_buttons(self) -> None:
        training = self.is_training()
        self.train_button.setEnabled(self.can_train())
        self.continue_button.setEnabled(self.can_train())
        self.pause_button.setEnabled(training)
        self.stop_button.setEnabled(training)
        self.pause_button.setText("Resume" if training and self._task.paused else "Pause")
        self.form.setEnabled(not training)
        self.training_state_changed.emit()

    # -- training -----------------------------------------------------------------------------------
    def start_training(self) -> None:
        """Train a new model with the form's settings, into a new folder of the models folder."""
        collection = self.state.collection
        if collection is None or self.is_training():
            return
        try:
            settings = self.form.settings()
        except (TypeError, ValueError) as exc:
            show_error(self, "Invalid training settings", exc)
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self._train(settings, models_dir() / f"{_safe(collection.name)}-{stamp}", resume=False)

    def continue_training(self) -> None:
        """Resume the selected model from its checkpoint, with the settings it was trained with
        (the trainer checks that they and the collection match)."""
        it = self.models_list.currentItem()
        if it is None or self.state.collection is None or self.is_training():
            return
        folder = Path(it.data(Qt.ItemDataRole.UserRole))
        try:
            settings = TrainSettings.from_dict(read_manifest(folder)["settings"])
        except (ModelFileError, ValueError, TypeError) as exc:
            show_error(self, f"Cannot continue {folder.name}", exc)
            return
        for f in dataclasses.fields(TrainSettings):
            if f.name in self.form.widgets:
                self.form.set_value(f.name, getattr(settings, f.name))
        self._train(settings, folder, resume=True)

    def _train(self, settings: TrainSettings, folder: Path, *, resume: bool) -> None:
        collection = self.state.collection
        self._model_folder = folder
        self.plot.clear_data()
        try:
            self._task = self.state.runner.start(
                "training", "expert_gui.core.calibration:train_with_held_out", collection,
                settings, out_dir=folder, resume=resume,
                pausable=True, on_progress=self._on_progress, on_success=self._on_trained,
                on_failure=self._on_failed)
        except TaskBusy:
            return
        self._task.finished.connect(self._update_buttons)
        verb = "Continuing" if resume else "Training"
        self.status_label.setText(f"{verb} on {collection.name}; saving to {folder}")
        self.state.message.emit(f"{verb} started")
        self._update_buttons()

    def toggle_pause(self) -> None:
        if self._task is None or not self.is_training():
            return
        self._task.set_paused(not self._task.paused)
        self.status_label.setText("Paused" if self._task.paused else "Training…")
        self._update_buttons()

    def stop_training(self) -> None:
        if self.is_training():
            self.status_label.setText("Stopping after the current batch…")
            self.state.runner.stop("training")

    def _on_progress(self, events: list) -> None:
        for e in events:
            self.plot.add(e.step, e.train_loss if e.loss_is_new else None, e.val_loss)
        e = events[-1]
        self.step_label.setText(f"{e.step:,} / {e.total_steps:,} (epoch {e.epoch})")
        val = "–" if e.val_loss is None else f"{e.val_loss:.3f}"
        self.loss_label.setText(f"{e.train_loss:.3f} / {val}")
        self.speed_label.setText(f"{e.instances_per_s:,.0f}" if e.instances_per_s else "–")
        self.eta_label.setText(format_duration(e.eta_s))
        self.memory_label.setText(format_bytes(e.device_memory_bytes))

    def _on_trained(self, model) -> None:
        stopped = self._task is not None and self._task.was_stopped
        self.status_label.setText(
            ("Stopped; the model so far is saved in " if stopped else "Trained; saved in ")
            + str(self._model_folder))
        self.state.set_model(model, self._model_folder)
        self.state.message.emit("Training stopped, model kept" if stopped else "Training done")
        self.refresh_models()

    def _on_failed(self, exc: BaseException, details: str) -> None:
        self.status_label.setText(f"Training failed: {exc}")
        show_error(self, "Training failed", exc, details)

    # -- saved models -------------------------------------------------------------------------------
    def refresh_models(self) -> None:
        self.models_list.clear()
        for folder, meta in saved_models():
            people = len(meta.get("people", {}).get("ids", []))
            words = len(meta.get("vocabulary", {}).get("words", []))
            it = QListWidgetItem(f"{folder.name}   ({people:,} people, {words:,} words)")
            it.setData(Qt.ItemDataRole.UserRole, str(folder))
            it.setToolTip(str(folder))
            self.models_list.addItem(it)

    def _open_selected(self) -> None:
        it = self.models_list.currentItem()
        if it is not None:
            self.open_model(Path(it.data(Qt.ItemDataRole.UserRole)))

    def choose_model(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open a model folder", str(models_dir()))
        if path:
            self.open_model(Path(path))

    def open_model(self, folder: Path) -> None:
        self.state.runner.start(
            "model", load_model, folder, on_success=lambda m: self._model_loaded(m, folder),
            on_failure=lambda exc, tb: show_error(self, f"Cannot open {folder.name}", exc, tb))

    def _model_loaded(self, model, folder: Path) -> None:
        from expert_gui.core.calibration import trained_on  # not at start-up: ir_measures

        self.state.set_model(model, folder)
        self.state.message.emit(f"Opened model {folder.name}")
        collection = self.state.collection
        self.status_label.setText(f"Opened {folder}")
        if collection is not None and model.collection_fingerprint and collection.fingerprint \
                and not trained_on(model, collection):
            self.status_label.setText(
                f"Opened {folder}. It was trained on another collection "
                f"({model.collection_source or 'unknown'}): queries work, supporting documents "
                "come from the open collection.")


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)[:40] or "model"
