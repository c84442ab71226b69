"""Entropy, nearest-terms and comparison panels, each checked against an independent
computation: numpy for Eq. 6 and the distances, scikit-learn's PCA for the map, np.corrcoef for R."""

import html

import numpy as np
import pytest
from sklearn.decomposition import PCA

from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.gui.panels.comparison import ComparisonPanel
from expert_gui.gui.panels.entropy import EntropyPanel, topic_entropies
from expert_gui.gui.panels.neighbours import NeighboursPanel, project_words
from expert_gui.gui.panels.query import QueryPanel
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui


@pytest.fixture
def state(collection, model, collection_path):
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.evaluation.qrels import read_qrels

    s = AppState()
    s.set_collection(collection, collection_path)
    s.set_model(model, None)
    s.set_topics({t.id: t.query for t in read_topics(collection_path / "topics.tsv")}, None)
    s.set_qrels(read_qrels(collection_path / "qrels.txt"), None)
    yield s
    s.runner.stop_all()


def _entropy(p):
    """Eq. 6 by hand."""
    return float(-(p * np.log(p)).sum() / np.log(len(p)))


def test_entropy_panel_shows_the_query_distribution_and_eq6(qtbot, state, model):
    panel = EntropyPanel(state)
    qtbot.addWidget(panel)
    ranking = make_ranker("loglinear", model=model).rank("disk cache")
    state.set_ranking(ranking)
    heights = panel.bars.opts["height"]
    assert np.allclose(heights, np.sort(ranking.probabilities)[::-1])
    assert f"{_entropy(ranking.probabilities):.3f}" in panel.query_label.text()


def test_topic_entropies_histogram_and_pearson_r(qtbot, state):
    panel = EntropyPanel(state)
    qtbot.addWidget(panel)
    panel.compute()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=30_000)
    result = panel.result
    ranker = make_ranker("loglinear", model=state.model)
    expected = [_entropy(ranker.rank(q).probabilities) for q in state.topics.values()]
    assert np.allclose(result.entropy, expected)
    _, counts = panel.histogram.getData()
    assert counts.sum() == len(state.topics)
    fit = result.fit
    assert fit.r == pytest.approx(np.corrcoef(fit.entropy, fit.ap)[0, 1])
    slope, intercept = np.polyfit(fit.entropy, fit.ap, 1)
    assert (fit.slope, fit.intercept) == pytest.approx((slope, intercept))
    assert "Pearson's R" in panel.topics_label.text()


def test_topic_entropies_without_qrels_has_no_fit(state):
    result = topic_entropies(state.model, dict(state.topics), {})
    assert result.fit is None and len(result.entropy) == len(state.topics)


def test_pca_map_matches_scikit_learn_up_to_sign(model):
    word_map = project_words(model.word_embeddings, "PCA", n_words=20)
    reference = PCA(n_components=2).fit_transform(
        model.word_embeddings[word_map.word_ids].astype(np.float64))
    for axis in range(2):
        a, b = word_map.xy[:, axis], reference[:, axis]
        assert np.allclose(a, b, atol=1e-6) or np.allclose(a, -b, atol=1e-6)


def test_neighbours_table_matches_direct_distances_and_click_queries(qtbot, state, model):
    panel = NeighboursPanel(state)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.word_map is not None, timeout=30_000)
    panel.k_spin.setValue(5)
    panel.metric_combo.setCurrentText("cosine")
    panel.words_edit.setText("disk")
    panel.find()
    emb = model.word_embeddings.astype(np.float64)
    target = emb[model.vocab.index["disk"]]
    cos = 1 - emb @ target / (np.linalg.norm(emb, axis=1) * np.linalg.norm(target))
    cos[[0, model.vocab.index["disk"]]] = np.inf
    order = np.argsort(cos, kind="stable")[:5]
    assert [panel.table.item(r, 0).text() for r in range(5)] == \
        [model.vocab.words[i] for i in order]
    assert float(panel.table.item(0, 1).text()) == pytest.approx(cos[order[0]], abs=1e-4)
    assert len(panel.labels) == 6  # the word and its five neighbours, named on the map
    asked = []
    state.query_requested.connect(asked.append)
    panel.table.cellDoubleClicked.emit(0, 0)
    assert asked == [model.vocab.words[order[0]]]


