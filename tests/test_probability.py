"""P(expert) = sigmoid(a z + b): the logistic fit against scikit-learn, and its use in rankings."""

import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.evaluation.probability_fit import fit_expert_probability, fit_positives
from expert_gui.core.rankers.fusion import zscores
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.probability import ExpertProbability, sigmoid


def fit_logistic(x, y):
    """The fit of examples x with labels y (1 or 0), as the app fits them: by the positives'
    indices."""
    return fit_positives(np.asarray(x, dtype=np.float64).ravel(), np.flatnonzero(y))


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
    """Past WARM_START examples Newton's method starts from a stratified sample's optimum: the
    objective is strictly concave, so it ends at the same optimum as from the usual start."""
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


def _textbook_logistic(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Newton's method on the design matrix [x, 1], written out (IRLS): the reference."""
    design = np.column_stack([x, np.ones_like(x)])
    beta = np.zeros(2)
    for _ in range(200):
        p = 1 / (1 + np.exp(-(design @ beta)))
        gradient = design.T @ (y - p) - ridge * beta
        hessian = (design * (p * (1 - p))[:, None]).T @ design + ridge * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        beta = beta + step
        if np.abs(step).max() < 1e-15 * max(1.0, np.abs(beta).max()):
            break
    return beta


@pytest.mark.parametrize("chunk", [7, 1000, 16_384])
def test_the_fit_in_pieces_is_the_textbook_newton_fit(monkeypatch, chunk):
    """The objective, gradient and Hessian summed piece by piece (the last piece shorter), the
    labels given as the positives' indices: the optimum of the textbook fit, to 1e-10."""
    from expert_gui.core.evaluation import probability_fit

    monkeypatch.setattr(probability_fit, "CHUNK", chunk)
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.normal(size=4990), [9.0, -9.0, 40.0, -35.0]])  # tails: t < 0, > 0
    y = (rng.random(len(x)) < sigmoid(1.3 * x - 3.0)).astype(float)
    want = _textbook_logistic(x, y, probability_fit.RIDGE)
    np.testing.assert_allclose(fit_logistic(x, y), want, rtol=1e-10)
    np.testing.assert_allclose(fit_positives(x, np.flatnonzero(y)), want, rtol=1e-10)


def test_queries_z_scored_a_few_at_a_time_fit_as_all_at_once(monkeypatch):
    from expert_gui.core.evaluation import probability_fit

    rng = np.random.default_rng(6)
    scores = rng.normal(size=(9, 50)) * rng.uniform(0.1, 10, size=(9, 1))
    scores[2, :10] = -np.inf  # people a method rules out
    knows = np.array([True] * 8 + [False])
    relevant = [rng.choice(50, 3, replace=False) for _ in range(9)]
    whole = fit_expert_probability(scores, knows, relevant)
    monkeypatch.setattr(probability_fit, "ROWS_BYTES", 8 * 50 * 2)  # two queries at a time
    assert fit_expert_probability(scores, knows, relevant) == whole
    x = zscores(scores[:8]).ravel()
    y = np.zeros((8, 50))
    for q in range(8):
        y[q, relevant[q]] = 1
    np.testing.assert_allclose((whole["slope"], whole["intercept"]),
                               _textbook_logistic(x, y.ravel(), probability_fit.RIDGE),
                               rtol=1e-10)
