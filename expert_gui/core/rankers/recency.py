"""How every method counts recent work more (core/data/recency.py gives each document its
weight w_d): the same two steps for each, so that `auto` fuses members that agree on it.

1. A person is made of their documents by weight: Model 1's profile p(t|c) and Model 2's
   p(d|c) take p(d|c) = w_d a(d,c) / sum_d' w_d' a(d',c); TF-IDF and LSI sum the documents'
   vectors by weight. The log-linear model's parameters were trained on every document and
   cannot forget any: this step does not apply to it, and its answers say so.
2. A person's score counts the weighted share r_c of their documents: log r_c is added to a
   log-probability (Models 1 and 2, the log-linear model's log P(c|q), whose softmax then gives
   P(c|q) under the prior P(c) r_c), and a cosine is multiplied by r_c.

A person with r_c = 0 (no document that counts) is not ranked (`restricted`).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix, diags

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.recency import DocumentWeights
from expert_gui.core.rankers.common import shared
from expert_gui.core.rankers.ranking import Ranker


def person_documents(collection: Collection, weights: DocumentWeights | None) -> csr_matrix:
    """people x documents: a(d,c), or w_d a(d,c) under `weights` (entries of weight 0 left
    out), built once per collection and recency."""
    if weights is None:
        return shared(collection, "people x documents",
                      lambda: collection.association_matrix().T.tocsr())
    return shared(collection, ("people x documents", weights.key),
                  lambda: _weighted(collection, weights.weights))


def _weighted(collection: Collection, w: np.ndarray) -> csr_matrix:
    matrix = (collection.association_matrix().T @ diags(w)).tocsr()
    matrix.eliminate_zeros()
    return matrix


def log_shares(collection: Collection, weights: DocumentWeights | None,
               person_ids=None) -> np.ndarray | None:
    """log r_c per person (-inf where none of their documents counts), in the order of
    `person_ids` (default the collection's); None without weights."""
    if weights is None:
        return None
    values = shared(collection, ("log shares", weights.key), lambda: _log(weights.shares(
        collection)))
    if person_ids is None or list(person_ids) == list(collection.person_ids):
        return values
    index = collection.person_index
    return np.array([values[index[p]] if p in index else -np.inf for p in person_ids])


def _log(shares: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(shares)


def restricted(ranker: Ranker, collection: Collection | None,
               weights: DocumentWeights | None, candidates=None) -> Ranker:
    """`ranker`, ranking only the people of `candidates` (ids; None: everybody) who have a
    document that counts under `weights` (None: all of them), in one `Restricted`."""
    keep = None if candidates is None else set(candidates)
    if weights is not None and collection is not None:
        shares = log_shares(collection, weights, ranker.person_ids)
        if not np.isfinite(shares).all():
            recent = {p for p, s in zip(ranker.person_ids, shares, strict=True)
                      if np.isfinite(s)}
            keep = recent if keep is None else keep & recent
    if keep is None:
        return ranker
    from expert_gui.core.rankers.candidates import Restricted

    return Restricted(ranker, [p for p in ranker.person_ids if p in keep])
