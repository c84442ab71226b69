"""Expert profiling measured: each person's topics ranked, against the qrels turned around.

Qrels say which people are relevant to each topic; inverted, they say which topics each person is
relevant to (on DPDK: the MAINTAINERS sections a person maintains). A system ranks every topic of
the set for every person (`TopicScores.for_person`), and each person with at least one relevant
topic is one "query" of the evaluation: AP per person, MAP over them, and the paired
randomization test of `significance.py` between two systems over the same people.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from expert_gui.core.evaluation.measures import PerTopic, measure_run
from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.evaluation.runs import Run
from expert_gui.core.evaluation.significance import randomization_test
from expert_gui.core.explore.profile import TopicScores


def invert_qrels(qrels: Qrels, topics: Sequence[str] | None = None) -> Qrels:
    """person -> topic -> grade, from topic -> person -> grade (only the given topics)."""
    wanted = None if topics is None else set(topics)
    out: Qrels = {}
    for topic, judged in qrels.items():
        if wanted is not None and topic not in wanted:
            continue
        for person, grade in judged.items():
            out.setdefault(person, {})[topic] = grade
    return out


def profiled_people(inverted: Qrels, person_ids: Sequence[str]) -> list[str]:
    """The people evaluated: those a system can profile with at least one relevant topic."""
    known = set(person_ids)
    return sorted(p for p, judged in inverted.items()
                  if p in known and any(g > 0 for g in judged.values()))


def topic_run(scores: TopicScores, people: Sequence[str], person_ids: Sequence[str],
              order: str = "rank") -> Run:
    """Each person's ranked topics as a run; scores fall strictly with the order, so a measure
    sees exactly `for_person`'s ranking."""
    index = {p: i for i, p in enumerate(person_ids)}
    n = len(scores.topic_ids)
    return {p: {t.topic_id: float(n - r)
                for r, t in enumerate(scores.for_person(index[p], order=order))}
            for p in people}


@dataclass(frozen=True)
class ProfilingComparison:
    people: tuple[str, ...]
    per_person: dict[str, PerTopic]  # system -> measures per person
    p_values: dict[str, dict[str, float]]  # system -> measure -> two-tailed p vs the reference

    def mean(self, system: str, measure: str = "AP") -> float:
        return self.per_person[system].mean(measure)


def compare_profiling(systems: Mapping[str, TopicScores], qrels: Qrels,
                      person_ids: Sequence[str], reference: str, *,
                      measures: Sequence[str] = ("AP",), order: str = "rank"
                      ) -> ProfilingComparison:
    """Every system's per-person measures on the inverted qrels, and each one's randomization
    test p-value against `reference` on each measure. Topics that a system cannot rank (no known
    word) are missing from its runs and count as not retrieved, as in `measure_run`."""
    topic_set = set().union(*(s.topic_ids for s in systems.values()))
    inverted = invert_qrels(qrels, [t for t in qrels if t in topic_set])
    people = profiled_people(inverted, person_ids)
    per_person = {name: measure_run(inverted, topic_run(s, people, person_ids, order), people,
                                    measures) for name, s in systems.items()}
    p_values = {name: {m: randomization_test(per_person[name].values[m],
                                             per_person[reference].values[m]) for m in measures}
                for name in systems if name != reference}
    return ProfilingComparison(tuple(people), per_person, p_values)

