"""Fitting P(expert) = sigmoid(a z + b) (rankers/probability.py) on the held-out documents: a
logistic regression of "is one of the document's people" on the per-query z-score, every
candidate of every held-out query being one example."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from expert_gui.core.rankers.fusion import zscores

ITERATIONS = 100
RIDGE = 1e-6  # keeps a and b finite when the examples are separable
TOLERANCE = 1e-13  # Newton's method stops when a step would raise the objective less (relative)
WARM_START = 100_000  # evenly spaced examples of the sample whose fit starts the fit of more
CHUNK = 16_384  # examples per piece of a pass: its temporaries stay in the CPU's cache
ROWS_BYTES = 8 * 2**20  # queries z-scored at once: zscores' temporaries stay this small


def fit_positives(x: np.ndarray, positives: np.ndarray) -> tuple[float, float]:
    """(a, b) maximising sum log P(y | sigmoid(a x + b)) (with a negligible ridge), y being 1 at
    the indices `positives` (sorted, distinct) and 0 elsewhere, by Newton's method with step
    halving, until a step would raise the objective by less than TOLERANCE of it (its Newton
    decrement: from there the step lands on the optimum to many more digits than the
    objective's change would show). The labels are never written out: the objective, gradient
    and Hessian of one feature are a few sums over the examples, each Newton step one pass over
    x in cache-sized pieces (29 million examples per method on DPDK copied 20 times).

    Past WARM_START examples, Newton's method starts from the optimum of a stratified sample
    of them (every positive, and the negatives among evenly spaced examples, about WARM_START,
    each counting for the `stride` examples it stands for), which leaves it two or three steps
    from the optimum instead of six to ten (on DPDK copied 20 times, one positive in 29,460
    examples: an evenly spaced subsample holds three): the objective is strictly concave, so
    it ends at the same optimum, to the same tolerance."""
    y_x, y_1 = float(x[positives].sum()), float(len(positives))
    start = None
    if len(x) > 2 * WARM_START and 0 < len(positives) < len(x):
        stride = len(x) // WARM_START
        chosen = x[positives]
        kept = x[np.setdiff1d(np.arange(0, len(x), stride), positives)]
        if len(kept):
            start = _newton(lambda a, b: _sums(chosen, a, b) + stride * _sums(kept, a, b),
                            y_x, y_1, len(x), None)
    return tuple(float(v) for v in _newton(lambda a, b: _sums(x, a, b), y_x, y_1, len(x),
                                           start))


def _newton(sums: Callable[[float, float], np.ndarray], y_x: float, y_1: float, n: int,
            beta: np.ndarray | None) -> np.ndarray:
    """Newton's method with step halving on the objective whose `_sums` at (a, b) are
    `sums(a, b)`: y_x is the sum of the positives' x, y_1 their count, n the examples'."""
    if beta is None:
        rate = min(max(y_1 / n, 1e-9), 1 - 1e-9)
        beta = np.array([0.0, np.log(rate / (1 - rate))])
    current, gradient, hessian = _objective(sums, beta, y_x, y_1)
    for _ in range(ITERATIONS):
        step = np.linalg.solve(hessian, gradient)
        if 0.5 * float(gradient @ step) <= TOLERANCE * max(1.0, abs(current)):
            return beta + step  # converged: this step is the last
        for _ in range(30):
            trial = beta + step
            at_trial = _objective(sums, trial, y_x, y_1)
            if at_trial[0] >= current:
                break
            step = step / 2
        beta, (current, gradient, hessian) = trial, at_trial
    return beta


def _objective(sums: Callable[[float, float], np.ndarray], beta: np.ndarray, y_x: float,
               y_1: float) -> tuple[float, np.ndarray, np.ndarray]:
    """The objective at beta = (a, b), its gradient and its Hessian, from the `_sums` there.
    Its sums are of terms of one sign, so that it is exact to far less than the gains the line
    search compares (the sum of max(t, 0) as (a sum x + b n + sum |t|) / 2 cancels to 1e-8 on
    29 million examples, more than a last step's gain)."""
    a, b = float(beta[0]), float(beta[1])
    positive_part, log_terms, p_1, p_x, w_1, w_x, w_xx = (float(v) for v in sums(a, b))
    objective = a * y_x + b * y_1 - positive_part - log_terms - 0.5 * RIDGE * (a * a + b * b)
    gradient = np.array([y_x - p_x, y_1 - p_1]) - RIDGE * np.asarray(beta)
    hessian = np.array([[w_xx, w_x], [w_x, w_1]]) + RIDGE * np.eye(2)
    return objective, gradient, hessian


def _sums(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """The sums over x of max(t, 0), log1p(e), p, p x, p (1 - p), p (1 - p) x and
    p (1 - p) x^2, in one pass in pieces of CHUNK. With t = a x + b and e = exp(-|t|):
    log(1 + exp(t)) = max(t, 0) + log1p(e), p = sigmoid(t) is 1 / (1 + e) where t >= 0 and
    e / (1 + e) where t < 0, and p (1 - p) is their product."""
    size = max(1, min(CHUNK, len(x)))
    t, e, u, p = (np.empty(size) for _ in range(4))
    below = np.empty(size, dtype=bool)
    out = np.zeros(7)
    for start in range(0, len(x), size):
        xc = x[start:start + size]
        m = len(xc)
        tc, ec, uc, pc, bc = t[:m], e[:m], u[:m], p[:m], below[:m]
        np.multiply(xc, a, out=tc)
        np.add(tc, b, out=tc)
        np.maximum(tc, 0.0, out=uc)
        out[0] += uc.sum()
        np.abs(tc, out=ec)
        np.negative(ec, out=ec)
        np.exp(ec, out=ec)
        np.log1p(ec, out=uc)
        out[1] += uc.sum()
        np.add(ec, 1.0, out=uc)
        np.reciprocal(uc, out=uc)  # 1 / (1 + e)
        np.multiply(ec, uc, out=ec)  # e / (1 + e)
        np.less(tc, 0.0, out=bc)
        np.copyto(pc, uc)
        np.copyto(pc, ec, where=bc)  # p
        out[2] += pc.sum()
        out[3] += pc @ xc
        np.multiply(ec, uc, out=ec)  # p (1 - p)
        out[4] += ec.sum()
        np.multiply(ec, xc, out=ec)
        out[5] += ec.sum()
        out[6] += ec @ xc
    return out


def fit_expert_probability(scores: np.ndarray, knows: np.ndarray,
                           relevant: Sequence[np.ndarray]) -> dict | None:
    """The fit of one method: `scores[i]` are its scores of every candidate for held-out query
    i, `relevant[i]` the indices of that query's people among them; the queries it knows no
    word of (`knows` False) are left out. None when no query is left.

    The queries are z-scored a few at a time (each row's z-scores are its own), so that no
    temporary of the size of all of them is made."""
    rows = np.flatnonzero(knows)
    n_people = scores.shape[1]
    if not len(rows) or not n_people:
        return None
    x = np.empty((len(rows), n_people))
    size = max(1, ROWS_BYTES // (8 * n_people))
    for start in range(0, len(rows), size):
        x[start:start + size] = zscores(scores[rows[start:start + size]])
    positives = np.unique(np.concatenate(
        [i * n_people + np.asarray(relevant[q], dtype=np.int64) for i, q in enumerate(rows)]))
    a, b = fit_positives(x.ravel(), positives)
    return {"slope": a, "intercept": b, "queries": len(rows)}
