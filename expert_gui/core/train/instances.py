"""Training instances of section 3.2: n-gram windows cut from each document, with their targets.

A document with at least one person and at least one in-vocabulary token yields windows of `n`
token ids: non-overlapping by default (the last one padded with PAD_ID), or one per position
(stride 1; a document shorter than `n` gives one padded window). Each window's target is uniform
over its document's people, and its weight in Eq. 3 is |d_max| / |d|, where |d| is the document's
length in tokens after text processing (the in-vocabulary tokens the windows are cut from) and
d_max the longest document of the collection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import PAD_ID


@dataclass
class Instances:
    """Windows (N x n token ids), the document each came from, and each window's weight.

    The targets stay in the collection's CSR association arrays (doc -> people), shared here, so
    a 50,000-person collection never materialises an N x |C| target matrix.
    """

    windows: np.ndarray  # (N, n) int32, PAD_ID where a window runs past its document
    docs: np.ndarray  # (N,) int64, the source document of each window
    weights: np.ndarray  # (N,) float64, |d_max| / |d| of the source document
    assoc_indptr: np.ndarray  # (D + 1,) int64
    assoc_people: np.ndarray  # (links,) int32

    def __len__(self) -> int:
        return len(self.docs)

    def targets(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The targets of instances `idx` as sparse triples (row in idx, person, probability)."""
        docs = self.docs[idx]
        starts = self.assoc_indptr[docs]
        counts = self.assoc_indptr[docs + 1] - starts
        rows = np.repeat(np.arange(len(docs)), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        people = self.assoc_people[np.repeat(starts, counts) + np.arange(len(rows)) - first]
        probs = np.repeat(1.0 / counts, counts)
        return rows, people.astype(np.int64), probs

    def target_matrix(self, idx: np.ndarray, n_people: int) -> np.ndarray:
        """Dense targets (len(idx) x |C|), for tests and the straightforward benchmark."""
        out = np.zeros((len(idx), n_people))
        rows, people, probs = self.targets(idx)
        out[rows, people] = probs
        return out


def _windows_per_document(collection: Collection, window: int,
                          overlapping: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """How many windows each document gives, its length and the longest length, d_max."""
    if window < 1:
        raise ValueError("the window must hold at least one token")
    lengths = collection.doc_lengths.astype(np.int64)
    has_people = np.diff(collection.assoc_indptr) > 0
    d_max = int(lengths.max()) if len(lengths) else 0
    if overlapping:
        per_doc = np.where(lengths > 0, np.maximum(lengths - window + 1, 1), 0)
    else:
        per_doc = -(-lengths // window)  # ceil(|d| / n)
    return np.where(has_people, per_doc, 0), lengths, d_max


def count_instances(collection: Collection, window: int = 8, overlapping: bool = False,
                    without: np.ndarray | None = None) -> int:
    """How many windows `make_instances` cuts, without cutting them: what the suggested settings
    (shape.py) size the batches and epochs by, and the memory check (memory.py) counts.
    `without`: documents (indices) left out, as a run on held-out documents leaves them."""
    per_doc, _, _ = _windows_per_document(collection, window, overlapping)
    if without is not None:
        per_doc = per_doc.copy()
        per_doc[without] = 0
    return int(per_doc.sum())


def validation_count(n: int, fraction: float) -> int:
    """How many of n instances a run keeps for its validation loss (at least one, and never
    all, when the fraction is above 0)."""
    return min(max(int(round(n * fraction)), 1), n - 1) if fraction > 0 else 0


def make_instances(collection: Collection, window: int = 8, overlapping: bool = False) -> Instances:
    """All training windows of a collection, in document order."""
    per_doc, lengths, d_max = _windows_per_document(collection, window, overlapping)
    stride = 1 if overlapping else window
    docs = np.repeat(np.arange(len(lengths), dtype=np.int64), per_doc)
    first = np.repeat(np.cumsum(per_doc) - per_doc, per_doc)
    k = np.arange(len(docs), dtype=np.int64) - first  # the window's number within its document
    starts = collection.doc_offsets[docs] + k * stride
    ends = collection.doc_offsets[docs + 1]
    positions = starts[:, None] + np.arange(window, dtype=np.int64)[None, :]
    inside = positions < ends[:, None]
    tokens = np.asarray(collection.tokens)
    windows = np.full(positions.shape, PAD_ID, dtype=np.int32)
    windows[inside] = tokens[positions[inside]]
    weights = d_max / lengths[docs].astype(np.float64)
    return Instances(windows, docs, weights, np.asarray(collection.assoc_indptr, dtype=np.int64),
                     np.asarray(collection.assoc_people))
