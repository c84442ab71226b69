"""A relaunch restores the query, its method and results, and the profiled person, besides the
collection and the model."""

import pytest
from gui_helpers import GUI_COLLECTION, open_collection, save_random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.gui.main_window import MainWindow, settings

pytestmark = pytest.mark.gui


def launch(qtbot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.open_startup_collection()
    return win


def test_a_relaunch_restores_query_method_results_and_person(qtbot):
    folder = save_random_model(load_collection(GUI_COLLECTION), "gui-model")
    first = launch(qtbot)
    open_collection(qtbot, first)
    first.training_panel.open_model(folder)
    qtbot.waitUntil(lambda: first.state.model is not None, timeout=30_000)
    qp = first.query_panel
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("model2-jm"))
    qp.query_edit.setText("disk cache")
    qp.query_edit.returnPressed.emit()
    person = first.state.model.person_ids[2]
    first.state.profile_requested.emit(person)
    qtbot.waitUntil(lambda: first.profile_panel.profile is not None, timeout=30_000)
    first.close()
    first.state.runner.stop_all()

    second = launch(qtbot)
    qtbot.waitUntil(lambda: second.state.model is not None, timeout=30_000)
    qp = second.query_panel
    assert qp.query_edit.text() == "disk cache"
    assert qp.method() == "model2-jm"
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranking.method == "model2-jm",
                    timeout=30_000)
    assert qp.results.rowCount() > 0
    qtbot.waitUntil(lambda: second.profile_panel.profile is not None, timeout=30_000)
    assert second.profile_panel.profile.person_id == person
    second.close()
    second.state.runner.stop_all()

    third = launch(qtbot)  # restoring did not save an empty query over the one it restored
    qtbot.waitUntil(lambda: third.state.model is not None, timeout=30_000)
    assert third.query_panel.query_edit.text() == "disk cache"
    assert third.query_panel.method() == "model2-jm"
    third.state.runner.stop_all()


def test_a_method_of_the_model_waits_for_the_model(qtbot):
    settings().setValue("last/collection", str(GUI_COLLECTION))
    settings().setValue("session/query", "flash")
    settings().setValue("session/method", "loglinear")
    win = launch(qtbot)  # no model: a baseline answers meanwhile
    qtbot.waitUntil(lambda: win.query_panel.ranking is not None, timeout=30_000)
    qp = win.query_panel
    assert qp.query_edit.text() == "flash" and qp.ranking.method == "model1-d"
    assert qp.chosen_method() == "loglinear"
    folder = save_random_model(win.state.collection, "later")
    win.training_panel.open_model(folder)
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranking.method == "loglinear",
                    timeout=30_000)
    win.state.runner.stop_all()


def test_a_malformed_session_value_is_ignored_and_named(qtbot):
    from PySide6.QtWidgets import QMessageBox

    from expert_gui.core.paths import config_dir

    (config_dir() / "gui.ini").write_text(
        f"[last]\ncollection={GUI_COLLECTION}\n[session]\nquery=a, b\nmethod=model1-d\n",
        encoding="utf-8")
    win = launch(qtbot)
    text = win.findChildren(QMessageBox, "startup-notice")[0].informativeText()
    assert "session/query" in text and "expected text, found a list of 2" in text
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=30_000)
    assert win.query_panel.query_edit.text() == ""  # not "['a', 'b']"
    win.state.runner.stop_all()
