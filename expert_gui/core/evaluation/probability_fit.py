"""Fitting P(expert) = sigmoid(a z + b) (rankers/probability.py) on the held-out documents: a
logistic regression of "is one of the document's people" on the per-query z-score, every
candidate of every held-out query being one example."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expert_gui.core.rankers.fusion import zscores

ITERATIONS = 100
RIDGE = 1e-6  # keeps a and b finite when the examples are separable
TOLERANCE = 1e-13  # Newton's method stops when a step would raise the objective less (relative)
WARM_START = 100_000  # examples of the subsample whose fit starts the fit of more examples


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(a, b) maximising sum log P(y | sigmoid(a x + b)) (with a negligible ridge), by Newton's
    method with step halving, until a step would raise the objective by less than TOLERANCE
    of it (its Newton decrement: from there the step lands on the optimum to many more
    digits than the objective's change would show). With one feature the gradient and the Hessian are a few sums over
    the examples, taken without forming the design matrix (1.3 million examples per method on
    DPDK's held-out documents, 29 million on DPDK copied 20 times).

    Past WARM_START examples, Newton's method starts from the fit of an evenly spaced
    subsample of them, which leaves it two or three steps from the optimum instead of a dozen:
    the objective is strictly concave, so it ends at the same optimum, to the same tolerance."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    start = None
    if len(x) > 2 * WARM_START:
        sub = slice(None, None, len(x) // WARM_START)
        if 0 < y[sub].sum() < len(y[sub]):
            start = _newton(x[sub], y[sub], None)
    return tuple(float(v) for v in _newton(x, y, start))


def _newton(x: np.ndarray, y: np.ndarray, beta: np.ndarray | None) -> np.ndarray:
    positive = y > 0
    y_x, y_1, x_1 = float(x[positive] @ y[positive]), float(y.sum()), float(x.sum())
    if beta is None:
        rate = min(max(y.mean(), 1e-9), 1 - 1e-9)
        beta = np.array([0.0, np.log(rate / (1 - rate))])
    t, e, q = np.empty_like(x), np.empty_like(x), np.empty_like(x)

    def objective(b: np.ndarray) -> float:
        """The objective at b; leaves t = a x + b and e = exp(-|t|) for `newton_step`."""
        np.multiply(x, b[0], out=t)
        np.add(t, b[1], out=t)
        np.abs(t, out=e)
        absolute = float(e.sum())
        np.negative(e, out=e)
        np.exp(e, out=e)
        np.log1p(e, out=q)
        # sum log(1 + exp(t)) = sum max(t, 0) + log1p(exp(-|t|)), max(t, 0) = (t + |t|) / 2
        softplus = 0.5 * (b[0] * x_1 + b[1] * len(x) + absolute) + float(q.sum())
        return float(b[0] * y_x + b[1] * y_1 - softplus - 0.5 * RIDGE * b @ b)

    def newton_step(b: np.ndarray) -> tuple[np.ndarray, float]:
        """The Newton step from b and the increase it predicts, from the t and e
        `objective(b)` left: p = sigmoid(t) and p (1 - p) = e / (1 + e)^2 on both sides of 0."""
        np.add(e, 1.0, out=q)
        np.reciprocal(q, out=q)  # 1 / (1 + e): p where t >= 0, 1 - p where t < 0
        np.multiply(e, q, out=e)  # e / (1 + e): 1 - p where t >= 0, p where t < 0
        below = t < 0
        p = np.where(below, e, q)
        np.multiply(e, q, out=q)  # p (1 - p)
        wx = q * x
        gradient = np.array([y_x - x @ p, y_1 - p.sum()]) - RIDGE * b
        hessian = np.array([[wx @ x, wx.sum()], [wx.sum(), q.sum()]]) + RIDGE * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        return step, 0.5 * float(gradient @ step)

    current = objective(beta)
    for _ in range(ITERATIONS):
        step, gain = newton_step(beta)
        if gain <= TOLERANCE * max(1.0, abs(current)):  # converged: this step is the last
            return beta + step
        for _ in range(30):
            trial = objective(beta + step)
            if trial >= current:
                break
            step /= 2
        beta, current = beta + step, trial
    return beta


def fit_expert_probability(scores: np.ndarray, knows: np.ndarray,
                           relevant: Sequence[np.ndarray]) -> dict | None:
    """The fit of one method: `scores[i]` are its scores of every candidate for held-out query
    i, `relevant[i]` the indices of that query's people among them; the queries it knows no
    word of (`knows` False) are left out. None when no query is left."""
    rows = np.flatnonzero(knows)
    if not len(rows) or not scores.shape[1]:
        return None
    x = zscores(scores[rows])
    y = np.zeros(x.shape)
    people = [np.asarray(relevant[q], dtype=np.int64) for q in rows]
    y[np.repeat(np.arange(len(rows)), [len(r) for r in people]), np.concatenate(people)] = 1.0
    a, b = fit_logistic(x.ravel(), y.ravel())
    return {"slope": a, "intercept": b, "queries": len(rows)}
