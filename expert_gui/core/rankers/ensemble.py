"""Ensembles of rankers by their ranks alone.

"product" is the paper's Eq. 5: score(c) = prod_m 1 / rank_m(c), the multiplicatively combined
reciprocal ranks (CombSUM of log reciprocal ranks). "rrf" is reciprocal rank fusion (Cormack et
al. 2009): score(c) = sum_m 1 / (k + rank_m(c)), with k = 60.

rank_m(c) is c's fractional rank: people a member gives the same score share the mean of the
ranks they span (three people tied behind the first get 3 each), so a member that cannot tell
people apart leaves the order among them to the other members. Ordering such ties by person
index instead let a member's ties decide, by id alone: on the demo's topics Model 2 (jm) gives
every person none of whose documents has a query word the same score, and the ensemble's MAP
(seeds 0-2) was 0.488-0.504 with ties by index against 0.600-0.612 with fractional ranks;
DPDK's dev topics and AMiner's areas, with few ties, moved by less than 0.001. A person a member
leaves unranked ranks after those it ranks, tied with the others it leaves unranked. A member
that knows none of the query's words is left out of that query's fusion.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.batch import BatchRanker, Query, Scores
from expert_gui.core.rankers.common import (
    member_maps,
    merged_batch,
    merged_words,
    no_known_words,
    ranked,
)
from expert_gui.core.rankers.names import FUSIONS
from expert_gui.core.rankers.ranking import Ranker, Ranking


class EnsembleRanker(BatchRanker):
    """Fuses the rankings of two or more rankers over the same people."""

    def __init__(self, rankers: Sequence[Ranker], fusion: str = "product", rrf_k: float = 60.0):
        if len(rankers) < 2:
            raise QueryError("an ensemble needs at least two rankers")
        if fusion not in FUSIONS:
            raise QueryError(f"fusion must be one of {FUSIONS}, not {fusion!r}")
        self.rankers = list(rankers)
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.person_ids, self._maps = member_maps(self.rankers)
        self.name = ("ensemble" if fusion == "product" else "rrf") + "(" + \
            ",".join(r.name for r in self.rankers) + ")"

    def member_ranks(self, query: str) -> tuple[list[Ranking], list[np.ndarray]]:
        """Every member's ranking, and its fractional rank of each person in ensemble order."""
        rankings, ranks = [], []
        for r, where in zip(self.rankers, self._maps, strict=True):
            ranking = r.rank(query)
            rankings.append(ranking)
            if not ranking.no_known_words:
                values = np.full(len(self.person_ids), np.nan)  # NaN: not ranked
                values[where[ranking.people]] = ranking.scores
                ranks.append(full_ranks(values[None, :])[0])
        return rankings, ranks

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        rankings, ranks = self.member_ranks(query)
        known, unknown = merged_words([(r.known_words, r.unknown_words) for r in rankings])
        if not ranks:
            return no_known_words(query, self.name, self.person_ids, unknown)
        r = np.vstack(ranks)
        scores = (1.0 / r).prod(axis=0) if self.fusion == "product" else \
            (1.0 / (self.rrf_k + r)).sum(axis=0)
        return ranked(query, self.name, self.person_ids, scores, known, unknown, depth,
                      extra={"members": [m.name for m in self.rankers]})

    @property
    def batch_width(self) -> int:
        return sum(r.batch_width for r in self.rankers) + len(self.person_ids)

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        return self.fuse([r.score_batch(queries) for r in self.rankers])

    def fuse(self, members: Sequence[Scores]) -> Scores:
        """The ensemble's `Scores` of a block from its members' (in `rankers`' order)."""
        known, unknown = merged_batch(members)
        n_queries = len(members[0])
        fused = np.ones if self.fusion == "product" else np.zeros
        scores = fused((n_queries, len(self.person_ids)))
        for s, where in zip(members, self._maps, strict=True):
            rank = np.empty_like(scores)
            rank[:, where] = full_ranks(s.values)
            knows = np.array([s.knows(i) for i in range(len(s))])[:, None]
            if self.fusion == "product":  # x * 1.0 and x + 0.0 are x: as if left out
                scores *= np.where(knows, 1.0 / rank, 1.0)
            else:
                scores += np.where(knows, 1.0 / (self.rrf_k + rank), 0.0)
        return Scores(self.name, self.person_ids, members[0].texts, scores, known, unknown,
                      extra=[{"members": [m.name for m in self.rankers]}] * n_queries)


def full_ranks(values: np.ndarray) -> np.ndarray:
    """The fractional rank of every person in each row's ranking by descending value: people
    with equal values share the mean of the positions they span; NaN (no score) ranks last.

    Fractional ranks do not depend on the order of tied people, so numpy's default sort finds
    them, several times faster than a stable sort on rows without ties (the log-linear model's):
    at 29,460 people that sort is most of the rank fusion's time."""
    n = values.shape[1]
    keys = -values  # ascending; numpy sorts NaN last
    order = np.argsort(keys, axis=1)
    ordered = np.take_along_axis(keys, order, axis=1)
    missing = np.isnan(ordered)
    starts = np.ones(values.shape, dtype=bool)  # where a run of equal values begins
    starts[:, 1:] = (ordered[:, 1:] != ordered[:, :-1]) & ~(missing[:, 1:] & missing[:, :-1])
    position = np.broadcast_to(np.arange(1.0, n + 1), values.shape)
    tied = ~starts.all(axis=1)
    if tied.any():  # each run of equal values gets its mean position (runs never cross rows)
        runs = starts[tied]
        first = np.flatnonzero(runs)
        length = np.diff(first, append=runs.size)
        position = position.copy()
        position[tied] = np.repeat(first % n + (length + 1) / 2, length).reshape(runs.shape)
    ranks = np.empty(values.shape)
    np.put_along_axis(ranks, order, position, axis=1)
    return ranks
