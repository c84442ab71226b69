"""The loss plot reads in nats per instance, on the scale of log |C| (a uniform guess), which it
marks, saying when validation does no better: Eq. 3's |d_max|/|d| weights had put a DPDK run at
340 to 100 against log |C| = 7.3."""

import math

import numpy as np
import pytest
from gui_helpers import open_collection, set_training

from expert_gui.gui.panels.training.plot import Y_LABEL

pytestmark = pytest.mark.gui


def test_the_loss_is_plotted_per_instance_with_the_uniform_guess_marked(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=1)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    plot = panel.plot
    assert plot.getAxis("left").labelText == Y_LABEL
    n_people = window.state.collection.n_people
    assert plot.uniform.isVisible() and plot.uniform.value() == pytest.approx(math.log(n_people))
    assert plot.uniform.label.toPlainText().startswith("uniform guess: log |C| = 1.79")  # shown
    # A Glorot-initialised model is about uniform: its first losses are about log |C|.
    assert abs(plot.losses[0] - math.log(n_people)) < 0.5
    assert np.all(np.asarray(plot.losses) < 2 * math.log(n_people))


def test_the_plot_says_when_validation_is_no_better_than_a_uniform_guess(qtbot):
    """On the WoS folder the validation loss stayed above log |C| for the whole run, and nothing
    said so."""
    from expert_gui.gui.panels.training.plot import LossPlot

    plot = LossPlot()
    qtbot.addWidget(plot)
    plot.set_uniform_guess(1000)  # log |C| = 6.91
    plot.add(1, 7.2, None)
    plot.add(2, 6.5, 6.95)
    plot.redraw()
    assert plot.losses == pytest.approx([7.2, 6.5])  # as the run reports them
    said = plot.uniform.label.toPlainText()
    assert said == "uniform guess: log |C| = 6.91; validation is no better than it"
    plot.add(3, 5.0, 6.2)
    plot.redraw()
    assert plot.uniform.label.toPlainText() == ("uniform guess: log |C| = 6.91; a random start "
                                                "is near it, above or below")
