"""`auto`: the log-linear model, Model 2 (jm) and Model 1 (d) fused with weights chosen on the
collection's own held-out documents (core/evaluation/fusion_choice.py).

No single method is best everywhere: the log-linear model wins on short topics of a collection
where words are shared across people (DPDK), the profile language model on whole abstracts, and
the rank product of Eq. 5 can fall below its best member. So each member's scores are put on one
scale per query (z-scores: (s - mean) / standard deviation over all candidates, a monotone map
that keeps each member's order) and added with weights w >= 0, sum w = 1:

    score(c) = sum_m w_m z_m(c)

The weights start from an anchor (ANCHORS: the log-linear model alone, or it and Model 2 (jm)
with equal weights) and move toward the held-out documents' choice only as far as those
documents show it generalises; a short topic has weights of its own, from the log-linear model's
anchor (fusion_choice.py says why). Every `auto` ranking says which weights ranked it, in words
(`describe_auto`). A member that knows none of a query's words has no say on that query.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product

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
from expert_gui.core.rankers.names import METHOD_LABELS
from expert_gui.core.rankers.query_type import query_type, short_topic
from expert_gui.core.rankers.ranking import Ranker, Ranking
from expert_gui.core.store.manifest import ANCHORS

GRID_STEPS = 20
# The anchor of a model trained without held-out documents, for every query: nothing has
# measured its log-linear model (fusion_choice.py: where too few documents can be held out, it
# has had little to learn from).
UNCALIBRATED = "loglinear+model2-jm"
# Papers from outside the collection (who could review this?): each member that judges how a
# person's writing fits a text's topic, with equal weights: the log-linear model with its prior
# counted once (its Eq. 2 counts it once per word, which on an abstract puts whoever wrote most
# first), the person's profile (Model 1 (d)) and their documents (Model 2 (jm)). Not chosen on
# held-out documents, which ask who wrote a document of the collection: on the reviewer gold
# standard they put the log-linear model first (0.90) where papers from outside put it last
# (0.28). docs/results/outside-papers.md measures it; (method, options, weight) each.
OUTSIDE = (("loglinear", (("aggregation", "prior-once"),), 1 / 3),
           ("model1-d", (), 1 / 3),
           ("model2-jm", (), 1 / 3))
OUTSIDE_LABEL = ("Log-linear (prior once) 0.33, Model 1 (d) 0.33, Model 2 (jm) 0.33 — for a "
                 "paper from outside the collection, the same for every collection (not "
                 "chosen on held-out documents)")


def anchor_weights(anchor: str, members: Sequence[str]) -> np.ndarray:
    """An anchor's weight for each member (0 for those it leaves out)."""
    return np.array([ANCHORS[anchor].get(m, 0.0) for m in members])


class FusionRanker(BatchRanker):
    """Weighted sum of the members' per-query z-scores: `weights` for whole documents and, where
    given, `short_weights` for short topics (query_type.short_topic of `count_words`).
    `decision` says how the weights were chosen ("anchor", "calibrated", "uncalibrated",
    "outside" for `OUTSIDE`, or "earlier rule" for models whose calibration has no
    `fusion.decision`) and each label says it in words, with the evidence. `kind` is every
    query's type where the caller knows it (query_type.OUTSIDE_PAPER)."""

    name = "auto"

    def __init__(self, rankers: Sequence[Ranker], weights: Sequence[float],
                 decision: str = "calibrated", label: str = "",
                 short_weights: Sequence[float] | None = None, short_label: str = "",
                 count_words: Callable[[Query], int] | None = None, kind: str | None = None):
        if len(rankers) != len(weights) or not rankers or (
                short_weights is not None and len(short_weights) != len(rankers)):
            raise QueryError("a fusion needs one weight per member")
        if short_weights is not None and count_words is None:
            raise QueryError("weights for short topics need a way to count a query's words")
        self.rankers = list(rankers)
        names = [r.name for r in self.rankers]
        self.weights = np.asarray(weights, dtype=np.float64)
        self.decision = decision
        self.label = label or weights_text(names, self.weights)
        self.short_weights = None if short_weights is None else \
            np.asarray(short_weights, dtype=np.float64)
        self.short_label = short_label or (
            "" if short_weights is None else weights_text(names, self.short_weights))
        self.count_words = count_words
        self.kind = kind  # every query's type, when the caller says it (a paper from outside)
        self.person_ids, self._maps = member_maps(self.rankers)

    @property
    def calibrated(self) -> bool:
        """Whether held-out documents chose the weights (also when they chose an anchor)."""
        return self.decision != "uncalibrated"

    def weights_for(self, query: Query) -> tuple[np.ndarray, dict]:
        """The weights that rank `query`, and what its ranking says of them."""
        if self.short_weights is None:
            return self.weights, self.explained(self.weights, self.label, self.kind)
        n = self.count_words(query)
        short = short_topic(n)
        weights = self.short_weights if short else self.weights
        return weights, self.explained(weights, self.short_label if short else self.label,
                                       query_type(n))

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
        known, unknown = merged_words([(r.known_words, r.unknown_words) for r in rankings])
        if not known:
            return no_known_words(query, self.name, self.person_ids, unknown)
        weights, extra = self.weights_for(query)
        return ranked(query, self.name, self.person_ids, weights @ z, known, unknown, depth,
                      extra=extra)

    @property
    def batch_width(self) -> int:
        return sum(r.batch_width for r in self.rankers) + len(self.rankers) * len(self.person_ids)

    def explained(self, weights: np.ndarray, label: str, kind: str | None = None) -> dict:
        """What an `auto` ranking says of its members, weights, decision and, where the query's
        type chose the weights, that type."""
        return {"members": [r.name for r in self.rankers], "weights": weights.tolist(),
                "decision": self.decision, "label": label} | (
            {"query_type": kind} if kind else {})

    def member_batch(self, queries: Sequence[Query]) -> tuple[list[Scores], np.ndarray]:
        """`member_scores` of a block: every member's `Scores`, and the z-scores members x
        queries x people (zeros where a member knows none of a query's words)."""
        members = [r.score_batch(queries) for r in self.rankers]
        z = np.zeros((len(self.rankers), len(queries), len(self.person_ids)))
        for i, (s, where) in enumerate(zip(members, self._maps, strict=True)):
            knows = np.flatnonzero([s.knows(q) for q in range(len(s))])
            z[i][np.ix_(knows, where)] = zscores(s.values[knows])
        return members, z

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        members, z = self.member_batch(queries)
        known, unknown = merged_batch(members)
        chosen = [self.weights_for(q) for q in queries]
        weights = np.array([w for w, _ in chosen]).reshape(len(queries), len(self.rankers))
        return Scores(self.name, self.person_ids, members[0].texts,
                      np.einsum("qm,mqc->qc", weights, z), known, unknown,
                      extra=[extra for _, extra in chosen])


