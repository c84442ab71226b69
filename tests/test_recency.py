"""Recent work counts more (`--since`, `--half-life`): each document's weight, and every method
against a direct numpy evaluation of its formula with those weights."""

import json

import numpy as np
import pytest
from rankers_helpers import random_model
from scipy.special import log_softmax

from expert_gui.cli import main
from expert_gui.core.data.collection import Collection
from expert_gui.core.data.recency import Recency, document_weights
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.store.storage import save_model

DOCS = [("d1", "ring buffer lockless ring enqueue", "2024-06-01"),
        ("d2", "ring buffer memory pool", "2014-06-01"),
        ("d3", "ice driver link status ring", "2022-06-01"),
        ("d4", "ice driver queue setup link", "2010-01-01"),
        ("d5", "mlx5 flow steering rules", ""),
        ("d6", "flow rules ring mempool", "2023-06-01")]
LINKS = [("d1", "alice"), ("d2", "alice"), ("d3", "bob"), ("d4", "bob"), ("d4", "carol"),
         ("d5", "dave"), ("d6", "dave"), ("d6", "alice")]
QUERY = "ring buffer flow link"


@pytest.fixture(scope="module")
def collection():
    return Collection.from_records(DOCS, LINKS)


def test_weights_count_the_years_from_the_newest_document(collection):
    w = document_weights(collection, Recency(since=2015, half_life=2.0))
    ages = np.array([0.0, 10.0, 2.0, 14.42, 0.0, 1.0])  # in years before 2024-06-01
    expected = 0.5 ** (ages / 2.0)
    expected[[1, 3]] = 0.0  # before 2015
    expected[4] = 1.0  # undated: counts fully
    np.testing.assert_allclose(w.weights, expected, rtol=1e-3)
    assert (w.undated, w.dropped, w.newest) == (1, 2, "2024-06-01")
    said = w.describe()
    assert "documents from 2015 on, half-life 2 years" in said and "2024-06-01" in said
    assert "2 of 6 documents are older and count for nothing" in said
    assert "1 document without a date counts fully" in said
    # r_c: the weighted share of each person's documents
    shares = dict(zip(collection.person_ids, w.shares(collection), strict=True))
    assert shares["carol"] == 0.0  # her one document is from 2010
    assert shares["alice"] == pytest.approx((1.0 + 0.0 + 0.5 ** 0.5) / 3, rel=1e-3)


def test_no_dates_no_change(collection):
    undated = Collection.from_records([(d, t) for d, t, _ in DOCS], LINKS)
    w = document_weights(undated, Recency(since=2020))
    assert (w.weights == 1).all() and "no document has a date" in w.describe()


@pytest.mark.parametrize("bad", [dict(since=99), dict(half_life=0.0), dict(half_life=-1.0),
                                 dict(half_life=float("nan")), dict(half_life=1e9)])
def test_settings_out_of_range_are_refused(bad):
    with pytest.raises(QueryError):
        Recency(**bad)


def weighted_statistics(collection, weights):
    """p(t|d), p(t), p(d|c) by weight, n(c) by weight and r_c, straight from the documents."""
    vocab = collection.vocab
    counts = np.zeros((collection.n_documents, len(vocab)))
    for d in range(collection.n_documents):
        for t in collection.doc_tokens(d):
            counts[d, t] += 1
    lengths = counts.sum(axis=1)
    p_t = counts.sum(axis=0) / counts.sum()
    a = collection.association_matrix().toarray().T  # people x documents
    wa = a * weights[None, :]
    p_dc = np.divide(wa, wa.sum(axis=1, keepdims=True), out=np.zeros_like(wa),
                     where=wa.sum(axis=1, keepdims=True) > 0)
    share = wa.sum(axis=1) / a.sum(axis=1)
    return counts, lengths, p_t, p_dc, wa @ lengths, share


def query_counts(collection, text):
    ids, _ = collection.vocab.encode(text.split())
    q = np.zeros(len(collection.vocab))
    for t in ids:
        q[t] += 1
    return q


def ranked_scores(ranking, person_ids):
    out = {}
    for i, s in zip(ranking.people, ranking.scores, strict=True):
        out[ranking.person_ids[i]] = s
    return np.array([out.get(p, -np.inf) for p in person_ids])


RECENCY = Recency(since=2015, half_life=2.0)


def test_model1_and_model2_by_weight(collection):
    w = document_weights(collection, RECENCY).weights
    counts, lengths, p_t, p_dc, n_c, share = weighted_statistics(collection, w)
    q = query_counts(collection, QUERY)
    keep = share > 0
    with np.errstate(divide="ignore"):
        log_share = np.log(share)
    # Model 1 (d): the profile of documents by weight, beta the mean weighted profile length
    beta = n_c[keep].mean()
    p_tc = p_dc @ (counts / lengths[:, None])
    lam = beta / (beta + n_c)
    t = q > 0
    model1 = np.log((1 - lam)[:, None] * p_tc[:, t] + lam[:, None] * p_t[None, t]) @ q[t] \
        + log_share
    got = ranked_scores(make_ranker("model1-d", collection=collection, recency=RECENCY)
                        .rank(QUERY), collection.person_ids)
    np.testing.assert_allclose(got[keep], model1[keep], rtol=1e-10)
    # Model 2 (jm): sum_d p(q|d) w_d / |D_c|
    p_td = 0.5 * counts[:, t] / lengths[:, None] + 0.5 * p_t[None, t]
    p_qd = np.exp(np.log(p_td) @ q[t])
    a = collection.association_matrix().toarray().T
    with np.errstate(divide="ignore"):
        model2 = np.log((a * w[None, :]) @ p_qd / a.sum(axis=1))
    got = ranked_scores(make_ranker("model2-jm", collection=collection, recency=RECENCY)
                        .rank(QUERY), collection.person_ids)
    np.testing.assert_allclose(got[keep], model2[keep], rtol=1e-10)


