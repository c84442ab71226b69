"""Query panel: P(c|q) shown matches a direct numpy computation of Eq. 1-2; unknown words are
marked; the explanation and the exports say the same thing as the ranking."""

import csv
import dataclasses
import html

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from rankers_helpers import p_expert_fit

from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.query_type import NO_P_EXPERT_FIT, NO_P_EXPERT_TOPIC
from expert_gui.core.rankers.ranking import normalized_entropy
from expert_gui.gui.panels.query import QueryPanel
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _direct_p(model, words):
    """Eq. 2 by hand: P(c|q) proportional to prod_i softmax(W_c W_p[w_i] + b_c)."""
    ids = [model.vocab.index[w] for w in words]
    per_word = np.array([_softmax(model.candidate_weights.astype(np.float64)
                                  @ model.word_embeddings[i].astype(np.float64)
                                  + model.candidate_bias) for i in ids])
    p = per_word.prod(axis=0)
    return p / p.sum(), per_word


@pytest.fixture
def panel(qtbot, collection, model):
    """The panel ranking by the log-linear model alone (its default is auto, tested below)."""
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("loglinear"))
    state.set_collection(collection, None)
    state.set_model(model, None)
    yield panel
    state.runner.stop_all()


def test_auto_ranks_by_default_and_shows_its_own_score_under_its_name(qtbot, collection,
                                                                       model):
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    assert panel.method() == "auto"
    state.set_collection(collection, None)
    state.set_model(model, None)
    qtbot.waitUntil(lambda: panel.method_ranker is not None, timeout=10_000)
    panel.set_query("disk cache")
    expected = make_ranker("auto", model=model, collection=collection).rank("disk cache")
    table = panel.results
    # an uncalibrated model has no P(expert): auto's own fused score, named as such
    assert table.horizontalHeaderItem(3).text() == "Auto (fusion): weighted sum of z-scores"
    for row in range(5):
        person = expected.people[row]
        assert table.item(row, 1).text() == model.person_ids[person]
        assert float(table.item(row, 3).text()) == pytest.approx(expected.scores[row], rel=1e-3)
    assert ("ranked by Auto (fusion): Log-linear + Model 2 (jm), equal weights — not "
            "calibrated") in panel.words_label.text()
    assert "For this short topic (2 words)" in panel.words_label.text()
    assert state.ranking.method == "loglinear"  # what the other panels are given
    state.runner.stop_all()


def with_fits(model, methods=("loglinear", "auto", "model2-jm"),
              kinds=("short topic", "whole document")):
    """The model as training on held-out documents leaves it: with P(expert) fits (for `kinds`
    of query; training gives whole documents only)."""
    model.calibration = {
        "held_out": {"fraction": 0.02, "minimum": 1, "maximum": 10, "seed": 0,
                     "documents": []},
        "fusion": {"members": ["loglinear", "model2-jm", "model1-d"],
                   "weights": [0.5, 0.5, 0.0], "normalisation": "z-score"},
        "measures": {},
        "probability": {m: p_expert_fit(1.0 + i / 4, queries=7, kinds=kinds)
                        for i, m in enumerate(methods)}}
    return model


def test_the_column_shows_p_expert_of_the_method_that_ranked(qtbot, collection, model):
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, None)
    state.set_model(with_fits(model), None)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("model2-jm"))
    qtbot.waitUntil(lambda: panel.method_ranker is not None, timeout=10_000)
    panel.set_query("disk cache")
    expected = make_ranker("model2-jm", model=model, collection=collection).rank("disk cache")
    head = panel.results.horizontalHeaderItem(3)
    assert head.text() == "Model 2 (jm) P(expert)" and "7 held-out documents" in head.toolTip()
    for row in range(5):
        assert float(panel.results.item(row, 3).text()) == pytest.approx(
            expected.p_expert[row], abs=5e-5)
    # back to Log-linear: ranks again at once, under its own name
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("loglinear"))
    assert panel.ranked_by == "loglinear" and panel.ranking.method == "loglinear"
    assert head.text() == "Log-linear P(expert)"
    assert "ranked by Log-linear" in panel.words_label.text()
    panel.query_edit.clear()
    state.set_model(None, None)  # no ranking: no method's name over an empty list
    assert panel.results.rowCount() == 0 and head.text() == "Score" and not head.toolTip()
    state.runner.stop_all()


