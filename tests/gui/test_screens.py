"""No stale or misleading screen: each fix of issue 9 seen from the user's side. Labels that say
what is loaded and what is missing, panes that clear with their ranking, bars and numbers that
stay on screen at any width, a window that fits its screen and never grows, shortcuts that work
in text fields, dialogs in the app's words, and notices where a list is cut short."""

from pathlib import Path

import numpy as np
import pytest
from gui_helpers import GUI_COLLECTION, open_collection, random_model, set_training
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from expert_gui.core.data.collection import Collection
from expert_gui.gui.main_window import fit_rect
from expert_gui.gui.panels import collection as collection_panel
from expert_gui.gui.panels import query_explain as query_module
from expert_gui.gui.panels.neighbours import NeighboursPanel
from expert_gui.gui.panels.query import QueryPanel
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import placeholder_text

pytestmark = pytest.mark.gui


def _loaded(qtbot, window):
    open_collection(qtbot, window)
    window.state.set_model(random_model(window.state.collection), None)


def _error_dialogs(window):
    return window.findChildren(QMessageBox, "error-dialog")


# -- labels that say what is there ------------------------------------------------------------
def test_training_and_evaluation_labels_say_what_is_open(qtbot, window):
    assert window.training_panel.status_label.text() == "Open a collection, then click Train."
    assert window.comparison_panel.eval_label.text() == \
        "To evaluate, open a collection, a model, topics and qrels."
    _loaded(qtbot, window)
    assert "Ready to train on <b>gui_collection</b>" in window.training_panel.status_label.text()
    assert window.comparison_panel.eval_label.text().startswith(
        "6 topics and their qrels are open")
    assert window.comparison_panel.evaluate_button.isEnabled()
    window.state.set_model(None, None)
    assert window.comparison_panel.eval_label.text() == "To evaluate, open a model."


def test_a_query_with_no_known_word_clears_the_explanation(qtbot, window):
    _loaded(qtbot, window)
    panel = window.query_panel
    panel.set_query("disk cache")
    assert panel.words_table.rowCount() and "is ranked 1" in panel.why_label.text()
    panel.set_query("zebra")
    assert panel.results.rowCount() == panel.words_table.rowCount() == 0
    assert panel.docs_table.rowCount() == 0 and panel.doc_view.toPlainText() == ""
    assert panel.why_label.text() == "Select a person to see why they rank there."
    assert "knows none of these words" in panel.words_label.text()


def test_the_status_bar_does_not_stay_on_loading_after_an_error(qtbot, window, tmp_path):
    (tmp_path / "documents.tsv").write_text("d1\ttext\n", encoding="utf-8")
    window.collection_panel.open_collection(tmp_path)
    qtbot.waitUntil(lambda: bool(_error_dialogs(window)), timeout=30_000)
    assert window.statusBar().currentMessage() == f"Cannot open {tmp_path.name}"
    assert not window.collection_panel.progress.isVisible()



def test_the_root_folder_is_refused_by_its_name(qtbot, window):
    window.collection_panel.open_collection(Path("/"))
    qtbot.waitUntil(lambda: bool(_error_dialogs(window)), timeout=30_000)
    assert window.statusBar().currentMessage() == "Cannot open /"
    assert "the root of the file system is not a collection" in _error_dialogs(window)[0].text()

# -- dialogs in the app's words, file filters that match --------------------------------------
def test_error_dialogs_name_files_to_add_not_command_line_options(qtbot, window, tmp_path):
    (tmp_path / "documents.tsv").write_text("d1\tsome text\n", encoding="utf-8")
    window.collection_panel.open_collection(tmp_path)
    qtbot.waitUntil(lambda: bool(_error_dialogs(window)), timeout=30_000)
    text = _error_dialogs(window)[0].text()
    assert "expected associations.tsv or associations.csv beside the documents" in text
    assert "--" not in text
    (tmp_path / "elsewhere").mkdir()
    odd = tmp_path / "elsewhere" / "notes.dat"
    odd.write_text("just some words\n", encoding="utf-8")
    window.collection_panel.open_collection(odd)
    qtbot.waitUntil(lambda: len(_error_dialogs(window)) == 2, timeout=30_000)
    text = _error_dialogs(window)[1].text()
    assert "cannot tell the collection format" in text and "--format" not in text


def test_a_file_of_a_collection_folder_opens_the_folder(qtbot, window, monkeypatch):
    offered = {}

    def choose(parent, filters, start):
        offered["filters"] = list(filters)
        return GUI_COLLECTION / "documents.tsv"

    monkeypatch.setattr(collection_panel, "choose_collection_path", choose)
    before = window.state.collection
    window.collection_panel.choose_collection()
    qtbot.waitUntil(lambda: window.state.collection is not before, timeout=30_000)
    assert window.state.collection.name == "gui_collection"
    assert window.state.collection_path == GUI_COLLECTION
    assert len(window.state.topics) == 6  # the folder's companions came with it
    # The filters say what opens: a TSV is offered as a table of publications (with text and
    # authors columns) or as a file of a collection folder, not as any TSV file.
    assert "A file of a collection folder (documents.* associations.* people.*)" in \
        offered["filters"]
    assert "Tables of publications with text and authors columns (*.csv *.tsv *.xlsx)" in \
        offered["filters"]


