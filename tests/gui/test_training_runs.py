"""Training runs as a user meets them: the form's defaults and where they come from, interrupted
runs listed and continued, partial models marked everywhere, and status lines that follow the
run (paused, resumed, stopped)."""

import dataclasses
import shutil

import pytest
import torch
from gui_helpers import (
    GUI_COLLECTION,
    OTHER_COLLECTION,
    TINY_TRAINING,
    open_collection,
    set_training,
)

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import train_with_held_out
from expert_gui.core.paths import models_dir
from expert_gui.core.store.model_folders import read_model_folder
from expert_gui.core.train.settings import TrainSettings
from expert_gui.gui.panels.training.form import form_defaults

pytestmark = pytest.mark.gui


def _list(panel) -> list[str]:
    return [panel.models_list.item(i).text() for i in range(panel.models_list.count())]


def test_the_form_shows_the_papers_defaults_unless_the_collection_suggests_others(qtbot, window,
                                                                                  tmp_path):
    panel = window.training_panel
    assert panel.form.settings() == form_defaults()
    assert panel.defaults_label.text() == "Settings: the paper's defaults (section 4.4)."
    suggesting = shutil.copytree(GUI_COLLECTION, tmp_path / "demo-like")
    (suggesting / "train_settings.json").write_text(
        '{"dim": 128, "batch_size": 256, "epochs": 10}')
    open_collection(qtbot, window, suggesting)
    settings = panel.form.settings()
    assert (settings.dim, settings.batch_size, settings.epochs) == (128, 256, 10)
    assert panel.defaults_label.text() == \
        "Settings: suggested by demo-like's train_settings.json."
    assert not panel.reset_button.isEnabled()
    # The next collection ships none: what its size needs (85 windows: 5 steps in the paper's
    # five epochs of 1,024), each with why, not the previous suggestions.
    open_collection(qtbot, window, OTHER_COLLECTION)
    sized = dataclasses.replace(form_defaults(), batch_size=32, epochs=20)
    assert panel.form.settings() == sized
    assert panel.defaults_label.text() == \
        "Settings: suggested for this collection's size (batch size 32, epochs 20)."
    assert panel.form.widgets["batch_size"].toolTip().startswith(
        "Suggested for this collection: 85 training windows make 5 steps in 5 epochs of "
        "batches of 1,024; batches of 32 make 3 steps an epoch")
    assert panel.form.widgets["dim"].toolTip().startswith("Size e")  # not suggested: as before
    panel.form.set_value("epochs", 2)
    assert panel.defaults_label.text() == ("Settings: edited; Reset gives suggested for this "
                                           "collection's size (batch size 32, epochs 20).")
    assert panel.reset_button.isEnabled()
    panel.reset_button.click()
    assert panel.form.settings() == sized
    assert panel.form.settings().dim == TrainSettings().dim == 300


def _interrupted_run(folder, at_step: int):
    """A run of the app's Train (held-out documents set aside) killed at `at_step`
    (checkpoints every 2 steps): only checkpoint/ is left."""
    class Killed(Exception):
        pass

    def die(event):
        if getattr(event, "step", None) == at_step:  # the steps, not the other events
            raise Killed

    settings = TrainSettings(**{**TINY_TRAINING, "checkpoint_every": 2, "epochs": 2})
    with pytest.raises(Killed):
        train_with_held_out(load_collection(GUI_COLLECTION), settings, out_dir=folder,
                            progress=die)
    return settings


def test_an_interrupted_run_is_listed_and_continues(qtbot, window):
    folder = models_dir() / "gui-interrupted"
    _interrupted_run(folder, at_step=7)
    open_collection(qtbot, window)
    panel = window.training_panel
    total = read_model_folder(folder).total_steps
    assert total > 7
    [listed] = _list(panel)
    assert listed.startswith("gui-interrupted · ")
    assert f"\ninterrupted at step 6 of {total} (epoch 1 of 2) · " in listed
    panel.models_list.setCurrentRow(0)
    assert panel.continue_button.isEnabled()
    panel.continue_button.click()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 0, timeout=60_000)
    assert panel.plot.steps[0] == 7  # from the checkpoint at step 6
    assert panel.defaults_label.text() == "Settings of gui-interrupted (continued)."
    assert panel.form.settings().dim == TINY_TRAINING["dim"]
    qtbot.waitUntil(lambda: window.state.model_path == folder, timeout=120_000)
    assert "partial" not in window.model_label.text()


