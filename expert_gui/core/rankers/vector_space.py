"""Vector-space entity ranking (Demartini et al. 2009), the paper's TF-IDF and LSI baselines.

A document is its TF-IDF vector: raw term frequency times scikit-learn's smoothed idf,
ln((1 + |D|) / (1 + df(t))) + 1. LSI projects those vectors onto 300 latent topics with a truncated
SVD. A person's vector is the sum of their documents' vectors, and people are ranked by the cosine
between their vector and the query's, which is built the same way as a document's. Under recency
the sum is by weight and the cosine is multiplied by the person's share r_c (rankers/recency.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfTransformer

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.recency import DocumentWeights
from expert_gui.core.data.text import Tokenizer
from expert_gui.core.rankers.arrays import HOST
from expert_gui.core.rankers.batch import BatchRanker, Query, Scores, encode_queries, term_block
from expert_gui.core.rankers.common import (
    encode_query,
    no_known_words,
    ranked,
    shared,
    term_document_matrix,
)
from expert_gui.core.rankers.ranking import Ranking
from expert_gui.core.rankers.recency import log_shares, person_documents


class TfidfRanker(BatchRanker):
    """People as sums of their documents' TF-IDF vectors, ranked by cosine with the query."""

    name = "tfidf"

    def __init__(self, collection: Collection, arrays=HOST,
                 weights: DocumentWeights | None = None):
        self.collection = collection
        self.arrays = arrays
        self.batch_width = collection.n_people + len(collection.vocab)
        self.person_ids = collection.person_ids
        self.tokenizer = Tokenizer(collection.settings)
        self.tfidf, self.doc_vectors = shared(collection, "tf-idf", self._tfidf_index)
        self.people, self.person_norms = shared(
            collection, ("tf-idf people", None if weights is None else weights.key),
            lambda: self._people_index(weights))
        log_share = log_shares(collection, weights)
        self.share = None if log_share is None else np.exp(log_share)  # r_c (recency.py)

    def _tfidf_index(self) -> tuple:
        """The idf fitted on the collection and the documents' TF-IDF vectors (the counts times
        their words' idf, over the counts' own indices): one of each per collection, for TF-IDF
        and LSI."""
        counts = term_document_matrix(self.collection)
        tfidf = TfidfTransformer(norm=None, smooth_idf=True, sublinear_tf=False).fit(counts)
        return tfidf, csr_matrix((counts.data * tfidf.idf_[counts.indices], counts.indices,
                                  counts.indptr), shape=counts.shape)

    def _people_index(self, weights: DocumentWeights | None) -> tuple:
        """The people's vectors (C x words, columns: query terms), each the sum of their
        documents' vectors (by weight under recency), and their norms."""
        people = (person_documents(self.collection, weights) @ self.doc_vectors).tocsc()
        return people, np.sqrt(np.asarray(people.multiply(people).sum(axis=1)).ravel())

    def shared_out(self, cosines: np.ndarray) -> np.ndarray:
        """Cosines (people last) times each person's r_c under recency; -inf where r_c is 0."""
        if self.share is None:
            return cosines
        return np.where(self.share > 0, cosines * self.share, -np.inf)

    def query_tfidf(self, terms: np.ndarray, counts: np.ndarray) -> csr_matrix:
        row = csr_matrix((counts, (np.zeros(len(terms), dtype=np.int64), terms)),
                         shape=(1, len(self.collection.vocab)))
        return self.tfidf.transform(row)

    def similarities(self, terms: np.ndarray, counts: np.ndarray) -> np.ndarray:
        q = self.query_tfidf(terms, counts).toarray().ravel()
        dots = self.people[:, terms] @ q[terms]
        return cosine(np.asarray(dots).ravel(), self.person_norms, np.linalg.norm(q))

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        terms, counts, known, unknown = encode_query(self.tokenizer, self.collection.vocab, query)
        if len(terms) == 0:
            return no_known_words(query, self.name, self.person_ids, unknown)
        return ranked(query, self.name, self.person_ids,
                      self.shared_out(self.similarities(terms, counts)), known, unknown, depth)

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        encoded = encode_queries(queries, self.tokenizer, self.collection.vocab)
        vectors = self.tfidf.transform(encoded.matrix())
        cosines = self.shared_out(self.arrays.host(self.batch_similarities(vectors)).T)
        return Scores(self.name, self.person_ids, encoded.texts, cosines, encoded.known,
                      encoded.unknown)

    @cached_property
    def _people(self):
        """The people's vectors where the batch runs."""
        return self.arrays.term_matrix(self.people)

    def batch_similarities(self, vectors: csr_matrix):
        """people x queries: cosine of each person's vector with each query's TF-IDF vector."""
        terms, block = term_block(vectors)
        a = self.arrays
        norms = a.put(np.sqrt(np.asarray(block.multiply(block).sum(axis=1)).ravel()))
        return a.divide(self._people.times(terms, block),
                        a.put(self.person_norms)[:, None] * norms[None, :])


