"""Switching collections as a user does (issue 31): the Training panel shows the run of the
collection and model in front of the user, never the previous collection's, and a query typed
while a collection loads is kept for it."""

import pytest
from gui_helpers import (
    GUI_COLLECTION,
    OTHER_COLLECTION,
    TINY_TRAINING,
    open_collection,
    save_random_model,
    set_training,
)

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import train_with_held_out
from expert_gui.core.paths import models_dir
from expert_gui.core.train.settings import TrainSettings

pytestmark = pytest.mark.gui


def test_the_training_panel_drops_the_previous_collections_run(qtbot, window):
    """Item 1: train on one collection, open another and its model: the panel said 'Trained…'
    with the first run's loss plot and steps beside 'Open model: <the other>'."""
    open_collection(qtbot, window)
    set_training(window)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    assert "Trained; saved in" in panel.status_label.text() and panel.plot.steps
    other = save_random_model(load_collection(OTHER_COLLECTION), "other-model")
    open_collection(qtbot, window, OTHER_COLLECTION)
    text = panel.status_label.text()
    assert "Trained" not in text and "gui_collection" not in text
    assert panel.plot.steps == [] and panel.step_label.text() == "–"
    panel.open_model(other)
    qtbot.waitUntil(lambda: window.state.model_path == other, timeout=30_000)
    text = panel.status_label.text()
    assert "Open model: other-model" in text and "Trained" not in text
    assert panel.plot.steps == [] and panel.plot.epoch_steps == []  # it has no history
    assert (panel.step_label.text(), panel.loss_label.text()) == ("–", "–")


def test_an_opened_model_shows_its_own_training(qtbot, window):
    """A model opened from the list shows the loss of its own training, per epoch, and where it
    ended, instead of the plot of whatever ran before."""
    folder = models_dir() / "gui-trained"
    settings = TrainSettings(**{**TINY_TRAINING, "epochs": 2})
    model = train_with_held_out(load_collection(GUI_COLLECTION), settings, out_dir=folder)
    open_collection(qtbot, window)
    panel = window.training_panel
    panel.open_model(folder)
    qtbot.waitUntil(lambda: window.state.model_path == folder, timeout=30_000)
    history = model.history
    assert panel.plot.epoch_steps == [h["step"] for h in history]
    assert panel.plot.epoch_losses == pytest.approx([h["train_loss"] for h in history])
    assert panel.plot.val_losses == pytest.approx([h["val_loss"] for h in history])
    total = model.settings["total_steps"]
    assert panel.step_label.text() == f"{total:,} / {total:,} (epoch 2 of 2)"
    last = history[-1]
    assert panel.loss_label.text() == \
        f"{last['train_loss']:.3f} (epoch mean) / {last['val_loss']:.3f}"
    said = panel.status_label.text()  # the history kept is the measured run's (issue 29)
    assert "Open model: gui-trained. The held-out figures are of the model measured" in said
    assert "The plot shows the training of the model measured: each epoch's mean loss" in said
    panel.plot.redraw()  # the legend names only what is drawn: no step's loss here
    assert [label.text for _, label in panel.plot.legend.items] == \
        ["training (mean of each epoch)", "validation"]


def test_a_query_typed_while_a_collection_loads_is_kept(qtbot, window):
    """Item 2: Ctrl+O, Ctrl+L, type: the text was erased when the load ended."""
    open_collection(qtbot, window)
    qp = window.query_panel
    qp.set_query("disk cache")  # the first collection's query
    window.collection_panel.open_collection(OTHER_COLLECTION)
    assert window.state.runner.unhandled("load") is not None  # its thread may have ended
    window.focus_query()
    qtbot.keyClicks(qp.query_edit, "neural networks")  # replaces the selected old query
    qtbot.waitUntil(lambda: window.state.collection.name == "training" and
                    not window.state.runner.running("load"), timeout=30_000)
    assert qp.query_edit.text() == "neural networks"
    qtbot.waitUntil(lambda: qp.ranking is not None, timeout=30_000)  # a baseline ranks it
    assert qp.ranking.query == "neural networks"


def test_a_query_left_from_the_previous_collection_is_cleared(qtbot, window):
    open_collection(qtbot, window)
    window.query_panel.set_query("disk cache")
    open_collection(qtbot, window, OTHER_COLLECTION)
    assert window.query_panel.query_edit.text() == ""


def test_the_query_panel_says_which_collection_a_run_trains_for(qtbot, window):
    """Opening another collection while a run trains: the query panel said "Training a model
    for <the other>: it answers here as soon as it is saved", of a run that trains the first."""
    open_collection(qtbot, window)
    set_training(window, epochs=1000)
    panel, qp = window.training_panel, window.query_panel
    panel.start_training()
    qtbot.waitUntil(lambda: "Training a model for <b>gui_collection</b>" in
                    qp.words_label.text(), timeout=30_000)
    open_collection(qtbot, window, OTHER_COLLECTION)
    assert panel.is_training()
    other = window.state.collection.name
    said = qp.words_label.text()
    assert "Training a model for" not in said and f"<b>{other}</b>" in said
    panel.stop_training()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=60_000)
