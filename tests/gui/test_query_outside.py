"""The query panel asked about a paper from outside the collection (who could review it?) and
with recency: ranked by make_ranker's ranker for them, saying so (auto's fixed weights and why,
what recency did to the documents), and saying why there is no P(expert)."""

import csv
import html

import pytest
from gui_helpers import random_model
from PySide6.QtCore import Qt
from test_query_panel import with_fits

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.recency import Recency
from expert_gui.core.rankers.fusion import OUTSIDE_LABEL
from expert_gui.core.rankers.methods import make_ranker, recency_weights
from expert_gui.core.rankers.query_type import (
    NO_P_EXPERT_OUTSIDE,
    NO_P_EXPERT_RECENCY,
    outside_reason,
)
from expert_gui.gui.panels.query import QueryPanel
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui

ABSTRACT = ("Journalled disk caches\n\nWe flush the disk cache after every journal write.\n"
            "Inode updates are batched.")


@pytest.fixture
def panel_for(qtbot):
    """Makes a query panel over a collection and model; its background work stopped at the
    end."""
    states = []

    def make(collection, model, method="auto"):
        state = AppState()
        states.append(state)
        panel = QueryPanel(state)
        qtbot.addWidget(panel)
        panel.method_combo.setCurrentIndex(panel.method_combo.findData(method))
        state.set_collection(collection, None)
        state.set_model(model, None)
        return panel

    yield make
    for state in states:
        state.runner.stop_all()


def wait_ranked(qtbot, panel, outside: bool, since=None):
    qtbot.waitUntil(lambda: panel.ranking is not None and
                    panel.ranked_variant.outside == outside and
                    panel.ranked_variant.recency.since == since, timeout=20_000)


def test_a_pasted_paper_ranks_with_autos_weights_for_papers_from_outside(qtbot, panel_for,
                                                                         collection, model,
                                                                         tmp_path):
    panel = panel_for(collection, with_fits(model))
    panel.show()
    panel.options.set_kind("paper")
    assert panel.paper_edit.isVisible() and not panel.query_edit.isVisible()
    panel.paper_edit.setPlainText(ABSTRACT)  # every line of it, as pasted
    panel.paper_edit.setFocus()
    qtbot.keyClick(panel.paper_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    wait_ranked(qtbot, panel, outside=True)
    assert panel.paper_edit.toPlainText() == ABSTRACT  # Ctrl+Enter ranked, added no line
    expected = make_ranker("auto", model=model, collection=collection,
                           outside=True).rank(ABSTRACT)
    assert panel.ranking.query == ABSTRACT
    shown = [panel.results.item(r, 1).text() for r in range(panel.results.rowCount())]
    assert shown == [model.person_ids[p] for p in expected.people]
    line = panel.words_label.text()
    assert OUTSIDE_LABEL in line and outside_reason()[:60] in line
    assert html.escape(NO_P_EXPERT_OUTSIDE) in line  # the model holds a fit for auto
    head = panel.results.horizontalHeaderItem(3)
    assert "P(expert)" not in head.text() and NO_P_EXPERT_OUTSIDE in head.toolTip()
    assert panel.ranking.p_expert is None
    panel.save_ranking(tmp_path / "r.csv", trec=False)
    with open(tmp_path / "r.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["asked_as"] == "paper from outside" and row["query"] == ABSTRACT
    # back to a topic: the default ranker, with P(expert) again; a topic's box keeps its own
    panel.options.set_kind("topic")
    assert panel.query_edit.isVisible() and not panel.paper_edit.isVisible()
    panel.set_query("disk cache")
    assert panel.ranking.p_expert is not None and not panel.ranked_variant


def test_recency_ranks_only_people_with_recent_work_and_says_what_it_did(qtbot, panel_for,
                                                                         tmp_path):
    folder = tmp_path / "dated"
    folder.mkdir()
    (folder / "documents.tsv").write_text(
        "doc_id\tdate\ttext\n"
        "a1\t2012-01-01\tdisk cache journal flush\n"
        "a2\t2013-01-01\tdisk cache write inode\n"
        "b1\t2021-06-01\tdisk socket driver cache\n"
        "c1\t2022-03-01\tshader texture render disk\n"
        "d1\t\tdisk cache inode\n", encoding="utf-8")
    (folder / "associations.tsv").write_text(
        "doc_id\tperson_id\na1\tann\na2\tann\nb1\tben\nc1\tcat\nd1\tdan\n", encoding="utf-8")
    collection = load_collection(folder, use_cache=False)
    model = random_model(collection)
    panel = panel_for(collection, model, method="model1-d")
    panel.set_query("disk cache")
    qtbot.waitUntil(lambda: panel.ranked_by == "model1-d", timeout=20_000)
    assert {panel.results.item(r, 1).text() for r in range(panel.results.rowCount())} == \
        {"ann", "ben", "cat", "dan"}
    panel.options.set_recency(since=2020)
    wait_ranked(qtbot, panel, outside=False, since=2020)
    recency = Recency(2020)
    expected = make_ranker("model1-d", collection=collection, recency=recency).rank(
        "disk cache")
    shown = [panel.results.item(r, 1).text() for r in range(panel.results.rowCount())]
    assert shown == [collection.person_ids[p] for p in expected.people]
    assert "ann" not in shown and set(shown) == {"ben", "cat", "dan"}  # dan's is undated
    line = panel.words_label.text()
    assert recency_weights(collection, recency).describe() in line
    assert "only the 3 people with a document that counts" in line
    # a year that cannot be: said beside the field, nothing ranked with it
    panel.options.since_edit.setText("99")
    panel.options.since_edit.editingFinished.emit()
    assert not panel.options.problem_label.isHidden()
    assert "four digits" in panel.options.problem_label.text() and panel.ranking is None
    panel.options.set_recency(half_life=2)
    qtbot.waitUntil(lambda: panel.ranking is not None and
                    panel.ranked_variant.recency.half_life == 2, timeout=20_000)
    assert panel.options.problem_label.isHidden()
    assert "half-life 2 years" in panel.words_label.text()


def test_recency_says_why_there_is_no_p_expert(qtbot, panel_for, collection, model):
    panel = panel_for(collection, with_fits(model), method="model2-jm")
    panel.set_query("disk cache")
    qtbot.waitUntil(lambda: panel.ranked_by == "model2-jm", timeout=20_000)
    assert panel.ranking.p_expert is not None
    panel.options.set_recency(half_life=5)
    qtbot.waitUntil(lambda: bool(panel.ranked_variant), timeout=20_000)
    assert panel.ranking.p_expert is None
    assert html.escape(NO_P_EXPERT_RECENCY) in panel.words_label.text()
    assert NO_P_EXPERT_RECENCY in panel.results.horizontalHeaderItem(3).toolTip()
    # the gui collection has no dates: recency says every document counts
    assert "no document has a date" in panel.words_label.text()


def test_a_paper_pasted_in_the_topic_box_moves_to_the_papers_box(qtbot, panel_for, collection,
                                                                  model):
    panel = panel_for(collection, model)
    panel.query_edit.setText(ABSTRACT)  # a one-line box keeps the lines, shows them as one
    assert panel.query_edit.text() == ABSTRACT
    panel.options.set_kind("paper")
    assert panel.paper_edit.toPlainText() == ABSTRACT
    wait_ranked(qtbot, panel, outside=True)
    assert panel.ranking.query == ABSTRACT
