"""Text that can be read (issue 31, item 9): status-bar messages and labels cut after a whole
word, never mid-word ('Traine', 'Training stopped, partial model l'); at 1024 px a ranked
person's name is whole before their id is shown, and an id too short to read is hidden, not
cut to '2-…'; names on the nearest-terms map never overlap."""

from dataclasses import replace

import numpy as np
import pytest
from gui_helpers import open_collection, random_model
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStatusBar

from expert_gui.gui.panels.neighbours import NeighboursPanel
from expert_gui.gui.panels.query import QueryPanel
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui

LONG = ("Training stopped, partial model kept in /home/someone/.local/share/expert-gui/models/"
        "dpdk-maintainers-20260301-101010; held-out MAP 0.036 is far below Model 1 (d)'s 0.511")


def cut_after_a_word(shown: str, full: str) -> bool:
    head = shown.removesuffix("…")
    return shown.endswith("…") and full.startswith(head) and full[len(head)] in " ,;:"


def test_status_bar_messages_are_cut_after_a_whole_word(qtbot, window):
    window.resize(1024, 700)
    open_collection(qtbot, window)
    window.training_label.setText("Calibrating auto and P(expert) on 904 held-out documents: "
                                  "indexing for LSI… 4,520 / 6,328 (71%)")
    window.training_label.setVisible(True)
    bar = window.statusBar()
    qtbot.waitUntil(lambda: bar.width() <= 1024, timeout=5_000)
    bar.showMessage(LONG, 8000)
    shown = QStatusBar.currentMessage(bar)  # what the bar paints
    assert bar.currentMessage() == LONG and bar.toolTip() == LONG  # whole, where asked
    assert cut_after_a_word(shown, LONG), shown
    permanent = min(w.x() for w in (window.busy_label, window.training_label,
                                    window.model_label, window.device_label) if w.isVisible())
    assert bar.fontMetrics().horizontalAdvance(shown) <= permanent
    for label in (window.training_label, window.model_label):
        label.setText(LONG)
        qtbot.wait(50)
        on_screen = QLabel.text(label)
        assert on_screen == LONG or cut_after_a_word(on_screen, LONG), on_screen


def test_a_message_is_fitted_again_when_a_label_beside_it_widens(qtbot, window):
    # under Xvfb: "Training done; auto: … on 60 held-out document" was painted cut mid-word
    # under "preparing the methods: LSI (8 of 8)…", which widened after the message was shown
    window.resize(1024, 700)
    open_collection(qtbot, window)
    bar = window.statusBar()
    window.training_label.setVisible(False)
    qtbot.waitUntil(lambda: bar.width() <= 1024, timeout=5_000)
    done = ("Training done; auto: Log-linear — calibration inconclusive on 60 held-out "
            "documents")
    bar.showMessage(done, 8000)
    assert QStatusBar.currentMessage(bar) == done  # room for all of it, so far
    window.busy_label.setText("preparing the methods: LSI (8 of 8)")
    window.busy_label.setMinimumWidth(300)  # as wide as the bar gives it in the app

    def fits() -> bool:
        shown = QStatusBar.currentMessage(bar)
        return cut_after_a_word(shown, done) and \
            bar.fontMetrics().horizontalAdvance(shown) <= window.busy_label.x()

    qtbot.waitUntil(fits, timeout=5_000)


def test_at_1024_px_names_come_whole_before_ids(qtbot, collection):
    model = random_model(collection)
    n = model.n_people
    model = replace(model, person_ids=[f"2-s2.0-8501234{i:04d}" for i in range(n)],
                    person_names=[f"Olivier Matz-Fernandez {i}" for i in range(n)])
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    panel.resize(1024, 700)
    panel.show()
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("loglinear"))
    state.set_collection(collection, None)
    state.set_model(model, None)
    panel.set_query("disk cache")
    table, fitter = panel.results, panel.results_fitter
    chars = table.fontMetrics().averageCharWidth()
    for width in (700, 520, 380, 300):
        table.resize(width, 300)
        fitter.fit()
        if table.columnWidth(2) < fitter.natural_width(2):  # a name is cut only when alone
            assert table.isColumnHidden(1)
        if not table.isColumnHidden(1):  # an id is shown whole enough to read, or not at all
            assert table.columnWidth(1) >= min(6 * chars, fitter.natural_width(1))
    assert table.isColumnHidden(1)  # at 300 px only the names fit
    # a header longer than its numbers is shortened with "…", not clipped at both ends
    assert table.horizontalHeader().textElideMode() == Qt.TextElideMode.ElideRight
    top = table.item(0, 1).text()
    assert table.item(0, 2).toolTip().endswith(f"({top})")  # the id stays at hand
    state.runner.stop_all()


