"""Ensembles of rankers by their ranks alone.

"product" is the paper's Eq. 5: score(c) = prod_m 1 / rank_m(c), the multiplicatively combined
reciprocal ranks (CombSUM of log reciprocal ranks). "rrf" is reciprocal rank fusion (Cormack et
al. 2009): score(c) = sum_m 1 / (k + rank_m(c)), with k = 60.

Each member ranks every person; a person a member leaves unranked gets rank |C| + 1 from it. A
member that knows none of the query's words is left out of that query's fusion.
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
        """Every member's ranking, and its 1-based rank of each person in ensemble order."""
        rankings, ranks = [], []
        for r, where in zip(self.rankers, self._maps, strict=True):
            ranking = r.rank(query)
            rankings.append(ranking)
            if not ranking.no_known_words:
                rank = np.empty(len(self.person_ids), dtype=np.int64)
                rank[where] = ranking.ranks()
                ranks.append(rank)
        return rankings, ranks

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        rankings, ranks = self.member_ranks(query)
        known, unknown = merged_words([(r.known_words, r.unknown_words) for r in rankings])
        if not ranks:
            return no_known_words(query, self.name, self.person_ids, unknown)
        r = np.vstack(ranks).astype(np.float64)
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
    """The 1-based rank of every person in each row's ranking (ties by person index).

    A row without ties (the log-linear model's) has one order, which numpy's default sort
    finds six times faster than the stable sort that orders ties by index (Model 2's rows,
    where most people tie, are as fast either way): at 29,460 people, the ensemble's rank
    fusion of 158 topics took 0.5 s, most of it sorting the log-linear model's scores."""
    ranks = np.empty(values.shape)
    ordered = np.sort(values, axis=1)  # NaN last: a row with one is sorted stably too
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1) | np.isnan(ordered[:, -1:]).any(axis=1)
    for rows, kind in ((np.flatnonzero(~tied), "quicksort"), (np.flatnonzero(tied), "stable")):
        part = np.empty((len(rows), values.shape[1]))
        np.put_along_axis(part, np.argsort(-values[rows], axis=1, kind=kind),
                          np.arange(1, values.shape[1] + 1, dtype=np.float64)[None, :], axis=1)
        ranks[rows] = part
    return ranks
