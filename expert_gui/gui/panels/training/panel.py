"""Training panel: the settings form (the paper's defaults, or the collection's suggestions),
Train / Pause / Stop, the live loss plot, speed, ETA and memory, and the saved models: finished,
partial (stopped) and interrupted runs, to reopen or continue without retraining.

The panel runs one training at a time (idle, training, paused, stopping, continued); what stands
apart from a run is in its own module: the form (form.py), the loss plot (plot.py), the saved
models list and the opening of models (model_list.py), each saved model's line
(saved_models.py), the end of a run (run_end.py: its model said and opened, and the measured
model answering while the run trains it again on every document)."""


from __future__ import annotations

import html
import math
import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.durations import format_duration
from expert_gui.core.errors import ModelFileError, OutputFolderError
from expert_gui.core.evaluation.calibration import TrainingStage, UniformGuess
from expert_gui.core.paths import models_dir
from expert_gui.core.store.manifest import LOSS
from expert_gui.core.store.model_folders import DAMAGED, ModelFolder, partial_text
from expert_gui.core.store.outputs import new_folder
from expert_gui.core.train.settings import TrainSettings
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.panels.training.form import (
    PAPER_DEFAULTS,
    SettingsForm,
    form_defaults,
)
from expert_gui.gui.panels.training.model_list import (
    ModelList,
    plotted_run,
    source_name,
    verdict_html,
)
from expert_gui.gui.panels.training.plot import LossPlot
from expert_gui.gui.panels.training.remembered import RememberedForm
from expert_gui.gui.panels.training.run_end import RunEnd
from expert_gui.gui.panels.training.run_state import RunState
from expert_gui.gui.save_dialogs import file_stem
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    ElidedLabel,
    compact,
    format_bytes,
    plural,
    set_placeholder,
)
from expert_gui.gui.workers import TaskBusy

SETTINGS_ROWS = 5  # rows of settings a small window keeps in view before the models list shrinks


