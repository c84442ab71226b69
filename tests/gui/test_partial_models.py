"""A partial model (training stopped) says what its held-out documents measured before the stop
(issue 31, item 7): its history holds a held-out MAP, so 'no held-out documents' was wrong, in
the saved-models list and in auto's label."""

import pytest
from gui_helpers import GUI_COLLECTION, TINY_TRAINING, open_collection

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import train_with_held_out
from expert_gui.core.paths import models_dir
from expert_gui.core.train.settings import TrainSettings

pytestmark = pytest.mark.gui


def stopped_in_second_epoch(folder):
    settings = TrainSettings(**{**TINY_TRAINING, "epochs": 50})
    steps = []

    def progress(event):
        if hasattr(event, "step"):
            steps.append((event.step, event.total_steps // 50))

    return train_with_held_out(load_collection(GUI_COLLECTION), settings, out_dir=folder,
                               progress=progress,
                               should_stop=lambda: bool(steps) and
                               steps[-1][0] > steps[-1][1] + 1)


def test_a_partial_model_names_the_held_out_map_it_measured(qtbot, window):
    folder = models_dir() / "gui-partial"
    model = stopped_in_second_epoch(folder)
    assert model.settings["stopped"] and model.calibration is None
    measured = model.history[-1]["held_out_map"]
    open_collection(qtbot, window)
    listed = window.training_panel.models_list.item(0).text()
    assert "no held-out documents" not in listed
    assert f"held-out MAP {measured:.3f} after epoch 1 (not calibrated: stopped)" in listed
    window.training_panel.open_model(folder)
    qtbot.waitUntil(lambda: window.state.model_path == folder, timeout=30_000)
    qp = window.query_panel
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("auto"))
    qp.set_query("disk cache")
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranking.method == "auto",
                    timeout=30_000)
    note = qp.words_label.text()
    assert "not calibrated (training was stopped before it)" in note
    assert "no held-out documents" not in note


def test_a_model_stopped_within_its_first_epoch_says_why_it_has_no_held_out_map(tmp_path):
    """DPDK stopped at step 73 of 380 (epoch 1 of 2) was listed with 'no held-out documents':
    it had 904; the run stopped before the epoch's end, where they are measured."""
    from expert_gui.core.store.model_folders import COMPLETE, PARTIAL, ModelFolder
    from expert_gui.gui.panels.training.saved_models import held_out_text

    stopped = ModelFolder(tmp_path, PARTIAL, 0.0, step=73, total_steps=380, epochs=2)
    assert held_out_text(stopped) == "no held-out MAP: stopped before the first epoch ended"
    assert held_out_text(ModelFolder(tmp_path, COMPLETE, 0.0)) == "no held-out documents"
