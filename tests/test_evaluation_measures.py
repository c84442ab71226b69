"""Qrels and runs round-trip; the measures agree with a hand computation; empty topics count."""

import numpy as np
import pytest

from expert_gui.core.errors import QueryError, TopicsError
from expert_gui.core.evaluation.evaluate import evaluate
from expert_gui.core.evaluation.measures import (
    ALL_MEASURES,
    MEASURES,
    evaluated_topics,
    measure_run,
    ranking_measures,
)
from expert_gui.core.evaluation.qrels import (
    check_coverage,
    coverage,
    read_qrels,
    relevant,
    restrict,
)
from expert_gui.core.evaluation.runs import read_run, run_from_rankings, write_run
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.ranking import Ranking

PEOPLE = ["a", "b", "c", "d", "e", "f"]


def _ranking(order, scores, known=("w",)):
    return Ranking("q", "test", PEOPLE, np.array(order), np.array(scores, dtype=float),
                   known_words=tuple(known))


def test_read_qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("T1 0 a 1\nT1\t0\tb\t0\n\nT2 0 c 2\n")
    qrels = read_qrels(path)
    assert qrels == {"T1": {"a": 1, "b": 0}, "T2": {"c": 2}}
    assert relevant(qrels, "T1") == {"a"}


@pytest.mark.parametrize("text, line", [("T1 0 a 1\nT1 0 b\n", 2), ("T1 0 a yes\n", 1),
                                        ("T1 0 a 1\nT1 0 a 0\n", 2)])
def test_bad_qrels_name_the_line(tmp_path, text, line):
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(TopicsError) as err:
        read_qrels(path)
    assert err.value.line == line and err.value.path == str(path)


def test_run_round_trip_keeps_order_of_ties(tmp_path):
    rankings = {"T1": _ranking([2, 0, 1], [0.5, 0.5, 0.1]), "T2": _ranking([], [], known=())}
    path = tmp_path / "run.txt"
    write_run(path, rankings, tag="x")
    lines = path.read_text().splitlines()
    assert [line.split()[2] for line in lines] == ["c", "a", "b"]
    assert [line.split()[3] for line in lines] == ["1", "2", "3"]
    run = read_run(path)
    assert list(run) == ["T1"]
    scores = run["T1"]
    assert scores["c"] > scores["a"] > scores["b"]
    assert run_from_rankings(rankings)["T2"] == {}


def test_ids_cannot_add_fields_or_lines_to_a_run(tmp_path):
    # issue 11: a person id holding a newline injected a fake run line
    people = ["alice smith", "x\nT9 Q0 mallory 1 99 fake", "50%", "m\u00fcller", "\udcff"]
    ranking = Ranking("q", "test", people, np.arange(5), np.linspace(1, 0, 5), known_words=("w",))
    path = tmp_path / "run.txt"
    write_run(path, {"topic one": ranking}, tag="my tag")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5 and all(len(line.split()) == 6 for line in lines)
    assert lines[0].startswith("topic%20one Q0 alice%20smith 1 ")
    assert lines[0].endswith(" my%20tag") and lines[3].split()[2] == "m\u00fcller"
    run = read_run(path)
    assert list(run) == ["topic one"] and sorted(run["topic one"]) == sorted(people)


def test_bad_run_names_the_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("T1 Q0 a 1 0.5 x\nT1 Q0 b 2 nan x\n")
    with pytest.raises(TopicsError) as err:
        read_run(path)
    assert err.value.line == 2


