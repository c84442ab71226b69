"""How `auto`'s weights are chosen: the grid's AP per query, bagging, out-of-fold AP, the
one-sided randomization test, and the anchor-gated shrinkage, each against a hand computation."""

import numpy as np
import pytest

from expert_gui.core.evaluation.fusion_choice import (
    PRIOR_DOCUMENTS,
    bagged_weights,
    choose_fusion,
    grid_average_precisions,
    out_of_fold,
)
from expert_gui.core.evaluation.significance import randomization_test
from expert_gui.core.rankers.fusion import average_precisions, simplex_grid
from expert_gui.core.store.manifest import MEMBERS

GRID = simplex_grid(3)
LL = int(np.flatnonzero((GRID == [1, 0, 0]).all(axis=1))[0])
PAIR = int(np.flatnonzero((GRID == [0.5, 0.5, 0]).all(axis=1))[0])


class Ordered:
    """A random generator whose permutation is the identity: folds by hand."""

    def permutation(self, n):
        return np.arange(n)


def test_grid_average_precisions_are_each_points_ap_and_zero_without_known_words():
    rng = np.random.default_rng(0)
    zs = [rng.normal(size=(3, 12)) for _ in range(3)] + [np.zeros((3, 12))]
    rel = [np.array([1, 5]), np.array([0]), np.array([]), np.array([2])]
    ap = grid_average_precisions(GRID, zs, rel)
    assert ap.shape == (len(GRID), 4)
    np.testing.assert_allclose(ap[:, 0], average_precisions(GRID @ zs[0], rel[0]))
    np.testing.assert_allclose(ap[:, 1], average_precisions(GRID @ zs[1], rel[1]))
    assert not ap[:, 2].any() and not ap[:, 3].any()  # nobody relevant; no member knew a word