def neighbours_of_disk(qtbot, collection, model):
    """The nearest-terms panel, on screen, showing the words nearest to "disk"."""
    state = AppState()
    panel = NeighboursPanel(state)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    state.set_collection(collection, None)
    state.set_model(model, None)
    qtbot.waitUntil(lambda: panel.word_map is not None, timeout=30_000)
    panel.words_edit.setText("disk")
    panel.find()
    return state, panel


def test_names_on_the_nearest_terms_map_never_overlap(qtbot, collection):
    model = random_model(collection)
    # every word at nearly one point: their names would all be drawn on top of each other
    embeddings = np.tile(model.word_embeddings[1], (len(model.vocab), 1))
    embeddings += np.random.default_rng(0).normal(0, 1e-3, embeddings.shape).astype(np.float32)
    model = replace(model, word_embeddings=embeddings)
    state, panel = neighbours_of_disk(qtbot, collection, model)
    qtbot.waitUntil(lambda: len(panel.labels) > 3, timeout=30_000)
    qtbot.wait(100)
    shown = [label.mapRectToScene(label.boundingRect()) for label in panel.labels
             if label.isVisible()]
    assert shown
    for i, a in enumerate(shown):
        assert not any(a.intersects(b) for b in shown[i + 1:])
    state.runner.stop_all()


def test_a_name_on_the_map_is_hidden_only_where_it_has_no_room(qtbot, collection):
    """Placed against the view's scale before a zoom took effect, names with room to spare
    were hidden (on the demo, 2 of 15 neighbours were named)."""
    model = random_model(collection)
    state, panel = neighbours_of_disk(qtbot, collection, model)
    qtbot.wait(200)  # the zoom to the neighbourhood, and the placing after it
    shown = [label.mapRectToScene(label.boundingRect()) for label in panel.labels
             if label.isVisible()]
    hidden = [label for label in panel.labels if not label.isVisible()]
    assert len(shown) > 1
    for label in hidden:  # every corner of a hidden name covers a name shown
        for anchor in ((0, 1), (1, 1), (0, 0), (1, 0)):
            label.setAnchor(anchor)
            rect = label.mapRectToScene(label.boundingRect())
            assert any(rect.intersects(other) for other in shown), label.textItem.toPlainText()
    state.runner.stop_all()


def test_the_device_stays_whole_when_the_other_labels_crowd_the_bar(qtbot, window):
    # under Xvfb, while a run trained its measured model again on DPDK: "CPU: …reads" beside
    # "mapping words, mapping people, preparing the methods…", "Training again on every
    # document: epoch 1 of 1…" and "Model: dpdk-maintainers-… (measured; …"
    window.resize(1280, 800)
    open_collection(qtbot, window)
    qtbot.waitUntil(lambda: window.device_label.text().startswith(("CPU", "GPU")) and
                    not window.state.runner.any_running(), timeout=60_000)
    window.busy_label.setText("mapping words, mapping people, preparing the methods: Model 1 "
                              "(d) (2 of 8)")
    window.training_label.setText("Training again on every document: epoch 1 of 1, about 2 min "
                                  "10 s left… 3 / 194 (2%)")
    window.training_label.setVisible(True)
    window.model_label.setText("Model: dpdk-maintainers-20261127-023005 (measured; being "
                               "trained again on every document; 1,473 people, 20,928 words, "
                               "dim 300)")
    crowd = (window.busy_label, window.training_label, window.model_label)
    qtbot.waitUntil(lambda: all(QLabel.text(w) != w.text() for w in crowd), timeout=5_000)
    qtbot.wait(200)  # the bar is laid out in more than one pass: let it settle
    device = window.device_label
    assert QLabel.text(device) == device.text()


def test_the_status_bar_keeps_the_time_left_of_a_stage(qtbot, window, monkeypatch):
    """The bar cut the part that matters: "Training again on every document: epoch 2 of 5,
    about 1…"."""
    from expert_gui.core.evaluation.calibration import TrainingStage

    window.resize(1000, 700)
    open_collection(qtbot, window)
    tp = window.training_panel
    monkeypatch.setattr(tp, "is_training", lambda: True)
    tp._stage = TrainingStage("Training again on every document: epoch 2 of 5, about 1 min "
                              "left", 30, 60)
    window._update_training_actions()
    label = window.training_label
    qtbot.waitUntil(label.isVisible, timeout=5_000)
    qtbot.wait(300)  # the bar is laid out in more than one pass: let it settle
    shown = QLabel.text(label)
    assert shown != label.text()  # cut: the bar is narrow
    assert shown.startswith("50%, epoch 2 of 5, about 1 min left")
    assert label.text() == ("50%, epoch 2 of 5, about 1 min left · Training again on every "
                            "document")
    tp._stage = None
