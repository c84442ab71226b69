"""Model 1 and Model 2 (Balog et al. 2006) against the textbook formulas, written as loops."""

import math
from collections import Counter

import numpy as np
import pytest
from rankers_helpers import doc_words, tiny_collection

from expert_gui.core.data.collection import Collection
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.language_models import Model1, Model2


@pytest.fixture(scope="module")
def collection():
    return tiny_collection()


def stats(collection):
    docs = [doc_words(collection, d) for d in range(collection.n_documents)]
    cf = Counter(w for ws in docs for w in ws)
    total = sum(cf.values())
    p_t = {w: n / total for w, n in cf.items()}
    person_docs = {c: [d for d in range(collection.n_documents)
                       if c in collection.people_of(d).tolist()]
                   for c in range(collection.n_people)}
    avg_len = total / collection.n_documents
    return docs, p_t, person_docs, avg_len


def naive_model1(collection, query_words, smoothing, beta_from="profiles"):
    docs, p_t, person_docs, beta = stats(collection)
    lengths = [sum(len(docs[d]) for d in person_docs[c]) for c in range(collection.n_people)]
    if beta_from == "profiles":
        beta = sum(lengths) / len(lengths)
    out = []
    for c in range(collection.n_people):
        mine = person_docs[c]
        n_c = lengths[c]
        lam = 0.5 if smoothing == "jm" else beta / (beta + n_c)
        score = 0.0
        for t in query_words:
            p_tc = sum((docs[d].count(t) / len(docs[d]) if docs[d] else 0.0) / len(mine)
                       for d in mine)
            score += math.log((1 - lam) * p_tc + lam * p_t[t])
        out.append(score)
    return np.array(out)


def naive_model2(collection, query_words, smoothing):
    docs, p_t, person_docs, beta = stats(collection)
    out = []
    for c in range(collection.n_people):
        mine = person_docs[c]
        total = 0.0
        for d in mine:
            lam = 0.5 if smoothing == "jm" else beta / (beta + len(docs[d]))
            p_qd = 1.0
            for t in query_words:
                p_td = docs[d].count(t) / len(docs[d]) if docs[d] else 0.0
                p_qd *= (1 - lam) * p_td + lam * p_t[t]
            total += p_qd / len(mine)
        out.append(math.log(total))
    return np.array(out)


QUERIES = ["ring", "ring buffer ring lockless", "ice link flow driver", "mempool cache zebra"]


@pytest.mark.parametrize("smoothing, beta_from",
                         [("jm", "profiles"), ("dirichlet", "profiles"), ("dirichlet", "documents")])
@pytest.mark.parametrize("query", QUERIES)
def test_model1_matches_the_formula(collection, smoothing, beta_from, query):
    ranker = Model1(collection, smoothing, beta_from=beta_from)
    ranking = ranker.rank(query)
    expected = naive_model1(collection, list(ranking.known_words), smoothing, beta_from)
    np.testing.assert_allclose(ranking.scores, expected[ranking.people], rtol=1e-10)
    assert ranking.people.tolist() == sorted(range(4), key=lambda c: (-expected[c], c))


@pytest.mark.parametrize("smoothing", ["jm", "dirichlet"])
@pytest.mark.parametrize("query", QUERIES)
def test_model2_matches_the_formula(collection, smoothing, query):
    ranker = Model2(collection, smoothing)
    ranking = ranker.rank(query)
    expected = naive_model2(collection, list(ranking.known_words), smoothing)
    np.testing.assert_allclose(ranking.scores, expected[ranking.people], rtol=1e-10)
    assert ranking.people.tolist() == sorted(range(4), key=lambda c: (-expected[c], c))


