"""P(expert): the logistic fit of the answer's features against scikit-learn, what a
near-uniform answer gets, the query types it is shown for, and its use in rankings."""

import numpy as np
import pytest
from rankers_helpers import p_expert_fit, random_model, tiny_collection

from expert_gui.core.evaluation.probability_fit import (
    calibration_error,
    fit_expert_probability,
    fit_logistic,
    short_queries,
)
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.probability import (
    ExpertProbability,
    expert_probabilities,
    feature_matrix,
    query_parts,
    sigmoid,
)
from expert_gui.core.rankers.query_type import NO_P_EXPERT_TOPIC


def test_sigmoid_is_exact_and_does_not_overflow():
    assert sigmoid(np.array([0.0]))[0] == 0.5
    np.testing.assert_allclose(sigmoid(np.array([2.0, -3.0])),
                               1 / (1 + np.exp(-np.array([2.0, -3.0]))))
    assert sigmoid(np.array([-800.0, 800.0])).tolist() == [0.0, 1.0]


def _queries(rng, n: int, people: int = 30):
    """Queries whose answers are peaked (the right person stands out) or flat (their scores
    nearly equal, the right person anywhere), of 1 to 40 known words."""
    scores, words, relevant = [], [], []
    for q in range(n):
        right = int(rng.integers(people))
        row = rng.normal(size=people)
        if q % 2:  # peaked: a log-probability far above the rest
            row[right] += rng.uniform(2, 8)
            row *= 3
        else:  # flat: differences of a thousandth, the right person unrelated to them
            row *= 1e-3
        scores.append(row)
        words.append(int(rng.integers(1, 40)))
        relevant.append(np.array([right]))
    return np.array(scores), np.array(words), relevant


def test_the_fit_agrees_with_scikit_learn_on_the_same_features():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    scores, words, relevant = _queries(rng, 400)
    fit = fit_expert_probability(scores, np.ones(len(scores), dtype=bool), words, relevant)
    x = feature_matrix(*query_parts(scores, words))
    y = np.zeros(scores.shape)
    for q, r in enumerate(relevant):
        y[q, r] = 1
    reference = LogisticRegression(C=1e12, tol=1e-12, max_iter=100_000).fit(x[:, :-1],
                                                                           y.ravel())
    want = [*reference.coef_[0], reference.intercept_[0]]
    np.testing.assert_allclose(fit["weights"], want, rtol=1e-3, atol=1e-3)
    assert fit["queries"] == 400 and fit["features"] == ["z*peak", "z*peak*words", "peak",
                                                         "words"]


def test_weighted_examples_are_repeated_examples():
    rng = np.random.default_rng(1)
    x = np.column_stack([rng.normal(size=300), np.ones(300)])
    y = (rng.random(300) < sigmoid(2 * x[:, 0] - 1)).astype(float)
    twice = fit_logistic(np.vstack([x, x[:50]]), np.concatenate([y, y[:50]]))
    weighted = fit_logistic(x, y, np.r_[np.full(50, 2.0), np.ones(250)])
    np.testing.assert_allclose(weighted, twice, rtol=1e-9)


def test_separable_examples_give_a_finite_steep_fit():
    x = np.column_stack([[-2.0, -1.0, 1.0, 2.0], np.ones(4)])
    w = fit_logistic(x, np.array([0.0, 0.0, 1.0, 1.0]))
    assert np.isfinite(w).all() and w[0] > 5


def test_a_near_uniform_answer_makes_nobody_near_certain():
    """Whatever the fit, nearly equal scores give everyone nearly the same P(expert), near the
    base rate of a flat answer; a peaked answer's top person is far likelier (issue 42: 0.931
    at normalized entropy 0.992)."""
    rng = np.random.default_rng(2)
    scores, words, relevant = _queries(rng, 600)
    fit = fit_expert_probability(scores, np.ones(len(scores), dtype=bool), words, relevant)
    flat = np.linspace(0, 1e-3, 30)
    p = expert_probabilities(flat, 3, fit["weights"])
    assert p.max() < 0.1 and p.max() - p.min() < 0.01
    assert p.max() == pytest.approx(1 / 30, abs=0.03)  # one right person among 30
    peaked = np.r_[30.0, np.zeros(29)]
    assert expert_probabilities(peaked, 3, fit["weights"])[0] > 0.8
    for weights in ([50.0, 5.0, 0.0, 0.0, -2.0], [1e3, 0.0, 0.0, 0.0, -2.0]):  # steep in z
        p = expert_probabilities(flat, 3, weights)
        assert p.max() < 0.5 and p.max() - p.min() < 1e-3


