"""The model on screen always belongs to the collection on screen: opening another collection
closes a model of other people or words (and the previous topics and qrels), offers the saved
models of the new one newest first, a relaunch never restores a mismatched pair, and opening a
model of another collection asks to open that collection with it."""

import shutil

import pytest
from gui_helpers import (
    GUI_COLLECTION,
    OTHER_COLLECTION,
    open_collection,
    random_model,
    save_random_model,
    set_training,
)

from expert_gui.core.data.loading import load_collection
from expert_gui.gui.main_window import MainWindow, settings
from expert_gui.gui.panels.training.form import collection_defaults

pytestmark = pytest.mark.gui


def test_another_collection_closes_the_model_and_the_topics_of_the_previous_one(qtbot, window):
    open_collection(qtbot, window)
    s = window.state
    s.set_model(random_model(s.collection), None)
    window.query_panel.set_query("disk cache")
    assert s.topics and s.qrels and window.query_panel.results.rowCount() == 6
    open_collection(qtbot, window, OTHER_COLLECTION)
    assert s.model is None and s.ranking is None
    assert not s.topics and not s.qrels
    assert window.collection_panel.topics_label.text() == "no topics, no qrels"
    assert window.query_panel.results.rowCount() == 0
    assert window.query_panel.query_edit.text() == ""  # typed for the other collection
    assert window.model_label.text() == "No model"
    qtbot.waitUntil(lambda: "trained on gui_collection, not on training" in
                    window.statusBar().currentMessage(), timeout=5_000)
    label = window.query_panel.words_label.text()
    assert "Closed the trained model: it was trained on gui_collection" in label
    assert "No model for <b>training</b> yet" in label


def test_a_copy_of_the_same_collection_keeps_the_model(qtbot, window, tmp_path):
    open_collection(qtbot, window)
    model = random_model(window.state.collection)
    window.state.set_model(model, None)
    copy = shutil.copytree(GUI_COLLECTION, tmp_path / "copy")
    open_collection(qtbot, window, copy)
    assert window.state.collection.fingerprint != model.collection_fingerprint
    assert window.state.model is model  # same people, same words: it still answers


def test_the_saved_models_of_the_collection_are_offered_newest_first(qtbot, window):
    mine = load_collection(GUI_COLLECTION)
    other = load_collection(OTHER_COLLECTION)
    older = save_random_model(mine, "gui-older", mtime=1_000_000)
    newer = save_random_model(mine, "gui-newer", mtime=2_000_000, seed=1)
    save_random_model(other, "other-newest", mtime=3_000_000)
    open_collection(qtbot, window)
    label = window.query_panel.words_label.text()
    assert "Open one trained on it (newest first)" in label
    assert label.index("gui-newer") < label.index("gui-older") and "other-newest" not in label
    listed = [window.training_panel.models_list.item(i).text()
              for i in range(window.training_panel.models_list.count())]
    assert [t.split(" · ")[0] for t in listed] == ["gui-newer", "gui-older", "other-newest"]
    assert "(trained on training)" in listed[2]
    assert window.training_panel.models_note.text() == \
        "2 of this collection (newest first), 1 of others (grey)."
    window.query_panel._link(str(newer))  # the user clicks the offer
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    assert window.state.model_path == newer != older


def test_a_relaunch_restores_the_last_model_only_with_its_own_collection(qtbot):
    mine = load_collection(GUI_COLLECTION)
    other = save_random_model(load_collection(OTHER_COLLECTION), "other")
    own = save_random_model(mine, "own")
    for last_model in (other, own):
        settings().setValue("last/collection", str(GUI_COLLECTION))
        settings().setValue("last/model", str(last_model))
        win = MainWindow()
        qtbot.addWidget(win)
        messages = []
        win.state.message.connect(messages.append)
        win.state.model_dropped.connect(messages.append)
        win.open_startup_collection()
        qtbot.waitUntil(lambda m=messages: any(t.startswith(("Opened model", "Did not reopen"))
                                               for t in m), timeout=30_000)
        assert win.state.collection.name == "gui_collection"
        assert win.state.model_path == (own if last_model == own else None)
        win.state.runner.stop_all()


def test_a_model_of_another_collection_asks_to_open_that_collection(qtbot, window, tmp_path):
    other_folder = shutil.copytree(OTHER_COLLECTION, tmp_path / "other")
    other_model = save_random_model(load_collection(other_folder), "other-model")
    open_collection(qtbot, window)
    asked = []
    window.training_panel.confirm_open_collection = lambda *a: asked.append(a) or False
    window.training_panel.open_model(other_model)
    qtbot.waitUntil(lambda: bool(asked), timeout=30_000)
    assert window.state.model is None and window.state.collection.name == "gui_collection"
    window.training_panel.confirm_open_collection = lambda *a: True
    window.training_panel.open_model(other_model)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    assert window.state.collection.name == "other"
    assert window.state.model_path == other_model


def test_a_training_that_ends_after_a_switch_does_not_answer_for_the_new_collection(qtbot,
                                                                                    window):
    open_collection(qtbot, window)
    set_training(window, epochs=500)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 2, timeout=60_000)
    folder = panel._model_folder
    open_collection(qtbot, window, OTHER_COLLECTION)
    panel.stop_training()
    # the model is said not to open when it is saved; the form changes when the run's end is
    # handled, a moment later (under load, after this wait alone)
    qtbot.waitUntil(lambda: "Not opened: it belongs to gui_collection" in
                    panel.status_label.text() and panel.run_settled(), timeout=60_000)
    assert window.state.model is None
    listed = [panel.models_list.item(i).text() for i in range(panel.models_list.count())]
    assert any(t.startswith(folder.name) and "(trained on gui_collection)" in t for t in listed)
    # The form now shows the open collection's defaults (suggested for its size), not the
    # finished run's settings.
    assert panel.form.settings() == collection_defaults(window.state.collection)[0]
    # and under "Ready to train on" the other collection ("training") neither the plot nor
    # the numbers are the finished run's, which trained gui_collection
    said = panel.status_label.text()
    assert "Ready to train on <b>training</b>" in said and "Not opened" in said
    panel.plot.redraw()
    assert not panel.plot.steps and not panel.plot.epoch_steps and not panel.plot.val_steps
    assert panel.step_label.text() == panel.loss_label.text() == "–"
