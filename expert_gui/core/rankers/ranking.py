"""The one interface every ranker answers: `rank(query) -> Ranking`.

The log-linear model, Model 1/2 with either smoothing, TF-IDF, LSI and the ensembles all return a
`Ranking`, so the CLI, the comparison panel and the evaluation loop treat them alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Ranking:
    """People ranked for one query, best first.

    `people` are indices into `person_ids` (the ranker's candidates), `scores` their scores in
    the same order (descending; ties broken by person index). `probabilities` is set by rankers
    that produce a distribution over all candidates (the log-linear model): P(c|q) indexed by
    person, not by rank. `p_expert`, aligned with `scores`, is the probability that a person is
    one of the right people for the query, the same scale for every query and method
    (rankers/probability.py; None when the model holds no fit for the method). `candidates`
    holds the person indices a ranking was restricted to (None: everybody). A query none of
    whose words the ranker knows has `no_known_words` set and an empty ranking.
    """

    query: str
    method: str
    person_ids: Sequence[str]
    people: np.ndarray
    scores: np.ndarray
    known_words: tuple[str, ...] = ()
    unknown_words: tuple[str, ...] = ()
    probabilities: np.ndarray | None = None
    entropy: float | None = None
    extra: dict = field(default_factory=dict)
    p_expert: np.ndarray | None = None
    candidates: np.ndarray | None = None

    @property
    def no_known_words(self) -> bool:
        return len(self.known_words) == 0

    @property
    def n_candidates(self) -> int:
        """How many people this ranking could rank."""
        return len(self.person_ids) if self.candidates is None else len(self.candidates)

    def cut(self, depth: int | None) -> Ranking:
        """The first `depth` people (all of them for None)."""
        if depth is None or depth >= len(self.people):
            return self
        return replace(self, people=self.people[:depth], scores=self.scores[:depth],
                       p_expert=None if self.p_expert is None else self.p_expert[:depth])

    def __len__(self) -> int:
        return len(self.people)

    def top(self, k: int | None = None) -> list[tuple[str, float]]:
        n = len(self.people) if k is None else min(k, len(self.people))
        return [(self.person_ids[self.people[i]], float(self.scores[i])) for i in range(n)]

    def rank_of(self, person: int) -> int | None:
        """1-based rank of a person index, or None when not ranked."""
        hits = np.flatnonzero(self.people == person)
        return int(hits[0]) + 1 if len(hits) else None

    def ranks(self) -> np.ndarray:
        """1-based rank per person index; unranked people get len(person_ids) + 1."""
        out = np.full(len(self.person_ids), len(self.person_ids) + 1, dtype=np.int64)
        out[self.people] = np.arange(1, len(self.people) + 1)
        return out


@runtime_checkable
class Ranker(Protocol):
    """Anything that ranks people for a free-text query."""

    name: str
    person_ids: Sequence[str]

    def rank(self, query: str, depth: int | None = None) -> Ranking: ...

    def rank_batch(self, queries: Sequence, depth: int | None = None) -> list[Ranking]: ...


class WrappedRanker:
    """A ranker that changes another's rankings (`Restricted`, `ExpertProbability`) and is that
    ranker in everything else: its name, people, explanations."""

    def __init__(self, ranker: Ranker):
        self.ranker = ranker

    def __getattr__(self, name):
        if name == "ranker":  # not set yet: no recursion
            raise AttributeError(name)
        return getattr(self.ranker, name)


def order_by_score(scores: np.ndarray, depth: int | None = None) -> np.ndarray:
    """Indices by descending score, ties by ascending index (stable, so rankings are reproducible)."""
    neg = -np.asarray(scores, dtype=np.float64)
    if depth is None or depth >= len(neg):
        return np.argsort(neg, kind="stable")
    # Only the top `depth` need sorting: every score at least the depth-th best, ties included.
    cut = np.partition(neg, depth - 1)[depth - 1] if depth > 0 else -np.inf
    head = np.flatnonzero(neg <= cut)
    return head[np.argsort(neg[head], kind="stable")][:depth]


def normalized_entropy(p: np.ndarray) -> float:
    """The paper's Eq. 6: -(1/log|C|) sum_j p_j log p_j; 0 for a point mass, 1 for uniform."""
    p = np.asarray(p, dtype=np.float64)
    if len(p) < 2:
        return 0.0
    nz = p[p > 0]
    return float(-(nz * np.log(nz)).sum() / np.log(len(p)))