def test_other_on_an_interrupted_run_offers_to_continue(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    folder = models_dir() / "gui-killed"
    _interrupted_run(folder, at_step=5)
    open_collection(qtbot, window)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    offered = []
    window.training_panel.confirm_continue = lambda info: offered.append(info) or True
    window.training_panel.choose_model()  # "Other…"
    assert [info.progress_text() for info in offered][0].startswith("step 4 of ")
    assert window.training_panel.is_training()
    assert not window.findChildren(QMessageBox, "error-dialog")  # no "cannot read manifest"
    window.training_panel.stop_training()
    qtbot.waitUntil(lambda: window.state.model_path == folder, timeout=60_000)


def test_a_model_saved_after_stop_is_marked_partial_everywhere(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=300)
    panel = window.training_panel
    assert "train one (Ctrl+T)" in window.query_panel.words_label.text()
    panel.start_training()
    # While it trains, the query panel says a model is coming, not to press Ctrl+T again.
    assert "Training a model for <b>gui_collection</b>" in window.query_panel.words_label.text()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 3, timeout=60_000)
    panel.stop_training()
    # the run's folder is listed once the panel has seen the run end (the thread may have
    # exited a moment before: is_training() is then already False), after the model opened
    qtbot.waitUntil(lambda: window.state.model is not None and panel.models_list.count() > 0,
                    timeout=60_000)
    model = window.state.model
    steps, total = model.settings["steps"], model.settings["total_steps"]
    assert model.settings["stopped"] and steps < total
    epoch = steps // (total // 300) + 1
    where = f"stopped at step {steps:,} of {total:,} (epoch {epoch} of 300)"
    assert f"partial: {where}" in window.model_label.text()  # the status bar
    assert f"<b>partial</b>, {where}" in panel.status_label.text()  # the training panel
    assert f"partial: {where}" in _list(panel)[0]  # the saved models
    assert "A <b>partial</b> model" in window.query_panel.words_label.text()  # the query panel
    window.query_panel.set_query("disk cache")
    assert f"a <b>partial</b> model ({where})" in window.query_panel.words_label.text()


def test_status_follows_pause_resume_and_stop(qtbot, window):
    open_collection(qtbot, window)
    panel = window.training_panel
    assert "Ready to train on <b>gui_collection</b>" in panel.status_label.text()
    set_training(window, epochs=300)
    panel.start_training()
    qtbot.waitUntil(lambda: panel.speed_label.text() != "–", timeout=60_000)
    # the status bar says how the steps run (CUDA graph, eager or CPU), from the trainer
    on = "GPU (CUDA graph)" if torch.cuda.is_available() else "CPU"
    assert window.training_label.text() == f"Training on {on}…"
    panel.toggle_pause()
    assert window.training_label.text() == "Training paused"
    assert "Paused" in panel.status_label.text() and "saving to" in panel.status_label.text()
    panel.toggle_pause()
    assert window.training_label.text() == f"Training on {on}…"
    assert "saving to" in panel.status_label.text() and "Paused" not in panel.status_label.text()
    panel.stop_training()
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=60_000)
    qtbot.waitUntil(lambda: not window.training_label.isVisible(), timeout=10_000)
    assert (panel.speed_label.text(), panel.eta_label.text(), panel.memory_label.text()) == \
        ("–", "–", "–")
    assert panel.step_label.text() != "–"  # how far it got stays


def test_a_run_started_in_the_same_second_as_another_takes_its_own_folder(qtbot, window,
                                                                          monkeypatch):
    # issue 43 item 13: two windows pressing Train in the same second picked one folder (named
    # to the second), and the second run was refused with no way to choose another
    from expert_gui.gui.panels.training import panel as panel_module

    open_collection(qtbot, window)
    set_training(window, epochs=1)
    panel = window.training_panel
    monkeypatch.setattr(panel_module.time, "strftime", lambda fmt, *args: "20260101-120000")
    panel.start_training()  # the other window's run, this second
    first = panel._model_folder
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    panel.start_training()
    second = panel._model_folder
    qtbot.waitUntil(lambda: panel.run_settled(), timeout=120_000)
    assert first.parent == second.parent == models_dir()
    assert second.name == first.name + "-2"
    assert read_model_folder(first) is not None and read_model_folder(second) is not None
