"""The paper's measures through ir-measures: MAP, nDCG@100, MRR, P@5 and P@10, per topic and mean.

Every queried topic that has judgments counts, also when the run holds nothing for it (a query
with no known word gets an empty ranking and scores 0), so no system looks better by skipping
the hard topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ir_measures
import numpy as np

from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.evaluation.runs import Run

MEASURES = ("AP", "nDCG@100", "RR", "P@5", "P@10")
"""In the order of the paper's tables."""

LABELS = {"AP": "MAP", "nDCG@100": "NDCG@100", "RR": "MRR", "P@5": "P@5", "P@10": "P@10"}
"""Column names of the tables: the mean of AP is MAP, of RR is MRR."""


@dataclass(frozen=True)
class PerTopic:
    """One system's scores: `values[measure]` is aligned with `topics`."""

    topics: tuple[str, ...]
    values: dict[str, np.ndarray]

    def mean(self, measure: str) -> float:
        v = self.values[measure]
        return float(v.mean()) if len(v) else 0.0

    def means(self) -> dict[str, float]:
        return {m: self.mean(m) for m in self.values}


def evaluated_topics(qrels: Qrels, queried: Sequence[str]) -> tuple[str, ...]:
    """The topics that count: queried and judged, in the order they were queried."""
    return tuple(t for t in queried if t in qrels)


def measure_run(qrels: Qrels, run: Run, topics: Sequence[str],
                measures: Sequence[str] = MEASURES) -> PerTopic:
    """Score a run on `topics` (which must all have judgments); topics missing from the run score 0."""
    missing = [t for t in topics if t not in qrels]
    if missing:
        raise ValueError(f"topics without judgments cannot be scored: {missing[:5]}")
    parsed = [ir_measures.parse_measure(m) for m in measures]
    by_name = {str(m): name for m, name in zip(parsed, measures, strict=True)}
    index = {t: i for i, t in enumerate(topics)}
    values = {m: np.zeros(len(topics)) for m in measures}
    wanted = set(topics)
    sub_qrels = {t: qrels[t] for t in topics}
    sub_run = {t: docs for t, docs in run.items() if t in wanted and docs}
    if sub_run:
        for metric in ir_measures.iter_calc(parsed, sub_qrels, sub_run):
            values[by_name[str(metric.measure)]][index[metric.query_id]] = metric.value
    return PerTopic(tuple(topics), values)
