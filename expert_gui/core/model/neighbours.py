"""The words nearest to a word, or to the sum of several words, in the word embeddings W_p.

The paper inspects neighbours by Euclidean distance (section 5.2); cosine distance
(1 - cosine similarity) is offered too, since it ignores how often a word was updated (its norm).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from expert_gui.core.data.text import PAD_ID

if TYPE_CHECKING:
    from expert_gui.core.model.loglinear import LogLinearModel

METRICS = ("euclidean", "cosine")


@dataclass(frozen=True)
class Neighbour:
    word: str
    word_id: int
    distance: float


def nearest_words(model: LogLinearModel, word_ids: Sequence[int], k: int = 10,
                  metric: str = "euclidean", exclude: Sequence[int] | None = None
                  ) -> list[Neighbour]:
    """The k words closest to sum_i W_p[w_i], nearest first (ties by word id).

    The padding token and, unless `exclude` says otherwise, the query words themselves are left
    out.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, not {metric!r}")
    word_ids = np.asarray(word_ids, dtype=np.int64)
    if len(word_ids) == 0 or k <= 0:
        return []
    emb = model.word_embeddings.astype(np.float64)
    target = emb[word_ids].sum(axis=0)
    distances = _distances(emb, target, metric)
    skip = np.concatenate([[PAD_ID], word_ids if exclude is None else np.asarray(exclude)])
    distances[skip.astype(np.int64)] = np.inf
    k = min(k, int(np.isfinite(distances).sum()))
    if k == 0:
        return []
    top = np.argpartition(distances, k - 1)[:k]
    top = top[np.lexsort((top, distances[top]))]
    return [Neighbour(model.vocab.words[i], int(i), float(distances[i])) for i in top]


def _distances(emb: np.ndarray, target: np.ndarray, metric: str) -> np.ndarray:
    norms = np.linalg.norm(emb, axis=1)
    dots = emb @ target
    if metric == "euclidean":
        sq = norms**2 - 2.0 * dots + float(target @ target)
        return np.sqrt(np.maximum(sq, 0.0))
    denom = norms * np.linalg.norm(target)
    cos = np.divide(dots, denom, out=np.zeros_like(dots), where=denom > 0)
    return 1.0 - cos


def neighbours_tsv(query: str, metric: str, neighbours: Sequence[Neighbour]) -> str:
    """A TSV table with a header: query, metric, rank, word, distance."""
    lines = ["query\tmetric\trank\tword\tdistance"]
    lines += [f"{query}\t{metric}\t{r}\t{n.word}\t{n.distance:.6g}"
              for r, n in enumerate(neighbours, 1)]
    return "\n".join(lines) + "\n"


def write_neighbours_tsv(path: str | Path, query: str, metric: str,
                         neighbours: Sequence[Neighbour]) -> None:
    Path(path).write_text(neighbours_tsv(query, metric, neighbours), encoding="utf-8",
                          errors="backslashreplace")  # a query's bytes that are not UTF-8
