"""Useful before the first model: the baselines answer as soon as a collection is open (and
while the first model trains), a shortcut pressed while loading is acted on when the load ends,
Ctrl+L always reaches the query box, one Open takes files and folders (a table's columns are
previewed, also when its folder is opened), and an interrupted run is offered at start-up."""

import shutil

import pytest
from gui_helpers import GUI_COLLECTION, open_collection, set_training
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu, QPushButton

from expert_gui.core.evaluation.calibration import train_with_held_out
from expert_gui.core.paths import models_dir
from expert_gui.core.train.settings import TrainSettings
from expert_gui.gui.main_window import MainWindow, settings
from expert_gui.gui.open_dialog import OPEN_FOLDER, CollectionDialog
from expert_gui.gui.panels.collection import COLLECTION_FILE_FILTERS
from expert_gui.gui.table_columns import TableColumnsDialog

pytestmark = pytest.mark.gui

CSV = "title,abstract,authors,year\n" + "".join(
    f'Paper {i},"About disk caches and flash {i}",Ada Lovelace; Alan Turing,2021\n'
    for i in range(8))


def ranked_ids(panel) -> list[str]:
    return [panel.results.item(r, 1).text() for r in range(panel.results.rowCount())]


def test_the_baselines_answer_as_soon_as_a_collection_is_open(qtbot, window):
    open_collection(qtbot, window)
    qp = window.query_panel
    assert window.state.model is None
    assert qp.method() == "model1-d"
    model_methods = [qp.method_combo.findData(m) for m in ("auto", "loglinear", "ensemble")]
    assert not any(qp.method_combo.model().item(i).isEnabled() for i in model_methods)
    assert "come after training" in qp.words_label.text()
    qp.set_query("disk cache")
    qtbot.waitUntil(lambda: qp.results.rowCount() > 0, timeout=30_000)
    assert qp.ranking.method == "model1-d"
    assert qp.results.horizontalHeaderItem(3).text() == "Model 1 (d): log P(q|c)"  # its own
    assert "ranked by Model 1 (d)" in qp.words_label.text()
    assert "come after training" in qp.words_label.text()
    assert qp.docs_table.rowCount() > 0  # the supporting documents need no model
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("tfidf"))
    qtbot.waitUntil(lambda: qp.ranking.method == "tfidf", timeout=30_000)
    qp.query_edit.clear()
    qtbot.keyClicks(qp.query_edit, "dis")  # the collection's words complete the query
    assert qp.completer.completionCount() > 0
    qtbot.keyClicks(qp.query_edit, "k ")  # after a space no word is begun: no list
    assert not qp.completer.popup().isVisible()


def test_the_baselines_answer_while_the_first_model_trains_then_auto(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=400)
    qp, tp = window.query_panel, window.training_panel
    tp.start_training()
    qp.set_query("disk cache")
    qtbot.waitUntil(lambda: qp.results.rowCount() > 0, timeout=30_000)
    assert tp.is_training() and window.state.model is None
    assert qp.ranking.method == "model1-d"
    tp.stop_training()  # keeps the model so far
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=120_000)
    assert qp.method() == "auto"  # back to the default the baseline stood in for
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranking.method == "auto",
                    timeout=30_000)
    # a stopped run is not calibrated: auto's own score, under its name (no P(expert) fit)
    assert qp.results.horizontalHeaderItem(3).text() == "Auto (fusion): weighted sum of z-scores"


@pytest.mark.parametrize("thread_ended", [False, True])
def test_ctrl_t_pressed_while_loading_trains_when_the_load_ends(qtbot, window, thread_ended):
    """`thread_ended`: a tiny collection can load before the GUI thread reads the next key (its
    thread has ended, the collection is not open yet): Ctrl+T said "open a collection first"
    and was lost (a missing folder's failure, likewise, went unsaid: a fresh clone's run
    failed)."""
    set_training(window)
    window.collection_panel.open_collection(GUI_COLLECTION)
    load = window.state.runner.unhandled("load")
    assert load is not None
    if thread_ended:
        load.wait()  # ended; its result still queued
        assert window.state.runner.running("load") is None and window.state.collection is None
    assert window.train_action.isEnabled()
    window.train_action.trigger()
    assert "Training starts when the collection has loaded" in \
        window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.training_panel.is_training() or
                    window.state.model is not None, timeout=30_000)
    qtbot.waitUntil(lambda: not window.training_panel.is_training(), timeout=120_000)


def test_ctrl_t_with_nothing_to_train_says_why(qtbot, window):
    window.train_action.trigger()
    assert "open a collection first" in window.statusBar().currentMessage()
    window.collection_panel.open_collection(GUI_COLLECTION / "no-such-folder")
    window.state.runner.unhandled("load").wait()  # failed at once, not handled yet
    window.train_action.trigger()
    qtbot.waitUntil(lambda: "did not load" in window.statusBar().currentMessage(),
                    timeout=30_000)
    assert not window.training_panel.is_training()


