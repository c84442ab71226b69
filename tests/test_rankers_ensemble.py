"""The paper's Eq. 5 and reciprocal rank fusion, checked by hand."""

import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.common import no_known_words, ranked
from expert_gui.core.rankers.ensemble import EnsembleRanker, full_ranks
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS


class Fixed:
    """A ranker that always answers with the given scores (person order of its own)."""

    def __init__(self, name, person_ids, scores, known=True):
        self.name, self.person_ids = name, person_ids
        self.scores, self.known = np.asarray(scores, float), known

    def rank(self, query, depth=None):
        if not self.known:
            return no_known_words(query, self.name, self.person_ids, ["q"])
        return ranked(query, self.name, self.person_ids, self.scores, ["q"], [], depth)


PEOPLE = ["a", "b", "c", "d"]


def test_eq5_product_of_reciprocal_ranks_by_hand():
    # ranks m1: a1 b2 c3 d4; m2: d1 c2 a3 b4
    m1 = Fixed("m1", PEOPLE, [4, 3, 2, 1])
    m2 = Fixed("m2", PEOPLE, [2, 1, 3, 4])
    r = EnsembleRanker([m1, m2]).rank("q")
    # a: 1/1*1/3 = .3333, b: 1/2*1/4 = .125, c: 1/3*1/2 = .1667, d: 1/4*1/1 = .25
    assert r.top() == [("a", pytest.approx(1 / 3)), ("d", pytest.approx(0.25)),
                       ("c", pytest.approx(1 / 6)), ("b", pytest.approx(0.125))]


def test_rrf_by_hand_and_three_members():
    m1 = Fixed("m1", PEOPLE, [4, 3, 2, 1])
    m2 = Fixed("m2", PEOPLE, [2, 1, 3, 4])
    m3 = Fixed("m3", PEOPLE, [1, 4, 3, 2])  # b1 c2 d3 a4
    r = EnsembleRanker([m1, m2, m3], fusion="rrf").rank("q")
    k = 60
    expected = {"a": 1 / (k + 1) + 1 / (k + 3) + 1 / (k + 4),
                "b": 1 / (k + 2) + 1 / (k + 4) + 1 / (k + 1),
                "c": 1 / (k + 3) + 1 / (k + 2) + 1 / (k + 2),
                "d": 1 / (k + 4) + 1 / (k + 1) + 1 / (k + 3)}
    want = sorted(expected, key=lambda p: (-expected[p], PEOPLE.index(p)))
    assert [p for p, _ in r.top()] == want
    assert dict(r.top()) == pytest.approx(expected)


def test_members_in_different_person_orders_are_aligned():
    m1 = Fixed("m1", PEOPLE, [4, 3, 2, 1])
    m2 = Fixed("m2", PEOPLE[::-1], [4, 3, 1, 2])  # d1 c2 a3 b4, given in reverse order
    r = EnsembleRanker([m1, m2]).rank("q")
    assert [p for p, _ in r.top()] == ["a", "d", "c", "b"]


def test_a_member_without_known_words_is_left_out_and_all_unknown_is_empty():
    m1 = Fixed("m1", PEOPLE, [4, 3, 2, 1])
    silent = Fixed("m2", PEOPLE, [0, 0, 0, 0], known=False)
    r = EnsembleRanker([m1, silent]).rank("q")
    assert [p for p, _ in r.top()] == ["a", "b", "c", "d"]
    assert EnsembleRanker([silent, silent]).rank("q").no_known_words


def test_bad_ensembles_are_typed_errors():
    m1 = Fixed("m1", PEOPLE, [4, 3, 2, 1])
    with pytest.raises(QueryError):
        EnsembleRanker([m1])
    with pytest.raises(QueryError):
        EnsembleRanker([m1, Fixed("x", ["a", "b"], [1, 2])])
    with pytest.raises(QueryError):
        EnsembleRanker([m1, m1], fusion="max")