# -- bars, columns and small windows ------------------------------------------------------------
@pytest.fixture
def long_names():
    """Six people with names far longer than any column."""
    people = {f"person-{i}@a-very-long-domain-name.example.org": f"{'Name ' * 12}{i}"
              for i in range(6)}
    docs = [(f"d{i}", f"ring buffer queue number {i} mempool") for i in range(12)]
    assocs = [(f"d{i}", list(people)[i % 6]) for i in range(12)]
    return Collection.from_records(docs, assocs, people)


def test_probabilities_and_bars_stay_visible_and_proportional_at_any_width(qtbot, long_names):
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(long_names, None)
    state.set_model(random_model(long_names, dim=4), None)
    panel.show()
    panel.set_query("ring mempool")
    table = panel.results
    header = table.horizontalHeader()
    probs = state.ranking.probabilities[state.ranking.people]
    for wanted in (1200, 800, 0):  # down to the narrowest the panel allows
        width = max(wanted, panel.minimumSizeHint().width())
        panel.resize(width, 500)
        qtbot.waitUntil(lambda w=width: panel.width() == w)
        right = header.sectionViewportPosition(4) + header.sectionSize(4)
        assert right <= table.viewport().width()  # the bar column ends on screen
        assert header.sectionSize(3) >= table.sizeHintForColumn(3)  # P(c|q) is not cut
        assert header.sectionSize(4) >= 40
        for row in range(table.rowCount()):
            assert float(table.item(row, 3).text()) == pytest.approx(probs[row], abs=5e-5)
            share = table.item(row, 4).data(Qt.ItemDataRole.UserRole)
            assert share == pytest.approx(probs[row] / probs[0], rel=1e-6)


def test_statistics_values_and_settings_rows_fit_a_small_window(qtbot, window):
    """720 x 450: the window on a 1600 x 1000 screen at QT_SCALE_FACTOR=2."""
    open_collection(qtbot, window)
    window.resize(720, 450)
    qtbot.waitUntil(lambda: window.width() == 720)
    window.show_panel("Collection")
    stats = window.collection_panel.stats_table
    header = stats.horizontalHeader()
    qtbot.waitUntil(lambda: stats.viewport().width() > 0)
    assert header.sectionSize(1) >= stats.sizeHintForColumn(1)  # values whole
    assert header.sectionViewportPosition(1) + header.sectionSize(1) <= stats.viewport().width()
    window.show_panel("Training")
    form = window.training_panel.form
    scroll = form.parentWidget().parentWidget()
    qtbot.waitUntil(lambda: scroll.isVisible())
    row = form.widgets["dim"].sizeHint().height()
    # Several rows under the first-launch welcome (the models list gives way)...
    qtbot.waitUntil(lambda: scroll.viewport().height() >= 4 * row)
    window.dismiss_welcome()
    qtbot.waitUntil(lambda: scroll.viewport().height() >= 5 * row)  # and more without it


# -- the window fits its screen and never grows by itself ----------------------------------
def test_fit_rect_keeps_a_window_on_its_screen():
    screen = QRect(0, 0, 800, 500)
    assert fit_rect(QRect(0, 0, 2560, 1600), screen) == screen
    assert fit_rect(QRect(700, 450, 400, 300), screen) == QRect(400, 200, 400, 300)
    assert fit_rect(QRect(10, 20, 300, 200), screen) == QRect(10, 20, 300, 200)


def test_the_window_fits_a_small_screen_and_does_not_grow_when_training_ends(qtbot, window):
    available = window.screen().availableGeometry()
    assert window.width() <= available.width() and window.height() <= available.height()
    # A screen of 1600 x 1000 at QT_SCALE_FACTOR=2 is 800 x 500: the whole window must fit, its
    # title bar included, even with the first launch's welcome above the panels.
    assert window.minimumSizeHint().boundedTo(QSize(800, 470)) == window.minimumSizeHint()
    open_collection(qtbot, window)
    window.resize(700, 470)
    qtbot.waitUntil(lambda: window.size() == QSize(700, 470))
    set_training(window)
    window.training_panel.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and
                    window.training_panel.run_settled(), timeout=120_000)
    window.query_panel.set_query("disk cache")
    for title in window.docks:
        window.show_panel(title)
        qtbot.wait(20)
    assert window.size() == QSize(700, 470)
    assert window.minimumSizeHint().width() <= 700
    assert window.minimumSizeHint().height() <= 470