def test_measures_against_hand_computation():
    # Topic T1: relevant a (grade 1) and c (grade 2), b judged not relevant; d, e unjudged.
    # Ranking: d, a, b, c, e -> relevant at ranks 2 and 4.
    qrels = {"T1": {"a": 1, "b": 0, "c": 2}, "T2": {"b": 1}, "T3": {"f": 1}}
    run = {"T1": {"d": 5.0, "a": 4.0, "b": 3.0, "c": 2.0, "e": 1.0},
           "T2": {"b": 1.0, "a": 0.5}}
    scores = measure_run(qrels, run, ["T1", "T2", "T3"])
    ap = (1 / 2 + 2 / 4) / 2
    dcg = 1 / np.log2(3) + 2 / np.log2(5)
    idcg = 2 / np.log2(2) + 1 / np.log2(3)
    expected = {
        "AP": [ap, 1.0, 0.0],
        "nDCG@100": [dcg / idcg, 1.0, 0.0],
        "RR": [0.5, 1.0, 0.0],
        "P@5": [2 / 5, 1 / 5, 0.0],
        "P@10": [2 / 10, 1 / 10, 0.0],
    }
    assert scores.topics == ("T1", "T2", "T3")
    for measure in MEASURES:
        np.testing.assert_allclose(scores.values[measure], expected[measure], atol=1e-9)
    assert scores.mean("AP") == pytest.approx((ap + 1.0) / 3)


def test_topic_missing_from_run_counts_as_zero():
    qrels = {"T1": {"a": 1}, "T2": {"a": 1}}
    scores = measure_run(qrels, {}, ["T1", "T2"])
    assert all(np.all(v == 0) for v in scores.values.values())
    assert scores.mean("AP") == 0.0


def test_only_queried_judged_topics_are_evaluated():
    qrels = {"T1": {"a": 1}, "T2": {"a": 1}, "T9": {"a": 1}}
    assert evaluated_topics(qrels, ["T2", "T1", "T5"]) == ("T2", "T1")
    with pytest.raises(ValueError):
        measure_run(qrels, {}, ["T5"])


def test_auc_and_first_relevant_rank_by_hand():
    # people a..f; T1 relevant a and c. Ranking d(5) a(4) b(3) c(2) e(2) f(1):
    # pairs (relevant, not): a above b, e, f and below d -> 3; c above f, tied with e, below
    # d and b -> 1.5; AUC = 4.5 / (2 * 4). First relevant: a at rank 2.
    qrels = {"T1": {"a": 1, "b": 0, "c": 2}, "T2": {"b": 1, "zed": 1}, "T3": {"f": 1}}
    full = {"T1": _ranking([3, 0, 1, 2, 4, 5], [5, 4, 3, 2, 2, 1]),
            # T2: b first of six; zed is no candidate: ranked below everybody
            "T2": _ranking([1, 0, 2, 3, 4, 5], [6, 5, 4, 3, 2, 1]),
            "T3": _ranking([], [], known=())}  # nobody ranked: all six tied
    got = ranking_measures(full, qrels, ["T1", "T2", "T3"])
    np.testing.assert_allclose(got["AUC"], [4.5 / 8, 5 / 10, 0.5])
    np.testing.assert_allclose(got["FirstRel"], [2, 1, (6 + 1) / (1 + 1)])


def test_auc_and_first_rank_within_candidates():
    ranking = _ranking([3, 0, 1, 2, 4, 5], [5, 4, 3, 2, 2, 1])
    within = Restricted(StaticRanker(ranking), ["a", "b", "c"]).rank("q")
    assert within.n_candidates == 3 and [PEOPLE[p] for p in within.people] == ["a", "b", "c"]
    got = ranking_measures({"T1": within}, {"T1": {"a": 1, "c": 1}}, ["T1"])
    # a above b, c below b: one of two pairs; a is first of the three
    assert got["AUC"].tolist() == [0.5] and got["FirstRel"].tolist() == [1]


class StaticRanker:
    name = "static"
    person_ids = PEOPLE

    def __init__(self, ranking):
        self.ranking = ranking

    batch_width = 1

    def rank_batch(self, queries, depth=None):
        return [self.rank(q, depth) for q in queries]

    def rank(self, query, depth=None):
        return self.ranking.cut(depth)


def test_evaluate_gives_every_measure_and_cuts_rankings_at_depth():
    ranking = _ranking([3, 0, 1, 2, 4, 5], [5, 4, 3, 2, 2, 1])
    seen = []
    per_topic, rankings = evaluate(StaticRanker(ranking), {"T1": "q"}, {"T1": {"a": 1}},
                                   ["T1"], depth=3, on_ranking=lambda t, r: seen.append(len(r)))
    assert list(per_topic.values) == list(ALL_MEASURES)
    assert len(rankings["T1"]) == 3 and seen == [6]  # measured on the whole ranking
    assert per_topic.values["AUC"][0] == pytest.approx(4 / 5)
    assert per_topic.values["P@20"][0] == pytest.approx(1 / 20)
    assert per_topic.sd("AP") == 0.0