def test_a_topic_shows_each_persons_own_score_and_says_why_not_p_expert(qtbot, collection,
                                                                        model, tmp_path):
    """P(expert) is calibrated for whole documents only (issue 42): a topic's column is the
    method's own score, and the line under the query, the column's tip and the export say
    why; a whole document gets P(expert)."""
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, None)
    state.set_model(with_fits(model, kinds=("whole document",)), None)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("model2-jm"))
    qtbot.waitUntil(lambda: panel.method_ranker is not None, timeout=10_000)
    panel.set_query("disk cache")
    head = panel.results.horizontalHeaderItem(3)
    assert head.text() == "Model 2 (jm): log P(q|c)" and NO_P_EXPERT_TOPIC in head.toolTip()
    assert panel.ranking.p_expert is None
    assert html.escape(NO_P_EXPERT_TOPIC) in panel.words_label.text()
    panel.save_ranking(tmp_path / "r.csv", trec=False)
    with open(tmp_path / "r.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert "P(expert)" not in row and row["p_expert"] == f"no P(expert): {NO_P_EXPERT_TOPIC}"
    panel.set_query(" ".join(["disk cache"] * 7))  # 14 known words: a whole document
    assert panel.ranking.p_expert is not None and head.text() == "Model 2 (jm) P(expert)"
    state.runner.stop_all()


def test_a_fit_of_z_alone_from_before_issue_42_shows_the_own_score(qtbot, collection, model):
    """A model calibrated before issue 42 keeps sigmoid(a z + b), which made the top person of
    a near-uniform answer near-certain: the panel shows the method's own score, and why."""
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, None)
    old = {"slope": 1.5, "intercept": -3.0, "queries": 7}
    state.set_model(dataclasses.replace(with_fits(model), calibration={
        **with_fits(model).calibration, "probability": {"model2-jm": old}}), None)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("model2-jm"))
    qtbot.waitUntil(lambda: panel.method_ranker is not None, timeout=10_000)
    panel.set_query("disk cache")
    head = panel.results.horizontalHeaderItem(3)
    assert panel.ranking.p_expert is None and "P(expert)" not in head.text()
    assert NO_P_EXPERT_FIT in head.toolTip()
    state.runner.stop_all()


