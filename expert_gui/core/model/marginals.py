"""What the log-linear model implies over its training collection's words: the normaliser
log Z_1(w) of Eq. 1 for every word, and each person's prior log P(c) = log sum_w P(w) P(c|w),
with P(w) the word's share of the collection's tokens (the distribution training draws its
n-grams from; the padding token has none).

Profiles need both to turn P(c|w) around by Bayes (P(w|c) = P(c|w) P(w) / P(c)); the
"prior-once" aggregation of a query's words needs the prior, which Eq. 2's product of k posteriors
counts k times. Both take one |V| x |C| product, in blocks, once per model: about a second on
DPDK (65,536 words, 1,473 people).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from expert_gui.core.data.derived import derived
from expert_gui.core.data.text import PAD_ID
from expert_gui.core.model.loglinear import LogLinearModel

# Elements of one block of the |V| x |C| logits (`word_blocks`; 32 MB in float64).
BLOCK = 1 << 22


@dataclass(frozen=True)
class Marginals:
    """log Z_1(w) per word and log P(c) per person (read-only arrays)."""

    log_z: np.ndarray
    log_prior: np.ndarray


class _Stopped(Exception):
    """The caller asked to stop: nothing is kept, the next caller computes it again."""


def word_log_frequencies(model: LogLinearModel) -> np.ndarray:
    """log P(w) of every word of the vocabulary; -inf for the padding token."""
    counts = model.vocab.counts.astype(np.float64).copy()
    counts[PAD_ID] = 0.0
    with np.errstate(divide="ignore"):
        return np.log(counts / max(counts.sum(), 1.0))


def marginals(model: LogLinearModel,
              should_stop: Callable[[], bool] | None = None) -> Marginals | None:
    """The model's `Marginals`, computed once and shared by every caller while the model
    lives; None if `should_stop` said stop first."""
    try:
        return derived(model, "marginals", lambda: _compute(model, should_stop))
    except _Stopped:
        return None


def _compute(model: LogLinearModel, should_stop: Callable[[], bool] | None) -> Marginals:
    log_p_word = word_log_frequencies(model)
    log_z = np.empty(len(model.word_embeddings))
    prior = np.full(model.n_people, -np.inf)
    for rows in word_blocks(model):
        if should_stop is not None and should_stop():
            raise _Stopped
        block = logits(model, rows)
        log_z[rows] = logsumexp(block, axis=1)
        joint = block - log_z[rows, None] + log_p_word[rows, None]
        prior = np.logaddexp(prior, logsumexp(joint, axis=0))
    log_z.flags.writeable = False
    prior.flags.writeable = False
    return Marginals(log_z, prior)


def word_blocks(model: LogLinearModel) -> Iterator[slice]:
    """Consecutive rows of words whose |rows| x |C| logits take `BLOCK` elements or fewer."""
    n_words = len(model.word_embeddings)
    rows = max(1, BLOCK // max(model.n_people, 1))
    for start in range(0, n_words, rows):
        yield slice(start, min(start + rows, n_words))


def logits(model: LogLinearModel, rows: slice) -> np.ndarray:
    """W_c . W_p[w] + b_c of Eq. 1 for the words `rows` and every person (a float32 product)."""
    weights = derived(model, "float32 W_c", lambda: np.ascontiguousarray(
        model.candidate_weights, dtype=np.float32))
    emb = np.asarray(model.word_embeddings[rows], dtype=np.float32)
    return (emb @ weights.T).astype(np.float64) + model.candidate_bias.astype(np.float64)