class TrainingPanel(ModelList, RunEnd, RunState, RememberedForm, QWidget):
    training_state_changed = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("training-panel")
        self._task = None
        self._stage = None  # what the run does besides its steps (TrainingStage), until a step
        self._stage_step = 0  # the step the run was at when that began
        self._last_step = 0  # of the last progress event
        self._again_last = 0  # of the last step of the second run (on every document)
        self._model_folder: Path | None = None
        # The run's folder once its measured model is saved there whole, while the run trains it
        # again on every document (every_document.py)
        self._measured: Path | None = None
        self._trained_collection = None  # the collection the current or last run trains on
        self._run_text = ""  # "Training on X; saving to Y" while a run lasts
        self.training_path = ""  # how the run's steps run ("GPU (CUDA graph)"), once known
        self._defaults, self._defaults_source = form_defaults(), PAPER_DEFAULTS
        self._form_origin = ""  # set while the form shows a continued run's settings
        self._run_ended = True  # the panel has handled the end of its last run
        self._last_edits: dict = {}  # what the open collection was last trained with
        self._restore_folder: Path | None = None  # the last session's model, once its
        # collection is open
        self._waiting_model = None  # (model, folder) opened with its own collection
        self._earlier_epochs: list[dict] = []  # a continued run's epochs before its checkpoint
        self._finished_text = ""  # how the last run ended, until another starts

        self.form = SettingsForm()
        self.form.changed.connect(self._show_form_origin)
        self.form.changed.connect(self._update_buttons)
        # Why the form's settings cannot train (Train is then disabled).
        self.problem_label = QLabel()
        self.problem_label.setObjectName("settings-problem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #c92a2a;")
        self.problem_label.setVisible(False)
        form_scroll = self.form_scroll = QScrollArea()
        form_scroll.setWidget(self.form)
        form_scroll.setWidgetResizable(True)
        form_scroll.setMinimumHeight(3 * self.fontMetrics().height())
        self.defaults_label = QLabel()
        self.defaults_label.setObjectName("defaults-label")
        self.defaults_label.setWordWrap(True)
        self.defaults_label.setStyleSheet("color: #495057;")
        self.reset_button = QPushButton("Reset to defaults")
        self.reset_button.setToolTip("Put back the defaults named on the left")
        self.reset_button.clicked.connect(self.reset_form)

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
        self.plot.setMinimumHeight(120)
        self.step_label = QLabel("–")
        self.speed_label = QLabel("–")
        self.eta_label = QLabel("–")
        self.memory_label = QLabel("–")
        self.loss_label = QLabel("–")
        numbers = QGridLayout()
        for i, (title, label) in enumerate((("Step", self.step_label),
                                            ("Loss (train / val)", self.loss_label),
                                            ("Instances/s", self.speed_label),
                                            ("ETA", self.eta_label),
                                            ("Device memory", self.memory_label))):
            head = QLabel(title)
            head.setStyleSheet("color: #666;")
            label.setStyleSheet("font-weight: bold;")
            for w in (head, label):
                w.setWordWrap(True)  # a narrow window wraps them instead of widening
            if label is self.loss_label:
                head.setToolTip("Weighted cross-entropy per instance in nats, as plotted, "
                                "without the L2 term; a uniform guess scores log |C|")
            # Two rows of pairs, so a narrow window still shows every number.
            row, col = divmod(i, 3)
            numbers.addWidget(head, 2 * row, col)
            numbers.addWidget(label, 2 * row + 1, col)

        self.models_box = QGroupBox("Saved models")
        self.models_list = compact(QListWidget())
        self.models_list.setObjectName("saved-models")
        # Name on one line, what it is on the next, wrapped: nothing hides behind a scroll bar.
        self.models_list.setWordWrap(True)
        self.models_list.setAlternatingRowColors(True)
        self.models_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.models_list.itemActivated.connect(lambda it: self.open_model(self._item_path(it)))
        self.models_list.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Open the selected model (an interrupted run: continue it)")
        self.open_button.clicked.connect(self._open_selected)
        open_other = QPushButton("Other…")
        open_other.setToolTip("Open a model folder from anywhere")
        open_other.clicked.connect(self.choose_model)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh_models)
        self.continue_button = QPushButton("Continue")
        self.continue_button.setToolTip("Resume the selected stopped or interrupted run from its "
                                        "last checkpoint, on the open collection")
        self.continue_button.clicked.connect(self.continue_training)
        model_buttons = QHBoxLayout()
        for b in (self.open_button, self.continue_button, open_other, refresh):
            model_buttons.addWidget(b)

        # No group title: the caption above the form says whose settings it shows.
        settings_box = QWidget()
        sl = QVBoxLayout(settings_box)
        sl.setContentsMargins(0, 0, 0, 0)
        defaults_row = QHBoxLayout()
        defaults_row.addWidget(self.defaults_label, 1)
        defaults_row.addWidget(self.reset_button)
        sl.addLayout(defaults_row)
        sl.addWidget(form_scroll, 1)
        sl.addWidget(self.problem_label)
        # Wrapped, never cut, and scrolled with the settings (not taking their rows): how the
        # collection's text became words.
        self.text_label = QLabel("open a collection.")
        self.text_label.setObjectName("text-settings")
        self.text_label.setWordWrap(True)
        self.form.layout().addRow("Text", self.text_label)
        ml = QVBoxLayout(self.models_box)
        self.models_note = ElidedLabel()  # one line, whole in its tooltip
        self.models_note.setObjectName("saved-models-note")
        self.models_note.setStyleSheet("color: #495057;")
        ml.addWidget(self.models_note)
        ml.addWidget(self.models_list)
        ml.addLayout(model_buttons)
        # Settings and saved models share the height; either can be dragged larger, and the
        # form scrolls, so a small window still shows several rows of each.
        left = self.left_split = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(settings_box)
        left.addWidget(self.models_box)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 1)
        left.setSizes([500, 300])
        left.setChildrenCollapsible(False)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        self.status_label = QLabel()
        self.status_label.setObjectName("training-status")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.RichText)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rl.addLayout(buttons)  # beside the run they control, so the settings keep their rows
        rl.addWidget(self.status_label)
        rl.addWidget(self.plot, 1)
        rl.addLayout(numbers)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([380, 860])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        state.collection_changed.connect(self._on_collection_changed)
        state.model_changed.connect(self._on_model_changed)
        state.runner.finished.connect(self._background_ended)
        state.retraining_changed.connect(self.refresh_models)  # the run's folder says it
        self._show_form_origin()
        self.refresh_models()
        self._update_buttons()
        self._show_idle()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QTimer.singleShot(0, self._favour_settings)  # once the layout has the new size

    def _favour_settings(self) -> None:
        """In a small window the settings keep at least SETTINGS_ROWS rows while the saved
        models list has more than its minimum (it scrolls)."""
        wanted = SETTINGS_ROWS * self.form.widgets["dim"].sizeHint().height()
        short = wanted - self.form_scroll.viewport().height()
        settings_size, models_size = self.left_split.sizes()
        spare = models_size - self.models_box.minimumSizeHint().height()
        if short > 0 and spare > 0:
            move = min(short, spare)
            self.left_split.setSizes([settings_size + move, models_size - move])

    # -- state ------------------------------------------------------------------------------------
    def _on_collection_changed(self, collection) -> None:
        self.text_label.setText(collection.settings.describe() if collection is not None
                                else "open a collection.")
        self.text_label.setToolTip("How the open collection's text "
                                   "became words (section 4.4); a model keeps the rule it was "
                                   "trained with.")
        if collection is not None and not self.is_training():
            self.apply_collection_defaults(collection)
        if self.state.model is None and not self.is_training():
            self._show_model_run(None)  # the last run trained another collection
        self.refresh_models()
        self._update_buttons()
        self._open_waiting_model()
        self._show_idle()

    def _on_model_changed(self, model) -> None:
        """The panel shows the run in front of the user: the run that made the model now open
        (the one it just trained, or the training a saved model's history records), never the
        previous collection's."""
        if not self.is_training() and (model is None or
                                       self.state.model_path != self._model_folder):
            self._show_model_run(model)
        self._show_idle()

    def _show_model_run(self, model) -> None:
        """The plot and numbers of `model`'s training, from its history (each epoch's mean
        loss; no step's is kept); with no model, nothing."""
        self._finished_text = ""
        self._model_folder = None
        self.plot.clear_data()
        self._clear_numbers()
        if model is None or not model.history:
            return
        if model.settings.get("loss") == LOSS:
            self.plot.set_uniform_guess(model.n_people)
        else:
            self.plot.mark_old_losses()
        self.plot.add_history(model.history)
        self.show_history_numbers(model)

    def show_history_numbers(self, model) -> None:
        """Step and loss where `model`'s history ends: the plotted run's (for a model trained
        again on every document, the measured run's, as the plot)."""
        settings, last = model.settings, model.history[-1]
        steps, total = int(settings.get("steps", last["step"])), int(settings.get("total_steps", 0))
        epochs = int(settings.get("epochs", 0))
        # the epoch its last step belongs to (a partial model stopped within one)
        epoch = min(max(math.ceil(steps * epochs / total), 1), epochs) if total else len(
            model.history)
        self.step_label.setText(step_text(steps, total, epoch, epochs))
        self.loss_label.setText(self._loss_text(last["train_loss"], last.get("val_loss"),
                                                epoch_mean=True))

    def training_collection(self):
        """The collection the run now training trains on (None when no run trains): another
        may have been opened since."""
        return self._trained_collection if self.is_training() else None

    def is_training(self) -> bool:
        return self.state.runner.running("training") is not None

    def is_paused(self) -> bool:
        return self.is_training() and self._task is not None and self._task.paused

    def can_train(self) -> bool:
        return self.state.collection is not None and not self.is_training()

    def _update_buttons(self) -> None:
        training = self.is_training()
        _, problem = self.form.problem()
        self.problem_label.setText(f"Cannot train: {problem}." if problem else "")
        self.problem_label.setVisible(bool(problem) and not training)
        self.train_button.setEnabled(self.can_train() and not problem)
        selected = self._selected()
        self.continue_button.setEnabled(self.can_train() and selected is not None
                                        and selected.can_continue)
        self.open_button.setEnabled(selected is not None and selected.kind != DAMAGED)
        self.pause_button.setEnabled(training)
        self.stop_button.setEnabled(training)
        self.pause_button.setText("Resume" if self.is_paused() else "Pause")
        self.form.setEnabled(not training)
        self._show_form_origin()
        self.training_state_changed.emit()

    def _show_idle(self) -> None:
        """What the panel says when no training runs: what there is and what to do next."""
        if self.is_training():
            return
        collection, model = self.state.collection, self.state.model
        if collection is None:
            text = "Open a collection, then click Train."
        else:
            text = (f"Ready to train on <b>{html.escape(collection.name)}</b> "
                    f"({plural(collection.n_documents, 'document')}, "
                    f"{plural(collection.n_people, 'person', 'people')}): "
                    "check the settings, then click Train.")
        if model is not None:
            name = self.state.model_path.name if self.state.model_path else "an unsaved model"
            text += f"<br>Open model: {html.escape(name)}"
            if partial_text(model):
                text += f" (<b>partial</b>: {partial_text(model)})"
            text += "." + verdict_html(model, collection)
            if self.plot.epoch_steps and not self._finished_text:
                text += (f" The plot shows {plotted_run(model)}: each epoch's mean loss (a "
                         "model keeps no step's).")
        if self._finished_text:
            text = self._finished_text + "<br>" + text
        self.status_label.setText(text)

    # -- training -----------------------------------------------------------------------------------
    def start_training(self) -> None:
        """Train a new model with the form's settings, into a new folder of the models folder."""
        collection = self.state.collection
        if collection is None or self.is_training():
            return
        field, problem = self.form.problem()
        if problem:  # Ctrl+T from anywhere: the reason, and the field to change (no dialog)
            self.state.message.emit(f"Cannot train: {problem}.")
            if field:
                self.form.widgets[field].setFocus()
            return
        settings = self.form.settings()
        self.remember_settings(collection)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        try:  # created here, so another window training in the same second takes another name
            folder = new_folder(models_dir(), f"{file_stem(collection.name, 'model')}-{stamp}")
        except OutputFolderError as exc:
            show_error(self, "Cannot train", exc)
            return
        self._train(settings, folder, resume=False)

    def continue_training(self) -> None:
        """Resume the selected stopped or interrupted run from its checkpoint."""
        info = self._selected()
        if info is not None:
            self.continue_run(info)

    def continue_run(self, info: ModelFolder) -> None:
        """Resume a run from its checkpoint with the settings it was started with (the trainer
        checks that they and the collection match)."""
        collection = self.state.collection
        if collection is None or self.is_training() or not info.can_continue:
            return
        if not info.belongs_to(collection):
            show_error(self, f"Cannot continue {info.name}", ModelFileError(
                info.path, None, f"it was trained on {source_name(info)}, not on "
                f"{collection.name}; open that collection first"))
            return
        try:
            settings = TrainSettings.from_dict(info.settings)
        except (TypeError, ValueError) as exc:
            show_error(self, f"Cannot continue {info.name}", exc)
            return
        self.form.show_settings(settings)
        self._form_origin = f"Settings of {info.name} (continued)."
        self._show_form_origin()
        self._train(settings, info.path, resume=True, history=info.history)

    def _train(self, settings: TrainSettings, folder: Path, *, resume: bool,
               history: tuple = ()) -> None:
        """`history`: the epochs a continued run trained before its checkpoint, plotted once
        the run says how to scale its losses."""
        collection = self.state.collection
        self._trained_collection = collection
        self._model_folder, self._measured = folder, None
        self._stage, self._last_step, self._again_last = None, 0, 0
        self._earlier_epochs = list(history)
        self.plot.clear_data()
        set_placeholder(self.plot, "Preparing the training instances…")
        try:
            self._task = self.state.runner.start(
                "training", "expert_gui.core.evaluation.calibration:train_with_held_out",
                collection, settings, out_dir=folder, resume=resume,
                pausable=True, on_progress=self._on_progress, on_success=self._on_trained,
                on_failure=self._on_failed)
        except TaskBusy:
            return
        self._task.finished.connect(self._on_finished)
        # the method being indexed for the open model finishes before the first step (the
        # others wait for the run: prepared_rankers.py), so that the steps' rate is theirs
        self._task.set_held(self.state.runner.running("rankers") is not None)
        self._run_ended = False
        verb = "Continuing" if resume else "Training"
        self._run_text = f"{verb} on <b>{html.escape(collection.name)}</b>; saving to " \
                         f"{html.escape(str(folder))}"
        self._finished_text = ""
        self.training_path = ""
        self._clear_numbers()
        self._show_run_state()
        self.state.message.emit(f"{verb} started")
        self.refresh_models()
        self._update_buttons()

    def toggle_pause(self) -> None:
        if self._task is None or not self.is_training():
            return
        self._task.set_paused(not self._task.paused)
        # No step runs while paused: a speed and an ETA would be stale (the next step's event
        # measures them again).
        for label in (self.speed_label, self.eta_label):
            label.setText("paused" if self._task.paused else "–")
        self._show_run_state()
        self._update_buttons()

    def stop_training(self) -> None:
        if self.is_training():
            self.state.runner.stop("training")
            self._show_run_state()
            self._update_buttons()

    def _clear_numbers(self, keep_progress: bool = False) -> None:
        """Speed, ETA and memory only mean something while a run lasts."""
        labels = [self.speed_label, self.eta_label, self.memory_label]
        if not keep_progress:
            labels += [self.step_label, self.loss_label]
        for label in labels:
            label.setText("–")

    def _on_progress(self, events: list) -> None:
        stage, last, measured, again = self._stage, None, None, None
        closing = again_closing = False
        for e in events:
            if isinstance(e, UniformGuess):
                self.plot.set_uniform_guess(e.n_people)
                self.plot.add_history(self._earlier_epochs)  # a continued run's
                continue
            if isinstance(e, TrainingStage):
                stage, self._stage_step = e, self._last_step
                if e.measured_in and self._measured is None:
                    measured = Path(e.measured_in)
                if e.again_step is not None:  # a step of the run on every document
                    again_closing = e.again_step.step == self._again_last
                    self._again_last, again = e.again_step.step, e.again_step
                continue
            if stage is not None and e.step > self._stage_step:
                stage = None  # the steps go on
            # an epoch's closing event repeats its last step, with the epoch's mean loss
            closing = e.step == self._last_step
            self._last_step, last = e.step, e
            self.plot.add(e.step, e.train_loss if e.loss_is_new else None, e.val_loss)
        if last is not None and last.path != self.training_path:
            self.training_path = last.path
            self.training_state_changed.emit()
        if stage is not self._stage:
            self._stage = stage
            self._show_run_state()
            self.training_state_changed.emit()
        if again is not None:  # (it follows every step of the measured run)
            self._show_numbers(again, second_run=True, epoch_mean=again_closing)
        elif last is not None:
            self._show_numbers(last, epoch_mean=closing)
        if measured is not None:
            self._measured_saved(measured)

    @staticmethod
    def _loss_text(train_loss: float, val_loss: float | None, epoch_mean: bool = False) -> str:
        """'3.812 / 3.778'; at an epoch's end the training loss is the epoch's mean, as its
        history records it (the plot shows the steps'), and says so."""
        val = "–" if val_loss is None else f"{val_loss:.3f}"
        mean = " (epoch mean)" if epoch_mean else ""
        return f"{train_loss:.3f}{mean} / {val}"

    def _show_numbers(self, e, second_run: bool = False, epoch_mean: bool = False) -> None:
        """A step's numbers; `second_run`: of the run on every document, whose steps are not
        plotted."""
        self.step_label.setText(step_text(e.step, e.total_steps, e.epoch, e.epochs))
        self.loss_label.setText(self._loss_text(e.train_loss, e.val_loss, epoch_mean))
        self.memory_label.setText(format_bytes(e.device_memory_bytes))
        if self.is_paused():  # the step in flight when Pause was pressed: nothing to time
            speed = eta = "paused"
        elif e.step >= e.total_steps or (self._stage is not None and not second_run):
            # no steps left to time (the measured run's last step, shown while it calibrates)
            speed = eta = "–"
        else:
            speed = f"{e.instances_per_s:,.0f}" if e.instances_per_s else "–"
            eta = format_duration(e.eta_s)
        self.speed_label.setText(speed)
        self.eta_label.setText(eta)

    def _on_finished(self) -> None:
        self._stage = None
        self._clear_numbers(keep_progress=True)
        self.refresh_models()  # the run's folder, left out while it trained, is listed
        collection = self.state.collection
        if collection is not None and collection is not self._trained_collection:
            # another was opened while it trained: its defaults, and not the run's plot
            self.apply_collection_defaults(collection)
            ended = self._finished_text
            self._show_model_run(self.state.model)
            self._finished_text = ended
        self._update_buttons()
        self._show_idle()
        self._run_ended = True


def step_text(step: int, total: int, epoch: int, epochs: int) -> str:
    """'570 / 950 (epoch 4 of 5)': where a run is, or where a model's training ended."""
    of = f" / {total:,}" if total else ""
    return f"{step:,}{of} (epoch {epoch} of {epochs})" if epochs else f"{step:,}{of}"

