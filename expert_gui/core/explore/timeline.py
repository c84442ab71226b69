"""When a person worked, and when on what: documents per year or month, and which of their
documents are about a word or a topic.

A timeline runs from the period of the first dated document to that of the last, every period
between included (with 0), so a pause shows as a gap. Undated documents are left out of it.

A document is about a query when it is likelier to have generated the query than the collection
as a whole is, with the document's language model smoothed as Model 2 smooths it (Jelinek-Mercer,
lambda = 0.5): P(q|theta_d) > P(q), that is sum_t n(t,q) log(lambda + (1 - lambda) n(t,d) /
(|d| P(t))) > 0. For one word it means the document uses the word more often than the collection
does; for a topic of several words, the words it holds must outweigh those it lacks.
"""

from __future__ import annotations

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import Tokenizer

PERIODS = ("year", "month")
_UNITS = {"year": "Y", "month": "M"}
ABOUT_LAMBDA = 0.5


def documents_per_period(dates: np.ndarray, period: str = "year",
                         span: tuple[np.datetime64, np.datetime64] | None = None
                         ) -> list[tuple[str, int]]:
    """(period, documents) for every period from the first date to the last (or over `span`,
    both ends included); "2021" for a year, "2021-03" for a month."""
    unit = _UNITS[period]
    dates = np.asarray(dates, dtype="datetime64[D]")
    when = dates[~np.isnat(dates)].astype(f"datetime64[{unit}]")
    if span is None:
        if len(when) == 0:
            return []
        span = (when.min(), when.max())
    lo, hi = (np.datetime64(s, unit) for s in span)
    when = when[(when >= lo) & (when <= hi)]
    counts = np.bincount((when - lo).astype(np.int64), minlength=int((hi - lo).astype(int)) + 1)
    return [(str(lo + i), int(n)) for i, n in enumerate(counts.tolist())]


def tokens_of(collection: Collection, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tokens of some documents in one array, and for each token its position in `docs`."""
    docs = np.asarray(docs, dtype=np.int64)
    starts, ends = collection.doc_offsets[docs], collection.doc_offsets[docs + 1]
    if len(docs) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    tokens = np.concatenate([collection.tokens[s:e] for s, e in
                             zip(starts.tolist(), ends.tolist(), strict=True)])
    return tokens.astype(np.int64), np.repeat(np.arange(len(docs)), ends - starts)


def documents_about(collection: Collection, docs: np.ndarray, query: str,
                    lam: float = ABOUT_LAMBDA) -> np.ndarray:
    """Which of `docs` are about the query (see the module's docstring): a boolean per document.

    A query with no word the collection knows is about no document.
    """
    docs = np.asarray(docs, dtype=np.int64)
    ids, _ = collection.vocab.encode(Tokenizer(collection.settings).words(query))
    terms, n_tq = np.unique(ids, return_counts=True)
    if len(terms) == 0 or len(docs) == 0:
        return np.zeros(len(docs), dtype=bool)
    counts = collection.vocab.counts.astype(np.float64)
    p_t = counts[terms] / counts.sum()
    tokens, owner = tokens_of(collection, docs)
    hit = np.isin(tokens, terms)
    col = np.searchsorted(terms, tokens[hit])
    tf = np.zeros((len(docs), len(terms)))
    np.add.at(tf, (owner[hit], col), 1.0)
    lengths = np.maximum(collection.doc_lengths[docs], 1).astype(np.float64)
    ratio = lam + (1.0 - lam) * tf / (lengths[:, None] * p_t[None, :])
    return np.log(ratio) @ n_tq > 0
