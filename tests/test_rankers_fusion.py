"""`auto`: z-scores, the weight grid, AP by hand and against ir-measures, and the fused ranking."""

import math

import ir_measures
import numpy as np
import pytest
from rankers_helpers import random_model, tiny_collection

from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.fusion import (
    FusionRanker,
    auto_label,
    average_precisions,
    describe_auto,
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


def test_short_topics_and_whole_documents_rank_with_their_own_weights(tiny):
    """A query of at most twelve words (by the model's tokenizer) ranks with the short-topic
    weights, a longer one with the others; one at a time and in a batch alike, each ranking
    saying which."""
    c, model = tiny
    members = [make_ranker(m, model=model, collection=c) for m in MEMBERS]
    fusion = FusionRanker(members, [0.2, 0.3, 0.5], label="whole", short_weights=[1, 0, 0],
                          short_label="short", count_words=lambda q: len(q.split()))
    short = "mempool cache dequeue"
    long = " ".join(["ring buffer lockless mempool"] * 4)  # 16 words
    assert fusion.rank(short).people.tolist() == members[0].rank(short).people.tolist()
    assert fusion.rank(short).extra | {} == {"members": list(MEMBERS), "weights": [1, 0, 0],
                                             "decision": "calibrated", "label": "short",
                                             "query_type": "short topic"}
    whole = FusionRanker(members, [0.2, 0.3, 0.5]).rank(long)
    assert fusion.rank(long).people.tolist() == whole.people.tolist()
    assert fusion.rank(long).extra["label"] == "whole"
    assert fusion.rank(long).extra["query_type"] == "whole document"
    for one, batched in zip([fusion.rank(q) for q in (short, long)],
                            fusion.rank_batch([short, long]), strict=True):
        np.testing.assert_allclose(batched.scores, one.scores, rtol=1e-12)
        assert batched.people.tolist() == one.people.tolist() and batched.extra == one.extra
    with pytest.raises(QueryError, match="count a query's words"):
        FusionRanker(members, [0.2, 0.3, 0.5], short_weights=[1, 0, 0])


def test_auto_of_a_calibrated_model_counts_words_with_the_model_tokenizer(tiny):
    c, model = tiny
    short = {"weights": [1.0, 0.0, 0.0], "label": "from the log-linear model"}
    model.calibration = {"held_out": {"documents": ["a", "b"]},
                         "fusion": {"members": list(MEMBERS), "weights": [0.5, 0.5, 0.0],
                                    "label": "the pair", "short_topics": short}}
    try:
        ranker = make_ranker("auto", model=model, collection=c)
        twelve = "Ring, buffer; " * 6  # twelve words, whatever the punctuation
        assert ranker.rank(twelve).extra["label"] == "from the log-linear model"
        assert ranker.rank(twelve + "mempool").extra["label"] == "the pair"
        assert ranker.rank_batch([[1, 2, 3]])[0].extra["query_type"] == "short topic"
    finally:
        model.calibration = None


def test_auto_label_names_each_query_types_weights_once():
    fusion = {"members": list(MEMBERS), "weights": [0.5, 0.5, 0.0], "label": "the pair",
              "short_topics": {"weights": [1.0, 0.0, 0.0], "label": "the log-linear model"}}
    calibration = {"held_out": {"documents": ["a"]}, "fusion": fusion}
    assert auto_label(calibration) == ("short topics: the log-linear model; whole documents: "
                                       "the pair")
    fusion["short_topics"] = {"weights": [0.5, 0.5, 0.0], "label": "the pair"}  # titles
    assert auto_label(calibration) == "the pair"
    del fusion["short_topics"]  # calibrated before short topics had weights of their own
    assert auto_label(calibration) == "the pair"


def test_auto_without_calibration_is_the_anchor_pair_and_says_so(tiny):
    c, model = tiny
    ranker = make_ranker("auto", model=model, collection=c)
    assert not ranker.calibrated and ranker.weights.tolist() == [0.5, 0.5, 0.0]
    assert ranker.short_weights is None  # one set of weights for every query
    assert ranker.label == ("Log-linear + Model 2 (jm), equal weights — not calibrated (no "
                            "held-out documents)")
    ranking = ranker.rank("mempool cache dequeue")
    assert ranking.extra["decision"] == "uncalibrated" and ranking.extra["label"] == ranker.label
    assert ranking.extra["weights"] == [0.5, 0.5, 0.0]
    model.calibration = {"held_out": {"documents": ["a", "b"]},
                         "fusion": {"members": list(MEMBERS), "weights": [0.2, 0.0, 0.8]}}
    try:  # a model calibrated before the current rule: its weights, said to be the earlier rule's
        ranker = make_ranker("auto", model=model, collection=c)
        assert ranker.calibrated and ranker.weights.tolist() == [0.2, 0.0, 0.8]
        assert ranker.decision == "earlier rule"
        assert ranker.label.startswith("Log-linear 0.20, Model 2 (jm) 0.00, Model 1 (d) 0.80 — "
                                       "calibrated on 2 held-out documents (earlier rule")
    finally:
        model.calibration = None
    with pytest.raises(QueryError, match="needs a collection"):
        make_ranker("auto", model=model)
    with pytest.raises(QueryError):
        FusionRanker([], [])


def test_describe_auto_states_the_decision_and_its_evidence():
    cv = {"folds": 5, "repeats": 20, "permutations": 10000, "anchor_map": 0.417,
          "oof_map": 0.442, "p": 0.0912}
    anchor = {"members": list(MEMBERS), "weights": [0.5, 0.5, 0.0], "decision": "anchor",
              "anchor": "loglinear+model2-jm", "cv": cv, "shrinkage": 0.0}
    assert describe_auto(anchor, 50) == (
        "Log-linear + Model 2 (jm), equal weights — calibration inconclusive on 50 held-out "
        "documents (calibrated 0.442 vs 0.417 out of fold, p = 0.09)")
    few = {**anchor, "anchor": "loglinear", "cv": {**cv, "oof_map": None, "p": None}}
    assert describe_auto(few, 8) == "Log-linear — too few held-out documents to calibrate (8)"
    calibrated = {**anchor, "weights": [0.57, 0.33, 0.1], "decision": "calibrated",
                  "shrinkage": 904 / 1104, "cv": {**cv, "oof_map": 0.659, "anchor_map": 0.649,
                                                  "p": 0.02}}
    assert describe_auto(calibrated, 904) == (
        "Log-linear 0.57, Model 2 (jm) 0.33, Model 1 (d) 0.10 — calibrated on 904 held-out "
        "documents (out of fold 0.659 vs 0.649 for Log-linear + Model 2 (jm), equal weights, "
        "p = 0.020; weight 0.82 against the anchor)")
    # 1 in 10,001 permutations: below what three places show, so never 'p = 0.000'
    strong = {**calibrated, "cv": {**calibrated["cv"], "p": 1 / 10_001}}
    assert "Model 2 (jm), equal weights, p < 0.001; weight" in describe_auto(strong, 904)
