"""P(expert) = sigmoid(a z + b): the logistic fit against scikit-learn, and its use in rankings."""

import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.evaluation.probability_fit import fit_expert_probability, fit_logistic
from expert_gui.core.rankers.fusion import zscores
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.probability import ExpertProbability, sigmoid


def test_sigmoid_is_exact_and_does_not_overflow():
    assert sigmoid(np.array([0.0]))[0] == 0.5
    np.testing.assert_allclose(sigmoid(np.array([2.0, -3.0])),
                               1 / (1 + np.exp(-np.array([2.0, -3.0]))))
    assert sigmoid(np.array([-800.0, 800.0])).tolist() == [0.0, 1.0]


def test_logistic_fit_agrees_with_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    x = rng.normal(size=4000)
    y = (rng.random(4000) < sigmoid(1.7 * x - 2.5)).astype(float)
    a, b = fit_logistic(x, y)
    reference = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(x[:, None], y)
    assert a == pytest.approx(reference.coef_[0, 0], rel=1e-4)
    assert b == pytest.approx(reference.intercept_[0], rel=1e-4)
    assert a == pytest.approx(1.7, abs=0.2) and b == pytest.approx(-2.5, abs=0.2)


def test_separable_examples_give_a_finite_steep_fit():
    a, b = fit_logistic(np.array([-2.0, -1.0, 1.0, 2.0]), np.array([0.0, 0.0, 1.0, 1.0]))
    assert np.isfinite(a) and np.isfinite(b) and a > 5


def test_fit_uses_each_querys_z_scores_and_skips_queries_without_words():
    rng = np.random.default_rng(1)
    scores = [rng.normal(size=8) * s + m for s, m in ((1, 0), (10, -50), (0.1, 3))]
    relevant = [np.array([int(np.argmax(s))]) for s in scores]
    fit = fit_expert_probability(np.array([*scores, np.zeros(8)]),
                                 np.array([True, True, True, False]),
                                 [*relevant, np.array([0])])
    x = np.concatenate([zscores(s) for s in scores])
    y = np.concatenate([np.eye(8)[r[0]] for r in relevant])
    assert (fit["slope"], fit["intercept"]) == pytest.approx(fit_logistic(x, y))
    assert fit["queries"] == 3
    assert fit_expert_probability(np.zeros((1, 8)), np.array([False]), [np.array([0])]) is None


def test_a_fit_of_many_examples_started_from_a_subsample_ends_where_a_cold_start_does(
        monkeypatch):
    """Past WARM_START examples Newton's method starts from a subsample's fit: the objective is
    strictly concave, so it ends at the same optimum as from the usual start."""
    from expert_gui.core.evaluation import probability_fit

    rng = np.random.default_rng(2)
    x = rng.normal(size=300_000)
    y = (rng.random(len(x)) < sigmoid(2.2 * x - 6.0)).astype(float)
    warm = fit_logistic(x, y)
    monkeypatch.setattr(probability_fit, "WARM_START", len(x))
    cold = fit_logistic(x, y)
    assert warm == pytest.approx(cold, rel=1e-9)
    assert warm == pytest.approx((2.2, -6.0), rel=0.05)


def test_p_expert_is_the_same_for_a_query_whatever_its_scale():
    c = tiny_collection()
    ranker = ExpertProbability(make_ranker("model1-jm", collection=c),
                               {"slope": 1.2, "intercept": -1.0, "queries": 4})
    short, long = ranker.rank("ring"), ranker.rank("ring ring ring ring")
    assert long.scores[0] < short.scores[0] - 1  # log P(q|c) tracks the query's length
    np.testing.assert_allclose(long.scores, 4 * short.scores)
    np.testing.assert_allclose(short.p_expert, long.p_expert)  # P(expert) does not
    assert ranker.name == "model1-jm" and ranker.rank("ring", depth=2).p_expert.shape == (2,)
    assert ranker.rank("zebra").no_known_words


def test_make_ranker_carries_p_expert_only_for_the_options_it_was_fitted_with():
    c = tiny_collection()
    model = random_model(c)
    model.calibration = {"probability": {"loglinear": {"slope": 1.0, "intercept": 0.0,
                                                       "queries": 3}}}
    try:
        assert make_ranker("loglinear", model=model).rank("ring").p_expert is not None
        assert make_ranker("loglinear", model=model, aggregation="sum").rank(
            "ring").p_expert is not None
        assert make_ranker("loglinear", model=model, aggregation="mean").rank(
            "ring").p_expert is None
        assert make_ranker("loglinear", model=model, p_expert=False).rank(
            "ring").p_expert is None
        assert make_ranker("model2-jm", model=model, collection=c).rank(
            "ring").p_expert is None  # no fit for it
    finally:
        model.calibration = None
