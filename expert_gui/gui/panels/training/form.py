"""The training settings form, built from `TrainSettings`' fields (the paper's defaults, section
4.4), and the defaults a collection suggests in its `train_settings.json`."""

from __future__ import annotations

import dataclasses
import math
import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from expert_gui.core.train.settings import (
    DEVICES,
    OPTIMIZERS,
    PAPER_DEFAULTS,
    TrainSettings,
    suggested_settings,
)

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
    "cuda_graphs": "On an NVIDIA GPU, replay each training step from one captured CUDA graph: "
                   "one launch instead of about 125, about 4x faster at the paper's batch of "
                   "1,024. Falls back to ordinary steps by itself where it cannot be used.",
    "checkpoint_every": "Save a checkpoint every this many steps and at every epoch's end "
                        "(0: only at the end). Stopping always keeps the last one.",
    "candidate_chunk": "Candidates per chunk of the softmax over people (bounds memory).",
    "embeddings": "Optional pretrained word vectors (word2vec/GloVe text) to start W_p from.",
    "threads": "CPU threads for training (0: torch's default, every core). The app starts "
               "with one core fewer, so the window stays responsive while it trains.",
}


def form_defaults() -> TrainSettings:
    return dataclasses.replace(TrainSettings(), **GUI_DEFAULTS)


class SettingsForm(QWidget):
    """A form built from `TrainSettings`' fields, so every setting the trainer has is offered
    with its default (the paper's, section 4.4), except the few in GUI_DEFAULTS."""

    changed = Signal()

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
            w.currentTextChanged.connect(self.changed)
            return w
        if name in PATH_FIELDS:
            w = _PathField(value or "")
            w.edit.textChanged.connect(self.changed)
            return w
        if isinstance(value, bool):
            w = QCheckBox()
            w.setChecked(value)
            w.toggled.connect(self.changed)
            return w
        if isinstance(value, int):
            w = QSpinBox()
            w.setRange(0, 2**31 - 1)
            w.setGroupSeparatorShown(True)
            w.setValue(value)
            w.valueChanged.connect(self.changed)
            return w
        if isinstance(value, float):
            w = QDoubleSpinBox()
            w.setDecimals(6)
            w.setRange(0.0, 1e9)
            w.setSingleStep(10 ** math.floor(math.log10(abs(value))) if value else 0.01)
            if name in SPECIAL_ZERO:
                w.setSpecialValueText(SPECIAL_ZERO[name])
            w.setValue(value)
            w.valueChanged.connect(self.changed)
            return w
        if value is None or isinstance(value, str):
            w = QLineEdit("" if value is None else value)
            w.textChanged.connect(self.changed)
            return w
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

    def show_settings(self, settings: TrainSettings) -> None:
        """Every field from `settings` (the form's own extras, threads, from form_defaults)."""
        for name in self.widgets:
            self.set_value(name, getattr(settings, name))

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
        path, _ = QFileDialog.getOpenFileName(
            self, "Pretrained word vectors", "",
            "Word vectors (*.txt *.vec *.bin *.gz);;All files (*)")
        if path:
            self.edit.setText(path)

    def text(self) -> str:
        return self.edit.text().strip()

    def setText(self, text: str) -> None:
        self.edit.setText(text)

    def setToolTip(self, tip: str) -> None:
        self.edit.setToolTip(tip)


def collection_defaults(collection) -> tuple[TrainSettings, str, str]:
    """The form's defaults for a collection: its `train_settings.json` over the form's own
    defaults, when it ships one (core/train/settings.py, which `expert-gui train` uses too).
    Returns the settings, where they come from (for the form's caption), and a problem with the
    file ('' when none)."""
    if collection is None:
        return form_defaults(), PAPER_DEFAULTS, ""
    found = suggested_settings(collection.source, form_defaults(), collection.name)
    return found.settings, found.source, found.problem
