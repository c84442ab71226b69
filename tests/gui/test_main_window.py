"""The main window: every panel, menus with shortcuts, the About box, the status bar, the layout
remembered between launches, and closing during training."""

import pytest
from gui_helpers import OTHER_COLLECTION, open_collection, set_training
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QLabel, QMessageBox

from expert_gui import PAPER_CITATION
from expert_gui.gui.main_window import MainWindow, settings

pytestmark = pytest.mark.gui

PANELS = ["Collection", "Training", "Query", "Entropy", "Nearest terms", "Model 2 comparison",
          "Profile", "Reviewers"]


def test_every_panel_is_a_dock_and_the_menus_have_shortcuts(qtbot, window):
    assert list(window.docks) == PANELS
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&Model", "&View", "&Help"]
    assert window.open_action.shortcut().toString() == "Ctrl+O"
    assert window.query_action.shortcut().toString() == "Ctrl+L"
    assert window.train_action.shortcut().toString() == "Ctrl+T"
    qtbot.waitUntil(lambda: window.device_label.text().startswith(("CPU", "GPU")),
                    timeout=60_000)  # found in the background: it imports torch
    assert window.model_label.text() == "No model"
    window.train_action.trigger()  # nothing to train on yet: it says so
    assert "open a collection first" in window.statusBar().currentMessage()


def test_ctrl_l_focuses_the_query_box(qtbot, window, model):
    window.state.set_model(model, None)
    window.activateWindow()
    window.focus_query()
    assert window.query_panel.query_edit.hasFocus() or \
        window.query_panel.query_edit.isVisible()
    assert window.docks["Query"].isVisible()


def test_keys_typed_right_after_ctrl_l_are_not_selected_and_erased(qtbot, window):
    # under Xvfb, Ctrl+L then "auctions pricing" typed at once while a training ended gave
    # "tions pricing": the keys queued behind a busy GUI thread ran before Ctrl+L's deferred
    # select-all, which then let the next key replace them
    edit = window.query_panel.query_edit
    edit.setText("old query")
    window.focus_query()
    qtbot.keyClicks(edit, "auc")  # before the event loop runs the deferred focus
    qtbot.wait(20)
    qtbot.keyClicks(edit, "tions")
    assert edit.text() == "auctions"


def test_about_cites_the_paper(qtbot, window):
    window.show_about()
    assert window.about_dialog.isVisible()
    assert PAPER_CITATION in window.about_dialog.findChild(QLabel, "about-text").text()


def test_the_layout_is_remembered(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.docks["Entropy"].setFloating(True)
    first.resize(790, 560)  # within the offscreen screen, above the minimum
    first.save_layout()
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.docks["Entropy"].isFloating()
    assert (second.width(), second.height()) == (first.width(), first.height()) == (790, 560)


def maximized_window(qtbot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.showMaximized()
    available = win.screen().availableGeometry()
    qtbot.waitUntil(lambda: win.frameGeometry().size() == available.size(), timeout=5000)
    return win


def test_a_maximized_relaunch_keeps_the_welcome_below_the_menus(qtbot):
    """Never dismissed, the welcome of a window that was maximized when it closed: in its bar
    under the menus, and File's place in the menu bar is the menu bar's (a stray "Got it" had
    sat over File and Model, and a click on File did nothing)."""
    first = maximized_window(qtbot)
    first.close()
    win = maximized_window(qtbot)
    try:
        bar = win.welcome_bar
        assert win.toolBarArea(bar) == Qt.ToolBarArea.TopToolBarArea
        assert bar.geometry().top() >= win.menuBar().geometry().bottom()
        file_menu = win.menuBar().actions()[0]
        assert win.childAt(win.menuBar().actionGeometry(file_menu).center()) is win.menuBar()
    finally:
        for w in (first, win):
            w.state.runner.stop_all()


def test_a_dropped_folder_opens_as_a_collection(qtbot, window, collection_path):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(collection_path))])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.state.collection is not None, timeout=30_000)
    assert settings().value("last/collection") == str(collection_path)


def test_startup_reopens_the_last_collection(qtbot, collection_path):
    settings().setValue("last/collection", str(collection_path))
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_startup_collection()
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=30_000)
    assert win.state.collection_path == collection_path


