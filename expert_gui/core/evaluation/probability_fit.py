"""Fitting P(expert) = sigmoid(a z + b) (rankers/probability.py) on the held-out documents: a
logistic regression of "is one of the document's people" on the per-query z-score, every
candidate of every held-out query being one example."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expert_gui.core.rankers.fusion import zscores

ITERATIONS = 100
RIDGE = 1e-6  # keeps a and b finite when the examples are separable


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(a, b) maximising sum log P(y | sigmoid(a x + b)) (with a negligible ridge), by Newton's
    method with step halving. With one feature the gradient and the Hessian are a few sums over
    the examples, taken without forming the design matrix (a million examples per method on
    DPDK's held-out documents)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    positive = y > 0
    y_x, y_1 = float(x[positive] @ y[positive]), float(y.sum())
    rate = min(max(y.mean(), 1e-9), 1 - 1e-9)
    beta = np.array([0.0, np.log(rate / (1 - rate))])

    def objective(b: np.ndarray) -> tuple[float, np.ndarray]:
        """The objective at b, and sigmoid(a x + b) (both from one exp(-|t|))."""
        t = b[0] * x + b[1]
        e = np.exp(-np.abs(t))
        softplus = np.maximum(t, 0.0) + np.log1p(e)  # log(1 + exp(t))
        p = np.where(t >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        return float(b[0] * y_x + b[1] * y_1 - softplus.sum() - 0.5 * RIDGE * b @ b), p

    current, p = objective(beta)
    for _ in range(ITERATIONS):
        w = p * (1 - p)
        wx = w * x
        gradient = np.array([y_x - x @ p, y_1 - p.sum()]) - RIDGE * beta
        hessian = np.array([[wx @ x, wx.sum()], [wx.sum(), w.sum()]]) + RIDGE * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        for _ in range(30):
            trial, p_trial = objective(beta + step)
            if trial >= current:
                break
            step /= 2
        beta, previous, current, p = beta + step, current, trial, p_trial
        if abs(current - previous) <= 1e-12 * max(1.0, abs(current)):
            break
    return float(beta[0]), float(beta[1])


def fit_expert_probability(scores: Sequence[np.ndarray | None],
                           relevant: Sequence[np.ndarray]) -> dict | None:
    """The fit of one method: `scores[i]` are its scores of every candidate for held-out query
    i (None: it knows no word of the query, which is left out), `relevant[i]` the indices of
    that query's people among them. None when no query is left."""
    xs, ys = [], []
    for s, rel in zip(scores, relevant, strict=True):
        if s is None or not len(s):
            continue
        label = np.zeros(len(s))
        label[np.asarray(rel, dtype=np.int64)] = 1.0
        xs.append(zscores(s))
        ys.append(label)
    if not xs:
        return None
    a, b = fit_logistic(np.concatenate(xs), np.concatenate(ys))
    return {"slope": a, "intercept": b, "queries": len(xs)}