def test_every_method_change_ranks_again_and_exports_what_is_shown(qtbot, collection, model,
                                                                    tmp_path):
    state = AppState()
    panel = QueryPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, None)
    state.set_model(model, None)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("model1-jm"))
    panel.query_edit.setText("disk cache")
    qtbot.waitUntil(lambda: panel.ranked_by == "model1-jm", timeout=10_000)
    panel.method_combo.setCurrentIndex(panel.method_combo.findData("loglinear"))
    assert panel.ranked_by == "loglinear"
    panel.save_ranking(tmp_path / "r.csv", trec=False)
    with open(tmp_path / "r.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["method"] for r in rows} == {"Log-linear"}
    assert [r["person_id"] for r in rows][:3] == [
        model.person_ids[p] for p in panel.ranking.people[:3]]
    state.runner.stop_all()


def test_only_the_chosen_people_are_ranked(panel, model):
    chosen = [model.person_ids[i] for i in (5, 1, 3)]
    panel.set_query("disk cache")
    full = [model.person_ids[p] for p in panel.ranking.people]
    panel.set_people(chosen)
    shown = [panel.results.item(r, 1).text() for r in range(panel.results.rowCount())]
    assert shown == [p for p in full if p in chosen]
    assert panel.people_button.text() == "People: 3 chosen"
    assert "among the 3 people chosen" in panel.words_label.text()
    panel.set_people([])
    assert panel.results.rowCount() == len(full)


def test_the_people_dialog_names_a_line_that_matches_nobody(qtbot, model):
    from expert_gui.gui.people_filter import PeopleFilterDialog

    dialog = PeopleFilterDialog(model.person_ids, model.person_names, [])
    qtbot.addWidget(dialog)
    dialog.text.setPlainText(f"{model.person_ids[0]}\nno such person\n")
    dialog.accept()
    assert dialog.problem.text().startswith("the list of people:2: 'no such person' is no ")
    assert dialog.result() == 0  # not accepted
    dialog.text.setPlainText(f"{model.person_ids[2]}\n{model.person_names[0]}\n")
    dialog.accept()
    assert dialog.chosen == [model.person_ids[2], model.person_ids[0]]


def test_ranked_people_and_probabilities_match_eq2(panel, model):
    panel.set_query("disk cache")
    p, _ = _direct_p(model, ["disk", "cache"])
    order = np.argsort(-p, kind="stable")
    table = panel.results
    assert table.rowCount() == model.n_people
    for row in range(table.rowCount()):
        assert table.item(row, 1).text() == model.person_ids[order[row]]
        assert float(table.item(row, 3).text()) == pytest.approx(p[order[row]], abs=5e-5)
    # The bar of the top person is full; the others are their share of the top.
    assert table.item(0, 4).data(Qt.ItemDataRole.UserRole) == pytest.approx(1.0)
    assert table.item(1, 4).data(Qt.ItemDataRole.UserRole) == pytest.approx(
        p[order[1]] / p[order[0]], rel=1e-6)
    assert panel.state.ranking.entropy == pytest.approx(normalized_entropy(p))


def test_unknown_words_are_marked_and_ignored(panel, model):
    panel.set_query("disk zebra cache")
    assert "zebra" in panel.words_label.text() and "Unknown" in panel.words_label.text()
    p, _ = _direct_p(model, ["disk", "cache"])
    assert float(panel.results.item(0, 3).text()) == pytest.approx(p.max(), abs=5e-5)


def test_a_query_of_only_unknown_words_ranks_nobody(panel):
    panel.set_query("zebra giraffe")
    assert panel.results.rowCount() == 0
    assert "knows none" in panel.words_label.text()
    assert not panel.export_button.isEnabled()


def test_explanation_shows_each_words_p_c_given_w_and_supporting_documents(panel, model,
                                                                              collection):
    panel.set_query("disk cache")
    row = 2
    panel.results.setCurrentCell(row, 0)
    person = int(panel.ranking.people[row])
    _, per_word = _direct_p(model, ["disk", "cache"])
    words = panel.words_table
    assert [words.item(r, 0).text() for r in range(words.rowCount())] == ["disk", "cache"]
    for r in range(2):
        assert float(words.item(r, 1).text()) == pytest.approx(np.log(per_word[r, person]),
                                                               abs=5e-4)
    # Supporting documents: this person's documents that hold a query word, most matches first.
    pid = model.person_ids[person]
    expected = {collection.doc_ids[d] for d in collection.documents_of(
        collection.person_index[pid]) if {"disk", "cache"} & set(collection.text(d).split())}
    shown = {panel.docs_table.item(r, 0).toolTip() for r in range(panel.docs_table.rowCount())}
    assert shown <= expected and (len(shown) == min(5, len(expected)))
    if shown:
        assert "<b" in panel.doc_view.toHtml() or "font-weight" in panel.doc_view.toHtml()


def test_export_csv_and_trec_run(panel, tmp_path, model):
    panel.set_query("packet socket")
    panel.save_ranking(tmp_path / "r.csv", trec=False)
    panel.save_ranking(tmp_path / "r.run", trec=True)
    with open(tmp_path / "r.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    ranking = panel.ranking
    assert [r["person_id"] for r in rows] == [model.person_ids[i] for i in ranking.people]
    assert list(rows[0]) == ["rank", "person_id", "name", "log P(c|q)", "P(c|q)", "method",
                             "query", "model", "collection", "exported"]
    probs = [float(r["P(c|q)"]) for r in rows]
    assert probs == sorted(probs, reverse=True) and sum(probs) == pytest.approx(1, abs=1e-4)
    assert [float(r["log P(c|q)"]) for r in rows] == pytest.approx(np.log(probs), abs=1e-4)
    assert {(r["method"], r["query"]) for r in rows} == {("Log-linear", "packet socket")}
    assert rows[0]["exported"][:4].isdigit()
    run = (tmp_path / "r.run").read_text().splitlines()
    assert len(run) == len(rows)
    first = run[0].split()
    assert first[:4] == ["query", "Q0", rows[0]["person_id"], "1"]


def test_completer_completes_the_last_word_from_the_vocabulary(panel):
    completer = panel.completer
    assert completer.splitPath("disk ca") == ["ca"]
    panel.query_edit.setText("disk ca")
    completer.setCompletionPrefix("ca")
    assert completer.currentIndex().data() == "cache"
    assert completer.currentCompletion() == "disk cache"  # the query so far, then the word


def test_changing_the_depth_relists_the_ranking(panel):
    panel.set_query("disk cache")
    panel.depth_spin.setValue(3)
    assert panel.results.rowCount() == 3


def test_a_retrained_model_leaves_the_completion_list_alone(panel, model):
    # under Xvfb, keys typed while a training ended were lost now and then: the new model's
    # words reset the completer's list, which hid its popup with keys on their way to it
    resets = []
    panel.completer.words.modelReset.connect(lambda: resets.append(1))
    panel.state.set_model(model, None)  # the same words: no reset
    assert resets == []
    panel.completer.set_words(["ring", "buffer"])
    assert resets == [1] and panel.completer.words.stringList() == ["ring", "buffer"]


def test_the_name_column_is_left_out_where_names_only_repeat_the_ids(panel, model):
    """AMiner's people are c0001...: a Name column beside Person repeated every id and took
    half the room the ids needed."""
    panel.set_query("disk cache")
    assert not panel.results.isColumnHidden(2)  # the fixture's people have names
    panel.state.set_model(dataclasses.replace(model, person_names=list(model.person_ids)), None)
    panel.set_query("disk")
    table = panel.results
    assert table.item(0, 2).text() == table.item(0, 1).text()
    assert table.isColumnHidden(2)
    assert table.columnWidth(1) >= table.sizeHintForColumn(1)  # the ids whole
    panel.state.set_model(model, None)
    panel.set_query("cache")
    assert not table.isColumnHidden(2)


def test_the_completion_list_leaves_the_line_under_the_query_readable(qtbot, panel):
    """The list of words opens below the line that explains the ranking, not over it."""
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_query("disk cache")
    explanation = panel.words_label
    assert explanation.text()
    panel.query_edit.setFocus()
    panel.query_edit.clear()
    qtbot.keyClicks(panel.query_edit, "c")
    popup = panel.completer.popup()
    qtbot.waitUntil(popup.isVisible, timeout=5_000)

    def line():
        return explanation.rect().translated(explanation.mapToGlobal(QPoint(0, 0)))

    assert not popup.geometry().intersects(line())
    assert popup.geometry().top() >= line().bottom()
    height = explanation.height()
    explanation.setText(explanation.text() + "<br>a line more")  # it grows under the open list
    qtbot.waitUntil(lambda: explanation.height() > height, timeout=5_000)
    qtbot.waitUntil(lambda: popup.geometry().top() >= line().bottom(), timeout=5_000)
