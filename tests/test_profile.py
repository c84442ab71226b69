"""Expert profiles: every formula against an independent numpy computation on a tiny collection."""

from collections import Counter

import numpy as np
import pytest
from rankers_helpers import random_model
from scipy.special import log_softmax

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import NUMBER_TOKEN, PAD_ID
from expert_gui.core.data.topics import read_topics
from expert_gui.core.errors import UnknownPersonError
from expert_gui.core.explore.profile import (
    REASON_WORDS,
    WORD_SCORES,
    Profiler,
    closest_ids,
    score_topics,
)
from expert_gui.core.explore.timeline import documents_about, documents_per_period
from expert_gui.core.rankers.methods import make_ranker


@pytest.fixture
def collection(fixtures):
    return load_collection(fixtures / "profiles", use_cache=False)


@pytest.fixture
def model(collection):
    return random_model(collection)


def full_distributions(model):
    """P(c|w) for every word and person by a softmax over people (Eq. 1), P(w) from counts, and
    P(w|c) by Bayes, each computed directly from its definition."""
    logits = (model.word_embeddings.astype(np.float64) @ model.candidate_weights.T.astype(
        np.float64) + model.candidate_bias)
    p_cw = np.exp(log_softmax(logits, axis=1))  # V x C
    counts = model.vocab.counts.astype(np.float64).copy()
    counts[PAD_ID] = 0
    p_w = counts / counts.sum()
    joint = p_cw * p_w[:, None]
    p_c = joint.sum(axis=0)
    return p_cw, p_w, joint / p_c, p_c


def test_word_scores_are_eq1_and_bayes(model, collection):
    p_cw, p_w, p_wc, p_c = full_distributions(model)
    profiler = Profiler(model, collection)
    assert profiler.prepare()
    assert np.allclose(np.exp(profiler.log_prior), p_c, rtol=1e-5)
    assert np.isclose(np.exp(profiler.log_prior).sum(), 1.0)
    listed = np.ones(len(p_w), bool)
    listed[[PAD_ID, model.vocab.index[NUMBER_TOKEN]]] = False
    for c in range(model.n_people):
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = p_wc[:, c] * np.log(p_wc[:, c] / p_w)
        expected = {"posterior": p_cw[:, c], "bayes": p_wc[:, c], "kl": kl}
        assert np.isclose(p_wc[:, c].sum(), 1.0)
        for score in WORD_SCORES:
            values, log_pwc, log_pcw = profiler.word_scores(c, score)
            assert np.allclose(values[listed], expected[score][listed], rtol=1e-5, atol=1e-12)
            assert np.all(np.isneginf(values[~listed]))
            assert np.allclose(np.exp(log_pcw[1:]), p_cw[1:, c], rtol=1e-5)
            assert np.allclose(np.exp(log_pwc[1:]), p_wc[1:, c], rtol=1e-5)


def test_words_are_the_top_scores_with_their_document_counts(model, collection):
    _, p_w, p_wc, _ = full_distributions(model)
    profiler = Profiler(model, collection)
    ann = profiler.person("ann")
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = p_wc[:, ann] * np.log(p_wc[:, ann] / p_w)
    kl[[PAD_ID, model.vocab.index[NUMBER_TOKEN]]] = -np.inf
    words = profiler.words(ann, k=5)
    assert [w.word_id for w in words] == list(np.argsort(-kl, kind="stable")[:5])
    docs = collection.documents_of(collection.person_index["ann"])
    for w in words:
        holding = sum(w.word in set(collection.vocab.words[t] for t in collection.doc_tokens(d))
                      for d in docs)
        assert w.documents == holding
    assert all(w.documents is None for w in Profiler(model).words(ann, k=5))


def test_topics_rank_by_place_then_probability(model, collection, fixtures):
    topics = {t.id: t.query for t in read_topics(fixtures / "profiles" / "topics.tsv")}
    scores = score_topics(make_ranker("loglinear", model=model), topics)
    assert scores.topic_ids == ("t1", "t2", "t3", "t4")  # t5 has no known word
    for t, topic_id in enumerate(scores.topic_ids):
        ids, _, _ = model.encode(topics[topic_id])
        assert np.allclose(scores.log_probs[t], model.query_log_probs(ids))
        order = np.argsort(-scores.log_probs[t], kind="stable")
        assert list(scores.ranks[t, order]) == list(range(1, model.n_people + 1))
    for c in range(model.n_people):
        ranked = scores.for_person(c)
        keys = [(t.rank, -t.probability) for t in ranked]
        assert keys == sorted(keys) and len(ranked) == 4
        assert all(t.score == 1 / t.rank for t in ranked)


def test_model2_topics_are_its_posterior_under_a_uniform_prior(collection, fixtures):
    topics = {t.id: t.query for t in read_topics(fixtures / "profiles" / "topics.tsv")}
    ranker = make_ranker("model2-jm", collection=collection)
    scores = score_topics(ranker, topics)
    for t, topic_id in enumerate(scores.topic_ids):
        ranking = ranker.rank(topics[topic_id])
        log_pq = np.empty(collection.n_people)
        log_pq[ranking.people] = ranking.scores  # log P(q|c)
        posterior = np.exp(log_pq) / np.exp(log_pq).sum()
        assert np.allclose(np.exp(scores.log_probs[t]), posterior)


