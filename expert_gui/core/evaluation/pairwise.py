"""Are a method's scores comparable across queries? The pairwise measure of reviewer-assignment
benchmarks: for each person, the share of pairs (a topic they are relevant for, a topic they are
not) whose scores are in the wrong order, ties counting half; averaged over the people with at
least one of each (lower is better). A ranking measure never compares two queries' scores, so a
method can rank well and still score badly here (log P(q|c) mostly tracks the query's length).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.rankers.ranking import Ranking


@dataclass(frozen=True)
class PairwiseError:
    """`mean` over the `people` counted, `pooled` over all their pairs together."""

    mean: float
    pooled: float
    people: int
    per_person: dict[str, float] = field(default_factory=dict)


def pairwise_error(values: Mapping[str, Mapping[str, float]], qrels: Qrels,
                   topics: Sequence[str]) -> PairwiseError:
    """`values[topic][person]`: a person's score for a topic (missing: the lowest, as for a
    query the method could not answer). Every topic of `topics` a person is not judged relevant
    for counts as not relevant for them."""
    relevant_for: dict[str, set[str]] = {}
    for t in topics:
        for person, grade in qrels[t].items():
            if grade > 0:
                relevant_for.setdefault(person, set()).add(t)
    per_person, wrong_all, pairs_all = {}, 0.0, 0
    for person, mine in relevant_for.items():
        if not any(person in values.get(t, {}) for t in topics):
            continue  # not a candidate: never scored
        score = np.array([values.get(t, {}).get(person, -math.inf) for t in topics])
        is_mine = np.array([t in mine for t in topics])
        r, n = score[is_mine], np.sort(score[~is_mine])
        if not len(n):
            continue
        below = np.searchsorted(n, r, side="left")
        above = len(n) - np.searchsorted(n, r, side="right")
        tied = len(n) - below - above
        wrong = float(above.sum() + 0.5 * tied.sum())
        per_person[person] = wrong / (len(r) * len(n))
        wrong_all += wrong
        pairs_all += len(r) * len(n)
    if not per_person:
        return PairwiseError(math.nan, math.nan, 0)
    return PairwiseError(float(np.mean(list(per_person.values()))), wrong_all / pairs_all,
                         len(per_person), per_person)


class ScoreSheet:
    """Each topic's scores and P(expert) of some people (those relevant for some topic), kept
    from whole rankings as they are made (`evaluate(..., on_ranking=sheet.add)`)."""

    def __init__(self, people: Iterable[str]):
        self.people = set(people)
        self.scores: dict[str, dict[str, float]] = {}
        self.p_expert: dict[str, dict[str, float]] = {}

    def add(self, topic: str, ranking: Ranking) -> None:
        """A person the ranking leaves out (no known word) keeps no score for the topic: the
        lowest. P(expert) is kept only from rankings that carry it."""
        scores, probabilities = {}, {}
        for k, person in enumerate(ranking.people):
            pid = ranking.person_ids[person]
            if pid in self.people:
                scores[pid] = float(ranking.scores[k])
                if ranking.p_expert is not None:
                    probabilities[pid] = float(ranking.p_expert[k])
        self.scores[topic] = scores
        if probabilities or ranking.no_known_words:
            self.p_expert[topic] = probabilities


def judged_people(qrels: Qrels, topics: Sequence[str]) -> set[str]:
    """The people relevant for at least one of `topics`: the only ones the measure counts."""
    return {p for t in topics for p, grade in qrels[t].items() if grade > 0}
