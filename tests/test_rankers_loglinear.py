import dataclasses
import math

import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.loglinear import LogLinearRanker
from expert_gui.core.rankers.ranking import normalized_entropy


@pytest.fixture(scope="module")
def collection():
    return tiny_collection()


@pytest.fixture(scope="module")
def model(collection):
    return random_model(collection)


def naive_query_probs(model, words, weights=None):
    """Eq. 1 per word with explicit softmax loops, then Eq. 2's weighted product, normalised."""
    W_p = model.word_embeddings.astype(float)
    W_c = model.candidate_weights.astype(float)
    b = model.candidate_bias.astype(float)
    weights = weights or [1.0] * len(words)
    log_tilde = [0.0] * model.n_people
    for w, a in zip(words, weights, strict=True):
        e = W_p[model.vocab.index[w]]
        logits = [sum(W_c[c][j] * e[j] for j in range(len(e))) + b[c]
                  for c in range(model.n_people)]
        z1 = sum(math.exp(x) for x in logits)
        for c in range(model.n_people):
            log_tilde[c] += a * math.log(math.exp(logits[c]) / z1)
    z2 = sum(math.exp(x) for x in log_tilde)
    return [math.exp(x) / z2 for x in log_tilde]


def test_probabilities_match_eq2_computed_naively(model):
    ranking = LogLinearRanker(model).rank("ring buffer, the lockless RING driver")
    assert ranking.known_words == ("ring", "buffer", "lockless", "ring", "driver")
    expected = naive_query_probs(model, list(ranking.known_words))
    np.testing.assert_allclose(ranking.probabilities, expected, rtol=1e-5)
    assert ranking.probabilities.sum() == pytest.approx(1.0)
    assert ranking.entropy == pytest.approx(normalized_entropy(np.array(expected)))
    # every person ranked, best first, scores are log P(c|q)
    assert sorted(ranking.people.tolist()) == list(range(model.n_people))
    np.testing.assert_allclose(np.exp(ranking.scores), np.sort(expected)[::-1], rtol=1e-5)
    assert ranking.people[0] == int(np.argmax(expected))


def test_unknown_words_reported_and_skipped(model):
    ranking = LogLinearRanker(model).rank("ring zebra")
    assert ranking.known_words == ("ring",)
    assert ranking.unknown_words == ("zebra",)
    np.testing.assert_allclose(ranking.probabilities, naive_query_probs(model, ["ring"]), rtol=1e-5)


@pytest.mark.parametrize("query", ["", "zebra giraffe", "the and of"])
def test_no_known_words_is_an_explicit_empty_answer(model, query):
    ranking = LogLinearRanker(model).rank(query)
    assert ranking.no_known_words
    assert len(ranking) == 0 and ranking.probabilities is None and ranking.entropy is None
    assert ranking.unknown_words == tuple(w for w in query.split() if w not in ("the", "and", "of"))


def test_depth_cuts_the_ranking(model):
    full = LogLinearRanker(model).rank("ring driver")
    top2 = LogLinearRanker(model).rank("ring driver", depth=2)
    assert top2.people.tolist() == full.people[:2].tolist()
    assert len(top2.probabilities) == model.n_people


def test_mean_aggregation_keeps_the_order_and_raises_entropy(model):
    q = "ring buffer lockless mempool memory pool cache"
    total = LogLinearRanker(model).rank(q)
    mean = LogLinearRanker(model, aggregation="mean").rank(q)
    assert mean.people.tolist() == total.people.tolist()
    k = len(total.known_words)
    np.testing.assert_allclose(mean.probabilities,
                               naive_query_probs(model, list(mean.known_words), [1 / k] * k),
                               rtol=1e-5)
    assert mean.entropy > total.entropy


def test_informative_aggregation_weights_words_by_one_minus_entropy(model):
    ranker = LogLinearRanker(model, aggregation="informative")
    ranking = ranker.rank("ring driver flow")
    weights = []
    for w in ranking.known_words:
        p = naive_query_probs(model, [w])
        weights.append(1 - normalized_entropy(np.array(p)))
    np.testing.assert_allclose(ranking.probabilities,
                               naive_query_probs(model, list(ranking.known_words), weights),
                               rtol=1e-5)


def test_informative_aggregation_can_change_the_ranking(collection):
    # "ring" points sharply at person 0 (logit 8); nine vague words lean to person 1 (logit 1
    # each, 9 in all), so the product favours person 1 and the informative weights person 0
    model = random_model(collection, dim=3)
    model.word_embeddings[:] = 0
    model.candidate_weights[:] = 0
    model.candidate_bias[:] = 0
    model.candidate_weights[0] = [8, 0, 0]
    model.candidate_weights[1] = [0, 1, 0]
    v = model.vocab.index
    model.word_embeddings[v["ring"]] = [1, 0, 0]
    for w in ("driver", "flow", "link", "ice", "pmd", "queue", "rules", "setup", "speed"):
        model.word_embeddings[v[w]] = [0, 1, 0]
    q = "ring driver flow link ice pmd queue rules setup speed"
    assert LogLinearRanker(model).rank(q).people[0] == 1
    assert LogLinearRanker(model, aggregation="informative").rank(q).people[0] == 0


def test_entropy_bounds(collection):
    uniform = random_model(collection)
    uniform.candidate_weights[:] = 0
    uniform.candidate_bias[:] = 0
    assert LogLinearRanker(uniform).rank("ring").entropy == pytest.approx(1.0)
    peaked = random_model(collection)
    peaked.candidate_weights[:] = 0
    peaked.candidate_bias[:] = 0
    peaked.candidate_bias[2] = 800.0
    r = LogLinearRanker(peaked).rank("ring")
    assert r.entropy == pytest.approx(0.0, abs=1e-12)
    assert r.people[0] == 2
    assert normalized_entropy(np.array([0.0, 1.0, 0.0])) == 0.0
    assert normalized_entropy(np.full(7, 1 / 7)) == pytest.approx(1.0)


def test_unknown_aggregation_is_a_typed_error(model):
    with pytest.raises(QueryError, match="aggregation"):
        LogLinearRanker(model, aggregation="max")


def test_explain_gives_each_word_log_prob_and_supporting_documents(collection, model):
    ranker = LogLinearRanker(model)
    ranking = ranker.rank("lockless ring zebra ring")
    alice = collection.person_index["alice"]
    why = ranker.explain(ranking, alice, collection)
    assert why.person_id == "alice" and why.rank == ranking.rank_of(alice)
    assert [w for w, _ in why.word_log_probs] == ["lockless", "ring"]
    for w, lp in why.word_log_probs:
        assert lp == pytest.approx(math.log(naive_query_probs(model, [w])[alice]))
    # d1 holds lockless once and ring twice; d2, d6 (ring) and d8 (lockless) one each tie
    assert [d.doc_id for d in why.documents] == ["d1", "d2", "d6", "d8"]
    assert why.documents[0].matches == 3 and why.documents[0].words == ("ring", "lockless")
    assert ranker.explain(ranking, alice).documents == ()
    with pytest.raises(QueryError):
        ranker.explain(ranking, 99)


def test_explain_leaves_out_a_word_another_method_knew_and_the_model_does_not(collection,
                                                                               model):
    """A baseline over every document knows a word only the held-out documents hold."""
    ranker = LogLinearRanker(model)
    ranking = dataclasses.replace(ranker.rank("lockless"), known_words=("lockless", "zorblax"))
    why = ranker.explain(ranking, collection.person_index["alice"])
    assert [w for w, _ in why.word_log_probs] == ["lockless"]
