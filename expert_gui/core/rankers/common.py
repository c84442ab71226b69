"""What every collection-based ranker shares: the query in the collection's own words, the
term-document counts, and turning scores into a `Ranking`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.sparse import csr_matrix

from expert_gui.core.collection import Collection
from expert_gui.core.ranking import Ranking, order_by_score
from expert_gui.core.text import Tokenizer, Vocabulary


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


def term_document_matrix(collection: Collection) -> csr_matrix:
    """Documents x vocabulary term counts n(t, d), built from the flat token array."""
    lengths = collection.doc_lengths
    rows = np.repeat(np.arange(collection.n_documents, dtype=np.int64), lengths)
    cols = np.asarray(collection.tokens, dtype=np.int64)
    data = np.ones(len(cols), dtype=np.float64)
    m = csr_matrix((data, (rows, cols)), shape=(collection.n_documents, len(collection.vocab)))
    m.sum_duplicates()
    return m


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
