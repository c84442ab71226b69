"""A tiny collection and a random log-linear model over it, for the ranker tests."""

import csv
import os
from pathlib import Path

import numpy as np
import pytest

from expert_gui.core.data.collection import Collection
from expert_gui.core.model.loglinear import LogLinearModel

TINY = Path(__file__).parent / "fixtures" / "rankers" / "tiny"
# Where the rankers' torch path is tested: the CPU here, "cuda" on a GPU machine
# (benchmarks/gpu_check.sh sets it).
TORCH_DEVICE = os.environ.get("EXPERT_GUI_TEST_TORCH_DEVICE", "cpu")


def _rows(name: str) -> list[tuple[str, str]]:
    with open(TINY / name, encoding="utf-8", newline="") as f:
        return [tuple(row) for row in list(csv.reader(f, delimiter="\t"))[1:]]


def tiny_collection() -> Collection:
    """9 documents, 4 people; d6 has two people, d7 has no words left, d9 has nobody."""
    return Collection.from_records(_rows("documents.tsv"), _rows("associations.tsv"))


def random_model(collection: Collection, dim: int = 5, seed: int = 0,
                 scale: float = 1.0) -> LogLinearModel:
    rng = np.random.default_rng(seed)
    return LogLinearModel(
        word_embeddings=rng.normal(0, scale, (len(collection.vocab), dim)).astype(np.float32),
        candidate_weights=rng.normal(0, scale, (collection.n_people, dim)).astype(np.float32),
        candidate_bias=rng.normal(0, 0.1, collection.n_people).astype(np.float32),
        vocab=collection.vocab,
        text_settings=collection.settings,
        person_ids=list(collection.person_ids),
        person_names=list(collection.person_names),
    )


def doc_words(collection: Collection, d: int) -> list[str]:
    return [collection.vocab.words[t] for t in collection.doc_tokens(d)]


def assert_same_rankings(reference, batch, tol: float = 1e-6) -> None:
    """Rankings of the same queries by `rank` (the reference) and `rank_batch` agree: query,
    method, words, candidates and extras alike; the same people, in the same order except
    where their reference scores tie within `tol`; scores, P(c|q), its entropy and P(expert)
    to `tol` relative (to the ranking's largest score, for scores that fall near 0)."""
    assert len(reference) == len(batch)
    for a, b in zip(reference, batch, strict=True):
        assert (b.query, b.method, b.known_words, b.unknown_words) == \
            (a.query, a.method, a.known_words, a.unknown_words)
        assert list(b.person_ids) == list(a.person_ids)
        assert (a.candidates is None) == (b.candidates is None)
        if a.candidates is not None:
            assert b.candidates.tolist() == a.candidates.tolist()
        assert b.extra == a.extra
        assert len(b.people) == len(a.people)
        finite = np.abs(a.scores[np.isfinite(a.scores)])
        atol = tol * max(1.0, float(finite.max(initial=0.0)))
        np.testing.assert_allclose(b.scores, a.scores, rtol=tol, atol=atol)
        by_person = np.full(len(a.person_ids), np.nan)
        by_person[a.people] = a.scores
        moved = b.people != a.people  # only among people whose scores tie (beyond a cut at
        moved &= ~np.isnan(by_person[b.people])  # `depth`: their score is the one checked)
        np.testing.assert_allclose(by_person[b.people[moved]], a.scores[moved], rtol=tol,
                                   atol=atol)
        assert (a.probabilities is None) == (b.probabilities is None)
        if a.probabilities is not None:
            np.testing.assert_allclose(b.probabilities, a.probabilities, rtol=tol, atol=tol)
            assert b.entropy == pytest.approx(a.entropy, rel=tol, abs=tol)
        assert (a.p_expert is None) == (b.p_expert is None)
        if a.p_expert is not None:
            np.testing.assert_allclose(b.p_expert, a.p_expert, rtol=tol, atol=tol)


def p_expert_fit(scale: float = 1.0, queries: int = 5,
                 kinds: tuple[str, ...] = ("short topic", "whole document")) -> dict:
    """A fit of P(expert) of the FEATURES of rankers/probability.py, as a manifest keeps it,
    calibrated for `kinds` (a real fit is only ever for whole documents: query_type.py)."""
    from expert_gui.core.rankers.probability import FEATURES

    return {"features": list(FEATURES), "weights": [1.5 * scale, 0.1, 2.0, -0.2, -3.0],
            "queries": queries, "ece": dict.fromkeys(kinds, 0.01), "kinds": list(kinds)}
