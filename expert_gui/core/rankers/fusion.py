"""`auto`: the log-linear model, Model 2 (jm) and Model 1 (d) fused with weights calibrated on the
collection's own held-out documents (core/evaluation/heldout.py).

No single method is best everywhere: the log-linear model wins on short topics of a collection
where words are shared across people (DPDK), the profile language model on whole abstracts, and
the rank product of Eq. 5 can fall below its best member. So each member's scores are put on one
scale per query (z-scores: (s - mean) / standard deviation over all candidates, a monotone map
that keeps each member's order) and added with weights w >= 0, sum w = 1:

    score(c) = sum_m w_m z_m(c)

The weights are the point of a simplex grid (steps of 1/20) with the highest MAP on the held-out
documents. The grid holds every single member (one weight 1), whose fused ranking is that
member's own, so on the held-out documents `auto` is never below its best member. A member that
knows none of a query's words has no say on that query.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import numpy as np

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.common import member_maps, merged_words, no_known_words, ranked
from expert_gui.core.rankers.ranking import Ranker, Ranking

GRID_STEPS = 20


class FusionRanker:
    """Weighted sum of the members' per-query z-scores."""

    name = "auto"

    def __init__(self, rankers: Sequence[Ranker], weights: Sequence[float],
                 calibrated: bool = True):
        if len(rankers) != len(weights) or not rankers:
            raise QueryError("a fusion needs one weight per member")
        self.rankers = list(rankers)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.calibrated = calibrated
        self.person_ids, self._maps = member_maps(self.rankers)

    def member_scores(self, query: str) -> tuple[list[Ranking], np.ndarray]:
        """Every member's ranking, and its z-scores per person (a row of zeros when the member
        knows none of the query's words)."""
        rankings, z = [], np.zeros((len(self.rankers), len(self.person_ids)))
        for i, (r, where) in enumerate(zip(self.rankers, self._maps, strict=True)):
            ranking = r.rank(query)
            rankings.append(ranking)
            if not ranking.no_known_words:
                z[i, where[ranking.people]] = zscores(ranking.scores)
        return rankings, z

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        rankings, z = self.member_scores(query)
        known, unknown = merged_words(rankings)
        if not known:
            return no_known_words(query, self.name, self.person_ids, unknown)
        return ranked(query, self.name, self.person_ids, self.weights @ z, known, unknown, depth,
                      extra={"members": [r.name for r in self.rankers],
                             "weights": self.weights.tolist(), "calibrated": self.calibrated})


def zscores(scores: np.ndarray) -> np.ndarray:
    """(s - mean) / sd; -inf (a person a member rules out) counts as the lowest finite score."""
    s = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(s)
    if not finite.any():
        return np.zeros(len(s))
    s = np.where(finite, s, s[finite].min())
    sd = s.std()
    return (s - s.mean()) / sd if sd > 0 else np.zeros(len(s))


def simplex_grid(n_members: int, steps: int = GRID_STEPS) -> np.ndarray:
    """Every weight vector with entries in {0, 1/steps, ..., 1} summing to 1; the single members
    (the simplex's corners) first, so a tie goes to the simpler answer."""
    points = [p for p in product(range(steps + 1), repeat=n_members) if sum(p) == steps]
    points.sort(key=lambda p: -max(p))
    return np.asarray(points, dtype=np.float64) / steps


def average_precisions(fused: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """AP of each row of `fused` (weightings x people) for one query whose relevant people are
    `relevant` (indices, all candidates). Ties rank the lower person index first, as
    `order_by_score` does."""
    scores = fused[:, relevant]  # weightings x R
    above = (fused[:, None, :] > scores[:, :, None]).sum(axis=2)
    people = np.arange(fused.shape[1])
    tied_before = ((fused[:, None, :] == scores[:, :, None])
                   & (people[None, None, :] < relevant[None, :, None])).sum(axis=2)
    ranks = np.sort(above + tied_before + 1, axis=1)
    return (np.arange(1, len(relevant) + 1) / ranks).mean(axis=1)


def choose_weights(member_z: Sequence[np.ndarray], relevant: Sequence[np.ndarray],
                   steps: int = GRID_STEPS) -> tuple[np.ndarray, np.ndarray]:
    """The grid's weights with the highest MAP over the queries (each given by its members x
    people z-scores and its relevant people), and the MAP of every grid point."""
    grid = simplex_grid(len(member_z[0]), steps)
    total = np.zeros(len(grid))
    for z, rel in zip(member_z, relevant, strict=True):
        if len(rel):
            total += average_precisions(grid @ z, np.asarray(rel, dtype=np.int64))
    maps = total / max(len(member_z), 1)
    return grid[int(np.argmax(maps))], maps