def test_similar_people_by_cosine_with_the_words_they_share(model, collection):
    _, p_w, p_wc, _ = full_distributions(model)
    profiler = Profiler(model, collection)
    w = model.candidate_weights.astype(np.float64)
    cos = (w @ w.T) / np.outer(np.linalg.norm(w, axis=1), np.linalg.norm(w, axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = p_wc * np.log(p_wc / p_w[:, None])
    kl[[PAD_ID, model.vocab.index[NUMBER_TOKEN]]] = -np.inf
    for c in range(model.n_people):
        similar = profiler.similar(c, k=3)
        others = [q for q in np.argsort(-cos[c], kind="stable") if q != c][:3]
        assert [s.person for s in similar] == others
        assert np.allclose([s.score for s in similar], cos[c, others])
        pool = np.argsort(-kl[:, c], kind="stable")[:50]
        pool = pool[np.isfinite(kl[pool, c])]
        for s in similar:
            both = np.minimum(kl[pool, c], kl[pool, s.person])
            expected = pool[np.argsort(-both, kind="stable")[:REASON_WORDS]]
            assert s.words == tuple(model.vocab.words[i] for i in expected)


def test_coauthors_share_documents(model, collection, fixtures):
    profiler = Profiler(model, collection)
    rows = [line.split("\t") for line in
            (fixtures / "profiles" / "associations.tsv").read_text().splitlines()[1:]]
    authors: dict[str, set[str]] = {}
    for doc, person in rows:
        authors.setdefault(doc, set()).add(person)
    for person in collection.person_ids:
        shared = Counter(q for people in authors.values() if person in people
                         for q in people if q != person)
        got = profiler.coauthors(profiler.person(person))
        assert {(a.person_id, a.documents) for a in got} == set(shared.items())
        assert [a.documents for a in got] == sorted((a.documents for a in got), reverse=True)
    assert profiler.coauthors(profiler.person("cai")) == ()
    assert Profiler(model).coauthors(0) == ()


def test_timeline_counts_documents_per_year_with_gaps(collection):
    years = Counter(str(d)[:4] for d in collection.doc_dates if not np.isnat(d))
    timeline = dict(documents_per_period(collection.doc_dates, "year"))
    assert list(timeline) == [str(y) for y in range(2019, 2024)]
    assert timeline == {y: years.get(y, 0) for y in timeline}
    months = documents_per_period(collection.doc_dates[:2], "month")
    assert months[0] == ("2019-03", 1) and months[-1] == ("2019-11", 1) and len(months) == 9
    assert documents_per_period(np.array(["NaT"], dtype="datetime64[D]")) == []


def test_profile_timeline_and_documents_newest_first(model, collection):
    profile = Profiler(model, collection).profile("ann", k=3)
    dates = collection.doc_dates[profile.documents]
    assert [collection.doc_ids[d] for d in profile.documents] == ["p11", "p05", "p02", "p01"]
    assert list(dates) == sorted(dates, reverse=True)
    assert profile.timeline == (("2019", 2), ("2020", 0), ("2021", 1), ("2022", 0), ("2023", 1))
    undated = Profiler(model, collection).profile("dee")
    assert [collection.doc_ids[d] for d in undated.documents] == ["p07", "p08"]  # NaT last


def test_about_counts_the_documents_on_a_word_per_period(model, collection):
    profiler = Profiler(model, collection)
    profile = profiler.profile("ann", period="year")
    about, per_period = profiler.about(profile, "crypto")
    assert [collection.doc_ids[d] for d in profile.documents[about]] == ["p05"]
    assert per_period == (("2019", 0), ("2020", 0), ("2021", 1), ("2022", 0), ("2023", 0))
    monthly = profiler.profile("ann", period="month")
    assert len(profiler.about(monthly, "ring")[1]) == len(monthly.timeline)
    assert Profiler(model).about(Profiler(model).profile("ann"), "ring")[1] == ()


def test_documents_about_a_query_are_likelier_than_the_collection(collection):
    docs = np.arange(collection.n_documents)
    counts = collection.vocab.counts.astype(float)
    for query in ("ring", "crypto cache", "flow driver actions", "quantum"):
        got = documents_about(collection, docs, query)
        ids, _ = collection.vocab.encode(query.split())
        expected = []
        for d in docs:
            tokens = list(collection.doc_tokens(d))
            ratio = sum(np.log(0.5 + 0.5 * tokens.count(t) / (len(tokens) * counts[t] /
                                                               counts.sum())) for t in ids)
            expected.append(bool(ids.size) and ratio > 0)
        assert list(got) == expected
    assert documents_about(collection, docs, "ring").sum() == 5  # p01 p02 p05 p08 p11


def test_unknown_person_suggests_the_closest_ids(model):
    profiler = Profiler(model)
    with pytest.raises(UnknownPersonError) as err:
        profiler.person("anne")
    assert err.value.suggestions[0] == "ann"
    assert "closest: ann" in str(err.value)
    assert closest_ids("Bob Baker", ["ann", "bob"], ["Ann Archer", "Bob Baker"]) == ["bob"]
    assert closest_ids("zzzzzz", ["ann", "bob"], ["A", "B"]) == []


def test_profile_to_dict_has_the_issue_keys(model, collection, fixtures):
    topics = {t.id: t.query for t in read_topics(fixtures / "profiles" / "topics.tsv")}
    scores = score_topics(make_ranker("loglinear", model=model), topics)
    profiler = Profiler(model, collection)
    d = profiler.profile("bob", k=2, topics=scores).to_dict()
    assert list(d) == ["person", "name", "words", "topics", "similar", "coauthors", "timeline"]
    assert d["person"] == "bob" and d["name"] == "Bob Baker"
    assert len(d["words"]) == 2 and {"word", "score"} <= set(d["words"][0])
    assert {"topic_id", "score"} <= set(d["topics"][0])
    assert {"person", "score"} <= set(d["similar"][0])
    assert d["coauthors"] == [{"person": "ann", "documents": 1, "name": "Ann Archer"},
                              {"person": "dee", "documents": 1, "name": "Dee Dunn"}]
    assert {"period", "documents"} == set(d["timeline"][0])
    assert "topics" not in profiler.profile("bob").to_dict()
