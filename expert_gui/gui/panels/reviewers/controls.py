"""What starts, stops and saves the Reviewers panel's work: Run, Solve again, Stop, the progress
of the worker (reading the papers, ranking them against the pool, finding the conflicts,
solving) and the two exports."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QProgressBar, QPushButton, QWidget

from expert_gui.gui.widgets import ElidedLabel


def _button(text: str, tip: str = "") -> QPushButton:
    button = QPushButton(text)
    button.setToolTip(tip)
    return button


class RunControls(QWidget):
    RUN_TIP = "Rank every paper against the pool, find the conflicts and solve (Ctrl+Enter)"

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.run_button = _button("Run", self.RUN_TIP)
        self.run_button.setObjectName("run-assignment")
        self.solve_button = _button("Solve again", "Solve with the pins, forbidden pairs and "
                                    "quotas as they are now, without ranking again (F5)")
        self.stop_button = _button("Stop")
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.doing = ElidedLabel("", words=True)  # the bar's words, which a busy bar hides
        self.doing.setStyleSheet("color: #495057;")
        self.export_button = _button("Export assignment…", "Save the assignment as CSV: a row "
                                     "per pair with its affinity, rank and evidence, and what "
                                     "made them")
        self.affinities_button = _button("Export affinities…", "Save every paper and person's "
                                         "affinity and conflict as TSV")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for column, button in enumerate((self.run_button, self.solve_button, self.stop_button)):
            grid.addWidget(button, 0, column)
        grid.addWidget(self.progress, 1, 0, 1, 3)
        grid.addWidget(self.doing, 2, 0, 1, 3)
        grid.addWidget(self.export_button, 3, 0, 1, 2)
        grid.addWidget(self.affinities_button, 3, 2)

    def busy(self, text: str) -> None:
        """Work whose length is not known yet."""
        self.progress.setRange(0, 0)
        self._say(text)

    def _say(self, text: str) -> None:
        self.progress.setFormat(text)
        self.doing.setText(text)

    def show_progress(self, events: list) -> None:
        """The last of a worker's progress events: a load's (done, total), prepare's
        ("ranking", done, total) or ("conflicts", 0, 1), or the solver's words."""
        event = events[-1]
        if isinstance(event, str):
            self.busy(f"Solving: {event}…")
        elif isinstance(event, tuple) and event[0] == "conflicts":
            self.busy("Finding the conflicts of interest…")
        elif isinstance(event, tuple) and event[0] == "ranking" and event[2]:
            self.progress.setRange(0, event[2])
            self.progress.setValue(event[1])
            self._say(f"Ranking the papers against the pool: {event[1]:,} of {event[2]:,}")
        elif getattr(event, "total", 0):
            share = min(1.0, event.done / event.total)
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * share))
            self._say(f"Reading the papers… {share:.0%}")

    def set_state(self, *, running: bool, runnable: str, solvable: bool, exportable: bool) -> None:
        """`runnable`: why Run cannot start ("" when it can)."""
        self.run_button.setEnabled(not running and not runnable)
        self.run_button.setToolTip(runnable or self.RUN_TIP)
        self.solve_button.setEnabled(not running and solvable)
        self.stop_button.setEnabled(running)
        self.progress.setVisible(running)
        self.doing.setVisible(running)
        for button in (self.export_button, self.affinities_button):
            button.setEnabled(exportable)