def test_model1_dirichlet_by_hand():
    """Balog et al. (2009): lambda_c = beta / (beta + n(c)), beta the mean profile length.

    a wrote "ring ring buffer" (n(a) = 3); b wrote "buffer pool pool" and "pool" (n(b) = 4).
    p(ring) = 2/7, p(pool) = 3/7; beta = (3 + 4) / 2 = 7/2, so lambda_a = 7/13, lambda_b = 7/15.
    ring: a = log(6/13 * 2/3 + 7/13 * 2/7) = log(6/13); b = log(7/15 * 2/7) = log(2/15).
    pool: a = log(7/13 * 3/7) = log(3/13); b = log(8/15 * (2/3 + 1)/2 + 7/15 * 3/7) = log(29/45).
    With beta the mean document length (7/3), lambda_a = 7/16: ring, a = log(1/2).
    """
    c = Collection.from_records(
        [("d1", "ring ring buffer"), ("d2", "buffer pool pool"), ("d3", "pool")],
        [("d1", "a"), ("d2", "b"), ("d3", "b")])
    m1 = Model1(c, "dirichlet")
    assert m1.beta == pytest.approx(3.5)
    ring = m1.rank("ring")
    assert ring.people.tolist() == [0, 1]
    np.testing.assert_allclose(ring.scores, np.log([6 / 13, 2 / 15]), rtol=1e-12)
    pool = m1.rank("pool")
    assert pool.people.tolist() == [1, 0]
    np.testing.assert_allclose(pool.scores, np.log([29 / 45, 3 / 13]), rtol=1e-12)
    by_documents = Model1(c, "dirichlet", beta_from="documents")
    assert by_documents.beta == pytest.approx(7 / 3) and by_documents.name == "model1-d-doc"
    assert by_documents.rank("ring").scores[0] == pytest.approx(np.log(0.5), rel=1e-12)


def test_names_and_settings(collection):
    assert Model1(collection, "jm").name == "model1-jm"
    assert Model1(collection, "dirichlet").name == "model1-d"
    assert Model2(collection, "dirichlet").name == "model2-d"
    assert Model2(collection, "dirichlet").beta == pytest.approx(stats(collection)[3])
    with pytest.raises(QueryError):
        Model1(collection, "laplace")
    with pytest.raises(QueryError):
        Model2(collection, "jm", lam=0.0)
    with pytest.raises(QueryError):
        Model1(collection, "dirichlet", beta_from="people")


def test_model2_long_query_does_not_underflow(collection):
    query = " ".join(["ring buffer lockless enqueue dequeue"] * 200)
    scores = Model2(collection, "dirichlet").rank(query).scores
    assert np.isfinite(scores).all() and scores.max() < -1000


@pytest.mark.parametrize("cls", [Model1, Model2])
@pytest.mark.parametrize("query", ["", "zebra", "the of"])
def test_no_known_words(collection, cls, query):
    ranking = cls(collection).rank(query)
    assert ranking.no_known_words and len(ranking) == 0


def test_model2_underflowing_people_get_an_exact_log_sum_exp(collection):
    from scipy.special import logsumexp

    m2 = Model2(collection, "dirichlet")
    query = " ".join(["ring buffer lockless enqueue dequeue"] * 200 + ["ice"])
    terms, counts = np.unique([collection.vocab.index[w] for w in query.split()],
                              return_counts=True)
    lam = m2.smoothing_weight(m2.doc_lengths)[:, None]
    p_td = m2.counts[:, terms].toarray() / np.maximum(m2.doc_lengths, 1)[:, None]
    log_pq = np.log((1 - lam) * p_td + lam * m2.p_background[terms]) @ counts
    assert log_pq.max() - log_pq.min() > 1000  # plain exp() would underflow for most people
    want = [logsumexp(log_pq[collection.documents_of(c)],
                      b=np.full(len(collection.documents_of(c)),
                                1 / len(collection.documents_of(c))))
            for c in range(collection.n_people)]
    np.testing.assert_allclose(m2.scores(terms, counts.astype(float)), want, rtol=1e-12)


def test_model2_jm_ties_people_without_a_matching_document_exactly():
    """Without a matched document a person's Model 2 (Jelinek-Mercer) likelihood is
    lambda^|q| p(q) sum_d p(d|c), and sum_d p(d|c) = 1 for everyone: fourteen documents' 1/14s
    summed in floats make 0.9999999999999997, which ranked such a person below one with a
    single document by the last bit instead of by index as ties are."""
    documents = [(f"a{i}", "mempool cache pool") for i in range(14)]
    documents += [("b0", "ring buffer pool"), ("c0", "lockless ring queue")]
    associations = [(f"a{i}", "alice") for i in range(14)] + [("b0", "bob"), ("c0", "carol")]
    collection = Collection.from_records(documents, associations)
    ranking = Model2(collection, smoothing="jm").rank("lockless queue")
    scores = dict(zip((ranking.person_ids[p] for p in ranking.people), ranking.scores,
                      strict=True))
    assert scores["alice"] == scores["bob"]  # neither holds a query word
    assert scores["carol"] > scores["alice"]
    assert [ranking.person_ids[p] for p in ranking.people] == ["carol", "alice", "bob"]
    expected = naive_model2(collection, ["lockless", "queue"], "jm")
    assert np.allclose(sorted(ranking.scores), sorted(expected), rtol=1e-12)
