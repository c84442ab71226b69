"""How `auto`'s weights are chosen from the held-out documents (the argument, with numbers:
docs/results/calibration.md).

Held-out documents answer "who wrote this?", which rewards exact lexical matching (Model 1 (d))
more than topic queries do, and on a small collection their 50 or so choose a grid point that
swings from sample to sample (Model 1 (d) 0.05 to 1.00 over ten samples of the demo). So `auto`
starts from an anchor, one of two fixed fusions that held up on every topic set measured (the
log-linear model alone, or the log-linear model and Model 2 (jm) with equal weights: the paper's
ensemble pair as z-scores), the one with the higher held-out MAP (a tie goes to the pair). It
departs from the anchor only as far as the calibration is shown to generalise:

1. the AP of every grid point on every held-out query (`grid_average_precisions`);
2. bagged weights: the mean of the best grid point over BOOTSTRAPS bootstrap samples of the
   queries (the grid's choice on one sample is noise; its mean is stable);
3. out-of-fold AP: CV_REPEATS times CV_FOLDS folds, each fold measured at the grid point that is
   best on the other folds, so the grid search's optimism is not counted as evidence;
4. a one-sided paired randomization test of the out-of-fold AP against the anchor's AP;
5. p < ALPHA: weights = anchor + n / (n + PRIOR_DOCUMENTS) (bagged - anchor), the anchor
   counting as PRIOR_DOCUMENTS documents; otherwise the anchor, and `auto` says that the
   calibration was inconclusive.

Held-out documents are the collection's own documents ("who wrote this?"). Where most of them are
whole documents (more than query_type.LONG_QUERY_WORDS words), their choice of anchor (an untested
comparison of two means) is evidence about whole documents only, and a short topic starts from
SHORT_TOPIC_ANCHOR, the paper's model, leaving it by steps 4-5 alone (the same bagged weights
and out-of-fold AP, tested against that anchor): the `short_topics` record. On every shared set
of short topics the log-linear model alone was within 0.01 of the best method and the pair was
not (AMiner's areas; docs/results/auto-generalises.md). Where most held-out documents are short
themselves (a collection of titles), they are queries of that type, and a short topic ranks as
they chose, like a whole document: on exports of titles the log-linear model's start cost
`auto` 0.1-0.2 of held-out MAP (docs/results/realfiles-training.md). Where the held-out
documents are too few to test anything (fewer than MIN_DOCUMENTS: a collection where most people
have one document), the log-linear model has had little to learn from, and a short topic ranks
as a whole document does: on such exports the log-linear model's held-out MAP was 0.01-0.17
against 0.42-0.90 for the best baseline (Zotero CSV, Scopus BibTeX, CNKI's RefWorks), and on
CNKI's RefWorks export `auto` found the writers of its terms 0.16 of the time from the log-linear
start, 0.94 from the pair.

Every draw comes from the held-out sample's seed, so one model always calibrates the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expert_gui.core.evaluation.significance import randomization_test
from expert_gui.core.rankers.fusion import (
    ANCHORS,
    anchor_weights,
    describe_auto,
)
from expert_gui.core.rankers.query_type import SHORT_MAJORITY

RULE = "anchor-gated-shrinkage/2"  # /2: a short-topic record beside the whole-document one
BOOTSTRAPS = 200
CV_FOLDS = 5
CV_REPEATS = 20
PERMUTATIONS = 10_000
ALPHA = 0.05
PRIOR_DOCUMENTS = 200
MIN_DOCUMENTS = 10  # fewer held-out queries than this: no test, the anchor
SHORT_TOPIC_ANCHOR = "loglinear"


def grid_average_precisions(grid: np.ndarray, member_z: Sequence[np.ndarray],
                            relevant: Sequence[np.ndarray]) -> np.ndarray:
    """AP of every grid point (rows) on every query (columns), each query given by its members x
    people z-scores and its relevant people. A query no member knows a word of ranks nobody and
    scores 0, as in the evaluation.

    The AP of `average_precisions` of the fused scores `grid @ z`, each relevant person's rank
    found from the people whose place against them depends on the grid point: a person below
    them by more than MARGIN in every member is below them at every point of the simplex (the
    weights are non-negative and sum to 1) and one above them by more than MARGIN in every
    member is above them at every point, by far more than the products round, so those are
    counted, not fused. A person equal to them in every member a point weighs ties with them
    there (ties go to the lower index): the whole product rounds a few columns otherwise than
    the others (BLAS's kernel for the columns left over), which split such ties by where the
    people stand in the collection."""
    out = np.zeros((len(grid), len(member_z)))
    weighs = (grid > 0).astype(np.int64)
    for q, (z, rel) in enumerate(zip(member_z, relevant, strict=True)):
        if not len(rel) or not z.any():
            continue
        rel = np.asarray(rel, dtype=np.int64)
        ranks = np.empty((len(grid), len(rel)))
        for k, r in enumerate(rel):
            apart = z - z[:, r:r + 1]
            lowest = apart.min(axis=0)
            near = np.flatnonzero((apart.max(axis=0) >= -MARGIN) & (lowest <= MARGIN))
            fused = grid @ z[:, near]
            before = np.searchsorted(near, r)  # the near people of lower index than r
            mine = fused[:, before][:, None]
            differs = apart[:, near] != 0
            alike = np.flatnonzero(~differs.all(axis=0))  # equal to r in some member
            fused[:, alike] = np.where(weighs @ differs[:, alike] == 0, mine, fused[:, alike])
            ranks[:, k] = np.count_nonzero(lowest > MARGIN) + np.count_nonzero(
                fused > mine, axis=1) + np.count_nonzero(fused[:, :before] == mine, axis=1) + 1
        ranks.sort(axis=1)
        out[:, q] = (np.arange(1, len(rel) + 1) / ranks).mean(axis=1)
    return out


MARGIN = 1e-9  # z-scores apart by more than this stay apart in any fusion of them


def bagged_weights(ap: np.ndarray, grid: np.ndarray, rng: np.random.Generator,
                   draws: int = BOOTSTRAPS) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of the best grid point (first best in grid order) over
    `draws` bootstrap samples of the queries."""
    n = ap.shape[1]
    chosen = []
    for _ in range(draws):
        counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
        chosen.append(grid[int(np.argmax(ap @ counts))])
    chosen = np.asarray(chosen)
    return chosen.mean(axis=0), chosen.std(axis=0)


def out_of_fold(ap: np.ndarray, rng: np.random.Generator, folds: int = CV_FOLDS,
                repeats: int = CV_REPEATS) -> np.ndarray:
    """Each query's AP at the grid point best on the other folds, averaged over `repeats`
    random splits: what the calibration achieves on documents it was not fitted on."""
    n = ap.shape[1]
    out = np.zeros((repeats, n))
    for r in range(repeats):
        order = rng.permutation(n)
        for f in range(folds):
            test = order[f::folds]
            train = np.setdiff1d(order, test)
            out[r, test] = ap[int(np.argmax(ap[:, train].sum(axis=1))), test]
    return out.mean(axis=0)


def choose_fusion(ap: np.ndarray, grid: np.ndarray, members: Sequence[str], seed: int,
                  short: Sequence[bool] | None = None) -> dict:
    """The `fusion` record of a model's calibration (manifest key `calibration.fusion`): the
    weights of `auto` for whole documents, the decision, and the evidence behind it; and under
    `short_topics` the same for short topics: from SHORT_TOPIC_ANCHOR, or, where more than
    SHORT_MAJORITY of the held-out documents are short topics themselves (`short`, one flag per
    query; none without it), as for whole documents."""
    n = ap.shape[1]
    short_share = float(np.mean(short)) if short is not None and n else 0.0
    anchors = {name: anchor_weights(name, members) for name in ANCHORS}
    rows = {name: _grid_row(grid, w) for name, w in anchors.items()}
    held = {name: float(ap[row].mean()) if n else 0.0 for name, row in rows.items()}
    anchor = "loglinear" if held["loglinear"] > held["loglinear+model2-jm"] else \
        "loglinear+model2-jm"
    record = {"members": list(members), "normalisation": "z-score", "rule": RULE,
              "prior_documents": PRIOR_DOCUMENTS}
    bagged = oof = None
    if n >= MIN_DOCUMENTS:
        bagged, spread = bagged_weights(ap, grid, np.random.default_rng([seed, 1]))
        oof = out_of_fold(ap, np.random.default_rng([seed, 2]))
        record |= {"bagged_weights": bagged.tolist(), "bootstrap_sd": spread.tolist()}

    def decided(name: str) -> dict:
        """The weights from anchor `name`: moved toward the bagged weights if the out-of-fold
        AP beats the anchor's (one-sided paired test), else the anchor."""
        chosen = {"anchor": name, "anchor_weights": anchors[name].tolist(), "shrinkage": 0.0}
        cv = {"folds": CV_FOLDS, "repeats": CV_REPEATS, "permutations": PERMUTATIONS,
              "anchor_map": held[name], "oof_map": None, "p": None}
        weights, decision = anchors[name], "anchor"
        if oof is not None:
            p = randomization_test(oof, ap[rows[name]], n_permutations=PERMUTATIONS,
                                   seed=seed, one_sided=True)
            cv |= {"oof_map": float(oof.mean()), "p": p}
            if p < ALPHA:
                shrinkage = n / (n + PRIOR_DOCUMENTS)
                weights = anchors[name] + shrinkage * (bagged - anchors[name])
                decision, chosen["shrinkage"] = "calibrated", shrinkage
        chosen |= {"weights": [float(w) for w in weights], "decision": decision, "cv": cv}
        chosen["label"] = describe_auto({**record, **chosen}, n)
        return chosen

    record |= decided(anchor)
    # the whole documents' choice serves short topics too where it is the one they would make
    # (the same anchor: the same test), where the held-out documents are mostly short, or
    # where they are too few to test the log-linear model's start
    same = anchor == SHORT_TOPIC_ANCHOR or short_share > SHORT_MAJORITY or n < MIN_DOCUMENTS
    record["short_topics"] = {
        **({**{k: record[k] for k in ("anchor", "anchor_weights", "shrinkage", "weights",
                                      "decision", "label")}, "cv": dict(record["cv"])}
           if same else decided(SHORT_TOPIC_ANCHOR)),
        "short_share": short_share}
    return record


def _grid_row(grid: np.ndarray, weights: np.ndarray) -> int:
    """The grid point holding exactly these weights (each anchor is one)."""
    hits = np.flatnonzero(np.abs(grid - weights).max(axis=1) < 1e-12)
    if not len(hits):
        raise ValueError(f"{weights.tolist()} is not a point of the grid")
    return int(hits[0])