def test_ctrl_l_always_focuses_the_query_box(qtbot, window):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.show_panel("Collection")
    window.collection_panel.open_button.setFocus()
    window.query_action.trigger()  # no collection, no model
    qp = window.query_panel
    qtbot.waitUntil(lambda: QApplication.focusWidget() is qp.query_edit, timeout=5000)
    qtbot.keyClick(qp.query_edit, Qt.Key.Key_Space)
    assert not any(m.isVisible() for m in window.findChildren(QMenu))
    assert qp.query_edit.text() == " "
    assert not qp.completer.popup().isVisible()  # a space begins no word to complete


def test_one_open_for_files_and_folders(qtbot, window, tmp_path):
    opens = [a for a in window.menuBar().actions()[0].menu().actions()
             if a.text().startswith("&Open collection")]
    assert len(opens) == 1 and opens[0].shortcut().toString() == "Ctrl+O"
    assert window.collection_panel.open_button.menu() is None
    dialog = CollectionDialog(window, COLLECTION_FILE_FILTERS, str(GUI_COLLECTION.parent))
    qtbot.addWidget(dialog)
    folder_button = dialog.findChild(QPushButton, "open-folder")
    assert folder_button is not None and folder_button.text() == OPEN_FOLDER
    dialog.selectFile(str(GUI_COLLECTION))
    folder_button.click()
    assert dialog.chosen() == GUI_COLLECTION
    files = CollectionDialog(window, COLLECTION_FILE_FILTERS, str(GUI_COLLECTION))
    qtbot.addWidget(files)
    files.selectFile(str(GUI_COLLECTION / "topics.tsv"))
    files.accept()
    assert files.chosen() == GUI_COLLECTION / "topics.tsv"


@pytest.mark.parametrize("open_the_folder", [False, True])
def test_a_table_shows_its_columns_also_when_its_folder_is_opened(qtbot, window, tmp_path,
                                                                   open_the_folder):
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "papers.csv").write_text(CSV, encoding="utf-8")
    window.collection_panel.open_collection(folder if open_the_folder else folder / "papers.csv")
    qtbot.waitUntil(lambda: bool(window.findChildren(TableColumnsDialog)), timeout=30_000)
    dialog = window.findChildren(TableColumnsDialog)[0]
    assert dialog.windowTitle() == "Columns of papers.csv"
    dialog.accept()
    qtbot.waitUntil(lambda: window.state.collection is not None, timeout=30_000)
    assert window.state.collection.n_people == 2


def interrupted_run(name: str) -> None:
    """A run of the app's Train on the GUI collection killed at step 6 (only its checkpoint)."""
    from expert_gui.core.data.loading import load_collection

    class Killed(Exception):
        pass

    def die(event):
        if getattr(event, "step", 0) == 6:
            raise Killed

    settings_ = TrainSettings(dim=8, window=4, batch_size=4, epochs=2, checkpoint_every=2)
    with pytest.raises(Killed):
        train_with_held_out(load_collection(GUI_COLLECTION), settings_,
                            out_dir=models_dir() / name, progress=die)


def test_an_interrupted_run_is_offered_at_start_up(qtbot, tmp_path):
    interrupted_run("killed")
    settings().setValue("last/collection", str(GUI_COLLECTION))
    win = MainWindow()
    qtbot.addWidget(win)
    win.confirm_stop_training = lambda: True
    asked = []
    win.training_panel.confirm_startup_continue = lambda info: asked.append(info) or True
    win.open_startup_collection()
    qtbot.waitUntil(lambda: bool(asked), timeout=30_000)
    assert asked[0].name == "killed" and asked[0].progress_text().startswith("step 6 of ")
    qtbot.waitUntil(lambda: win.training_panel.is_training() or win.state.model is not None,
                    timeout=30_000)
    assert win.training_panel.plot.steps == [] or win.training_panel.plot.steps[0] == 7
    qtbot.waitUntil(lambda: win.state.model is not None, timeout=120_000)
    assert win.state.model_path == models_dir() / "killed"
    win.state.runner.stop_all()


def test_the_offer_is_made_once_and_not_for_another_collection(qtbot, tmp_path):
    interrupted_run("killed")
    other = shutil.copytree(GUI_COLLECTION, tmp_path / "other")
    (other / "documents.tsv").write_text((other / "documents.tsv").read_text() + "x\ty\n")
    settings().setValue("last/collection", str(other))
    win = MainWindow()
    qtbot.addWidget(win)
    asked = []
    win.training_panel.confirm_startup_continue = lambda info: asked.append(info) or False
    win.open_startup_collection()
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=30_000)
    open_collection(qtbot, win)  # later opens are not start-up
    assert asked == []
