"""Significance as in the paper (section 4.3, Tables 2 and 4): a two-tailed paired randomization
test (Smucker et al., 2007) of each system against a reference, Benjamini-Hochberg adjusted."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

N_PERMUTATIONS = 10_000
SEED = 0
_SIGNS_PER_CHUNK = 4_000_000
MARKS = ((0.01, "***"), (0.05, "**"), (0.1, "*"))


def randomization_test(a: np.ndarray, b: np.ndarray, *, n_permutations: int = N_PERMUTATIONS,
                       seed: int = SEED, one_sided: bool = False) -> float:
    """Two-tailed p-value of the difference in means of paired per-topic scores (one-sided:
    of `a` being better than `b`).

    Under the null hypothesis the two systems are exchangeable on each topic, so each topic's
    difference keeps or flips its sign at random. p is the share of the permutations (the
    observed assignment counted as one of them) whose |mean difference| reaches the observed one
    (one-sided: whose mean difference reaches it).
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if d.shape != np.shape(b) or d.ndim != 1:
        raise ValueError("randomization_test needs two 1-d arrays of the same length")
    if len(d) == 0:
        return 1.0
    measure = (lambda x: x) if one_sided else np.abs
    observed = measure(d.mean())
    # Sums taken in another order differ in the last bits: equal means must count as reached.
    tolerance = 1e-12 * max(1.0, np.abs(d).max())
    rng = np.random.default_rng(seed)
    chunk = max(1, _SIGNS_PER_CHUNK // len(d))  # bounds memory for very many topics
    reached = 0
    for start in range(0, n_permutations, chunk):
        signs = rng.choice((-1.0, 1.0), size=(min(chunk, n_permutations - start), len(d)))
        reached += np.count_nonzero(measure(signs @ d) / len(d) >= observed - tolerance)
    return float((reached + 1) / (n_permutations + 1))


def benjamini_hochberg(p_values: Mapping[str, float]) -> dict[str, float]:
    """BH-adjusted p-values (scipy's `false_discovery_control`), keyed as given."""
    if not p_values:
        return {}
    from scipy.stats import false_discovery_control  # here: scipy.stats is slow to import

    keys = list(p_values)
    adjusted = false_discovery_control(np.array([p_values[k] for k in keys]), method="bh")
    return {k: float(p) for k, p in zip(keys, adjusted, strict=True)}


def compare_to_reference(per_topic: Mapping[str, np.ndarray], reference: str, *,
                         n_permutations: int = N_PERMUTATIONS, seed: int = SEED) -> dict[str, float]:
    """BH-adjusted p-value of every other system against `reference` on one measure."""
    raw = {name: randomization_test(values, per_topic[reference],
                                    n_permutations=n_permutations, seed=seed)
           for name, values in per_topic.items() if name != reference}
    return benjamini_hochberg(raw)


def mark(p: float | None) -> str:
    """The paper's marks: *** p < 0.01, ** p < 0.05, * p < 0.1."""
    if p is None:
        return ""
    for threshold, symbol in MARKS:
        if p < threshold:
            return symbol
    return ""
