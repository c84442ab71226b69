"""Balog et al. (2006) generative expert-finding models, the paper's section 4.3 baselines.

Model 1 (profile-centric): a person's language model is p(t|c) = sum_d p(t|d) p(d|c), smoothed
with the collection model p(t); score(c) = log p(q|theta_c) = sum_t n(t,q) log p(t|theta_c).
Model 2 (document-centric): score(c) = log sum_d p(q|theta_d) p(d|c), with each document's model
smoothed; p(q|theta_d) = prod_t p(t|theta_d)^n(t,q).

Smoothing p(t|theta_x) = (1 - lambda_x) p(t|x) + lambda_x p(t):
- Jelinek-Mercer ("jm"): lambda_x = lambda (0.5, as in Balog et al. 2006);
- Dirichlet ("dirichlet"): lambda_x = beta / (beta + n(x)), n(x) the length of x in tokens, beta
  the average length of the texts being smoothed (Balog, Azzopardi, de Rijke, "A language
  modeling framework for expert finding", IPM 45(1), 2009, section 4): for Model 2 the texts are
  documents, so beta = mean_d |d|; for Model 1 they are candidate profiles, n(c) = sum_d a(d,c) |d|
  (all of c's documents), so beta = mean_c n(c). Model 1 with the document length as beta
  ("model1-d-doc", the earlier default) smooths a profile of 982 tokens (DPDK's average) with
  beta = 32: hardly at all, and long queries then punish every missing word without mercy.

Document-candidate association: a(d,c) = 1 when the collection links d and c, so
p(d|c) = a(d,c) / sum_d' a(d',c) = 1/|D_c|. The paper's associations are static metadata (the
author of a commit or paper) with no strength to weigh, and a uniform p(d|c) keeps prolific
people from being favoured merely for writing more.

Model 2 never loops over documents in Python. log p(q|theta_d) = sum_t n(t,q) log(lambda_d p(t))
+ G_d, where the gain G_d = sum_t n(t,q) log(1 + (1-lambda_d) p(t|d) / (lambda_d p(t))) is
non-zero only for the documents holding a word of the query (M_q, read from the postings). So

    sum_d p(d|c) p(q|theta_d) = p(q) [ sum_d p(d|c) lambda_d^|q|
                                       + sum_{d in M_q} p(d|c) lambda_d^|q| (exp(G_d) - 1) ],

with p(q) = prod_t p(t)^n(t,q). The first sum depends on the query's length alone (for
Jelinek-Mercer it is lambda^|q|, as sum_d p(d|c) = 1: taken as 1, not as its rounded sum, so that
people without a matched document tie exactly); the second is a sparse product over the matched
documents, so a short topic costs its words' postings instead of a pass over every document (a
million of them: 0.12 s a query before). Sums are shifted in logs, and a person whose sum
underflows there (long queries) gets an exact log-sum-exp, so long queries do not underflow.

A batch of queries (`rank_batch`) takes the same sums as matrix products, a block at a time:
log p(t|theta_x) = log lambda_x + log p(t) + log(1 + (1-lambda_x) p(t|x) / (lambda_x p(t))),
whose last term is non-zero only where x holds t, so a block costs one sparse product with the
people's (Model 1) or the documents' (Model 2) term matrix over the block's words. Model 2 ranks
one query as a block of one; on a device it takes the documents x queries block whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np
from scipy.sparse import csr_matrix, diags

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.recency import DocumentWeights
from expert_gui.core.data.text import Tokenizer
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.arrays import HOST
from expert_gui.core.rankers.batch import (
    BLOCK_BYTES,
    BatchRanker,
    EncodedQueries,
    Query,
    Scores,
    encode_queries,
    term_block,
)
from expert_gui.core.rankers.common import (
    encode_query,
    no_known_words,
    ranked,
    shared,
    term_document_matrix,
)
from expert_gui.core.rankers.ranking import Ranking
from expert_gui.core.rankers.recency import log_shares, person_documents

SMOOTHINGS = ("jm", "dirichlet")
BETA_FROM = ("profiles", "documents")


def _statistics(collection: Collection, counts, weights: DocumentWeights | None) -> tuple:
    """|d|, p(t), n(c) and p(d|c) (people x documents): the same for every smoothing. Under
    recency `weights` a person is their documents by weight (rankers/recency.py): n(c) =
    sum_d w_d a(d,c) |d| and p(d|c) = w_d a(d,c) / sum_d' w_d' a(d',c)."""
    doc_lengths = collection.doc_lengths.astype(np.float64)
    cf = np.asarray(counts.sum(axis=0)).ravel()
    p_background = cf / max(cf.sum(), 1.0)  # p(t)
    assoc = person_documents(collection, weights)  # C x D: a(d,c), or w_d a(d,c)
    person_lengths = assoc @ doc_lengths  # n(c)
    n_docs = np.asarray(assoc.sum(axis=1)).ravel()
    p_doc_given_person = (diags(1.0 / np.where(n_docs > 0, n_docs, 1.0)) @ assoc).tocsr()
    return doc_lengths, p_background, person_lengths, p_doc_given_person


class _LanguageModelBase(BatchRanker):
    """The statistics both models need: n(t,d), |d|, p(t), p(d|c) and the smoothing."""

    model_number = 0

    def __init__(self, collection: Collection, smoothing: str = "jm", lam: float = 0.5,
                 beta: float | None = None, arrays=HOST, weights: DocumentWeights | None = None):
        if smoothing not in SMOOTHINGS:
            raise QueryError(f"smoothing must be one of {SMOOTHINGS}, not {smoothing!r}")
        if not 0.0 < lam <= 1.0:
            raise QueryError(f"the Jelinek-Mercer lambda must be in (0, 1], not {lam}")
        self.collection = collection
        self.arrays = arrays
        self.smoothing = smoothing
        self.lam = lam
        self.name = f"model{self.model_number}-{'jm' if smoothing == 'jm' else 'd'}"
        self.person_ids = collection.person_ids
        self.tokenizer = Tokenizer(collection.settings)
        self.counts = term_document_matrix(collection)  # D x V, n(t, d)
        self.weights = weights
        self.recency_key = None if weights is None else weights.key
        (self.doc_lengths, self.p_background, self.person_lengths,
         self.p_doc_given_person) = shared(collection, ("language models", self.recency_key),
                                           lambda: _statistics(collection, self.counts, weights))
        self.log_share = log_shares(collection, weights)  # log r_c, or None
        lengths = self.smoothed_lengths()
        if weights is not None and (lengths > 0).any():  # of the people ranked under recency
            lengths = lengths[lengths > 0]
        self.beta = float(lengths.mean()) if beta is None else float(beta)
        if smoothing == "dirichlet" and self.beta <= 0:
            raise QueryError("Dirichlet smoothing needs beta > 0 (the collection has no words)")

    def smoothed_lengths(self) -> np.ndarray:
        """n(x) of the texts whose models are smoothed (documents, unless a model says else)."""
        return self.doc_lengths

    def smoothing_weight(self, lengths: np.ndarray) -> np.ndarray:
        """lambda_x for texts of the given lengths."""
        if self.smoothing == "jm":
            return np.full(len(lengths), self.lam)
        return self.beta / (self.beta + lengths)

    def rank(self, query: str, depth: int | None = None) -> Ranking:
        terms, n_tq, known, unknown = encode_query(self.tokenizer, self.collection.vocab, query)
        if len(terms) == 0:
            return no_known_words(query, self.name, self.person_ids, unknown)
        return ranked(query, self.name, self.person_ids, self.shared_out(self.scores(terms, n_tq)),
                      known, unknown, depth)

    def shared_out(self, scores: np.ndarray) -> np.ndarray:
        """Scores (people last) with each person's log r_c added under recency."""
        return scores if self.log_share is None else scores + self.log_share

    def scores(self, terms: np.ndarray, n_tq: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def score_batch(self, queries: Sequence[Query]) -> Scores:
        encoded = encode_queries(queries, self.tokenizer, self.collection.vocab)
        return Scores(self.name, self.person_ids, encoded.texts,
                      self.shared_out(self.batch_scores(encoded)), encoded.known, encoded.unknown)

    def batch_scores(self, encoded: EncodedQueries) -> np.ndarray:
        """queries x people scores of a block (rows of queries with no known word: anything)."""
        terms, block = term_block(encoded.matrix())
        a = self.arrays
        background = block @ np.log(self.p_background[terms])  # sum_t n(t,q) log p(t)
        lengths = np.asarray(block.sum(axis=1)).ravel()
        scores = self.batch_log_likelihoods(terms, block, a.put(lengths), a.put(background))
        return a.host(scores).T

    def batch_log_likelihoods(self, terms, block, lengths, background):
        """people x queries: each model's score."""
        raise NotImplementedError


class Model1(_LanguageModelBase):
    """Profile-centric: one smoothed language model per person. A query costs O(k |C|).

    Dirichlet's beta is the average profile length mean_c n(c) (Balog et al. 2009), or with
    `beta_from="documents"` the average document length.
    """

    model_number = 1

    def __init__(self, collection: Collection, smoothing: str = "jm", lam: float = 0.5,
                 beta: float | None = None, beta_from: str = "profiles", arrays=HOST,
                 weights: DocumentWeights | None = None):
        if beta_from not in BETA_FROM:
            raise QueryError(f"beta_from must be one of {BETA_FROM}, not {beta_from!r}")
        self.beta_from = beta_from
        super().__init__(collection, smoothing, lam, beta, arrays, weights)
        if smoothing == "dirichlet" and beta_from == "documents":
            self.name += "-doc"
        self.profiles = shared(collection, ("Model 1 profiles", self.recency_key),
                               self._profiles)  # C x V, p(t|c)
        self.person_lambda = self.smoothing_weight(self.person_lengths)
        self.batch_width = len(self.person_ids) + len(collection.vocab)

    def _profiles(self):
        p_term_doc = diags(1.0 / np.maximum(self.doc_lengths, 1.0)) @ self.counts  # p(t|d)
        return (self.p_doc_given_person @ p_term_doc).tocsc()

    def smoothed_lengths(self) -> np.ndarray:
        return self.person_lengths if self.beta_from == "profiles" else self.doc_lengths

    def scores(self, terms: np.ndarray, n_tq: np.ndarray) -> np.ndarray:
        """sum_t n(t,q) log((1 - lambda_c) p(t|c) + lambda_c p(t)) for every person."""
        p_tc = self.profiles[:, terms].toarray()
        lam = self.person_lambda[:, None]
        return np.log((1.0 - lam) * p_tc + lam * self.p_background[terms]) @ n_tq

    @cached_property
    def _gains(self):
        """log(1 + (1 - lambda_c) p(t|c) / (lambda_c p(t))) where p(t|c) > 0, where it runs."""
        lam = self.person_lambda
        return self.arrays.term_matrix(self.profiles, ((1.0 - lam) / lam, self.p_background))

    @cached_property
    def _log_person_lambda(self):
        return self.arrays.put(np.log(self.person_lambda))

    def batch_log_likelihoods(self, terms, block, lengths, background):
        """log((1 - lambda_c) p(t|c) + lambda_c p(t)) = log lambda_c + log p(t) + the gain."""
        return (self._log_person_lambda[:, None] * lengths[None, :] + background[None, :]
                + self._gains.times(terms, block))


class Model2(_LanguageModelBase):
    """Document-centric: a person is as good as their documents' query likelihoods.

    On the host a query costs its words' postings and its matched documents' people (the
    module's docstring); on a device, a pass over the documents.
    """

    model_number = 2

    def __init__(self, collection: Collection, smoothing: str = "jm", lam: float = 0.5,
                 beta: float | None = None, arrays=HOST, weights: DocumentWeights | None = None):
        super().__init__(collection, smoothing, lam, beta, arrays, weights)
        # column t: the documents holding t and n(t, d)
        self.postings = shared(collection, "postings", self.counts.tocsc)
        doc_lambda = self.smoothing_weight(self.doc_lengths)
        self.log_doc_lambda = np.log(doc_lambda)
        # (1 - lambda_d) / (lambda_d |d|): turns n(t,d) into the posting's ratio to the background.
        self.doc_factor = (1.0 - doc_lambda) / (doc_lambda * np.maximum(self.doc_lengths, 1.0))
        self._has_docs = np.diff(self.p_doc_given_person.indptr) > 0
        # On the host a query's documents are sparse (MATCHED_BYTES bounds them per block); on
        # a device the block is documents x queries.
        self.batch_width = len(self.person_ids) + len(collection.vocab) + (
            0 if arrays.device is None else len(self.doc_lengths))

    def scores(self, terms: np.ndarray, n_tq: np.ndarray) -> np.ndarray:
        """log sum_d p(d|c) p(q|theta_d) per person (on the host, as a batch of one)."""
        counts = csr_matrix((n_tq, (np.zeros(len(terms), dtype=np.int64), terms)),
                            shape=(1, len(self.collection.vocab)))
        return self._matched_scores(counts)[0]

    @cached_property
    def _gains(self):
        """log(1 + (1 - lambda_d) n(t,d) / (lambda_d |d| p(t))) over the postings, where it runs."""
        return self.arrays.term_matrix(self.postings, (self.doc_factor, self.p_background))

    @cached_property
    def _log_doc_lambda(self):
        return self.arrays.put(self.log_doc_lambda)

    def batch_scores(self, encoded: EncodedQueries) -> np.ndarray:
        """On the host, over each query's matched documents only (the module's docstring), in
        parts whose matched (query, document) pairs fit MATCHED_BYTES; on a device, the
        documents x queries block at once."""
        if self.arrays.device is not None:
            return super().batch_scores(encoded)
        counts = encoded.matrix()
        df = np.diff(self.postings.indptr)
        bound = np.bincount(np.repeat(np.arange(len(encoded)), np.diff(counts.indptr)),
                            df[counts.indices], len(encoded))  # >= its matched documents
        out = np.empty((len(encoded), len(self.person_ids)))
        start = 0
        while start < len(encoded):  # at least one query a part, however many its documents
            total = np.cumsum(bound[start:])
            stop = start + max(1, int(np.searchsorted(total, MATCHED_BYTES // 32, "right")))
            out[start:stop] = self._matched_scores(counts[start:stop])
            start = stop
        return out

    def _matched_scores(self, counts) -> np.ndarray:
        """queries x people: log sum_d p(d|c) p(q|theta_d) from the queries' matched documents
        (`counts`: queries x vocabulary, n(t,q)), with no loop over queries or documents.

        A matched document adds p(d|c) lambda_d^|q| (exp(G_d) - 1) =
        p(d|c) exp(L_d + G_d) (1 - exp(-G_d)) (L_d = |q| log lambda_d), exact however small or
        large G_d is, with each query's terms shifted by its largest L_d + G_d. Where a
        person's matched sum underflows there (all their matched documents far below the
        query's best, as with long queries), their exact log-sum-exp is taken instead."""
        terms, block = term_block(counts)
        n = block.shape[0]
        lengths = np.asarray(block.sum(axis=1)).ravel()  # |q|
        gains = (block @ self._host_gains.columns(terms).T).tocsr()  # queries x documents: G_d
        sizes = np.diff(gains.indptr)
        query = np.repeat(np.arange(n), sizes)
        if self._one_lambda:  # L_d is the query's alone: shift G_d by the query's largest
            high = gains.data.copy()
        else:
            high = self.log_doc_lambda[gains.indices]
            high *= lengths[query]
            high += gains.data  # L_d + G_d
        some = np.flatnonzero(sizes)
        top, bottom = np.zeros(n), np.zeros(n)
        if len(some):
            top[some] = np.maximum.reduceat(high, gains.indptr[some])
            bottom[some] = np.minimum.reduceat(high, gains.indptr[some])
        high -= top[query]
        shifted = np.exp(high, out=high)
        rest = np.negative(gains.data)
        shifted *= np.expm1(rest, out=rest)
        np.negative(shifted, out=shifted)  # exp(L_d + G_d - top) (1 - exp(-G_d))
        if self._one_lambda:
            top += lengths * self.log_doc_lambda[0]
            bottom += lengths * self.log_doc_lambda[0]
        matched = (csr_matrix((shifted, gains.indices, gains.indptr), shape=gains.shape)
                   @ self._documents_people).toarray()  # queries x people
        with np.errstate(divide="ignore"):
            log_matched = top[:, None] + np.log(matched)
            for q in some[bottom[some] - top[some] < _LOG_SAFE_MIN]:  # rare: long queries
                part = slice(gains.indptr[q], gains.indptr[q + 1])
                values = np.full(len(self.doc_lengths), -np.inf)
                g = gains.data[part]
                values[gains.indices[part]] = (lengths[q] * self.log_doc_lambda[
                    gains.indices[part]] + g + np.log(-np.expm1(-g)))
                people = np.flatnonzero((matched[q] <= _SAFE_MIN) & self._has_docs)
                log_matched[q, people] = _row_log_sum_exp(self.p_doc_given_person[people],
                                                          values)
        background = block @ np.log(self.p_background[terms])  # log p(q)
        return background[:, None] + np.logaddexp(self._log_unmatched(lengths), log_matched)

    @cached_property
    def _one_lambda(self) -> bool:
        """Whether every document has the same lambda_d (Jelinek-Mercer, or |d| alike)."""
        return bool((self.log_doc_lambda == self.log_doc_lambda[0]).all()) if len(
            self.log_doc_lambda) else True

    @cached_property
    def _host_gains(self):
        """`_gains` on the host, where `rank` runs (and `rank_batch` without a device)."""
        return HOST.term_matrix(self.postings, (self.doc_factor, self.p_background))

    @cached_property
    def _documents_people(self):
        """documents x people: p(d|c)."""
        return shared(self.collection, ("documents x people p(d|c)", self.recency_key),
                      self.p_doc_given_person.T.tocsr)

    @cached_property
    def _unmatched_parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For sum_d p(d|c) lambda_d^L: each person's largest log lambda_d (0 without a
        document), and per association (person, p(d|c), log lambda_d less that largest)."""
        p = self.p_doc_given_person
        people = np.repeat(np.arange(p.shape[0]), np.diff(p.indptr))
        log_lambda = self.log_doc_lambda[p.indices]
        peak = np.zeros(p.shape[0])
        has = np.flatnonzero(self._has_docs)
        if len(has):
            peak[has] = np.maximum.reduceat(log_lambda, p.indptr[has])
        return peak, people, p.data, log_lambda - peak[people]

    def _log_unmatched(self, lengths: np.ndarray) -> np.ndarray:
        """queries x people: log sum_d p(d|c) lambda_d^|q| (-inf for a person without a
        document): one pass over the associations per query length, remembered (within
        BLOCK_BYTES; for Jelinek-Mercer, lambda^|q| sum_d p(d|c) needs one)."""
        peak, people, weights, below = self._unmatched_parts
        distinct, which = np.unique(lengths, return_inverse=True)
        known = self._unmatched_sums  # shared by the threads that rank with this ranker
        if len(known) * len(peak) * 8 > BLOCK_BYTES:
            known.clear()
        sums = []
        one_lambda = not below.any()  # a person's documents share lambda_d (Jelinek-Mercer)
        for length in distinct:
            key = 0.0 if one_lambda else float(length)
            log_sum = known.get(key)
            if log_sum is None and one_lambda:  # sum_d p(d|c) = 1, not its rounded sum
                log_sum = known[key] = np.where(self._has_docs, 0.0, -np.inf)
            elif log_sum is None:
                with np.errstate(divide="ignore"):
                    log_sum = known[key] = np.log(np.bincount(
                        people, weights * np.exp(key * below), len(peak)))
            sums.append(log_sum)
        log_sums = np.array(sums)
        return lengths[:, None] * peak[None, :] + log_sums.reshape(len(distinct), -1)[which]

    @cached_property
    def _unmatched_sums(self) -> dict[float, np.ndarray]:
        return {}

    @cached_property
    def _p_doc_given_person(self):
        return self.arrays.sparse(self.p_doc_given_person)

    def batch_log_likelihoods(self, terms, block, lengths, background):
        """log sum_d p(d|c) p(q|theta_d) for every person and query on a device, over every
        document: shifted by each query's best document, with an exact log-sum-exp where that
        underflows."""
        a, xp = self.arrays, self.arrays.xp
        log_pq = (self._log_doc_lambda[:, None] * lengths[None, :] + background[None, :]
                  + self._gains.times(terms, block))  # documents x queries
        top = xp.amax(log_pq, axis=0)
        sums = self._p_doc_given_person @ xp.exp(log_pq - top[None, :])
        fine = sums > _SAFE_MIN
        out = xp.where(fine, top[None, :] + xp.log(xp.where(fine, sums, 1.0)), -xp.inf)
        lost = ~a.host(fine) & self._has_docs[:, None]
        if lost.any():
            out = a.host(out)
            for q in np.flatnonzero(lost.any(axis=0)):
                rest = np.flatnonzero(lost[:, q])
                out[rest, q] = _row_log_sum_exp(self.p_doc_given_person[rest],
                                                a.host(log_pq[:, q]))
        return out


_SAFE_MIN = 1e-250  # far above the subnormal range, so a sum above it keeps full precision
_LOG_SAFE_MIN = np.log(_SAFE_MIN)
MATCHED_BYTES = 64 * 2**20  # Model 2's matched (query, document) pairs of a part of a block


def _row_log_sum_exp(weights, log_values: np.ndarray) -> np.ndarray:
    """log sum_j w_ij exp(v_j) for every row of a sparse matrix with non-empty rows (-inf for
    a row whose values are all -inf)."""
    vals = log_values[weights.indices] + np.log(weights.data)
    starts = weights.indptr[:-1]
    peak = np.maximum.reduceat(vals, starts)
    peak[~np.isfinite(peak)] = 0.0
    shifted = np.exp(vals - np.repeat(peak, np.diff(weights.indptr)))
    with np.errstate(divide="ignore"):
        return peak + np.log(np.add.reduceat(shifted, starts))