def weights_text(members: Sequence[str], weights: Sequence[float]) -> str:
    """`auto`'s members with their weights, as every screen states them: "Log-linear 0.55, ..."."""
    return ", ".join(f"{METHOD_LABELS.get(m, m)} {w:.2f}"
                     for m, w in zip(members, weights, strict=True))


def anchor_text(anchor: str) -> str:
    """An anchor in words: "Log-linear", "Log-linear + Model 2 (jm), equal weights"."""
    members = list(ANCHORS[anchor])
    text = " + ".join(METHOD_LABELS[m] for m in members)
    return text + (", equal weights" if len(members) > 1 else "")


def describe_auto(fusion: dict | None, n_documents: int, stopped: bool = False) -> str:
    """What `auto` ranks with and why, in the words every screen shows: the anchor and why the
    calibration was not used, or the weights and the held-out evidence that moved them.
    `stopped`: a partial model, whose training was stopped before its calibration."""
    if fusion is None:
        why = "training was stopped before it" if stopped else "no held-out documents"
        return f"{anchor_text(UNCALIBRATED)} — not calibrated ({why})"
    weights = weights_text(fusion["members"], fusion["weights"])
    decision = fusion.get("decision")
    if decision is None:  # a model calibrated before issue 21: the grid's best point
        return (f"{weights} — calibrated on {n_documents:,} held-out documents (earlier rule: "
                "the grid's best point; train again for the current rule)")
    cv = fusion["cv"]
    anchor = anchor_text(fusion["anchor"])
    if decision == "anchor":
        if cv["p"] is None:
            return (f"{anchor} — too few held-out documents to calibrate ({n_documents:,})")
        return (f"{anchor} — calibration inconclusive on {n_documents:,} held-out documents "
                f"(calibrated {cv['oof_map']:.3f} vs {cv['anchor_map']:.3f} out of fold, "
                f"{p_text(cv['p'], 2)})")
    return (f"{weights} — calibrated on {n_documents:,} held-out documents (out of fold "
            f"{cv['oof_map']:.3f} vs {cv['anchor_map']:.3f} for {anchor}, {p_text(cv['p'], 3)}; "
            f"weight {fusion['shrinkage']:.2f} against the anchor)")


def p_text(p: float, places: int) -> str:
    """'p = 0.020', or 'p < 0.001' where the value would round to 0: a test's p is never 0."""
    floor = 10.0 ** -places
    return f"p < {floor:.{places}f}" if p < floor / 2 else f"p = {p:.{places}f}"


def zscores(scores: np.ndarray) -> np.ndarray:
    """(s - mean) / sd of each row (of the last axis); -inf (a person a member rules out) counts
    as the row's lowest finite score. A row with no finite score, or all alike, is all 0."""
    s = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(s)
    lowest = np.min(s, axis=-1, where=finite, initial=np.inf, keepdims=True)
    s = np.where(finite, s, np.where(np.isfinite(lowest), lowest, 0.0))
    sd = s.std(axis=-1, keepdims=True)
    ok = (sd > 0) & finite.any(axis=-1, keepdims=True)
    return np.where(ok, (s - s.mean(axis=-1, keepdims=True)) / np.where(ok, sd, 1.0), 0.0)


def auto_label(calibration: dict | None, stopped: bool = False) -> str:
    """`describe_auto` of a model's calibration (the labels it keeps, or ones made from it): of
    each query type's weights where short topics have their own."""
    calibration = calibration or {}
    fusion = calibration.get("fusion")
    n = len(calibration.get("held_out", {}).get("documents", ()))
    label = (fusion or {}).get("label") or describe_auto(fusion, n, stopped)
    short = (fusion or {}).get("short_topics")
    if not short or short["label"] == label:  # one set of weights for every query
        return label
    return f"short topics: {short['label']}; whole documents: {label}"


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
