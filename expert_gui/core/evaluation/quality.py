"""Whether a trained model learned anything: its held-out MAP against a random ranking's and
against the baselines it is fused with.

A run can end "trained" and still be useless (an Adadelta eps of 0 trained a DPDK model whose
held-out MAP was 0.064 against 0.90 for a good one). The calibration therefore records, beside
each member's held-out measures, what a random ranking of the same people would score on the
same queries ("chance"), and `held_out_warning` turns the two comparisons into one sentence
that the app shows on the model, in the status bar and in the saved-models list.

For a query with R relevant people among N, a random ranking places the relevant ones at
uniformly random ranks, and:
    E[AP] = (1/N) (H_N + (R - 1)/(N - 1) (N - H_N))        (H_N the N-th harmonic number)
    E[RR] = sum_k P(first relevant at rank k) / k,  P(1) = R/N,
            P(k + 1) = P(k) (N - R - k + 1) / (N - k)
(AP: rank n holds a relevant person with probability R/N, and then holds in expectation
1 + (n - 1)(R - 1)/(N - 1) relevant people at ranks 1..n.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

CHANCE = "chance"  # the calibration's measures of a random ranking
# A held-out MAP is "near chance" below this many times chance's, or, where chance is high (a
# few people: chance 0.41 among 6), below this share of the way from chance to a perfect 1
# (there a model that learned scores 0.71, one that did not about 0.5).
NEAR_CHANCE, NEAR_CHANCE_SHARE = 2.0, 0.4
FAR_BELOW = 0.5  # ... below this share of the best baseline's is "far below" it
BASELINES = ("model2-jm", "model1-d")  # the members of `auto` besides the log-linear model


def expected_random_ap(relevant: int, n: int) -> float:
    """E[AP] of a uniformly random ranking of `n` people, `relevant` of them relevant."""
    if relevant <= 0 or n <= 0:
        return 0.0
    if n == 1:
        return 1.0
    harmonic = float(np.sum(1.0 / np.arange(1, n + 1)))
    return (harmonic + (relevant - 1) / (n - 1) * (n - harmonic)) / n


@lru_cache(maxsize=256)
def expected_random_rr(relevant: int, n: int) -> float:
    """E[RR] of a uniformly random ranking of `n` people, `relevant` of them relevant."""
    if relevant <= 0 or n <= 0:
        return 0.0
    k = np.arange(1, n - relevant + 1, dtype=np.float64)  # ranks 1 .. N - R: P(k + 1) / P(k)
    ratios = (n - relevant - k + 1) / (n - k)
    first = relevant / n * np.concatenate([[1.0], np.cumprod(ratios)])
    return float(np.sum(first / np.arange(1, len(first) + 1)))


def chance_measures(relevant_counts: Sequence[int], n: int) -> dict[str, float]:
    """Mean E[AP] and E[RR] of a random ranking over queries with these numbers of relevant
    people: the calibration's "chance" row."""
    if not len(relevant_counts):
        return {"AP": 0.0, "RR": 0.0}
    return {"AP": float(np.mean([expected_random_ap(int(r), n) for r in relevant_counts])),
            "RR": float(np.mean([expected_random_rr(int(r), n) for r in relevant_counts]))}


def held_out_warning(measures: Mapping[str, Mapping[str, float]] | None) -> str:
    """'' for a model that learned, else why not: its held-out MAP near chance's, or far below
    the best baseline's. `measures` is a calibration's (method -> {"AP", "RR"})."""
    if not measures or "loglinear" not in measures:
        return ""
    from expert_gui.core.evaluation.tables import label

    mean_ap = measures["loglinear"]["AP"]
    chance = measures.get(CHANCE, {}).get("AP")
    if chance is not None and mean_ap <= min(NEAR_CHANCE * chance,
                                             chance + NEAR_CHANCE_SHARE * (1 - chance)):
        where = "below" if mean_ap < chance else "near"
        return (f"held-out MAP {mean_ap:.3f} is {where} chance ({chance:.3f}, a random "
                "ranking's): the model learned little; check the training settings")
    baselines = {m: measures[m]["AP"] for m in BASELINES if m in measures}
    if baselines:
        best = max(baselines, key=baselines.get)
        if mean_ap < FAR_BELOW * baselines[best]:
            return (f"held-out MAP {mean_ap:.3f} is far below {label(best)}'s "
                    f"{baselines[best]:.3f}: the model learned little; check the training "
                    "settings")
    return ""
