"""A score that means the same for every query: P(expert), the probability that a person is one
of the right people for the query, from a logistic fit on features of the method's answer.

A method's own scores do not compare across queries: log P(q|c) of Model 1 and 2 mostly tracks
the query's length, P(c|q) of the log-linear model shares one unit among the people. The
per-query z-score of a person's score (fusion.zscores) takes out the query's level and spread,
but also hides how peaked the answer is: on a near-uniform P(c|q) (normalized entropy 0.992) the
top person still has a z of 4 or more, and a fit of z alone gave her 0.93 (issue 42). So the fit
also sees the answer's peak (1 - the normalized entropy of softmax of the method's scores: of
P(c|q) for the log-linear model and Model 1/2, whose scores are log-probabilities) and the
number of known query words, and z's slope is the peak times a line in the words (FEATURES): a
flat answer gives everyone the same P, and a short query's z can count for less. The weights
are fitted per method on the held-out documents and on short queries drawn from them
(core/evaluation/probability_fit.py), and kept in the manifest with the query types the fit is
calibrated for (whole documents; never topics: query_type.P_EXPERT_KINDS); for any other type a
ranking carries the reason instead (`extra["no_p_expert"]`).

Within one query the map is increasing in z (the query's slope is clipped at 0: a shape that
says nothing gives everyone the same P), so a ranking's order is its method's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from expert_gui.core.rankers.batch import BatchRanker, Query, Scores
from expert_gui.core.rankers.fusion import zscores
from expert_gui.core.rankers.query_type import (
    NO_P_EXPERT_TOPIC,
    no_p_expert_documents,
    query_type,
)
from expert_gui.core.rankers.ranking import Ranker, Ranking, WrappedRanker

# The features of a person's answer, in the order of a fit's "weights" (its last: the intercept).
# z: the person's z-score; peak: 1 - the normalized entropy of softmax(scores); words:
# log(1 + known query words). z enters only times peak, so that on a uniform answer (peak 0)
# everyone gets the same P, whatever the fit: the rate its level gives, near the base rate.
FEATURES = ("z*peak", "z*peak*words", "peak", "words")


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), without overflow for large |x|."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def peaks(scores: np.ndarray) -> np.ndarray:
    """1 - the normalized entropy of softmax of each row of scores (of the last axis): 0 for a
    uniform answer, 1 for one person alone; -inf (ruled out) counts as probability 0."""
    s = np.asarray(scores, dtype=np.float64)
    n = s.shape[-1]
    if n < 2:
        return np.ones(s.shape[:-1])
    top = np.max(np.where(np.isfinite(s), s, -np.inf), axis=-1, keepdims=True)
    shifted = np.where(np.isfinite(s), s - np.where(np.isfinite(top), top, 0.0), -np.inf)
    e = np.exp(shifted)
    total = e.sum(axis=-1, keepdims=True)
    p = np.divide(e, total, out=np.full_like(e, 1.0 / n), where=total > 0)
    plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return np.clip(1.0 + plogp.sum(axis=-1) / np.log(n), 0.0, 1.0)


def query_parts(scores: np.ndarray, n_words: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """(z, peak, words) of a block of queries: scores queries x people, n_words per query."""
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    words = np.log1p(np.asarray(n_words, dtype=np.float64).reshape(-1))
    return zscores(scores), peaks(scores), words


def feature_matrix(z: np.ndarray, peak: np.ndarray, words: np.ndarray) -> np.ndarray:
    """examples x (FEATURES, 1): the features of every person of each query (z queries x
    people; peak and words per query), rows in the order of z.ravel()."""
    n_people = z.shape[1]
    pk, wd = np.repeat(peak, n_people), np.repeat(words, n_people)
    zp = z.ravel() * pk
    return np.column_stack([zp, zp * wd, pk, wd, np.ones_like(zp)])


def expert_probabilities(scores: np.ndarray, n_words: int | np.ndarray,
                         weights: Sequence[float]) -> np.ndarray:
    """P(expert) of every person for each query: scores queries x people (or one row), given
    every candidate's score, n_words the query's known words."""
    row = np.asarray(scores).ndim == 1
    z, peak, words = query_parts(scores, np.atleast_1d(n_words))
    w = np.asarray(weights, dtype=np.float64)
    slope = peak * np.maximum(w[0] + w[1] * words, 0.0)  # never against the ranking
    level = w[2] * peak + w[3] * words + w[4]
    p = sigmoid(slope[:, None] * z + level[:, None])
    return p[0] if row else p


def usable_fit(fit: dict | None) -> bool:
    """Whether a manifest's fit is of these FEATURES (a model calibrated before issue 42 kept
    sigmoid(a z + b), which a near-uniform answer fooled: it is not used)."""
    return bool(fit) and fit.get("features") == list(FEATURES)


def missing_for(fit: dict, n_words: int) -> str:
    """Why a query of `n_words` known words gets no P(expert) from `fit` ("": it gets one):
    its type is not among the fit's `kinds` (those calibrated on the held-out documents)."""
    kind = query_type(n_words)
    if kind in fit.get("kinds", ()):
        return ""
    if kind == "whole document" and kind in fit.get("ece", {}):
        return no_p_expert_documents(fit["ece"][kind])
    return NO_P_EXPERT_TOPIC


class ExpertProbability(WrappedRanker, BatchRanker):
    """A ranker whose rankings carry `p_expert` where the fit is calibrated for the query's type,
    and otherwise say why not (`extra["no_p_expert"]`): it ranks every candidate (the features
    need them all), then keeps `depth`. Anything else is the wrapped ranker's."""

    def __init__(self, ranker: Ranker, fit: dict):
        super().__init__(ranker)
        self.coefficients = np.asarray(fit["weights"], dtype=np.float64)  # not `weights`: auto's
        self.fit = dict(fit)

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        full = self.ranker.rank(query)
        if full.no_known_words:
            return full
        if missing := self.missing(len(full.known_words)):
            return replace(full, extra={**full.extra, "no_p_expert": missing}).cut(depth)
        scores = np.full(len(full.person_ids), -np.inf)  # unranked: ruled out
        scores[full.people] = full.scores
        p = self.probabilities(scores, len(full.known_words))[full.people]
        ranking = replace(full, p_expert=p, extra={**full.extra, "p_expert": self.fit})
        return ranking.cut(depth)

    def missing(self, n_words: int) -> str:
        """Why a query of `n_words` known words gets no P(expert) ("": it gets one)."""
        return missing_for(self.fit, n_words)

    def probabilities(self, scores: np.ndarray, n_words: int) -> np.ndarray:
        """P(expert) of every candidate's score for one query of `n_words` known words."""
        return expert_probabilities(scores, n_words, self.coefficients)

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        return replace(self.ranker.score_batch(queries), p_expert=self)
