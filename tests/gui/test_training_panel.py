"""Training panel: the form holds the trainer's defaults; Train runs off the GUI thread with a
live plot; Stop keeps the model; saved models are listed and reopen without retraining."""

import dataclasses
import os
import shutil

import numpy as np
import pytest
from gui_helpers import GUI_COLLECTION, open_collection, set_training

from expert_gui.core.durations import format_duration
from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.train.settings import TrainSettings
from expert_gui.gui.panels.training.form import GUI_DEFAULTS
from expert_gui.gui.panels.training.plot import SMOOTHING, LossPlot, Smoother

pytestmark = pytest.mark.gui


def smooth(values, alpha: float = SMOOTHING) -> np.ndarray:
    """The smoothed curve of `values`: Smoother over all of them."""
    smoother = Smoother(alpha)
    return np.array([smoother.add(v) for v in values], dtype=np.float64)


def test_the_form_starts_at_the_trainers_defaults_and_reads_back_edits(window):
    form = window.training_panel.form
    paper = TrainSettings()
    assert form.settings() == dataclasses.replace(paper, threads=GUI_DEFAULTS["threads"])
    assert GUI_DEFAULTS["threads"] == max(1, os.cpu_count() - 1)
    form.set_value("dim", 32)
    form.set_value("optimizer", "adam")
    form.set_value("overlapping", True)
    assert form.settings() == dataclasses.replace(paper, dim=32, optimizer="adam",
                                                  overlapping=True, threads=GUI_DEFAULTS["threads"])
    assert form.widgets["window"].toolTip()  # every setting says what it does


def test_smoothing_is_a_bias_corrected_moving_average():
    x = np.array([4.0, 2.0, 3.0])
    a = 0.9
    by_hand = [4.0, (a * (1 - a) * 4 + (1 - a) * 2) / (1 - a**2),
               (a * a * (1 - a) * 4 + a * (1 - a) * 2 + (1 - a) * 3) / (1 - a**3)]
    assert smooth(x, a) == pytest.approx(by_hand)


def test_loss_plot_keeps_one_point_per_step_and_one_per_validation(qtbot):
    plot = LossPlot()
    qtbot.addWidget(plot)
    plot.add(1, 2.0, None)
    plot.add(2, 1.5, None)
    plot.add(2, 1.7, 1.9)  # epoch end: same step, first validation loss
    plot.add(3, 1.4, 1.9)  # same validation loss repeated
    plot.redraw()
    assert plot.steps == [1, 2, 3] and plot.val_losses == [1.9]
    x, y = plot.raw_curve.getData()
    assert list(x) == [1, 2, 3] and list(y) == [2.0, 1.5, 1.4]
    _, smoothed = plot.smooth_curve.getData()  # extended point by point, as smooth() computes
    np.testing.assert_allclose(smoothed, smooth(np.array([2.0, 1.5, 1.4])))


def test_format_duration():
    assert format_duration(42) == "42 s"
    assert format_duration(125) == "2 min 05 s"
    assert format_duration(None) == "–"


def test_train_saves_lists_and_reopens_the_model(qtbot, window):
    open_collection(qtbot, window)
    set_training(window)
    panel = window.training_panel
    panel.start_training()
    assert panel.is_training() and not panel.train_button.isEnabled()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    model = window.state.model
    assert model.dim == 16 and model.n_people == 6
    assert len(panel.plot.steps) > 10 and all(np.isfinite(panel.plot.losses))
    # the run ended on an epoch's close: its training loss is the epoch's mean, not a step's
    assert " (epoch mean) / " in panel.loss_label.text()
    shown = panel.step_label.text(), panel.loss_label.text()
    # what the held-out documents decided for auto, as `expert-gui train` says it
    assert window.statusBar().currentMessage() == \
        f"Training done; auto: {auto_label(model.calibration)}"
    assert panel.models_list.count() == 1
    folder = window.state.model_path
    assert (folder / "manifest.json").is_file()
    assert "Model:" in window.model_label.text()
    window.state.set_model(None, None)
    panel.open_model(folder)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    np.testing.assert_array_equal(window.state.model.word_embeddings, model.word_embeddings)
    # the numbers under the plot are the plotted (measured) run's, whether just trained or
    # reopened: they showed the run again on every document's, its own validation split
    assert retrained(model)
    assert (panel.step_label.text(), panel.loss_label.text()) == shown


def test_pause_then_stop_keeps_the_model_so_far(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=200)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 3, timeout=60_000)
    panel.toggle_pause()
    assert panel.pause_button.text() == "Resume"
    # The step in flight when Pause was pressed may still land (slowly, on a loaded machine).
    seen = [panel.plot.steps[-1]]

    def settled() -> bool:
        qtbot.wait(300)
        seen.append(panel.plot.steps[-1])
        return seen[-1] == seen[-2]

    qtbot.waitUntil(settled, timeout=20_000)
    qtbot.wait(600)
    assert panel.plot.steps[-1] == seen[-1]
    panel.stop_training()
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=60_000)
    assert "Stopped" in panel.status_label.text()
    assert (window.state.model_path / "checkpoint").is_dir()
    assert panel.plot.steps[-1] < 200 * 15


def test_a_damaged_model_folder_gives_an_error_dialog(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    window.training_panel.open_model(tmp_path)
    qtbot.waitUntil(lambda: bool(window.findChildren(QMessageBox, "error-dialog")),
                    timeout=30_000)
    box = window.findChildren(QMessageBox, "error-dialog")[0]
    assert "manifest.json" in box.text()
    assert window.state.model is None


def test_continue_training_resumes_from_the_checkpoint(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=200)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 5, timeout=60_000)
    panel.stop_training()
    qtbot.waitUntil(lambda: window.state.model is not None and not panel.is_training(),
                    timeout=60_000)
    stopped_at = panel.plot.steps[-1]
    folder = window.state.model_path
    panel.form.set_value("dim", 8)  # the saved settings win over the form's
    panel.models_list.setCurrentRow(0)
    panel.continue_training()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 2, timeout=60_000)
    assert panel.plot.steps[0] == stopped_at + 1
    assert panel.form.settings().dim == 16
    panel.stop_training()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=60_000)
    assert window.state.model_path == folder and window.state.model.dim == 16


def test_a_collections_suggested_settings_fill_the_form(qtbot, window, tmp_path):
    folder = tmp_path / "small"
    shutil.copytree(GUI_COLLECTION, folder)
    (folder / "train_settings.json").write_text('{"dim": 24, "epochs": 7, "bogus": 1}')
    window.training_panel.form.set_value("window", 3)  # an edit the new collection replaces
    open_collection(qtbot, window, folder)
    settings = window.training_panel.form.settings()
    assert (settings.dim, settings.epochs, settings.window) == (24, 7, TrainSettings().window)


def test_a_broken_suggested_settings_file_is_ignored(qtbot, window, tmp_path):
    folder = tmp_path / "small"
    shutil.copytree(GUI_COLLECTION, folder)
    (folder / "train_settings.json").write_text("[1, 2")
    open_collection(qtbot, window, folder)
    assert window.training_panel.form.settings().dim == TrainSettings().dim
