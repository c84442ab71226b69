"""What every collection-based ranker shares: the query in the collection's own words, the
term-document counts (one matrix per collection, whichever rankers use it), and turning scores
into a `Ranking`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np
from scipy.sparse import csr_matrix, issparse

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.derived import derived
from expert_gui.core.data.text import Tokenizer, Vocabulary
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.ranking import Ranker, Ranking, order_by_score


def encode_query(tokenizer: Tokenizer, vocab: Vocabulary, query: str
                 ) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """Distinct known term ids, their counts n(t, q), the known words and the unknown words.

    Baselines pass the collection's own tokenizer and vocabulary, so they see the same words the
    documents were indexed with.
    """
    ids, unknown = vocab.encode(tokenizer.words(query))
    terms, counts = np.unique(ids, return_counts=True)
    known = [vocab.words[i] for i in ids]
    return terms, counts.astype(np.float64), known, unknown


T = TypeVar("T")


def shared(collection: Collection, key: Hashable, build: Callable[[], T]) -> T:
    """What `build` derives from the collection (arrays, sparse matrices, tuples of them),
    built once per collection and held while it lives, read-only, for every ranker over it:
    at a million documents each ranker's own copies took the app to 9.0 GB."""
    return derived(collection, key, lambda: _read_only(build()))


def _read_only(value):
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif issparse(value):
        for part in (value.data, value.indices, value.indptr):
            part.flags.writeable = False
    elif isinstance(value, tuple):
        for part in value:
            _read_only(part)
    return value


def term_document_matrix(collection: Collection) -> csr_matrix:
    """Documents x vocabulary term counts n(t, d), from the flat token array (`shared`)."""
    return shared(collection, "term-document counts", lambda: _count_terms(collection))


def _count_terms(collection: Collection) -> csr_matrix:
    """The tokens as the rows' entries (each a count of 1), repeats then summed: no
    (row, column) pairs of every token, 0.7 GB at 904,100 documents."""
    tokens = np.asarray(collection.tokens, dtype=np.int32)
    m = csr_matrix((np.ones(len(tokens)), tokens, np.asarray(collection.doc_offsets)),
                   shape=(collection.n_documents, len(collection.vocab)))
    m.sum_duplicates()
    return m.copy()  # sum_duplicates leaves views of arrays a token long: 0.5 GB more at 904k


def ranked(query: str, method: str, person_ids: Sequence[str], scores: np.ndarray,
           known: Sequence[str], unknown: Sequence[str], depth: int | None, **extra) -> Ranking:
    """A `Ranking` of every person by descending score (ties by person index)."""
    people = order_by_score(scores, depth)
    return Ranking(query, method, person_ids, people, np.asarray(scores)[people],
                   tuple(known), tuple(unknown), **extra)


def no_known_words(query: str, method: str, person_ids: Sequence[str],
                   unknown: Sequence[str]) -> Ranking:
    """The explicit answer to a query none of whose words the ranker knows: nobody ranked."""
    return Ranking(query, method, person_ids, np.zeros(0, dtype=np.int64), np.zeros(0),
                   (), tuple(unknown))


def member_maps(rankers: Sequence[Ranker]) -> tuple[list[str], list[np.ndarray]]:
    """The first member's person order, and for each member where each of its people sits in
    that order: fusions combine members that must rank the same people."""
    person_ids = list(rankers[0].person_ids)
    index = {p: i for i, p in enumerate(person_ids)}
    maps = []
    for r in rankers:
        if sorted(r.person_ids) != sorted(person_ids):
            raise QueryError(f"{r.name} ranks different people than {rankers[0].name}: the "
                             "collection's people changed since the model was trained (its "
                             "files or its people edits); train it again, or rank with one "
                             "method")
        maps.append(np.array([index[p] for p in r.person_ids], dtype=np.int64))
    return person_ids, maps


def merged_words(words: Sequence[tuple[Sequence[str], Sequence[str]]]
                 ) -> tuple[list[str], list[str]]:
    """From each member's (known, unknown) words of a query: the words any member knows, and
    those none knows, each in first-seen order."""
    known = list(dict.fromkeys(w for k, _ in words for w in k))
    unknown = [w for w in dict.fromkeys(w for _, u in words for w in u) if w not in known]
    return known, unknown


def merged_batch(scores: Sequence) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """`merged_words` of each query of a block, from the members' `Scores`."""
    known, unknown = [], []
    for i in range(len(scores[0])):
        k, u = merged_words([(s.known[i], s.unknown[i]) for s in scores])
        known.append(tuple(k))
        unknown.append(tuple(u))
    return known, unknown