def test_comparison_ranks_side_by_side_with_rank_changes(qtbot, state, model, collection):
    panel = ComparisonPanel(state)
    qtbot.addWidget(panel)
    panel._build_model2()
    qtbot.waitUntil(lambda: panel.model2 is not None, timeout=30_000)
    query = QueryPanel(state)
    qtbot.addWidget(query)
    query.set_query("packet socket")
    loglinear = state.ranking
    model2 = make_ranker("model2-jm", collection=collection).rank("packet socket")
    table = panel.rank_tables["model2"]
    base = {loglinear.person_ids[p]: r for r, p in enumerate(loglinear.people, start=1)}
    names = dict(zip(model.person_ids, model.person_names, strict=True))
    for row in range(table.rowCount()):
        pid = model2.person_ids[model2.people[row]]
        assert table.item(row, 2).text() == names[pid]
        delta = base[pid] - (row + 1)
        assert table.item(row, 1).text() == (f"{delta:+d}" if delta else "·")


def test_comparison_evaluation_builds_tables_2_and_4(qtbot, state):
    panel = ComparisonPanel(state)
    qtbot.addWidget(panel)
    assert panel.evaluate_button.isEnabled()
    panel.evaluate()
    qtbot.waitUntil(lambda: panel.evaluation is not None, timeout=120_000)
    ev = panel.evaluation
    assert ev.n_topics == 6
    rows = [panel.table2.item(r, 0).text() for r in range(panel.table2.rowCount())]
    assert rows[-2:] == ["Log-linear (reference)", "Auto (fusion)"] and len(rows) == 9
    assert "Model 1 (d, doc. length)" in rows
    assert panel.table4.item(2, 0).text() == "Ensemble (reference)"
    assert panel.table2.item(7, 1).text().startswith(f"{ev.table2.means['loglinear']['AP']:.3f}")
    assert len(ev.difference.difference) == 6


def test_judgments_matching_no_topic_or_person_are_refused_and_say_so(qtbot, state, window,
                                                                      collection):
    from expert_gui.gui.panels.comparison import evaluate_methods

    qrels = dict(state.qrels)
    with pytest.raises(QueryError, match="none of the 6 topic ids of the qrels"):
        evaluate_methods(state.model, collection, {"q1": "disk"}, qrels)
    strangers = {t: {f"x{p}": g for p, g in judged.items()} for t, judged in qrels.items()}
    with pytest.raises(QueryError, match="people the qrels judge relevant is a person"):
        evaluate_methods(state.model, collection, dict(state.topics), strangers)
    assert topic_entropies(state.model, dict(state.topics), strangers).fit is None
    # the collection panel says how many match
    window.state.set_collection(collection, None)
    window.state.set_topics(dict(state.topics), None)
    window.state.set_qrels(strangers, None)
    label = window.collection_panel.topics_label
    assert "6 topics, qrels for 6 of them; 0 of the" in label.text() and "c92a2a" in label.text()
    assert "is a person of the collection" in label.toolTip()


