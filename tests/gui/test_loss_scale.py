"""The loss plot reads in nats per instance, on the scale of log |C| (a uniform guess), which it
marks: Eq. 3's |d_max|/|d| weights had put a DPDK run at 340 to 100 against log |C| = 7.3."""

import math

import numpy as np
import pytest
from gui_helpers import open_collection, set_training

from expert_gui.core.train.instances import make_instances, mean_weight
from expert_gui.gui.panels.training.plot import Y_LABEL

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("overlapping", [False, True])
def test_the_mean_weight_is_the_instances_mean_weight(collection, overlapping):
    instances = make_instances(collection, 3, overlapping)
    assert mean_weight(collection, 3, overlapping) == pytest.approx(instances.weights.mean())


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


def test_losses_are_divided_by_the_mean_weight(qtbot):
    from expert_gui.gui.panels.training.plot import UNSCALED_LABEL, LossPlot

    plot = LossPlot()
    qtbot.addWidget(plot)
    assert plot.getAxis("left").labelText == UNSCALED_LABEL  # until the run says its scale
    plot.set_scale(46.0, 1473)
    plot.add(1, 340.0, None)
    plot.add(2, 230.0, 322.0)
    assert plot.losses == pytest.approx([340 / 46, 230 / 46])
    assert plot.val_losses == pytest.approx([7.0])
    assert plot.uniform.value() == pytest.approx(math.log(1473))
