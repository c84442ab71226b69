"""Eq. 1 and Eq. 2 of the model against hand and direct numpy computations."""

import math

import numpy as np
import pytest

from expert_gui.core.data.text import TextSettings, Vocabulary
from expert_gui.core.model.loglinear import LogLinearModel


def tiny_model(rng=None, n_words=6, n_people=4, dim=3) -> LogLinearModel:
    rng = rng or np.random.default_rng(0)
    words = ["<pad>"] + [f"word{chr(ord('a') + i // 26)}{chr(ord('a') + i % 26)}"
                         for i in range(1, n_words)]
    return LogLinearModel(
        word_embeddings=rng.normal(size=(n_words, dim)).astype(np.float32),
        candidate_weights=rng.normal(size=(n_people, dim)).astype(np.float32),
        candidate_bias=rng.normal(size=n_people).astype(np.float32),
        vocab=Vocabulary(words, np.ones(n_words, dtype=np.int64)),
        text_settings=TextSettings(stopwords="none"),
        person_ids=[f"p{j}" for j in range(n_people)],
        person_names=[f"P {j}" for j in range(n_people)],
    )


def test_eq1_by_hand():
    m = tiny_model(n_words=2, n_people=2, dim=1)
    m.word_embeddings[:] = [[0.0], [2.0]]
    m.candidate_weights[:] = [[1.0], [-1.0]]
    m.candidate_bias[:] = [0.5, 0.0]
    # scores for w1: 1*2 + 0.5 = 2.5 and -1*2 + 0 = -2
    z = math.exp(2.5) + math.exp(-2)
    np.testing.assert_allclose(np.exp(m.word_log_probs([1]))[0],
                               [math.exp(2.5) / z, math.exp(-2) / z], rtol=1e-6)


def test_eq2_is_the_renormalised_product_of_eq1():
    rng = np.random.default_rng(1)
    m = tiny_model(rng, n_words=20, n_people=7, dim=5)
    for query in ([3], [1, 2], [5, 5, 9, 11, 19, 2]):
        w = m.word_embeddings.astype(np.float64)
        c = m.candidate_weights.astype(np.float64)
        p = np.ones(7)
        for i in query:
            e = np.exp(c @ w[i] + m.candidate_bias)
            p *= e / e.sum()
        np.testing.assert_allclose(np.exp(m.query_log_probs(np.array(query))), p / p.sum(),
                                   rtol=1e-9)
        np.testing.assert_allclose(m.query_log_probs(np.array(query)),
                                   np.log(p / p.sum()), rtol=1e-9, atol=1e-12)


def test_eq2_does_not_underflow_on_long_queries():
    m = tiny_model(np.random.default_rng(2), n_words=50, n_people=5, dim=4)
    m.word_embeddings *= 30
    logp = m.query_log_probs(np.arange(1, 50).repeat(20))
    assert np.isfinite(logp).all()
    assert np.exp(logp).sum() == pytest.approx(1.0)


def test_encode_splits_known_and_unknown_words():
    m = tiny_model()
    ids, known, unknown = m.encode("WORDAB zebra wordad, wordab")
    assert ids.tolist() == [1, 3, 1]
    assert known == ["wordab", "wordad", "wordab"]
    assert unknown == ["zebra"]