def test_vector_space_and_the_log_linear_model_by_weight(collection):
    w = document_weights(collection, RECENCY).weights
    counts, _, _, _, _, share = weighted_statistics(collection, w)
    n = collection.n_documents
    idf = np.log((1 + n) / (1 + (counts > 0).sum(axis=0))) + 1
    a = collection.association_matrix().toarray().T
    people = (a * w[None, :]) @ (counts * idf[None, :])
    q = query_counts(collection, QUERY) * idf
    cos = people @ q / (np.linalg.norm(people, axis=1) * np.linalg.norm(q) + 1e-300)
    keep = share > 0
    got = ranked_scores(make_ranker("tfidf", collection=collection, recency=RECENCY)
                        .rank(QUERY), collection.person_ids)
    np.testing.assert_allclose(got[keep], (cos * share)[keep], rtol=1e-10)
    model = random_model(collection, seed=2)
    ids, _, _ = model.encode(QUERY)
    logits = (model.word_embeddings[ids].astype(np.float64) @
              model.candidate_weights.astype(np.float64).T + model.candidate_bias).sum(axis=0)
    with np.errstate(divide="ignore"):
        expected = log_softmax(logits + np.log(share))
    got = ranked_scores(make_ranker("loglinear", model=model, collection=collection,
                                    recency=RECENCY).rank(QUERY), model.person_ids)
    np.testing.assert_allclose(got[keep], expected[keep], rtol=1e-10)


@pytest.mark.parametrize("method", ["auto", "loglinear", "model1-d", "model2-jm", "model2-d",
                                    "tfidf", "lsi", "ensemble", "model1-jm"])
def test_nobody_without_a_document_that_counts_is_ranked(collection, method):
    model = random_model(collection, seed=2)
    ranking = make_ranker(method, model=model, collection=collection,
                          recency=Recency(since=2015)).rank(QUERY)
    ranked = {ranking.person_ids[p] for p in ranking.people}
    assert "carol" not in ranked and ranked == {"alice", "bob", "dave"}
    assert ranking.n_candidates == 3


def test_recency_needs_the_collection(collection):
    model = random_model(collection, seed=2)
    with pytest.raises(QueryError, match="needs the collection"):
        make_ranker("loglinear", model=model, recency=Recency(since=2015))


def test_query_and_rank_say_what_recency_did(collection, tmp_path, capsys):
    folder = tmp_path / "coll"
    folder.mkdir()
    (folder / "documents.tsv").write_text(
        "doc_id\tdate\ttext\n" + "".join(f"{d}\t{day}\t{t}\n" for d, t, day in DOCS),
        encoding="utf-8")
    (folder / "associations.tsv").write_text(
        "doc_id\tperson_id\n" + "".join(f"{d}\t{p}\n" for d, p in LINKS), encoding="utf-8")
    from expert_gui.core.data.loading import load_collection

    loaded = load_collection(folder, use_cache=False)
    model = random_model(loaded, seed=2)
    model.collection_source = str(folder)
    model.collection_fingerprint = loaded.fingerprint
    save_model(model, tmp_path / "model")
    assert main(["query", str(tmp_path / "model"), QUERY, "--since", "2015", "--half-life",
                 "2", "--method", "model1-d"]) == 0
    printed = capsys.readouterr().out
    assert "recency: documents from 2015 on, half-life 2 years" in printed
    assert "1 of 4 people have no document that counts and are not ranked" in printed
    assert "carol" not in printed and "not under recency" in printed
    assert main(["query", str(tmp_path / "model"), QUERY, "--since", "2015", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["recency"]["since"] == 2015 and out["recency"]["people_not_ranked"] == 1
    assert out["recency"]["undated_documents"] == 1
    topics = tmp_path / "t.tsv"
    topics.write_text(f"topic_id\tquery\nT1\t{QUERY}\n", encoding="utf-8")
    assert main(["rank", str(tmp_path / "model"), "--topics", str(topics), "--run",
                 str(tmp_path / "r"), "--since", "2015"]) == 0
    run = (tmp_path / "r").read_text(encoding="utf-8").split("\n")
    assert {line.split()[2] for line in run if line} == {"alice", "bob", "dave"}
    assert main(["query", str(tmp_path / "model"), QUERY, "--since", "12"]) == 2
    assert "--since takes a year" in capsys.readouterr().err
