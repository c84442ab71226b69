"""`auto`: z-scores, the weight grid, AP by hand and against ir-measures, and the fused ranking."""

import math

import ir_measures
import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.fusion import (
    FusionRanker,
    average_precisions,
    choose_weights,
    simplex_grid,
    zscores,
)
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.store.manifest import MEMBERS


def test_zscores():
    np.testing.assert_allclose(zscores(np.array([1.0, 2.0, 3.0])),
                               np.array([-1.0, 0.0, 1.0]) / math.sqrt(2 / 3))
    assert zscores(np.array([5.0, 5.0])).tolist() == [0.0, 0.0]
    z = zscores(np.array([0.0, -1.0, -np.inf]))  # ruled out: the lowest finite score
    assert z[1] == z[2] < z[0]


def test_simplex_grid():
    grid = simplex_grid(3, 20)
    assert len(grid) == math.comb(22, 2) == 231
    np.testing.assert_allclose(grid.sum(axis=1), 1.0)
    assert (grid >= 0).all()
    assert sorted(map(tuple, grid[:3])) == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]


def test_average_precision_by_hand():
    # people 0..4; scores rank them 3, 1, 0 = 4 (tie: lower index first), 2
    fused = np.array([[0.5, 0.9, 0.1, 1.0, 0.5]])
    # relevant 1 and 4: ranks 2 and 4 -> AP = (1/2 + 2/4) / 2
    assert average_precisions(fused, np.array([1, 4]))[0] == pytest.approx(0.5)
    # relevant 1 and 2: ranks 2 and 5 -> AP = (1/2 + 2/5) / 2
    assert average_precisions(fused, np.array([1, 2]))[0] == pytest.approx(0.45)
    # relevant 0: rank 3 (before 4, its tie)
    assert average_precisions(fused, np.array([0]))[0] == pytest.approx(1 / 3)


def test_average_precision_agrees_with_ir_measures():
    rng = np.random.default_rng(0)
    fused = rng.normal(size=(6, 40))
    relevant = np.array([3, 17, 22])
    ours = average_precisions(fused, relevant)
    qrels = {"q": {f"p{i}": 1 for i in relevant}}
    for row, ap in zip(fused, ours, strict=True):
        run = {"q": {f"p{i}": float(s) for i, s in enumerate(row)}}
        want = ir_measures.calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP]
        assert ap == pytest.approx(want, abs=1e-12)


def test_choose_weights_is_never_below_its_best_member():
    rng = np.random.default_rng(1)
    zs, rel = [], []
    for _ in range(30):
        truth = rng.choice(25, size=2, replace=False)
        z = rng.normal(size=(3, 25))
        z[1, truth] += 1.5  # member 1 is the best alone
        z[2, truth] += rng.normal(1.0, 1.0)
        zs.append(z)
        rel.append(truth)
    weights, maps = choose_weights(zs, rel)
    grid = simplex_grid(3)
    corners = [maps[np.flatnonzero((grid == np.eye(3)[k]).all(axis=1))[0]] for k in range(3)]
    assert maps.max() >= max(corners)
    assert weights.sum() == pytest.approx(1.0)
    perfect = [np.vstack([np.eye(25)[r].sum(axis=0) * 5, z[1:]]) for z, r in zip(zs, rel, strict=True)]
    best, _ = choose_weights(perfect, rel)
    assert best.tolist() == [1.0, 0.0, 0.0]  # a perfect member alone; ties go to the corner


@pytest.fixture(scope="module")
def tiny():
    c = tiny_collection()
    return c, random_model(c)


def test_a_single_weight_ranks_as_that_member(tiny):
    c, model = tiny
    members = [make_ranker(m, model=model, collection=c) for m in MEMBERS]
    for k, member in enumerate(members):
        fusion = FusionRanker(members, np.eye(3)[k])
        for query in ("ring buffer lockless", "ice driver link flow"):
            assert fusion.rank(query).people.tolist() == member.rank(query).people.tolist()


def test_fused_scores_are_the_weighted_zscores(tiny):
    c, model = tiny
    members = [make_ranker(m, model=model, collection=c) for m in MEMBERS]
    weights = np.array([0.5, 0.3, 0.2])
    ranking = FusionRanker(members, weights).rank("mempool cache dequeue")
    want = np.zeros(c.n_people)
    for w, member in zip(weights, members, strict=True):
        r = member.rank("mempool cache dequeue")
        s = np.empty(c.n_people)
        s[r.people] = r.scores
        want += w * (s - s.mean()) / s.std()
    np.testing.assert_allclose(ranking.scores, want[ranking.people], rtol=1e-12)
    assert ranking.method == "auto" and ranking.extra["weights"] == weights.tolist()
    assert FusionRanker(members, weights).rank("zebra").no_known_words


def test_auto_without_calibration_weighs_members_equally(tiny):
    c, model = tiny
    ranker = make_ranker("auto", model=model, collection=c)
    assert not ranker.calibrated and ranker.weights.tolist() == [1 / 3] * 3
    model.calibration = {"fusion": {"members": list(MEMBERS), "weights": [0.2, 0.0, 0.8]}}
    try:
        ranker = make_ranker("auto", model=model, collection=c)
        assert ranker.calibrated and ranker.weights.tolist() == [0.2, 0.0, 0.8]
    finally:
        model.calibration = None
    with pytest.raises(QueryError, match="needs a collection"):
        make_ranker("auto", model=model)
    with pytest.raises(QueryError):
        FusionRanker([], [])
