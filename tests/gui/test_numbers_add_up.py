"""Numbers that add up (issue 31, item 8): the losses read the same in the app and the CLI, a
share of P(c|q) is never '0%', P(expert) says what it means across methods, the people map's
groups are numbered as the export numbers them, and step axes have whole steps."""

import math

import numpy as np
import pytest
from gui_helpers import GUI_COLLECTION, TINY_TRAINING

from expert_gui.core.data.loading import load_collection
from expert_gui.core.rankers.ranking import Ranking
from expert_gui.gui.panels.entropy import EntropyPanel
from expert_gui.gui.panels.training.plot import LossPlot
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui


def test_a_small_share_of_p_c_q_is_not_zero_percent(qtbot):
    state = AppState()
    panel = EntropyPanel(state)
    qtbot.addWidget(panel)
    n = 2_000
    p = np.full(n, 1.0 / n)
    ranking = Ranking("vhost", "loglinear", [f"p{i}" for i in range(n)], np.arange(n),
                      np.log(p), ["vhost"], [], probabilities=p, entropy=1.0)
    state.set_ranking(ranking)
    text = panel.query_label.text()
    assert "hold 0.25% of P(c|q)" in text and " 0% " not in text


def test_step_axes_have_whole_steps(qtbot):
    plot = LossPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 300)
    for step in (1, 2, 3):
        plot.add(step, 3.0 - step / 10, None)
    axis = plot.getAxis("bottom")
    ticks = [v for _, values in axis.tickValues(1.0, 3.0, 600) for v in values]
    assert ticks and all(float(v).is_integer() for v in ticks)


def test_the_uniform_guess_says_a_random_start_is_near_it(qtbot):
    plot = LossPlot()
    qtbot.addWidget(plot)
    plot.set_uniform_guess(40)
    assert plot.uniform.label.toPlainText() == \
        f"uniform guess: log |C| = {math.log(40):.2f}; a random start is near it, above or below"


def test_p_expert_says_what_it_means_across_methods(qtbot, collection, model):
    from test_query_panel import with_fits

    from expert_gui.gui.panels.query import QueryPanel

    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, None)
    state.set_model(with_fits(model), None)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("auto"))
    qtbot.waitUntil(lambda: panel.method_ranker is not None, timeout=10_000)
    panel.set_query("disk cache")
    tip = panel.results.horizontalHeaderItem(3).toolTip()
    assert "Auto (fusion)'s own estimate" in tip
    assert "compare people within one method's list" in tip
    assert "same scale for every query and method" not in tip
    state.runner.stop_all()


def test_the_cli_and_the_app_read_the_same_losses(tmp_path, capsys):
    """The demo model's losses were 3.469 / 3.645 in the CLI and 2.136 / 2.244 in the app: the
    CLI printed Eq. 3's weighted sum per instance, the app the cross-entropy per instance."""
    from expert_gui.cli import main
    from expert_gui.core.store.storage import load_model

    out = tmp_path / "model"
    args = ["train", str(GUI_COLLECTION), "--out", str(out), "--epochs", "2",
            *[f"--{k.replace('_', '-')}={v}" for k, v in TINY_TRAINING.items()
              if k != "epochs"]]
    assert main(args) == 0
    model = load_model(out)
    last = model.history[-1]
    printed = capsys.readouterr().out
    n_people = load_collection(GUI_COLLECTION).n_people
    assert (f"weighted cross-entropy per instance {last['train_loss']:.3f} (training), "
            f"{last['val_loss']:.3f} (validation) nats; a uniform guess scores "
            f"log |C| = {math.log(n_people):.3f}") in printed
