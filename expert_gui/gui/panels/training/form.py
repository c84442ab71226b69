"""The training settings form, built from `TrainSettings`' fields (the paper's defaults, section
4.4), and the defaults a collection suggests in its `train_settings.json`."""

from __future__ import annotations

import dataclasses
import math
import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QValidator
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
    RANGES,
    RETRAIN_COST,
    Range,
    TrainSettings,
    field_problem,
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
    "checkpoint_every": "Save a checkpoint every this many steps and at an epoch's end, "
                        "unless the epoch took less than ten checkpoints' time (0: only at the "
                        "end). Stopping always keeps the last one.",
    "checkpoint_minutes": "Also save a checkpoint after this many minutes of training since the "
                          "last one (0: never by time), so a crash loses at most that much.",
    "candidate_chunk": "Candidates per chunk of the softmax over people (bounds memory).",
    "embeddings": "Optional pretrained word vectors (word2vec/GloVe text) to start W_p from.",
    "threads": "CPU threads for training (0: torch's default, every core). The app starts "
               "with one core fewer, so the window stays responsive while it trains.",
    "retrain_on_all": "Once the held-out documents have measured the model and calibrated "
                      "auto, train it again on every document, the held-out ones included, "
                      "so that every method's answers use all of them (the held-out figures "
                      "stay those of the model measured). The second run takes about as long "
                      f"as the first: {RETRAIN_COST}. Off: the held-out documents stay out of "
                      "the answers.",
}


def form_defaults() -> TrainSettings:
    return dataclasses.replace(TrainSettings(), **GUI_DEFAULTS)


class _WheelWhenFocused:
    """A field that the mouse wheel changes only once it has the focus: scrolling the form
    over it scrolls the form (the wheel over Eps once set it to 0 while scrolling)."""

    def init_focus(self) -> None:
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel does not take the focus

    def wheelEvent(self, event) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # to the scroll area


class _StepsWithin:
    """A number field that holds whatever number is typed (a value out of its range is kept and
    named by the form, never changed behind the user's back: 1.5 typed as a fraction used to
    become 1), while its arrows and wheel stay within the range (`limits`, a Range)."""

    limits: Range | None = None

    def stepBy(self, steps: int) -> None:
        before = self.value()
        self._step(steps)
        limits = self.limits
        if limits is None or self.value() in limits:
            return
        low, high = limits.low, limits.high
        if low is not None and self.value() < low and not limits.low_open:
            self.setValue(low)
        elif high is not None and self.value() > high and not limits.high_open:
            self.setValue(high)
        else:
            self.setValue(before)  # an open bound: the last valid value stays

    def _step(self, steps: int) -> None:
        super().stepBy(steps)


class SpinBox(_StepsWithin, _WheelWhenFocused, QSpinBox):
    pass


class ComboBox(_WheelWhenFocused, QComboBox):
    pass


class DoubleSpinBox(_StepsWithin, _WheelWhenFocused, QDoubleSpinBox):
    """Shows a number as it is typed ("1e-06", "0.95"), not rounded to fixed decimals; with
    `log_step`, the arrows multiply or divide by ten (eps spans orders of magnitude)."""

    DIGITS = 6  # significant digits shown

    def __init__(self, log_step: bool = False, zero_text: str = ""):
        super().__init__()
        self.log_step = log_step
        self.zero_text = zero_text  # what 0 means, shown in its place ("optimizer's default")
        self.setDecimals(15)  # the value is kept as typed; textFromValue decides the display

    def textFromValue(self, value: float) -> str:
        if value == 0 and self.zero_text:
            return self.zero_text
        return f"{value:.{self.DIGITS}g}"

    def valueFromText(self, text: str) -> float:
        if self.zero_text and text.strip() == self.zero_text:
            return 0.0
        try:
            return float(text.replace(self.suffix(), "").strip())
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int):
        body = text.strip()
        if self.zero_text and body == self.zero_text:
            return QValidator.State.Acceptable, text, pos
        try:
            value = float(body)
        except ValueError:
            return QValidator.State.Intermediate, text, pos
        ok = math.isfinite(value) and self.minimum() <= value <= self.maximum()
        return (QValidator.State.Acceptable if ok else QValidator.State.Intermediate), text, pos

    def _step(self, steps: int) -> None:
        if self.log_step and self.value() > 0:
            self.setValue(self.value() * 10.0 ** steps)
        else:
            super()._step(steps)