def test_make_ranker_builds_every_method_and_the_default_ensemble_is_eq5():
    collection = tiny_collection()
    model = random_model(collection)
    for method in METHODS:
        ranking = make_ranker(method, model=model, collection=collection).rank("ring driver")
        assert sorted(ranking.people.tolist()) == [0, 1, 2, 3], method
    ens = make_ranker("ensemble", model=model, collection=collection)
    m2 = make_ranker("model2-jm", collection=collection).rank("ring driver").ranks()
    ll = make_ranker("loglinear", model=model).rank("ring driver").ranks()
    r = ens.rank("ring driver")
    np.testing.assert_allclose(r.scores, (1.0 / (m2 * ll))[r.people])
    with pytest.raises(QueryError, match="needs a model"):
        make_ranker("loglinear", collection=collection)
    with pytest.raises(QueryError, match="needs a collection"):
        make_ranker("model2-d", model=model)
    with pytest.raises(QueryError, match="unknown method"):
        make_ranker("bm25", collection=collection)
    with pytest.raises(QueryError, match="takes no option dims"):
        make_ranker("tfidf", collection=collection, dims=10)


def test_order_by_score_breaks_ties_by_index_with_and_without_depth():
    from expert_gui.core.rankers.ranking import order_by_score

    rng = np.random.default_rng(0)
    for _ in range(50):
        s = rng.integers(0, 5, 40).astype(float)  # many ties
        full = sorted(range(40), key=lambda i: (-s[i], i))
        assert order_by_score(s).tolist() == full
        for depth in (0, 1, 7, 39, 40, 41):
            assert order_by_score(s, depth).tolist() == full[:depth]


def test_eq5_tied_people_share_the_mean_of_their_ranks():
    # m1: a first, b c d tied behind it (ranks 2, 3, 4: each 3); m2: d1 c2 b3 a4
    m1 = Fixed("m1", PEOPLE, [3, 1, 1, 1])
    m2 = Fixed("m2", PEOPLE, [1, 2, 3, 4])
    r = EnsembleRanker([m1, m2]).rank("q")
    # d: 1/3*1/1, a: 1/1*1/4, c: 1/3*1/2, b: 1/3*1/3; ties by index would have put b ahead of d
    assert r.top() == [("d", pytest.approx(1 / 3)), ("a", pytest.approx(1 / 4)),
                       ("c", pytest.approx(1 / 6)), ("b", pytest.approx(1 / 9))]
    assert EnsembleRanker([m1, m2]).member_ranks("q")[1][0].tolist() == [1, 3, 3, 3]


def test_full_ranks_are_fractional_ranks_by_counting():
    """Each person's rank against 1 + the people strictly ahead + half the others tied with it
    (NaN behind every number, tied with NaN), and against scipy's fractional ranks: rows with
    and without ties, infinities, NaN and -0.0, side by side in one block."""
    from scipy.stats import rankdata

    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(1, 120))
        rows = [rng.normal(size=n), rng.integers(0, rng.integers(1, 20), size=n).astype(float),
                np.full(n, 3.0), rng.permutation(n).astype(float)]
        for row in rows[:2]:
            for special in (-np.inf, np.inf, np.nan, -0.0, 0.0):
                row[rng.random(n) < 0.03] = special
        values = np.vstack([rows[i] for i in rng.integers(0, 4, size=int(rng.integers(1, 6)))])
        key = np.where(np.isnan(values), -np.inf, values)
        nan = np.isnan(values)
        ahead = ((key[:, None, :] > key[:, :, None]) & ~nan[:, None, :]) | \
            (nan[:, :, None] & ~nan[:, None, :])
        tied = ((key[:, None, :] == key[:, :, None]) & (nan[:, None, :] == nan[:, :, None]))
        want = 1 + ahead.sum(axis=2) + (tied.sum(axis=2) - 1) / 2
        np.testing.assert_array_equal(full_ranks(values), want)
        for row, got in zip(values, full_ranks(values), strict=True):
            if not np.isnan(row).any():
                np.testing.assert_array_equal(got, rankdata(-row))
