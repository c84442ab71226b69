"""The measures: the paper's (MAP, nDCG@100, MRR, P@5 and P@10) and those expert-finding and
reviewer-assignment papers also report (ROC AUC, P@20 to P@200, the rank of the first relevant
person), per topic, with their mean and per-topic standard deviation.

ir-measures computes every measure it has, on the run as written (the first `depth` people).
It has no ROC AUC and no rank of the first relevant person, so `ranking_measures` computes
those from a topic's whole ranking: every candidate is ranked, and ties count half.

Every queried topic that has judgments counts, also when the run holds nothing for it (a query
with no known word gets an empty ranking and scores 0), so no system looks better by skipping
the hard topics. A relevant person who is not a candidate (not in the collection, or outside
`--candidates`) is never found: AP and P@k count them as unretrieved, AUC as ranked below
everybody.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import ir_measures
import numpy as np

from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.evaluation.runs import Run
from expert_gui.core.rankers.ranking import Ranking

MEASURES = ("AP", "nDCG@100", "RR", "P@5", "P@10")
"""The paper's, in the order of its tables."""

MORE_MEASURES = ("AUC", "P@20", "P@50", "P@100", "P@200", "FirstRel")
"""What expert-finding and reviewer-assignment papers also report."""

ALL_MEASURES = (*MEASURES, *MORE_MEASURES)
RANKING_MEASURES = ("AUC", "FirstRel")
"""Computed here from whole rankings (ir-measures has neither)."""

LOWER_IS_BETTER = frozenset({"FirstRel"})

LABELS = {"AP": "MAP", "nDCG@100": "NDCG@100", "RR": "MRR", "P@5": "P@5", "P@10": "P@10",
          "AUC": "ROC AUC", "P@20": "P@20", "P@50": "P@50", "P@100": "P@100", "P@200": "P@200",
          "FirstRel": "1st relevant rank"}
"""Column names of the tables: the mean of AP is MAP, of RR is MRR."""


@dataclass(frozen=True)
class PerTopic:
    """One system's scores: `values[measure]` is aligned with `topics`."""

    topics: tuple[str, ...]
    values: dict[str, np.ndarray]

    def mean(self, measure: str) -> float:
        v = self.values[measure]
        return float(v.mean()) if len(v) else 0.0

    def sd(self, measure: str) -> float:
        """The standard deviation of the measure over the topics (n - 1 in the denominator)."""
        v = self.values[measure]
        return float(v.std(ddof=1)) if len(v) > 1 else 0.0

    def means(self) -> dict[str, float]:
        return {m: self.mean(m) for m in self.values}


def evaluated_topics(qrels: Qrels, queried: Sequence[str]) -> tuple[str, ...]:
    """The topics that count: queried and judged, in the order they were queried."""
    return tuple(t for t in queried if t in qrels)


def measure_run(qrels: Qrels, run: Run, topics: Sequence[str],
                measures: Sequence[str] = MEASURES) -> PerTopic:
    """Score a run on `topics` (which must all have judgments) with measures ir-measures has;
    topics missing from the run score 0."""
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


def ranking_measures(rankings: Mapping[str, Ranking], qrels: Qrels,
                     topics: Sequence[str]) -> dict[str, np.ndarray]:
    """ROC AUC and the rank of the first relevant person of each topic's whole ranking (every
    candidate ranked; `Ranking.candidates` when it was restricted).

    AUC: the share of (relevant, not relevant) pairs of people ranked in the right order, ties
    counting half; every candidate not judged relevant counts as not relevant, and a relevant
    person who is no candidate as ranked below everybody. First relevant rank: the 1-based place
    of the first relevant candidate; with none, the number of candidates + 1. A ranking of
    nobody (no known word) ties every candidate: AUC 1/2 of its pairs, first rank the expected
    (N + 1) / (R + 1)."""
    auc, first = np.zeros(len(topics)), np.zeros(len(topics))
    people, index = None, {}
    for i, topic in enumerate(topics):
        ranking = rankings[topic]
        if ranking.person_ids is not people:
            people = ranking.person_ids
            index = {p: k for k, p in enumerate(people)}
        pool = np.arange(len(people)) if ranking.candidates is None else ranking.candidates
        wanted = [p for p, grade in qrels[topic].items() if grade > 0]
        relevant = np.zeros(len(people), dtype=bool)
        relevant[[index[p] for p in wanted if p in index]] = True
        is_relevant = relevant[pool]
        n, found = len(pool), int(is_relevant.sum())
        negatives = n - found
        pairs = len(wanted) * negatives
        if not len(ranking.people):
            auc[i] = 0.5 * found * negatives / pairs if pairs else 0.0
            first[i] = (n + 1) / (found + 1)
            continue
        score = np.full(len(ranking.person_ids), -np.inf)
        score[ranking.people] = ranking.scores
        positive, negative = score[pool[is_relevant]], np.sort(score[pool[~is_relevant]])
        below = np.searchsorted(negative, positive, side="left")
        tied = np.searchsorted(negative, positive, side="right") - below
        auc[i] = float((below + 0.5 * tied).sum()) / pairs if pairs else 0.0
        hits = np.flatnonzero(relevant[ranking.people])
        first[i] = hits[0] + 1 if len(hits) else n + 1
    return {"AUC": auc, "FirstRel": first}


def ranked_ap_rr(rankings: Mapping[str, Ranking], qrels: Qrels,
                 topics: Sequence[str]) -> PerTopic:
    """AP and RR of each topic's ranking as `measure_run` (trec_eval) computes them on its run:
    the people in trec_eval's order (score descending, ties by id descending; trec_eval keeps a
    score as a C float, so scores equal in float32 tie), relevant when judged above 0, AP over
    every relevant person (found or not). Without writing the run out
    and reading it back: the calibration's ten methods x 904 rankings of DPDK spent 10 s of a
    two-core machine doing that (tests/test_evaluation_measures.py compares both)."""
    ap, rr = np.zeros(len(topics)), np.zeros(len(topics))
    people, descending, index = None, np.zeros(0), {}
    for i, topic in enumerate(topics):
        ranking = rankings[topic]
        if ranking.person_ids is not people:
            people = ranking.person_ids
            index = {p: k for k, p in enumerate(people)}
            descending = np.empty(len(people))
            descending[np.argsort(np.array(people, dtype=object), kind="stable")] = \
                -np.arange(len(people))
        relevant = [p for p, grade in qrels[topic].items() if grade > 0]
        if not relevant or not len(ranking.people):
            continue
        is_relevant = np.zeros(len(people), dtype=bool)
        is_relevant[[index[p] for p in relevant if p in index]] = True
        score = np.asarray(ranking.scores, dtype=np.float32)
        order = np.lexsort((descending[ranking.people], -score))
        ranks = np.flatnonzero(is_relevant[ranking.people[order]]) + 1
        if len(ranks):
            ap[i] = float((np.arange(1, len(ranks) + 1) / ranks).sum()) / len(relevant)
            rr[i] = 1.0 / ranks[0]
    return PerTopic(tuple(topics), {"AP": ap, "RR": rr})