def test_evaluation_within_the_people_chosen(qtbot, state, collection):
    from expert_gui.core.evaluation.evaluate import evaluate
    from expert_gui.core.evaluation.qrels import relevant, restrict
    from expert_gui.core.rankers.candidates import Restricted
    from expert_gui.gui.panels.comparison import evaluate_methods

    first = sorted(state.qrels)[0]
    people = sorted(relevant(state.qrels, first))[:1] + [
        p for p in state.model.person_ids if p not in relevant(state.qrels, first)][:2]
    ev = evaluate_methods(state.model, collection, dict(state.topics), state.qrels,
                          people=people)
    kept, _ = restrict(state.qrels, people)
    judged = [t for t in state.topics if t in kept]
    assert ev.people == 3 and ev.n_topics == len(judged) < 6
    ranker = Restricted(make_ranker("loglinear", model=state.model), people)
    want, rankings = evaluate(ranker, dict(state.topics), kept, judged)
    assert ev.table2.means["loglinear"]["AP"] == pytest.approx(want.mean("AP"))
    assert all({p for p, _ in r.top()} <= set(people) for r in rankings.values())
    panel = ComparisonPanel(state)
    qtbot.addWidget(panel)
    state.set_people(people)
    panel.evaluate()
    qtbot.waitUntil(lambda: panel.evaluation is not None, timeout=120_000)
    assert "within the 3 people chosen in the Query panel" in panel.eval_label.text()


def test_tsne_map_places_every_drawn_word(model):
    word_map = project_words(model.word_embeddings, "t-SNE", n_words=20)
    assert word_map.xy.shape == (len(word_map.word_ids), 2)
    assert np.isfinite(word_map.xy).all() and word_map.axes is None


def test_comparison_says_which_method_works_best_on_the_held_out_documents(qtbot, state,
                                                                            collection):
    from expert_gui.core.evaluation.calibration import train_with_held_out
    from expert_gui.core.train.settings import TrainSettings

    panel = ComparisonPanel(state)
    qtbot.addWidget(panel)
    assert not panel.heldout_button.isEnabled() and "Train a model" in panel.heldout_label.text()
    model = train_with_held_out(collection, TrainSettings(dim=8, epochs=2, batch_size=64,
                                                          checkpoint_every=0))
    state.set_model(model, None)
    measures = {m: v for m, v in model.calibration["measures"].items() if m != "chance"}
    best = max(measures, key=lambda m: measures[m]["AP"])
    rows = [panel.heldout_table.item(r, 0).text() for r in range(panel.heldout_table.rowCount())]
    assert len(rows) == 11 and "Auto (fusion)" in rows and "LSI" in rows
    assert rows[-1] == "Chance (random ranking)"  # the floor, last
    assert panel.heldout_table.item(0, 1).text() == f"{measures[best]['AP']:.3f}"
    assert "Best on this collection" in panel.heldout_label.text()
    assert f"Auto: {auto_label(model.calibration)}" in html.unescape(panel.heldout_label.text())
    assert "trained again, with the same settings" in panel.heldout_label.text()
    panel.measure_held_out()
    assert not panel.heldout_button.isEnabled()
    qtbot.waitUntil(panel.heldout_button.isEnabled, timeout=60_000)
    assert panel.heldout_table.rowCount() == 11
    maps = [float(panel.heldout_table.item(r, 1).text()) for r in range(10)]
    assert maps == sorted(maps, reverse=True)
    assert panel.heldout_table.item(10, 0).text() == "Chance (random ranking)"
    # the model kept has seen the held-out documents: the methods that use it keep the
    # calibration's figures (of the model measured); the baselines, measured again, agree
    shown = {panel.heldout_table.item(r, 0).text(): panel.heldout_table.item(r, 1).text()
             for r in range(10)}
    for method in ("loglinear", "auto", "ensemble", "model2-jm", "tfidf"):
        assert shown[label(method)] == f"{measures[method]['AP']:.3f}", method


@pytest.mark.parametrize("method", ["PCA", "t-SNE"])
@pytest.mark.parametrize("n_words", [0, 1, 2])
def test_the_word_map_of_a_tiny_vocabulary_has_two_axes(method, n_words):
    """A collection whose words are mostly numbers folds them into one token: one or two words
    must still give a map (they once gave an IndexError)."""
    embeddings = np.random.default_rng(0).normal(size=(n_words + 1, 5))
    word_map = project_words(embeddings, method)
    assert word_map.xy.shape == (n_words, 2) and len(word_map.word_ids) == n_words
    assert np.isfinite(word_map.xy).all()