def test_grid_average_precisions_with_ties_and_near_ties_are_average_precisions():
    """Only people who are not below a relevant person in every member are compared with them:
    the APs are those of every person's fused score, ties (by index) and near ties included."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        z = rng.integers(-2, 3, size=(3, 30)).astype(float)  # many ties in every member
        z[:, ::4] += rng.choice([0.0, 1e-12, -1e-12, 1e-10], size=(3, 8))  # and near ties
        rel = rng.choice(30, int(rng.integers(1, 5)), replace=False)
        np.testing.assert_array_equal(grid_average_precisions(GRID, [z], [rel])[:, 0],
                                      average_precisions(GRID @ z, rel))


@pytest.mark.parametrize("people", [7, 130, 2000])
def test_grid_average_precisions_fuse_only_the_undecided_people_as_the_whole_product(people):
    """People above a relevant person in every member are counted, not fused; the others' fused
    scores are the product of their columns alone: the APs of the whole product `grid @ z`,
    exactly, whatever the number of columns fused, with people alike in every member, people
    alike in one member (a member's lowest score), near ties and one relevant person whom
    nobody comes near."""
    rng = np.random.default_rng(people)
    zs, rel = [], []
    for _ in range(12):
        z = rng.normal(size=(3, people))
        z[1] = 0.6 * z[0] + 0.4 * z[1]  # members that mostly agree, as trained ones do
        z[2, rng.random(people) < 0.4] = z[2].min()  # the lowest score of a member, shared
        z[:, rng.random(people) < 0.2] = z[:, :1]  # people alike in every member
        z[:, 1::7] = z[:, 1:2] + rng.choice([0.0, 1e-12, -1e-12], size=(3, 1))  # near ties
        zs.append(z)
        rel.append(rng.choice(people, int(rng.integers(1, 6)), replace=False))
    zs[0][:, rel[0][0]] = 50.0  # far above everybody in every member
    rel[0] = rel[0][:1]
    ap = grid_average_precisions(GRID, zs, rel)
    for q, (z, r) in enumerate(zip(zs, rel, strict=True)):
        np.testing.assert_array_equal(ap[:, q], average_precisions(GRID @ z, r))


def _exact_average_precisions(grid: np.ndarray, z: np.ndarray, rel) -> np.ndarray:
    """`average_precisions` with every fused score computed exactly (fractions of the floats
    given): ties are ties, however a product would round."""
    from fractions import Fraction

    out = []
    for w in grid:
        weights = [Fraction(x) for x in w]
        fused = [sum(wm * Fraction(v) for wm, v in zip(weights, z[:, p], strict=True))
                 for p in range(z.shape[1])]
        ranks = sorted(1 + sum(f > fused[r] or (f == fused[r] and p < r)
                               for p, f in enumerate(fused)) for r in rel)
        out.append(np.mean(np.arange(1, len(rel) + 1) / np.array(ranks)))
    return np.array(out)


def test_grid_average_precisions_are_those_of_the_exact_fused_scores():
    """People who are the same in every member, or in the members a grid point weighs (as
    copies of a person with the same documents are to Model 1 and 2), tie with a relevant
    person there, wherever they stand; the other places are those of the exact fused scores."""
    rng = np.random.default_rng(8)
    people = 205  # not a multiple of BLAS's kernels' columns: the last ones round otherwise
    for _ in range(3):
        z = rng.normal(size=(3, people))
        rel = rng.choice(people - 8, 2, replace=False)
        copies = np.concatenate([rng.choice(people, 6, replace=False), np.arange(-6, 0)])
        z[1:, copies] = z[1:, rel[:1]]  # the same in Model 2 (jm) and Model 1 (d)
        z[:, copies[:4]] = z[:, rel[1:]]  # the same in every member
        z[2, rng.random(people) < 0.3] = z[2].min()
        grid = GRID[rng.choice(len(GRID), 30, replace=False)]
        grid = np.vstack([grid, GRID[(GRID[:, 0] == 0)]])  # the points that ignore the model
        np.testing.assert_allclose(grid_average_precisions(grid, [z], [rel])[:, 0],
                                   _exact_average_precisions(grid, z, rel), rtol=1e-15)


def test_out_of_fold_by_hand():
    # two grid points, four queries; folds of the identity order: {0, 2} and {1, 3}
    ap = np.array([[0.9, 0.1, 0.8, 0.2],
                   [0.1, 0.9, 0.3, 0.7]])
    # fold {0, 2}: trained on {1, 3}, point 1 wins (1.6 vs 0.3) -> 0.1, 0.3
    # fold {1, 3}: trained on {0, 2}, point 0 wins (1.7 vs 0.4) -> 0.1, 0.2
    np.testing.assert_allclose(out_of_fold(ap, Ordered(), folds=2, repeats=1),
                               [0.1, 0.1, 0.3, 0.2])


def test_bagged_weights_of_a_point_best_on_every_query_are_that_point():
    ap = np.zeros((len(GRID), 30))
    ap[7] = 1.0
    mean, sd = bagged_weights(ap, GRID, np.random.default_rng(0), draws=50)
    np.testing.assert_allclose(mean, GRID[7])
    np.testing.assert_allclose(sd, 0.0, atol=1e-12)


def test_bagged_weights_average_the_bootstrap_choices():
    # two queries, each won by another point: a bootstrap sample's winner is the point of the
    # query drawn more often (ties: the first point in grid order, query 0's)
    ap = np.zeros((len(GRID), 2))
    ap[0, 0], ap[1, 1] = 1.0, 1.0
    rng = np.random.default_rng(3)
    draws = np.random.default_rng(3).integers(0, 2, size=(40, 2))
    mean, _ = bagged_weights(ap, GRID, rng, draws=40)
    wins_of_0 = (draws == 0).sum(axis=1) >= 1
    want = np.where(wins_of_0[:, None], GRID[0], GRID[1]).mean(axis=0)
    np.testing.assert_allclose(mean, want)


def test_one_sided_randomization_by_hand():
    d = np.ones(3)  # all 2^3 sign patterns equally likely; only all-positive reaches the mean
    p = randomization_test(d, np.zeros(3), n_permutations=20000, seed=1, one_sided=True)
    assert p == pytest.approx(1 / 8, abs=0.01)
    assert randomization_test(d, np.zeros(3), n_permutations=20000, seed=1) == \
        pytest.approx(2 / 8, abs=0.01)
    assert randomization_test(-d, np.zeros(3), n_permutations=2000, seed=1,
                              one_sided=True) == 1.0


def held_out(n, gain, seed=0):
    """AP of the grid on n queries: the pair anchor 0.5, log-linear 0.45, Model 1 (d) alone
    0.5 + gain, and every other point noise around 0.4."""
    rng = np.random.default_rng(seed)
    ap = rng.uniform(0.3, 0.5, size=(len(GRID), n))
    ap[LL] = 0.45
    ap[PAIR] = 0.5
    ap[np.flatnonzero((GRID == [0, 0, 1]).all(axis=1))[0]] = 0.5 + gain
    return ap


def test_a_calibration_that_generalises_moves_the_anchor_by_n_over_n_plus_the_prior():
    ap = held_out(300, 0.2)
    record = choose_fusion(ap, GRID, MEMBERS, seed=0)
    assert record["decision"] == "calibrated" and record["anchor"] == "loglinear+model2-jm"
    np.testing.assert_allclose(record["bagged_weights"], [0, 0, 1])
    shrink = 300 / (300 + PRIOR_DOCUMENTS)
    assert record["shrinkage"] == pytest.approx(shrink)
    np.testing.assert_allclose(record["weights"], [0.5 * (1 - shrink), 0.5 * (1 - shrink),
                                                   shrink])
    assert record["cv"]["oof_map"] == pytest.approx(0.7) and record["cv"]["p"] < 0.05
    assert record["label"].startswith("Log-linear 0.20, Model 2 (jm) 0.20, Model 1 (d) 0.60 — "
                                      "calibrated on 300 held-out documents")


def test_short_topics_start_from_the_log_linear_model_and_are_tested_against_it():
    """The same bagged weights and out-of-fold AP; the anchor is the log-linear model even where
    the held-out documents prefer the pair, and the test is against its AP."""
    ap = held_out(300, 0.2)
    record = choose_fusion(ap, GRID, MEMBERS, seed=0)
    short = record["short_topics"]
    assert record["anchor"] == "loglinear+model2-jm" and short["anchor"] == "loglinear"
    assert short["decision"] == "calibrated" and short["anchor_weights"] == [1.0, 0.0, 0.0]
    shrink = 300 / (300 + PRIOR_DOCUMENTS)
    np.testing.assert_allclose(short["weights"], [1 - shrink, 0, shrink])
    oof = out_of_fold(ap, np.random.default_rng([0, 2]))
    assert short["cv"]["oof_map"] == record["cv"]["oof_map"] == pytest.approx(oof.mean())
    assert short["cv"]["anchor_map"] == pytest.approx(ap[LL].mean())
    assert short["cv"]["p"] == randomization_test(oof, ap[LL], n_permutations=10_000, seed=0,
                                                  one_sided=True)
    assert short["label"].startswith("Log-linear 0.40, Model 2 (jm) 0.00, Model 1 (d) 0.60 — "
                                     "calibrated on 300 held-out documents")
    assert "for Log-linear," in short["label"]


@pytest.mark.parametrize("share, follows", [(0.5, False), (0.52, True), (1.0, True)])
def test_held_out_documents_mostly_short_choose_for_short_topics_as_for_whole_documents(
        share, follows):
    """Where more than half the held-out documents are short topics, they are queries of that
    type: a short topic ranks as they chose for whole documents; else from the log-linear
    model."""
    ap = held_out(50, 0.2)
    short = np.arange(50) < round(share * 50)
    record = choose_fusion(ap, GRID, MEMBERS, seed=0, short=short)
    mine = record["short_topics"]
    assert mine["short_share"] == pytest.approx(share)
    assert (mine["anchor"] == record["anchor"] == "loglinear+model2-jm") is follows
    assert (mine["weights"] == record["weights"] and mine["label"] == record["label"]) is follows
    if not follows:
        assert mine["anchor"] == "loglinear"
    assert choose_fusion(ap, GRID, MEMBERS, seed=0)["short_topics"]["short_share"] == 0.0


def test_short_topics_keep_the_log_linear_model_when_the_calibration_does_not_beat_it():
    ap = held_out(50, 0.0)
    ap[:, ::2] = ap[::-1, ::2]  # half the queries prefer the other end of the grid
    ap[LL] = 0.6  # no grid point does better on the held-out documents
    short = choose_fusion(ap, GRID, MEMBERS, seed=0)["short_topics"]
    assert short["decision"] == "anchor" and short["weights"] == [1.0, 0.0, 0.0]
    assert short["shrinkage"] == 0.0 and short["cv"]["p"] >= 0.05
    assert short["label"].startswith("Log-linear — calibration inconclusive on 50 held-out")
    few = choose_fusion(held_out(5, 0.0), GRID, MEMBERS, seed=0)  # too few: as whole documents
    assert few["short_topics"]["weights"] == few["weights"] and few["cv"]["p"] is None


def test_an_inconclusive_calibration_is_the_anchor_and_says_so():
    ap = held_out(50, 0.0)
    ap[:, ::2] = ap[::-1, ::2]  # half the queries prefer the other end of the grid
    ap[LL], ap[PAIR] = 0.45, 0.5
    record = choose_fusion(ap, GRID, MEMBERS, seed=0)
    assert record["decision"] == "anchor" and record["weights"] == [0.5, 0.5, 0.0]
    assert record["shrinkage"] == 0.0 and record["cv"]["p"] >= 0.05
    assert "calibration inconclusive on 50 held-out documents" in record["label"]


def test_the_anchor_is_the_one_with_the_higher_held_out_map_a_tie_going_to_the_pair():
    ap = held_out(5, 0.0)  # too few documents to test: the anchor alone
    ap[LL] = 0.6
    record = choose_fusion(ap, GRID, MEMBERS, seed=0)
    assert record["anchor"] == "loglinear" and record["weights"] == [1.0, 0.0, 0.0]
    assert record["cv"]["p"] is None and "too few held-out documents" in record["label"]
    ap[LL] = ap[PAIR]
    assert choose_fusion(ap, GRID, MEMBERS, seed=0)["anchor"] == "loglinear+model2-jm"


def test_the_same_held_out_documents_always_choose_the_same_weights():
    ap = held_out(60, 0.05, seed=4)
    assert choose_fusion(ap, GRID, MEMBERS, seed=2) == choose_fusion(ap, GRID, MEMBERS, seed=2)


def test_too_few_held_out_documents_to_test_rank_a_short_topic_as_a_whole_document():
    """Fewer than MIN_DOCUMENTS: nothing tests the log-linear model's start for short topics,
    and it has had little to learn from; a short topic takes the whole documents' anchor."""
    ap = held_out(6, 0.0)
    ap[PAIR] = 0.5  # the pair's held-out MAP above the log-linear model's
    record = choose_fusion(ap, GRID, MEMBERS, seed=0, short=[True, False] * 3)
    assert record["anchor"] == "loglinear+model2-jm"
    assert record["short_topics"]["weights"] == record["weights"] == [0.5, 0.5, 0.0]
    assert record["short_topics"]["label"] == record["label"]
    enough = held_out(12, 0.0)
    enough[PAIR] = 0.5
    record = choose_fusion(enough, GRID, MEMBERS, seed=0, short=[True, False] * 6)
    assert record["short_topics"]["anchor"] == "loglinear"  # tested against the log-linear start
