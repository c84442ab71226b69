"""What a training run is doing, as the panel's status line and the status bar say it, mixed
into `TrainingPanel`: the steps, a stage after them (calibrating, saving, training again), a
pause, or a wait for the app's own work (the method being indexed for the open model, which
the steps wait for so that their rate, and the time left, is theirs)."""

from __future__ import annotations

import html

from expert_gui.gui.panels.training.run_end import RUN_TEXT

HELD_TEXT = ("Waiting for the method being indexed for the open model; the steps start when "
             "it is ready…")


class RunState:
    """The run's state in words (it uses the panel's task, stage, status label and path)."""

    def _show_run_state(self) -> None:
        suffix = ""
        stopping = self._task is not None and self._task.was_stopped
        if self.is_paused():
            suffix = " &nbsp;<b>Paused</b>: Resume (Ctrl+P) continues."
        elif stopping:
            suffix = " &nbsp;Stopping after the current batch…" + (
                " The measured model is kept." if self._measured is not None else "")
        elif self._stage is not None or (self._task is not None and self._task.held):
            suffix = f"<br><b>{html.escape(self.activity())}</b>"
        if self._measured is not None and not stopping:
            suffix += f"<br>{RUN_TEXT}"
        self.status_label.setText(self._run_text + suffix)

    def _background_ended(self, slot: str) -> None:
        """The method being indexed is ready: the held run's steps start."""
        if slot == "rankers" and self._task is not None and self._task.held:
            self._task.set_held(False)
            self._show_run_state()
            self.training_state_changed.emit()

    def activity(self) -> str:
        """What the run is doing, in a few words (the status bar's training label)."""
        if not self.is_training():
            return ""
        if self.is_paused():
            return "Training paused"
        if self._task is not None and self._task.held and self._stage is None:
            return HELD_TEXT
        stage = self._stage
        if stage is None:  # the steps, and what runs them once known ("GPU (CUDA graph)")
            return f"Training on {self.training_path}…" if self.training_path else "Training…"
        done = (f" {stage.done:,} / {stage.total:,} ({stage.done / stage.total:.0%})"
                if stage.total else "")
        return f"{stage.text}…{done}"

    def brief_activity(self) -> str:
        """`activity` for the status bar, the numbers first ("50%, epoch 2 of 5, about 1 min
        left · Training again on every document"): a narrow bar cuts the description, not the
        share done and the time left."""
        stage = self._stage
        if stage is None or not self.is_training() or self.is_paused():
            return self.activity()
        head, _, detail = stage.text.partition(": ")
        done = f"{stage.done / stage.total:.0%}" if stage.total else ""
        first = ", ".join(part for part in (done, detail) if part)
        return f"{first} · {head}" if first else f"{head}…"