LOG_STEP = ("eps",)  # fields whose arrows step by factors of ten
INT_MAX = 2**31 - 1
FLOAT_MAX = 1e9


class SettingsForm(QWidget):
    """A form built from `TrainSettings`' fields, so every setting the trainer has is offered
    with its default (the paper's, section 4.4), except the few in GUI_DEFAULTS. Each number
    keeps to its range (`settings.RANGES`); a value the trainer would refuse (an open bound,
    such as eps = 0) is marked, and `problem()` says why."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.widgets: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.tips: dict[str, str] = {}
        layout = QFormLayout(self)
        layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        defaults = form_defaults()
        for f in dataclasses.fields(TrainSettings):
            value = getattr(defaults, f.name)
            widget = self._widget_for(f.name, value)
            if widget is None:
                continue
            tip = TOOLTIPS.get(f.name, "")
            if f.name in RANGES:
                tip += f" Must be {RANGES[f.name].text()}."
            widget.setToolTip(tip)
            label = QLabel(f.name.replace("_", " ").capitalize())
            label.setToolTip(tip)
            layout.addRow(label, widget)
            self.widgets[f.name] = widget
            self.labels[f.name] = label
            self.tips[f.name] = tip
        self.changed.connect(self._mark_problem)

    def show_reasons(self, reasons: dict[str, str]) -> None:
        """Each setting suggested for the collection says why in its tooltip."""
        for name, tip in self.tips.items():
            if name in reasons:
                tip = f"Suggested for this collection: {reasons[name]}.\n\n{tip}"
            self.widgets[name].setToolTip(tip)
            self.labels[name].setToolTip(tip)

    def _widget_for(self, name: str, value) -> QWidget | None:
        limits = RANGES.get(name)
        if name in CHOICES:
            w = ComboBox()
            w.init_focus()
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
            w = SpinBox()
            w.init_focus()
            w.limits = limits
            w.setRange(-INT_MAX, INT_MAX)  # a value out of range is marked, not changed
            w.setGroupSeparatorShown(True)
            w.setValue(value)
            w.valueChanged.connect(self.changed)
            return w
        if isinstance(value, float):
            w = DoubleSpinBox(log_step=name in LOG_STEP, zero_text=SPECIAL_ZERO.get(name, ""))
            w.init_focus()
            w.limits = limits
            w.setRange(-FLOAT_MAX, FLOAT_MAX)  # a value out of range is marked, not changed
            w.setSingleStep(10 ** math.floor(math.log10(abs(value))) if value else 0.01)
            w.setValue(value)
            w.valueChanged.connect(self.changed)
            return w
        if value is None or isinstance(value, str):
            w = QLineEdit("" if value is None else value)
            w.textChanged.connect(self.changed)
            return w
        return None  # tuples and nested settings keep their defaults

    def values(self) -> dict:
        """Every field as the form shows it, checked or not."""
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
        return {**defaults.to_dict(), **values}

    def settings(self) -> TrainSettings:
        """The form's settings; ValueError (with the reason) when they cannot train."""
        return TrainSettings(**self.values())

    def problem(self) -> tuple[str, str]:
        """(field, reason) of the first value the trainer would refuse; ('', '') when none."""
        values = self.values()
        for name, value in values.items():
            reason = field_problem(name, value)
            if reason:
                return name, reason
        try:
            TrainSettings(**values)
        except ValueError as exc:  # a rule between fields
            return "", str(exc)
        return "", ""

    def _mark_problem(self) -> None:
        name, _ = self.problem()
        for field, label in self.labels.items():
            label.setStyleSheet("color: #c92a2a; font-weight: bold;" if field == name else "")

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


def collection_defaults(collection) -> tuple[TrainSettings, str, str, dict[str, str]]:
    """The form's defaults for a collection: its `train_settings.json` over the form's own
    defaults, when it ships one, and the batch size and epochs its size needs
    (core/train/settings.py, which `expert-gui train` uses too). Returns the settings, where
    they come from (for the form's caption), a problem with the file ('' when none) and why
    each setting suggested for the collection's size was (setting -> reason)."""
    if collection is None:
        return form_defaults(), PAPER_DEFAULTS, "", {}
    found = suggested_settings(collection.source, form_defaults(), collection.name,
                               collection=collection)
    return found.settings, found.source, found.problem, found.reasons