# -- shortcuts wherever the focus is --------------------------------------------------------------
def test_window_shortcuts_win_over_text_fields(qtbot, window, monkeypatch):
    _loaded(qtbot, window)
    window.activateWindow()
    qtbot.waitActive(window)
    window.query_panel.set_query("disk cache")
    edit = window.query_panel.query_edit
    # A shortcut every line edit claims for itself (undo) stands in for Ctrl+E, which only X11's
    # key bindings give to line edits.
    fired = []
    undo_like = QAction("test", window)
    undo_like.setShortcut(QKeySequence("Ctrl+Z"))
    undo_like.triggered.connect(lambda: fired.append("Ctrl+Z"))
    window.addAction(undo_like)
    window.shortcut_actions.append(undo_like)
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert fired == ["Ctrl+Z"] and edit.text() == "disk cache"
    # Ctrl+E in the query box exports, and the query stays as typed.
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: fired.append("export") or ("", ""))
    edit.setCursorPosition(0)
    qtbot.keyClick(edit, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert fired[-1] == "export" and edit.text() == "disk cache"


# -- plots and lists that say what they show --------------------------------------------------------
def test_empty_plots_say_why_instead_of_drawing_axes_from_minus_0_4(qtbot, window):
    plot = window.entropy_panel.distribution_plot
    assert "Run a query" in placeholder_text(plot)
    (x0, x1), (y0, y1) = plot.getViewBox().viewRange()
    assert (x0, x1, y0, y1) == pytest.approx((0, 1, 0, 1))
    assert placeholder_text(window.training_panel.plot) is not None
    assert placeholder_text(window.comparison_panel.diff_plot) is not None
    _loaded(qtbot, window)
    window.show_panel("Entropy")  # behind its tab it would draw when next shown
    window.query_panel.set_query("disk cache")
    assert placeholder_text(plot) is None
    window.query_panel.set_query("zebra")
    assert placeholder_text(plot) == "The model knows none of the query's words."


def test_supporting_documents_and_person_documents_say_when_cut(qtbot, window, monkeypatch):
    _loaded(qtbot, window)
    monkeypatch.setattr(query_module, "SHOWN_DOCUMENTS", 2)
    panel = window.query_panel
    panel.set_query("disk cache")
    ranking = window.state.ranking
    found = {}
    for row, person in enumerate(ranking.people):
        found[row] = query_module.all_supporting_documents(
            window.state.collection, ranking.person_ids[person], ["disk", "cache"])
    row = max(found, key=lambda r: len(found[r]))
    found = found[row]
    assert len(found) > 2
    panel.results.selectRow(row)
    assert panel.docs_table.rowCount() == 2
    assert panel.docs_box.title() == f"Supporting documents: 2 of {len(found)}"
    assert panel.results_box.title() == "Ranked people: all 6"
    panel.depth_spin.setValue(4)
    assert panel.results_box.title() == "Ranked people: top 4 of 6"
    from expert_gui.gui.panels import collection as collection_module

    monkeypatch.setattr(collection_module, "MAX_LISTED_DOCUMENTS", 3)
    window.collection_panel.select_person("alice")
    assert window.collection_panel.documents_box.title() == "Documents: the first 3 of 10"


def test_the_word_map_names_every_neighbour_with_readable_tooltips(qtbot, collection):
    state = AppState()
    model = random_model(collection, dim=6)
    panel = NeighboursPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, None)
    state.set_model(model, None)
    qtbot.waitUntil(lambda: panel.word_map is not None, timeout=30_000)
    panel.k_spin.setValue(15)
    panel.words_edit.setText("disk")
    panel.find()
    named = {label.textItem.toPlainText() for label in panel.labels}
    assert named == {"disk", *(n.word for n in panel.neighbours)}
    assert len(panel.neighbours) == 15
    first = panel.neighbours[0]
    tip = panel.highlight.opts["tip"](x=0.0, y=0.0, data=first.word)
    assert tip == f"{first.word}: neighbour 1 of 15, euclidean distance {first.distance:.4f}"
    assert panel.background.opts["tip"](x=-0.356, y=0.0836, data="cache") == "cache"
    assert np.isfinite(first.distance)


def test_a_new_model_redraws_the_current_query_everywhere(qtbot, window):
    _loaded(qtbot, window)
    qtbot.waitUntil(lambda: window.comparison_panel.model2 is not None, timeout=30_000)
    window.query_panel.set_query("disk cache")
    window.state.set_model(random_model(window.state.collection, seed=5), None)
    ranking = window.state.ranking
    assert ranking is not None  # the query panel ranked again with the new model
    assert placeholder_text(window.entropy_panel.distribution_plot) is None
    assert "“disk cache”" in window.entropy_panel.query_label.text()
    assert all(t.rowCount() for t in window.comparison_panel.rank_tables.values())
    assert window.comparison_panel.table2.columnCount() == 1  # no headers of an old result
