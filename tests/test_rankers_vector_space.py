"""TF-IDF and LSI entity vectors (Demartini et al. 2009) against direct computations."""

import math
from collections import Counter

import numpy as np
import pytest
from rankers_helpers import doc_words, tiny_collection

from expert_gui.core.data.collection import Collection
from expert_gui.core.rankers.vector_space import LsiRanker, TfidfRanker


@pytest.fixture(scope="module")
def collection():
    return tiny_collection()


def naive_tfidf(collection, query_words):
    docs = [doc_words(collection, d) for d in range(collection.n_documents)]
    n = len(docs)
    df = Counter(w for ws in docs for w in set(ws))
    idf = {w: math.log((1 + n) / (1 + df[w])) + 1 for w in df}

    def vec(words):
        return {w: k * idf[w] for w, k in Counter(words).items()}

    q = vec(query_words)
    out = []
    for c in range(collection.n_people):
        person: Counter = Counter()
        for d in range(n):
            if c in collection.people_of(d).tolist():
                for w, x in vec(docs[d]).items():
                    person[w] += x
        dot = sum(x * person[w] for w, x in q.items())
        norm = math.sqrt(sum(x * x for x in person.values())) * \
            math.sqrt(sum(x * x for x in q.values()))
        out.append(dot / norm if norm else 0.0)
    return np.array(out)


@pytest.mark.parametrize("query", ["ring", "ring buffer ring lockless", "ice link flow", "cache"])
def test_tfidf_matches_cosine_of_summed_vectors(collection, query):
    ranking = TfidfRanker(collection).rank(query)
    expected = naive_tfidf(collection, list(ranking.known_words))
    np.testing.assert_allclose(ranking.scores, expected[ranking.people], rtol=1e-10, atol=1e-12)
    assert ranking.people.tolist() == sorted(range(4), key=lambda c: (-expected[c], c))


def test_lsi_is_cosine_of_summed_projected_documents(collection):
    ranker = LsiRanker(collection, dims=3)
    assert ranker.svd.n_components == 3
    ranking = ranker.rank("ring buffer driver")
    basis = ranker.svd.components_  # dims x V
    x = ranker.doc_vectors.toarray()
    q = np.zeros(len(collection.vocab))
    for w in ranking.known_words:
        q[collection.vocab.index[w]] += 1
    q = ranker.tfidf.transform(q[None, :]).toarray()[0] @ basis.T
    expected = []
    for c in range(collection.n_people):
        p = sum(x[d] @ basis.T for d in collection.documents_of(c))
        expected.append(p @ q / (np.linalg.norm(p) * np.linalg.norm(q)))
    expected = np.array(expected)
    np.testing.assert_allclose(ranking.scores, expected[ranking.people], rtol=1e-8)


def test_lsi_topics_are_the_leading_singular_vectors(collection):
    """Fitted in single precision, the topics are still those of an exact SVD (numpy's, in
    double) to single precision: the same singular values and the same subspace."""
    ranker = LsiRanker(collection, dims=3)
    assert ranker.svd.components_.dtype == np.float64
    _, sigma, vt = np.linalg.svd(ranker.doc_vectors.toarray(), full_matrices=False)
    np.testing.assert_allclose(ranker.svd.singular_values_, sigma[:3], rtol=1e-5)
    overlap = np.linalg.svd(ranker.svd.components_ @ vt[:3].T, compute_uv=False)
    np.testing.assert_allclose(overlap, 1.0, atol=1e-5)  # cosines of the principal angles


def test_lsi_people_without_a_shared_topic_tie_at_zero():
    """Three groups of people who share no word across groups: with as many topics as the
    documents allow, a query of one group's words is orthogonal to the other groups, so they
    score exactly 0 (not the fit's rounding, which ordered them by the BLAS's luck) and keep
    the order of their ids."""
    groups = [("ring", "buffer", "queue"), ("crypto", "cipher", "key"), ("flow", "rule", "match")]
    docs, links = [], []
    for g, words in enumerate(groups):
        for k in range(8):
            docs.append((f"d{g}{k}", " ".join(words[j] for j in range(3) if (k >> j) & 1 or j
                                                                   == k % 3)))
            links.append((f"d{g}{k}", f"p{g}{k % 4}"))
    lsi = LsiRanker(Collection.from_records(docs, links))
    ranking = lsi.rank("crypto cipher")
    scores = dict(zip((lsi.person_ids[i] for i in ranking.people), ranking.scores, strict=True))
    others = [p for p in lsi.person_ids if not p.startswith("p1")]
    assert all(scores[p] == 0.0 for p in others)
    assert [lsi.person_ids[i] for i in ranking.people][4:] == sorted(others)
    assert all(scores[f"p1{k}"] > 0.5 for k in range(4))


def test_lsi_dims_capped_by_the_collection(collection):
    assert LsiRanker(collection).svd.n_components == collection.n_documents - 1


@pytest.mark.parametrize("cls", [TfidfRanker, LsiRanker])
def test_no_known_words(collection, cls):
    ranking = cls(collection).rank("zebra")
    assert ranking.no_known_words and ranking.unknown_words == ("zebra",) and len(ranking) == 0


def test_lsi_of_a_large_collection_is_fitted_on_a_sample(monkeypatch):
    """Above FIT_DOCUMENTS, the SVD is fitted on a seeded sample and each person's vector is
    the sum of their documents' projections, taken as their TF-IDF vector projected."""
    from pathlib import Path

    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.rankers.recency import person_documents

    collection = load_collection(Path(__file__).parent / "fixtures" / "dpdk_sample",
                                 use_cache=False)
    whole = LsiRanker(collection, dims=20)
    assert whole.fitted_documents == collection.n_documents
    monkeypatch.setattr(LsiRanker, "FIT_DOCUMENTS", 300)
    sampled = LsiRanker(collection, dims=20)
    assert sampled.fitted_documents == 300
    assert np.allclose(sampled.people, person_documents(collection, None)
                       @ sampled.svd.transform(sampled.doc_vectors), atol=1e-10)
    again = LsiRanker(collection, dims=20)  # the sample is seeded
    np.testing.assert_array_equal(again.people, sampled.people)