def test_startup_opens_the_collection_named_on_the_command_line(qtbot, collection_path):
    """`expert-gui FOLDER`: that collection, not the last session's."""
    settings().setValue("last/collection", str(collection_path))
    settings().setValue("session/query", "disk cache")
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_startup_collection(OTHER_COLLECTION)
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=30_000)
    assert win.state.collection_path == OTHER_COLLECTION
    assert win.query_panel.query_edit.text() == ""  # the last session's query is of another
    assert settings().value("last/collection") == str(OTHER_COLLECTION)


def test_closing_during_training_asks_and_keeps_the_checkpoint(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=500)
    window.training_panel.start_training()
    qtbot.waitUntil(lambda: len(window.training_panel.plot.steps) > 2, timeout=60_000)
    folder = window.training_panel._model_folder
    window.confirm_stop_training = lambda: False
    window.close()
    assert window.isVisible() and window.training_panel.is_training()  # said no: keeps going
    window.confirm_stop_training = lambda: True
    window.close()
    assert not window.isVisible()
    assert not window.state.runner.any_running()
    assert (folder / "checkpoint").is_dir() and (folder / "manifest.json").is_file()
    # The stopped run's result arrives after the close: it must start no work (opening the model
    # once started the word map, whose thread Qt then destroyed running, aborting the app).
    qtbot.wait(300)
    assert window.state.model is None and not window.state.runner.any_running()


def test_an_exception_in_a_slot_becomes_a_dialog_and_a_log_line(qtbot, window, monkeypatch,
                                                                 caplog):
    import sys

    from expert_gui.gui.app import install_excepthook

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(window)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        sys.excepthook(*sys.exc_info())
    boxes = window.findChildren(QMessageBox, "error-dialog")
    assert boxes and "boom" in boxes[0].text()
    assert any("boom" in r.getMessage() for r in caplog.records)


def test_first_launch_opens_the_demo_collection(qtbot):
    from expert_gui.assets import demo_collection_path

    demo = demo_collection_path()
    if demo is None:
        pytest.skip("the demo collection is not installed")
    win = MainWindow()
    qtbot.addWidget(win)
    win.open_startup_collection()
    qtbot.waitUntil(lambda: win.state.collection is not None, timeout=60_000)
    assert win.state.collection_path == demo
    assert win.state.topics and win.state.qrels  # its topics and qrels open with it
    win.state.runner.stop_all()


def test_querying_a_model_while_another_trains(qtbot, window, model):
    open_collection(qtbot, window)
    window.state.set_model(model, None)
    set_training(window, epochs=500)
    window.training_panel.start_training()
    qtbot.waitUntil(lambda: len(window.training_panel.plot.steps) > 2, timeout=60_000)
    assert window.training_label.isVisible()
    window.query_panel.set_query("disk cache")
    assert window.state.ranking is not None and len(window.state.ranking) == 6
    assert window.state.model is model  # the old model answers until the new one is done
    window.training_panel.stop_training()
    qtbot.waitUntil(lambda: window.state.model is not model, timeout=60_000)


def test_the_log_file_is_in_the_users_log_folder(tmp_path):
    import logging

    from expert_gui.core.paths import log_dir
    from expert_gui.gui.app import setup_logging

    path = setup_logging()
    try:
        assert path.parent == log_dir()
        logging.getLogger("expert_gui.gui").error("a readable failure")
        for handler in logging.getLogger().handlers:
            handler.flush()
        assert "a readable failure" in path.read_text(encoding="utf-8")
    finally:
        root = logging.getLogger()
        for handler in [h for h in root.handlers if isinstance(h, logging.FileHandler)
                        and getattr(h, "baseFilename", "") == str(path)]:
            root.removeHandler(handler)
            handler.close()


def test_the_windows_start_up_work_leaves_the_first_optimiser_nothing_to_import():
    """A process's first torch optimiser imports torch._dynamo (about a second, which the first
    Train click of a session waited for); the window's background start-up (the device text)
    pays it instead. In a fresh process, as the app starts."""
    import subprocess
    import sys

    code = ("import sys; from expert_gui.gui.main_window import compute_device_text; "
            "assert 'torch._dynamo' not in sys.modules; text = compute_device_text(); "
            "print(text, 'torch._dynamo' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] in ("CPU:", "GPU:") and done.stdout.split()[-1] == "True"
