"""How a run ends in the app: its model, once saved, said (trained, stopped or failed, and how
good) and opened. Before that, once a run has saved its measured model, calibrated, and trains it
again on every document (core/evaluation/every_document.py; on a CPU as long as the first run),
that model is listed, opened and answers, said everywhere to be the measured one
(`AppState.retraining`); the run's end replaces it, Stop keeps it, and a failure leaves it.

A part of `TrainingPanel` (panel.py), which runs the trainings."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QTimer

from expert_gui.core.evaluation.calibration import TrainingStage
from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.store.model_folders import partial_text
from expert_gui.core.store.storage import load_model
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.panels.training.model_list import model_warning
from expert_gui.gui.widgets import plural

RUN_TEXT = ("The measured model, saved in this folder, answers queries meanwhile; the model "
            "trained on every document replaces it when this run ends, and Stop keeps the "
            "measured model. The plot is the measured run's; the numbers below are this "
            "run's, on every document.")


class RunEnd:
    """The end of a run, mixed into `TrainingPanel` (it uses the panel's state, run folder,
    `_measured`, `_stage` and status label)."""

    def _on_trained(self, model) -> None:
        """The model is saved: say so at once, then open it (a large model's opening, its
        rankers and panels, kept 'Saving the model…' on screen after the file was written).
        Stopped while training again on every document, the run's model is the measured one,
        which stays open if it is."""
        folder = self._model_folder
        stopped = partial_text(model)
        if self._measured_kept(model, folder):
            return
        done = (f"Stopped: the model so far (<b>partial</b>, {stopped}) is saved in "
                if stopped else "Trained; saved in ") + html.escape(str(folder))
        opens = self.state.fits(model)
        if not opens:
            self.state.set_retraining(None)
        own = self.state.collection if opens else None
        warning = model_warning(model, own)
        done += "."
        if not opens:  # another collection was opened meanwhile: the model waits in the list
            done += (f" Not opened: it belongs to {html.escape(Path(model.collection_source).name)}"
                     ", not to the collection now open.")
            self.state.message.emit("Training done; the model belongs to another collection")
        self._finished_text = done
        self._stage = TrainingStage("Saved; opening the model") if opens else None
        self.status_label.setText(self._finished_text + ("<br>Opening it…" if opens else ""))
        self.training_state_changed.emit()
        self.refresh_models()
        if opens:  # once the lines above are painted
            QTimer.singleShot(0, lambda: self._open_trained(model, folder, warning, stopped))

    def _open_trained(self, model, folder: Path, warning: str, stopped: str) -> None:
        self.state.set_retraining(None)  # with the model it trained, in one step
        if not self.state.fits(model):
            return
        self.state.set_model(model, folder)
        if retrained(model) and model.history:  # the second run's numbers are not plotted
            self.show_history_numbers(model)
        # what the held-out documents decided for auto, as `expert-gui train` says it
        auto = f"; auto: {auto_label(model.calibration)}" if model.calibration else ""
        self.state.message.emit(
            f"Trained, but {warning}" if warning else
            "Training stopped, partial model kept" if stopped else f"Training done{auto}")

    def _on_failed(self, exc: BaseException, details: str) -> None:
        self._finished_text = f"Training failed: {html.escape(str(exc))}" + \
            self._measured_failed()
        show_error(self, "Training failed", exc, details)

    def run_settled(self) -> bool:
        """No run trains, and none is still to replace the open model: a run that answered with
        its measured model while it trained it again has opened the model it trained (or kept
        the measured one), and the panel has handled the run's end (its thread may exit a
        moment before: the saved-models list then does not show its folder yet)."""
        return self._run_ended and not self.is_training() and self.state.retraining is None

    def _measured_saved(self, folder: Path) -> None:
        """The run has saved its measured model, calibrated, and trains it again on every
        document (minutes on a CPU): list it, and open it to answer meanwhile."""
        self._measured = folder
        self.state.set_retraining(folder)  # the saved-models list shows it
        self._show_run_state()
        self.state.runner.start(
            "model", load_model, folder,
            on_success=lambda model: self._measured_loaded(model, folder),
            on_failure=lambda exc, tb: self.state.message.emit(
                f"The measured model in {folder.name} could not be opened: {exc}"))

    def _measured_loaded(self, model, folder: Path) -> None:
        if self._measured != folder or not self.state.fits(model):
            return  # the run has ended, or another collection was opened meanwhile
        self.state.set_model(model, folder)
        self.state.message.emit("The measured model answers while it is trained again on "
                                "every document")

    def _measured_kept(self, model, folder: Path) -> bool:
        """Stopped while training again on every document (the run's model is not `retrained`):
        the measured model stays (open already, it is not opened again), and the panel says
        what it lacks. False for any other end of a run."""
        measured, self._measured = self._measured, None
        if measured is None or retrained(model) is not None:
            return False
        n = len(model.calibration["held_out"]["documents"])
        self._finished_text = (
            f"Stopped while training again on every document: the measured model, calibrated "
            f"on {plural(n, 'held-out document')} it has not seen, is kept in "
            f"{html.escape(str(folder))}. What only those documents hold is not in its "
            "answers; train again to the end to use every document.")
        self._stage = None
        is_open = self.state.model_path == folder and self.state.model is not None and \
            retrained(self.state.model) is None
        self.state.set_retraining(None)
        if not is_open and self.state.fits(model):
            self.state.set_model(model, folder)
        if model.history:  # the kept model's numbers, as the plot, not the stopped run's
            self.show_history_numbers(model)
        self.status_label.setText(self._finished_text)
        self.training_state_changed.emit()
        self.state.message.emit("Training again on every document stopped; the measured model "
                                "is kept")
        return True

    def _measured_failed(self) -> str:
        """The run failed: where its measured model is kept, if it was saved ('' if not)."""
        measured, self._measured = self._measured, None
        if measured is None:
            return ""
        self.state.set_retraining(None)
        return f". The measured model is kept in {html.escape(str(measured))}."
