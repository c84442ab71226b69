"""Ranking only some people (`--candidates`, the app's people filter): every person is ranked as
usual, then those outside the set are left out, so each score and P(expert) is the one the method
gives over everybody and the order among the candidates is unchanged."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.batch import BatchRanker, Query, Scores
from expert_gui.core.rankers.ranking import Ranker, Ranking, WrappedRanker


class Restricted(WrappedRanker, BatchRanker):
    """A ranker whose rankings hold only `people` (ids); anything else is the wrapped ranker's."""

    def __init__(self, ranker: Ranker, people: Collection[str]):
        super().__init__(ranker)
        index = {p: i for i, p in enumerate(ranker.person_ids)}
        unknown = [p for p in people if p not in index]
        if unknown:
            raise QueryError(f"{ranker.name} does not rank {', '.join(unknown[:5])}")
        self.candidates = np.array(sorted(index[p] for p in people), dtype=np.int64)
        self._keep = np.zeros(len(ranker.person_ids), dtype=bool)
        self._keep[self.candidates] = True

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        full = self.ranker.rank(query)
        keep = self._keep[full.people]
        ranking = replace(full, people=full.people[keep], scores=full.scores[keep],
                          p_expert=None if full.p_expert is None else full.p_expert[keep],
                          candidates=self.candidates)
        return ranking.cut(depth)

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        return replace(self.ranker.score_batch(queries), candidates=self.candidates)


def on_people(ranking: Ranking, person_ids: Sequence[str]) -> Ranking:
    """`ranking` as a ranking of `person_ids` (a model's people, some of the ranker's): its
    people among them, in its order, indexed into `person_ids`; the others left out."""
    index = {p: i for i, p in enumerate(person_ids)}
    ranked = [index.get(ranking.person_ids[p], -1) for p in ranking.people]
    keep = np.array([i >= 0 for i in ranked], dtype=bool)
    return replace(ranking, person_ids=person_ids,
                   people=np.array(ranked, dtype=np.int64)[keep], scores=ranking.scores[keep],
                   p_expert=None if ranking.p_expert is None else ranking.p_expert[keep],
                   probabilities=None, candidates=None)
