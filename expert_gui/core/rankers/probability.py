"""A score that means the same for every query: P(expert) = sigmoid(a z + b), the probability
that a person is one of the right people for the query.

A method's own scores do not compare across queries: log P(q|c) of Model 1 and 2 mostly tracks
the query's length, P(c|q) of the log-linear model shares one unit among the people (two experts
get about 1/2 each, twenty about 1/20). The per-query z-score of the method's scores over all
candidates (fusion.zscores) takes out the query's own level and spread; a and b are fitted per
method by logistic regression on the model's held-out documents, each candidate of each
held-out query being an example, labelled by whether it is one of that document's people
(core/evaluation/probability_fit.py), and kept in the manifest. The map is monotone in z, so a
ranking's order is its method's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from expert_gui.core.rankers.batch import BatchRanker, Query, Scores
from expert_gui.core.rankers.fusion import zscores
from expert_gui.core.rankers.ranking import Ranker, Ranking, WrappedRanker


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), without overflow for large |x|."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def expert_probabilities(scores: np.ndarray, slope: float, intercept: float) -> np.ndarray:
    """P(expert) of each of a query's scores, given the scores of every candidate."""
    return sigmoid(slope * zscores(scores) + intercept)


class ExpertProbability(WrappedRanker, BatchRanker):
    """A ranker whose rankings carry `p_expert`: it ranks every candidate (the z-score needs
    them all), then keeps `depth`. Anything else is the wrapped ranker's."""

    def __init__(self, ranker: Ranker, fit: dict):
        super().__init__(ranker)
        self.slope, self.intercept = float(fit["slope"]), float(fit["intercept"])
        self.fit = dict(fit)

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        full = self.ranker.rank(query)
        if full.no_known_words:
            return full
        ranking = replace(full, p_expert=self.probabilities(full.scores),
                          extra={**full.extra, "p_expert": self.fit})
        return ranking.cut(depth)

    def probabilities(self, scores: np.ndarray) -> np.ndarray:
        """P(expert) of every candidate's score for one query."""
        return expert_probabilities(scores, self.slope, self.intercept)

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        return replace(self.ranker.score_batch(queries), p_expert=self)