def test_p_expert_follows_the_ranking_within_a_query():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=40) * 4
    for weights in ([1.0, 0.2, 1.0, 0.0, -2.0], [-5.0, 0.1, 0.0, 0.0, -1.0]):
        p = expert_probabilities(scores, 4, weights)
        order = np.argsort(-scores)
        assert (np.diff(p[order]) <= 1e-15).all()  # never against the method's order


def test_the_fit_skips_queries_without_known_words_and_subsamples_many_negatives(monkeypatch):
    from expert_gui.core.evaluation import probability_fit

    rng = np.random.default_rng(4)
    scores, words, relevant = _queries(rng, 300)
    knows = np.ones(300, dtype=bool)
    knows[::7] = False
    whole = fit_expert_probability(scores, knows, words, relevant)
    assert whole["queries"] == int(knows.sum())
    assert fit_expert_probability(scores[:1], np.array([False]), words[:1], relevant[:1]) is None
    monkeypatch.setattr(probability_fit, "MAX_EXAMPLES", 3000)  # of 7,710: every 3rd negative
    sampled = fit_expert_probability(scores, knows, words, relevant)
    np.testing.assert_allclose(sampled["weights"], whole["weights"], rtol=0.3, atol=0.3)


def test_calibration_error_over_equal_width_bins():
    p = np.array([0.05, 0.05, 0.95, 0.95, 0.55])
    y = np.array([0, 0, 1, 0, 1])
    error, curve = calibration_error(p, y)
    # bin 0: 0.05 vs 0 (2/5); bin 9: 0.95 vs 0.5 (2/5); bin 5: 0.55 vs 1 (1/5)
    assert error == pytest.approx(0.4 * 0.05 + 0.4 * 0.45 + 0.2 * 0.45)
    assert [c[:2] for c in curve] == [(0, 2), (5, 1), (9, 2)]


def test_short_queries_are_a_few_consecutive_words_of_each_document():
    docs = [["fix", "ring", "<num>", "queue", "size", "limit"], ["mempool"]]
    queries, sources = short_queries(docs, seed=0)
    assert sources == [0, 0, 1, 1]
    for q in queries[:2]:
        words = q.split()
        assert 1 <= len(words) <= 4 and " ".join(words) in "fix ring queue size limit"
    assert queries[2:] == ["mempool", "mempool"]
    assert short_queries(docs, seed=0) == (queries, sources)


def test_a_topic_gets_each_persons_own_score_and_why():
    c = tiny_collection()
    whole_only = ExpertProbability(make_ranker("model1-jm", collection=c),
                                   p_expert_fit(kinds=("whole document",)))
    topic = whole_only.rank("ring")
    assert topic.p_expert is None and topic.extra["no_p_expert"] == NO_P_EXPERT_TOPIC
    assert len(topic) == 4 and "p_expert" not in topic.extra
    document = whole_only.rank(" ".join(["ring"] * 13))  # 13 known words: a whole document
    assert document.p_expert is not None and "no_p_expert" not in document.extra
    batch = whole_only.rank_batch(["ring", " ".join(["ring"] * 13)])
    assert batch[0].p_expert is None and batch[0].extra["no_p_expert"] == NO_P_EXPERT_TOPIC
    np.testing.assert_allclose(batch[1].p_expert, document.p_expert)


def test_p_expert_in_rankings_is_the_fit_of_the_whole_answer():
    c = tiny_collection()
    fit = p_expert_fit()
    ranker = ExpertProbability(make_ranker("model1-jm", collection=c), fit)
    full = ranker.ranker.rank("ring queue")
    scores = np.empty(len(full.person_ids))
    scores[full.people] = full.scores
    want = expert_probabilities(scores, 2, fit["weights"])[full.people]
    np.testing.assert_allclose(ranker.rank("ring queue").p_expert, want)
    assert ranker.name == "model1-jm" and ranker.rank("ring", depth=2).p_expert.shape == (2,)
    assert ranker.rank("zebra").no_known_words


def test_make_ranker_carries_p_expert_only_for_a_usable_fit_and_its_options():
    c = tiny_collection()
    model = random_model(c)
    model.calibration = {"probability": {"loglinear": p_expert_fit(),
                                         "model2-jm": {"slope": 1.0, "intercept": 0.0,
                                                       "queries": 3}}}
    try:
        assert make_ranker("loglinear", model=model).rank("ring").p_expert is not None
        assert make_ranker("loglinear", model=model, aggregation="sum").rank(
            "ring").p_expert is not None
        assert make_ranker("loglinear", model=model, aggregation="mean").rank(
            "ring").p_expert is None
        assert make_ranker("loglinear", model=model, p_expert=False).rank(
            "ring").p_expert is None
        # a fit of z alone, from before issue 42, is not used
        assert make_ranker("model2-jm", model=model, collection=c).rank(
            "ring").p_expert is None
    finally:
        model.calibration = None
