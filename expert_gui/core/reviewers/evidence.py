"""Why a person fits a paper, in words an author can be shown: the person's documents closest
to the paper (TF-IDF cosine, the collection's own idf) and the words the paper shares with the
person's documents that are the person's more than the collection's (p(t|c) > p(t)), by the
paper's TF-IDF weight times log(p(t|c) / p(t)): words that mark both the paper and the person,
not the words everybody writes ("et al", "results"). Computed for the pairs an assignment
keeps, not for every pair."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.recency import DocumentWeights
from expert_gui.core.rankers.methods import make_ranker

CLOSEST = 3  # documents named per pair
SHARED = 8  # words named per pair


@dataclass(frozen=True)
class Evidence:
    """A person's closest documents to a paper (index, id, title, cosine) and the words they
    share with it."""

    documents: tuple[tuple[int, str, str, float], ...]
    words: tuple[str, ...]

    def text(self) -> str:
        """One line: «title» (0.41); … | words: a, b, c."""
        docs = "; ".join(f"«{title}» ({cos:.2f})" for _, _, title, cos in self.documents)
        return (docs or "no document shares a word") + (
            f" | words: {', '.join(self.words)}" if self.words else "")


class EvidenceFinder:
    """Evidence for (paper text, person) pairs of one collection; under recency (`weights`),
    from the documents that count only."""

    def __init__(self, collection: Collection, weights: DocumentWeights | None = None):
        self.collection = collection
        self._counts = None if weights is None else weights.weights > 0
        index = make_ranker("tfidf", collection=collection)
        self.tfidf, self.doc_vectors = index.tfidf, index.doc_vectors
        self.tokenizer = index.tokenizer
        self._norms = np.sqrt(np.asarray(
            self.doc_vectors.multiply(self.doc_vectors).sum(axis=1)).ravel())
        counts = collection.vocab.counts.astype(np.float64)
        self._p_word = counts / max(counts.sum(), 1.0)  # p(t) of the collection
        self._listed = np.array([not w.startswith("<") for w in collection.vocab.words])
        self._words: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _words_of(self, person: int, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The words of a person's documents and how often each occurs (kept: an assignment
        names a person for up to M papers)."""
        found = self._words.get(person)
        if found is None:
            tokens = np.concatenate([self.collection.doc_tokens(int(d)) for d in docs])
            found = self._words[person] = np.unique(tokens, return_counts=True)
        return found

    def paper_vector(self, text: str):
        """The paper's TF-IDF row in the collection's words (None for no known word)."""
        ids, _ = self.collection.vocab.encode(self.tokenizer.words(text))
        if not len(ids):
            return None
        terms, counts = np.unique(ids, return_counts=True)
        row = csr_matrix((counts.astype(np.float64), (np.zeros(len(terms), dtype=np.int64),
                                                      terms)),
                         shape=(1, len(self.collection.vocab)))
        return self.tfidf.transform(row)

    def evidence(self, vector, person: int) -> Evidence:
        """The person's (a collection index) closest documents and shared words for a paper's
        `paper_vector`."""
        c = self.collection
        docs = c.documents_of(person)
        if self._counts is not None:
            docs = docs[self._counts[docs]]
        if vector is None or not len(docs):
            return Evidence((), ())
        dots = np.asarray((self.doc_vectors[docs] @ vector.T).todense()).ravel()
        norm = np.sqrt(vector.multiply(vector).sum())
        cos = np.divide(dots, self._norms[docs] * norm, out=np.zeros(len(docs)),
                        where=self._norms[docs] > 0)
        order = np.argsort(-cos, kind="stable")[:CLOSEST]
        documents = tuple((int(docs[k]), c.doc_ids[docs[k]], c.title(int(docs[k]), 100),
                           float(cos[k])) for k in order if cos[k] > 0)
        terms, weights = vector.indices, vector.data
        theirs, counts = self._words_of(person, docs)
        where = np.searchsorted(theirs, terms)
        used = (where < len(theirs)) & (theirs[np.minimum(where, len(theirs) - 1)] == terms)
        lift = np.zeros(len(terms))
        mine = counts[where[used]] / counts.sum()
        lift[used] = np.log(mine / self._p_word[terms[used]])
        keep = np.flatnonzero((lift > 0) & self._listed[terms])
        best = keep[np.argsort(-(weights[keep] * lift[keep]), kind="stable")[:SHARED]]
        return Evidence(documents, tuple(c.vocab.words[t] for t in terms[best]))