def test_restricted_judgments_and_coverage():
    qrels = {"T1": {"a": 1, "b": 1, "c": 0}, "T2": {"d": 1}, "T9": {"a": 1}}
    kept, dropped = restrict(qrels, ["a", "c"])
    assert kept == {"T1": {"a": 1, "c": 0}, "T9": {"a": 1}} and dropped == ["T2"]
    found = coverage(qrels, ["T1", "T2", "T3"], ["a", "b", "x"])
    assert (found.topics, found.judged, found.matched, found.relevant, found.known) == (
        3, 3, 2, 3, 2)
    assert found.problem() == ""
    assert "none of the 3 topic ids" in coverage(qrels, ["q1"], ["a"]).problem()
    with pytest.raises(QueryError, match="none of the 3 people the qrels judge relevant"):
        check_coverage(qrels, ["T1", "T2"], ["p1", "p2"])


@pytest.mark.parametrize("depth", [None, 0, 1, 7, 40, 43])
def test_scored_ap_rr_is_trec_evals_ap_and_rr_ties_included(depth):
    """AP and RR from the relevant people's ranks, as trec_eval finds them in the run file of
    each ranking cut at `depth` (None: a depth per topic, each ranked alone), also in blocks
    of a few queries and for queries of no known word."""
    from expert_gui.core.evaluation.measures import measure_run, scored_ap_rr
    from expert_gui.core.evaluation.runs import run_from_rankings
    from expert_gui.core.rankers.common import ranked

    rng = np.random.default_rng(5)
    people = [f"p{i:02d}" for i in range(40)] + ["Zed", "ähm", "a b"]
    index = {p: i for i, p in enumerate(people)}
    rankings, qrels, rows, depths = {}, {}, [], []
    for t in range(60):
        scores = rng.integers(0, 6, len(people)).astype(float)  # many ties,
        scores[::3] *= 1 + 1e-9  # and scores that only float32 (trec_eval's) ties
        scores[rng.integers(len(people))] = -np.inf
        depths.append(int(rng.integers(0, len(people) + 1)) if depth is None else depth)
        knows = t % 11 != 3
        rankings[f"T{t}"] = ranked("q", "m", people, scores if knows else np.zeros(0), ["q"],
                                   [], depths[-1])
        rows.append(scores if knows else np.full(len(people), np.nan))
        judged = rng.choice(len(people), int(rng.integers(1, 6)), replace=False)
        qrels[f"T{t}"] = {people[j]: int(rng.integers(0, 3)) for j in judged} | {"nobody": 1}
    topics = [t for t in rankings if any(g > 0 for g in qrels[t].values())]
    theirs = measure_run(qrels, run_from_rankings(rankings), topics, ("AP", "RR"))
    wanted = [int(t[1:]) for t in topics]
    relevant = [np.array([index[p] for p, g in qrels[t].items() if g > 0 and p in index],
                         dtype=np.int64) for t in topics]
    n_relevant = [sum(g > 0 for g in qrels[t].values()) for t in topics]
    knows = np.array([i % 11 != 3 for i in wanted])
    scores = np.array([rows[i] for i in wanted])
    if depth is None:
        parts = [scored_ap_rr(scores[k:k + 1], knows[k:k + 1], relevant[k:k + 1],
                              n_relevant[k:k + 1], people, depths[i])
                 for k, i in enumerate(wanted)]
        ours = {m: np.concatenate([p[m] for p in parts]) for m in ("AP", "RR")}
    else:
        ours = scored_ap_rr(scores, knows, relevant, n_relevant, people, depth,
                            block_bytes=24 * len(people) * 4)
    for m in ("AP", "RR"):
        np.testing.assert_allclose(ours[m], theirs.values[m], rtol=1e-12, atol=1e-15)
    if depth != 0:
        assert theirs.values["AP"].max() > 0
    assert (theirs.values["AP"] == 0).any()
