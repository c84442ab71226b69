"""The analyses of the paper's section 5 that need only per-topic numbers:
entropy against average precision (Figure 3) and the per-topic AP difference (Figure 5).

The sweeps that retrain or re-rank (Figures 2 and 4) live in `sweeps.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from expert_gui.core.evaluation.significance import N_PERMUTATIONS, SEED


@dataclass(frozen=True)
class EntropyFit:
    """Figure 3: Pearson's R of normalized entropy (Eq. 6) and AP, its two-tailed permutation
    p-value, and the OLS line AP = slope * entropy + intercept. NaN where undefined (fewer than
    three topics, or a constant variable)."""

    topics: tuple[str, ...]
    entropy: np.ndarray
    ap: np.ndarray
    r: float
    p: float
    slope: float
    intercept: float


def entropy_vs_ap(topics: Sequence[str], entropy: Sequence[float | None], ap: Sequence[float], *,
                  n_permutations: int = N_PERMUTATIONS, seed: int = SEED) -> EntropyFit:
    """Correlate per-topic entropy with AP. Topics without an entropy (no known query word, so no
    distribution) are left out: their AP is 0 by rule, not by the model's uncertainty."""
    keep = [i for i, e in enumerate(entropy) if e is not None and math.isfinite(e)]
    t = tuple(topics[i] for i in keep)
    x = np.array([entropy[i] for i in keep], dtype=np.float64)
    y = np.array([ap[i] for i in keep], dtype=np.float64)
    nan = float("nan")
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return EntropyFit(t, x, y, nan, nan, nan, nan)
    from scipy import stats  # here, not at the top: scipy.stats takes a second to import

    method = stats.PermutationMethod(n_resamples=n_permutations, rng=np.random.default_rng(seed))
    result = stats.pearsonr(x, y, method=method)
    line = stats.linregress(x, y)
    return EntropyFit(t, x, y, float(result.statistic), float(result.pvalue),
                      float(line.slope), float(line.intercept))


@dataclass(frozen=True)
class APDifference:
    """Figure 5: AP(system) - AP(baseline) per topic, sorted from most negative to most positive."""

    topics: tuple[str, ...]
    difference: np.ndarray

    @property
    def wins(self) -> int:
        return int(np.count_nonzero(self.difference > 0))

    @property
    def losses(self) -> int:
        return int(np.count_nonzero(self.difference < 0))

    @property
    def ties(self) -> int:
        return int(np.count_nonzero(self.difference == 0))


def ap_difference(topics: Sequence[str], ap_system: Sequence[float],
                  ap_baseline: Sequence[float]) -> APDifference:
    """Per-topic AP difference, sorted (ties by topic order, so the figure is reproducible)."""
    d = np.asarray(ap_system, dtype=np.float64) - np.asarray(ap_baseline, dtype=np.float64)
    order = np.argsort(d, kind="stable")
    return APDifference(tuple(topics[i] for i in order), d[order])
