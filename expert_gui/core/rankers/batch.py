"""Ranking many queries in one call: `ranker.rank_batch(queries, depth)`.

Every ranker also answers a batch: the queries as a sparse query x word matrix of counts
n(t, q), multiplied with the ranker's own matrices (the model's parameters, the collection's
term counts) a block of queries at a time, so that the products run as matrix products (numpy,
scipy, or torch on the training device: arrays.py) instead of one small product per query. The
blocks are as large as fit `BLOCK_BYTES` of intermediate results, so memory is bounded whatever
the number of queries or documents. The rankings are those of `rank`, query by query (the
tests compare both on real collections); `rank` stays the reference and answers single queries.

A query is a text, or token ids in the ranker's vocabulary (`Query`); a ranking of an id list
names its words as its query. `candidates` of a `Restricted` ranker and P(expert) of an
`ExpertProbability` ranker are applied to a batch as to one query.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from expert_gui.core.data.text import Tokenizer, Vocabulary
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.ranking import Ranking, normalized_entropy, order_by_score

Query = str | Sequence[int] | np.ndarray
"""A query text, or the token ids of its words in the ranker's vocabulary."""

BLOCK_BYTES = 64 * 2**20  # intermediate results of one block of queries
MAX_BLOCK = 256  # queries per block


@dataclass(frozen=True)
class EncodedQueries:
    """Queries in one vocabulary: their texts, the ids of their known words (in order, repeats
    kept), and their known and unknown words."""

    texts: list[str]
    ids: list[np.ndarray]
    known: list[tuple[str, ...]]
    unknown: list[tuple[str, ...]]
    n_words: int

    def __len__(self) -> int:
        return len(self.texts)

    def matrix(self, weights: Sequence[np.ndarray] | None = None) -> csr_matrix:
        """queries x vocabulary: n(t, q), or the sum of `weights[q]` over t's occurrences."""
        lengths = [len(i) for i in self.ids]
        rows = np.repeat(np.arange(len(self.ids)), lengths)
        cols = np.concatenate(self.ids) if self.ids else np.zeros(0, dtype=np.int64)
        data = np.concatenate(weights) if weights is not None and len(cols) else \
            np.ones(len(cols))
        m = csr_matrix((data.astype(np.float64), (rows, cols)),
                       shape=(len(self.ids), self.n_words))
        m.sum_duplicates()
        return m


def encode_queries(queries: Sequence[Query], tokenizer: Tokenizer,
                   vocab: Vocabulary) -> EncodedQueries:
    """Each query's known word ids and words, as `Vocabulary.encode` reads a text."""
    texts, ids, known, unknown = [], [], [], []
    for q in queries:
        if isinstance(q, str):
            found, missing = vocab.encode(tokenizer.words(q))
            text = q
        else:
            found, missing = np.asarray(q, dtype=np.int64).reshape(-1), []
            if len(found) and (found.min() < 1 or found.max() >= len(vocab)):
                raise QueryError(f"token ids must be in 1..{len(vocab) - 1}")
            text = " ".join(vocab.words[i] for i in found)
        texts.append(text)
        ids.append(found)
        known.append(tuple(vocab.words[i] for i in found))
        unknown.append(tuple(missing))
    return EncodedQueries(texts, ids, known, unknown, len(vocab))


def term_block(matrix: csr_matrix) -> tuple[np.ndarray, csr_matrix]:
    """The words any query of the block holds, and the block's columns of those words."""
    terms = np.unique(matrix.indices).astype(np.int64)
    return terms, matrix[:, terms].tocsr()


@dataclass(frozen=True)
class Scores:
    """Every person's score for each query of a block (`values`, queries x people, on the host),
    with what turns a row into the `Ranking` that `rank` gives for that query."""

    method: str
    person_ids: Sequence[str]
    texts: list[str]
    values: np.ndarray
    known: list[tuple[str, ...]]
    unknown: list[tuple[str, ...]]
    extra: list[dict] = field(default_factory=list)  # per query; empty: none
    log_probabilities: bool = False  # values are log P(c|q): rankings carry P(c|q), Eq. 6
    p_expert: Any = None  # the ExpertProbability that adds P(expert) (probability.py)
    candidates: np.ndarray | None = None  # person indices ranked (Restricted); None: all

    def __len__(self) -> int:
        return len(self.texts)

    def knows(self, i: int) -> bool:
        return len(self.known[i]) > 0

    def rankings(self, depth: int | None = None) -> list[Ranking]:
        return [self.ranking(i, depth) for i in range(len(self))]

    def ranking(self, i: int, depth: int | None = None) -> Ranking:
        """Query i's ranking, as the ranker's `rank` makes it."""
        if not self.knows(i):
            return Ranking(self.texts[i], self.method, self.person_ids,
                           np.zeros(0, dtype=np.int64), np.zeros(0), (), self.unknown[i],
                           candidates=self.candidates)
        row = self.values[i]
        if self.candidates is None:
            people = order_by_score(row, depth)
        else:
            people = self.candidates[order_by_score(row[self.candidates], depth)]
        extra = dict(self.extra[i]) if self.extra else {}
        p_expert = None
        if self.p_expert is not None:
            if missing := self.p_expert.missing(len(self.known[i])):
                extra["no_p_expert"] = missing
            else:
                p_expert = self.p_expert.probabilities(row, len(self.known[i]))[people]
                extra["p_expert"] = self.p_expert.fit
        probabilities = entropy = None
        if self.log_probabilities:
            probabilities = np.exp(row)
            entropy = normalized_entropy(probabilities)
        return Ranking(self.texts[i], self.method, self.person_ids, people, row[people],
                       self.known[i], self.unknown[i], probabilities=probabilities,
                       entropy=entropy, extra=extra, p_expert=p_expert,
                       candidates=self.candidates)


class BatchRanker:
    """`rank_batch` over a ranker's `score_batch` (one block of queries -> `Scores`) and its
    `batch_width`: the floats one query's intermediate results take."""

    batch_width: int

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        raise NotImplementedError

    def rank_batch(self, queries: Sequence[Query], depth: int | None = None) -> list[Ranking]:
        """The ranking of each query, as `rank` gives it, computed a block at a time."""
        out: list[Ranking] = []
        for scores in score_blocks(self, queries):
            out += scores.rankings(depth)
        return out


def block_size(ranker) -> int:
    """Queries per block, so that a block's intermediate results stay within BLOCK_BYTES."""
    return int(min(MAX_BLOCK, max(1, BLOCK_BYTES // (8 * max(ranker.batch_width, 1)))))


def blocks(queries: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(queries), size):
        yield queries[start:start + size]


def score_blocks(ranker, queries: Sequence[Query]) -> Iterator[Scores]:
    """`ranker.score_batch` of each block of `queries`, in order."""
    for part in blocks(list(queries), block_size(ranker)):
        yield ranker.score_batch(part)
