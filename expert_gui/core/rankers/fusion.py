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
documents show it generalises; every `auto` ranking says which, in words (`describe_auto`). A
member that knows none of a query's words has no say on that query.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from expert_gui.core.rankers.ranking import Ranker, Ranking
from expert_gui.core.store.manifest import ANCHORS

GRID_STEPS = 20
UNCALIBRATED = "loglinear+model2-jm"  # the anchor of a model trained without held-out documents


def anchor_weights(anchor: str, members: Sequence[str]) -> np.ndarray:
    """An anchor's weight for each member (0 for those it leaves out)."""
    return np.array([ANCHORS[anchor].get(m, 0.0) for m in members])


class FusionRanker(BatchRanker):
    """Weighted sum of the members' per-query z-scores. `decision` says how the weights were
    chosen ("anchor", "calibrated", "uncalibrated", or "earlier rule" for models calibrated
    before issue 21) and `label` says it in words, with the evidence."""

    name = "auto"

    def __init__(self, rankers: Sequence[Ranker], weights: Sequence[float],
                 decision: str = "calibrated", label: str = ""):
        if len(rankers) != len(weights) or not rankers:
            raise QueryError("a fusion needs one weight per member")
        self.rankers = list(rankers)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.decision = decision
        self.label = label or weights_text([r.name for r in self.rankers], self.weights)
        self.person_ids, self._maps = member_maps(self.rankers)

    @property
    def calibrated(self) -> bool:
        """Whether held-out documents chose the weights (also when they chose an anchor)."""
        return self.decision != "uncalibrated"

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
        return ranked(query, self.name, self.person_ids, self.weights @ z, known, unknown, depth,
                      extra=self.explained())

    @property
    def batch_width(self) -> int:
        return sum(r.batch_width for r in self.rankers) + len(self.rankers) * len(self.person_ids)

    def explained(self) -> dict:
        """What every `auto` ranking says of its members, weights and decision."""
        return {"members": [r.name for r in self.rankers], "weights": self.weights.tolist(),
                "decision": self.decision, "label": self.label}

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
        return Scores(self.name, self.person_ids, members[0].texts,
                      np.einsum("m,mqc->qc", self.weights, z), known, unknown,
                      extra=[self.explained()] * len(queries))


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
    """`describe_auto` of a model's calibration: the label it keeps, or one made from it."""
    calibration = calibration or {}
    fusion = calibration.get("fusion")
    n = len(calibration.get("held_out", {}).get("documents", ()))
    return (fusion or {}).get("label") or describe_auto(fusion, n, stopped)


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