class LsiRanker(TfidfRanker):
    """TF-IDF vectors projected onto `dims` latent topics (TruncatedSVD) before summing.

    Each person's vector is their TF-IDF vector projected onto the topics (the sum of their
    documents' projections, never held). The SVD is fitted in single precision, then the topics
    are kept and applied in double: half the time of a double fit (DPDK's 44,301 documents:
    3.4 s against 7.2 s) with the same MAP and MRR on its 158 dev topics to four decimals
    (0.1782, 0.198; singular values within 2e-6 relative). A collection of more than FIT_DOCUMENTS documents has its
    SVD fitted on a seeded sample of that many: the SVD of all of 180,820 documents (DPDK copied
    four times) took 378 s of a loaded two-core machine, and of a million it would hold
    gigabytes of documents x topics.
    """

    name = "lsi"
    FIT_DOCUMENTS = 50_000
    # A cosine below this is the single-precision fit's rounding (about 1e-7 on a Lens export of
    # 250 papers, where people sharing no word with the query are at 0 in exact arithmetic): it
    # counts as 0, so that those people tie and keep the order of their ids, however the BLAS
    # rounded (one thread or two gave different orders of them before).
    ROUNDING = 1e-5

    def __init__(self, collection: Collection, dims: int = 300, seed: int = 0, arrays=HOST,
                 weights: DocumentWeights | None = None):
        super().__init__(collection, arrays, weights)
        n = self.doc_vectors.shape[0]
        sample = None if n <= self.FIT_DOCUMENTS else \
            np.sort(np.random.default_rng([seed, 4]).choice(n, self.FIT_DOCUMENTS, replace=False))
        fitted = self.doc_vectors if sample is None else self.doc_vectors[sample]
        dims = max(1, min(dims, min(fitted.shape) - 1))
        self.svd = TruncatedSVD(n_components=dims, random_state=seed).fit(
            fitted.astype(np.float32))
        self.svd.components_ = self.svd.components_.astype(np.float64)
        self.people = np.asarray(self.svd.transform(self.people))
        self.fitted_documents = len(fitted.indptr) - 1
        self.person_norms = np.linalg.norm(self.people, axis=1)

    def similarities(self, terms: np.ndarray, counts: np.ndarray) -> np.ndarray:
        q = self.svd.transform(self.query_tfidf(terms, counts)).ravel()
        return self.rounded(cosine(self.people @ q, self.person_norms, np.linalg.norm(q)))

    def rounded(self, cosines):
        """The cosines with the fit's rounding set to 0 (numpy or torch, in place)."""
        cosines[abs(cosines) < self.ROUNDING] = 0
        return cosines

    @cached_property
    def _people(self):
        return self.arrays.put(self.people)

    def batch_similarities(self, vectors: csr_matrix):
        a = self.arrays
        q = self.svd.transform(vectors)  # queries x dims
        return self.rounded(a.divide(
            self._people @ a.put(q.T),
            a.put(self.person_norms)[:, None] * a.put(np.linalg.norm(q, axis=1))[None, :]))


def cosine(dots: np.ndarray, norms: np.ndarray, query_norm: float) -> np.ndarray:
    """dots / (norms * query_norm), 0 where a vector is zero."""
    denom = norms * query_norm
    return np.divide(dots, denom, out=np.zeros_like(dots, dtype=np.float64), where=denom > 0)
