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


def scored_ap_rr(scores: np.ndarray, knows: np.ndarray, relevant: Sequence[np.ndarray],
                 n_relevant: Sequence[int], person_ids: Sequence[str], depth: int,
                 block_bytes: int = 64 * 2**20) -> dict[str, np.ndarray]:
    """AP and RR of each query's ranking (row of `scores`, queries x people), as `measure_run`
    (trec_eval) computes them on the run of its first `depth` people (by score, ties by index:
    `order_by_score`): in trec_eval's order (score descending, ties by id descending; trec_eval
    keeps a score as a C float, so scores equal in float32 tie), over `n_relevant[q]` relevant
    people of whom those in `relevant[q]` (indices) are candidates. A query the method knows no
    word of (`knows` False) ranks nobody and scores 0.

    Only the relevant people's ranks are needed: each is the number of people of the run before
    them, counted a block of queries at a time, without sorting a ranking or writing the run
    out (the calibration's ten methods x 904 rankings of DPDK spent 10 s of a two-core machine
    writing and reading their runs; tests/test_evaluation_measures.py compares both)."""
    n_queries, n_people = scores.shape
    tie = np.empty(n_people, dtype=np.int64)  # trec_eval's order among equal scores
    tie[np.argsort(np.array(person_ids, dtype=object), kind="stable")] = -np.arange(n_people)
    sizes = np.array([len(r) for r in relevant], dtype=np.int64)
    pair_query = np.repeat(np.arange(n_queries), sizes)
    pair_person = np.concatenate(relevant).astype(np.int64) if len(relevant) else \
        np.zeros(0, dtype=np.int64)
    ranks = np.full(len(pair_query), np.inf)
    size = max(1, block_bytes // (24 * max(n_people, 1)))
    for start in range(0, n_queries, size):
        rows = slice(start, min(start + size, n_queries))
        block = scores[rows]
        kept = _first(block, depth)
        block32 = block.astype(np.float32)
        pairs = np.flatnonzero((pair_query >= rows.start) & (pair_query < rows.stop)
                               & np.asarray(knows)[pair_query])
        q, person = pair_query[pairs] - rows.start, pair_person[pairs]
        mine = block32[q, person][:, None]
        before = kept[q] & ((block32[q] > mine) | ((block32[q] == mine)
                                                   & (tie[None, :] < tie[person][:, None])))
        ranks[pairs] = np.where(kept[q, person], before.sum(axis=1) + 1, np.inf)
    # each query's relevant people by rank (the found ones first): the k-th found adds k / rank
    order = np.lexsort((ranks, pair_query))
    ranks, pair_query = ranks[order], pair_query[order]
    nth = np.arange(len(ranks)) - np.searchsorted(pair_query, pair_query) + 1
    found = np.isfinite(ranks)
    ap = np.bincount(pair_query[found], nth[found] / ranks[found], n_queries)
    first = np.full(n_queries, np.inf)
    np.minimum.at(first, pair_query[found], ranks[found])
    return {"AP": ap / np.maximum(np.asarray(n_relevant, dtype=np.float64), 1.0),
            "RR": 1.0 / first}


def _first(block: np.ndarray, depth: int) -> np.ndarray:
    """Which people each row's first `depth` are (by score, ties by index: `order_by_score`)."""
    if depth >= block.shape[1]:
        return np.ones(block.shape, dtype=bool)
    if depth <= 0:
        return np.zeros(block.shape, dtype=bool)
    cut = -np.partition(-block, depth - 1, axis=1)[:, depth - 1:depth]
    above = block > cut
    tied = block == cut
    room = depth - above.sum(axis=1, keepdims=True)
    return above | (tied & (np.cumsum(tied, axis=1) <= room))
