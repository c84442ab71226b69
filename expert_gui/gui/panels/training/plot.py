"""The live loss plot of a training run: the raw and smoothed training loss and the validation
loss, buffered and redrawn on a timer (at most ten times a second).

Every loss plotted is `net.weighted_mean_loss`, the one the CLI prints and the manifest keeps:
Eq. 3's weighted cross-entropy in nats per instance, without the L2 term. A uniform guess over
the people scores log |C| on it; the plot marks that line, and says so when the validation loss
is no lower (the model has not yet learned to tell the people apart on held-out text)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QWidget,
)

from expert_gui.core.evaluation.calibration import UniformGuess
from expert_gui.gui.widgets import (
    WholeNumberAxis,
    placeholder_text,
    set_placeholder,
    style_plot,
)

REDRAW_MS = 100  # the loss plot redraws at most ten times a second
SMOOTHING = 0.9  # exponential moving average of the training loss, for a readable curve



class Smoother:
    """Bias-corrected exponential moving average (as TensorBoard draws a noisy loss), one value
    at a time: a long run's plot extends it instead of recomputing every point ten times a
    second."""

    def __init__(self, alpha: float = SMOOTHING):
        self.alpha = alpha
        self.avg = 0.0
        self.n = 0

    def add(self, value: float) -> float:
        self.n += 1
        self.avg = self.alpha * self.avg + (1 - self.alpha) * value
        return self.avg / (1 - self.alpha ** self.n)


Y_LABEL = "cross-entropy per instance (nats)"
EPOCH_MEANS = "training (mean of each epoch)"
# A model whose manifest does not say what its losses are (manifest.LOSS) kept Eq. 3's values.
OLD_LABEL = "Eq. 3's loss (a model saved before losses were per instance)"


class LossPlot(pg.PlotWidget):
    """Training loss (raw and smoothed) and validation loss, redrawn from a timer."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, axisItems={"bottom": WholeNumberAxis("bottom")})
        style_plot(self, "step", Y_LABEL)
        self.guess = UniformGuess(0)
        self.uniform = pg.InfiniteLine(
            angle=0, pen=pg.mkPen("#868e96", style=Qt.PenStyle.DashLine),
            label="", labelOpts={"position": 0.12, "color": "#495057", "anchors": [(0, 1),
                                                                                  (0, 1)]})
        self.uniform.setVisible(False)
        self.addItem(self.uniform, ignoreBounds=False)
        self.legend = self.addLegend(offset=(-10, 10))
        # A long run has tens of thousands of steps: draw about one point per pixel.
        self.setDownsampling(auto=True, mode="peak")
        self.setClipToView(True)
        self.raw_curve = self.plot([], [], pen=pg.mkPen("#9dbce8", width=1))
        self.smooth_curve = self.plot([], [], pen=pg.mkPen("#1f5fbf", width=2))
        # The mean training loss of each epoch: an opened model's history, or the epochs of a
        # continued run before its checkpoint (a run keeps no loss per step).
        self.epoch_curve = self.plot([], [], pen=pg.mkPen("#1f5fbf", width=1,
                                                          style=Qt.PenStyle.DashLine),
                                     symbol="s", symbolSize=6, symbolBrush="#1f5fbf")
        self.val_curve = self.plot([], [], pen=pg.mkPen("#d9480f", width=2), symbol="o",
                                   symbolSize=6, symbolBrush="#d9480f")
        # The legend names only the curves that have points (an opened model has no step's
        # loss, a fresh run no epoch means yet).
        self.names = {self.raw_curve: "training", self.smooth_curve: "training (smoothed)",
                      self.epoch_curve: EPOCH_MEANS, self.val_curve: "validation"}
        self.named: list = []
        self.clear_data()
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

    def clear_data(self) -> None:
        self.guess = UniformGuess(0)
        self.setLabel("left", Y_LABEL)
        if hasattr(self, "uniform"):
            self.uniform.setVisible(False)
        self.steps: list[int] = []
        self.losses: list[float] = []
        self.val_steps: list[int] = []
        self.val_losses: list[float] = []
        self.epoch_steps: list[int] = []
        self.epoch_losses: list[float] = []
        self.smoothed: list[float] = []
        self.smoother = Smoother()
        self.dirty = True
        self.legend.setVisible(False)  # nothing to name yet; it would cover the message
        set_placeholder(self, "The loss appears here while a model trains.")

    def set_uniform_guess(self, n_people: int) -> None:
        """Mark log |C|, the loss of a uniform guess over the run's people."""
        self.guess = UniformGuess(n_people)
        self.uniform.setVisible(n_people > 1)  # first: a hidden label does not take its text
        self.uniform.setValue(self.guess.loss)
        self.setToolTip("Weighted cross-entropy per instance in nats (Eq. 3's weights "
                        "|d_max|/|d|, without the L2 term), training and validation alike. A "
                        "uniform guess over the people scores log |C|; the random start is not "
                        "uniform, so the first losses can be a little above it.")
        self._label_uniform()

    def mark_old_losses(self) -> None:
        """A model saved before losses were per instance: its values as saved, unmarked."""
        self.setLabel("left", OLD_LABEL)

    def no_better_than_guessing(self) -> bool:
        """Whether the last validation loss is at or above log |C|."""
        return bool(self.val_losses) and self.uniform.isVisible() and \
            self.val_losses[-1] >= self.guess.loss

    def _label_uniform(self) -> None:
        text = f"uniform guess: log |C| = {self.guess.loss:.2f}"
        text += ("; validation is no better than it" if self.no_better_than_guessing() else
                 "; a random start is near it, above or below")
        self.uniform.label.setFormat(text)

    def add(self, step: int, train_loss: float | None, val_loss: float | None) -> None:
        """One progress event. The epoch's closing event repeats its last step (skipped); every
        event repeats the last validation loss, so a new one is one that changed."""
        if train_loss is not None and math.isfinite(train_loss) and (
                not self.steps or self.steps[-1] != step):
            self.steps.append(step)
            self.losses.append(train_loss)
            self.smoothed.append(self.smoother.add(train_loss))
            self.dirty = True
        if val_loss is not None and math.isfinite(val_loss) and (
                not self.val_losses or self.val_losses[-1] != val_loss):
            self.val_steps.append(step)
            self.val_losses.append(val_loss)
            self.dirty = True

    def add_history(self, history: list[dict]) -> None:
        """Epochs already trained (a model's or a checkpoint's history): each epoch's mean
        training loss and its validation loss, at the step that ended it."""
        for entry in history:
            self.epoch_steps.append(int(entry["step"]))
            self.epoch_losses.append(entry["train_loss"])
            val = entry.get("val_loss")
            if val is not None and math.isfinite(val):
                self.val_steps.append(int(entry["step"]))
                self.val_losses.append(val)
        self.dirty = True

    def redraw(self) -> None:
        if not self.dirty:
            return
        self.dirty = False
        self._label_uniform()
        if (self.steps or self.epoch_steps) and placeholder_text(self) is not None:
            set_placeholder(self, None)
            self.legend.setVisible(True)
        x = np.asarray(self.steps, dtype=np.float64)
        y = np.asarray(self.losses, dtype=np.float64)
        self.raw_curve.setData(x, y)
        self.smooth_curve.setData(x, np.asarray(self.smoothed, dtype=np.float64))
        self.epoch_curve.setData(np.asarray(self.epoch_steps, float),
                                 np.asarray(self.epoch_losses, float))
        self.val_curve.setData(np.asarray(self.val_steps, float),
                               np.asarray(self.val_losses, float))
        named = [c for c, points in ((self.raw_curve, self.steps),
                                     (self.smooth_curve, self.steps),
                                     (self.epoch_curve, self.epoch_steps),
                                     (self.val_curve, self.val_steps)) if points]
        if named != self.named:
            self.legend.clear()
            for curve in named:
                self.legend.addItem(curve, self.names[curve])
            self.named = named
