"""Fitting P(expert) (rankers/probability.py) on the held-out documents: a logistic regression
of "is one of the query's people" on the FEATURES of each person's answer.

The labels a model has without topics are its held-out documents' people ("who wrote this?"),
whole documents, hundreds of words long. A topic is a few words, and a fit of whole documents
alone made a two-word query's top person near-certain (issue 42). So each held-out document
also gives SHORT_PER_DOCUMENT short queries, a few consecutive words of it (TOPIC_WORDS, as
long as topics tend to be), labelled with the same people: the fit sees the lengths it will
answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expert_gui.core.data.text import NUMBER_TOKEN
from expert_gui.core.rankers.probability import FEATURES, feature_matrix, query_parts, sigmoid

ITERATIONS = 100
RIDGE = 1e-6  # keeps the weights finite when the examples are separable
TOLERANCE = 1e-12  # Newton's method stops when a step would raise the objective less (relative)
# Examples a fit keeps: every positive, and evenly spaced negatives weighted by the ones they
# stand for (DPDK: 2,700 queries x 1,473 people = 4 million; a fit of 6 weights on a million
# takes about a second and agrees with the whole to about 1e-3).
MAX_EXAMPLES = 1_000_000
ROWS_BYTES = 8 * 2**20  # queries turned into features at once
TOPIC_WORDS = (1, 2, 3, 4)  # lengths of the short queries drawn (demo, DPDK, AMiner topics)
SHORT_PER_DOCUMENT = 2  # short queries drawn from each held-out document
TOP = 10  # a query's people whose P(expert) is judged: the first screen of a ranking (issue 42)
BINS = 10  # equal-width bins of P in the expected calibration error


def fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """The weights maximising sum weight * log P(y | sigmoid(x @ w)) - RIDGE |w|^2 / 2 (x's last
    column the intercept's ones), by Newton's method with step halving, until a step would raise
    the objective by less than TOLERANCE of it."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    weight = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=np.float64)
    beta = np.zeros(x.shape[1])
    rate = min(max(float(weight @ y) / max(float(weight.sum()), 1e-300), 1e-9), 1 - 1e-9)
    beta[-1] = np.log(rate / (1 - rate))

    def objective(b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        t = x @ b
        log1pe = np.maximum(t, 0.0) + np.log1p(np.exp(-np.abs(t)))  # log(1 + e^t)
        p = sigmoid(t)
        value = float(weight @ (y * t - log1pe)) - 0.5 * RIDGE * float(b @ b)
        gradient = x.T @ (weight * (y - p)) - RIDGE * b
        hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + RIDGE * np.eye(len(b))
        return value, gradient, hessian

    current, gradient, hessian = objective(beta)
    for _ in range(ITERATIONS):
        step = np.linalg.solve(hessian, gradient)
        if 0.5 * float(gradient @ step) <= TOLERANCE * max(1.0, abs(current)):
            return beta + step
        for _ in range(30):
            at_trial = objective(beta + step)
            if at_trial[0] >= current:
                break
            step = step / 2
        beta = beta + step
        current, gradient, hessian = at_trial
    return beta


def calibration_error(p: np.ndarray, relevant: np.ndarray) -> tuple[float, list[tuple]]:
    """Expected calibration error of probabilities `p` against 0/1 `relevant`: in BINS
    equal-width bins of p, the gap between the mean p and the share relevant, weighted by the
    bin's share of the examples; and the reliability curve, (bin, count, mean p, share
    relevant) of each bin that holds any."""
    p, relevant = np.asarray(p, dtype=np.float64), np.asarray(relevant, dtype=np.float64)
    if not len(p):
        return 0.0, []
    bins = np.minimum((p * BINS).astype(int), BINS - 1)
    error, curve = 0.0, []
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            mean_p, share = float(p[inside].mean()), float(relevant[inside].mean())
            error += inside.mean() * abs(mean_p - share)
            curve.append((b, int(inside.sum()), mean_p, share))
    return float(error), curve


def top_pairs(scores: np.ndarray, p: np.ndarray, relevant: Sequence[np.ndarray],
              rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(P, is relevant) of the TOP people by score of each query in `rows` (scores and p:
    queries x people; relevant: each query's people's indices)."""
    ps, ys = [], []
    for q in rows:
        top = np.argsort(-scores[q], kind="stable")[:TOP]
        ps.append(p[q, top])
        ys.append(np.isin(top, relevant[q]))
    return (np.concatenate(ps), np.concatenate(ys)) if ps else (np.zeros(0), np.zeros(0))


def fit_expert_probability(scores: np.ndarray, knows: np.ndarray, n_words: np.ndarray,
                           relevant: Sequence[np.ndarray]) -> dict | None:
    """The fit of one method: `scores[i]` are its scores of every candidate for query i (of
    `n_words[i]` known words), `relevant[i]` the indices of that query's people among them;
    the queries it knows no word of (`knows` False) are left out. None when no query is left.

    Past MAX_EXAMPLES, the negatives are evenly spaced ones, each weighted by how many it stands
    for; the queries are turned into features a few at a time."""
    rows = np.flatnonzero(knows)
    n_people = scores.shape[1]
    if not len(rows) or not n_people:
        return None
    n_words = np.asarray(n_words)
    n_pos = sum(len(relevant[q]) for q in rows)
    stride = max(1, -(-(len(rows) * n_people - n_pos) // max(MAX_EXAMPLES - n_pos, 1)))
    xs, ys, ws = [], [], []
    size = max(1, ROWS_BYTES // (8 * len(FEATURES) * n_people))
    for start in range(0, len(rows), size):
        part = rows[start:start + size]
        x = feature_matrix(*query_parts(scores[part], n_words[part]))
        y = np.zeros((len(part), n_people), dtype=bool)
        for i, q in enumerate(part):
            y[i, relevant[q]] = True
        y = y.ravel()
        flat = np.arange(len(y)) + start * n_people
        keep = y | (flat % stride == 0)
        xs.append(x[keep])
        ys.append(y[keep])
        ws.append(np.where(y[keep], 1.0, float(stride)))
    weights = fit_logistic(np.concatenate(xs), np.concatenate(ys), np.concatenate(ws))
    return {"features": list(FEATURES), "weights": [float(w) for w in weights],
            "queries": len(rows)}


def short_queries(documents: Sequence[list[str]], seed: int) -> tuple[list[str], list[int]]:
    """SHORT_PER_DOCUMENT short queries from each document (its words, as the tokenizer reads
    them, numbers left out): TOPIC_WORDS consecutive words of it, from a place drawn with
    `seed`; and the index of the document each comes from. A document shorter than a length
    gives all of its words."""
    rng = np.random.default_rng(seed)
    queries, sources = [], []
    for i, words in enumerate(documents):
        words = [w for w in words if w != NUMBER_TOKEN]
        for _ in range(SHORT_PER_DOCUMENT):
            k = int(rng.choice(TOPIC_WORDS))
            start = int(rng.integers(0, max(1, len(words) - k + 1)))
            queries.append(" ".join(words[start:start + k]))
            sources.append(i)
    return queries, sources
