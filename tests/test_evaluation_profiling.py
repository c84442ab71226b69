"""Expert profiling measured against inverted qrels, checked by hand."""

import numpy as np

from expert_gui.core.evaluation.profiling import (
    compare_profiling,
    invert_qrels,
    profiled_people,
    topic_run,
)
from expert_gui.core.explore.profile import TopicScores


def scores(log_probs) -> TopicScores:
    log_probs = np.log(np.asarray(log_probs, dtype=float))
    ranks = np.argsort(np.argsort(-log_probs, axis=1, kind="stable"), axis=1) + 1
    return TopicScores(("t1", "t2", "t3"), ("a", "b", "c"), log_probs, ranks)


QRELS = {"t1": {"x": 1, "y": 0}, "t2": {"y": 1}, "t3": {"x": 1, "z": 0}, "t9": {"x": 1}}
PEOPLE = ["x", "y", "z"]


def test_invert_qrels_keeps_grades_and_the_topic_set():
    assert invert_qrels(QRELS, ["t1", "t2", "t3"]) == {
        "x": {"t1": 1, "t3": 1}, "y": {"t1": 0, "t2": 1}, "z": {"t3": 0}}
    assert profiled_people(invert_qrels(QRELS), ["x", "y"]) == ["x", "y"]
    assert profiled_people(invert_qrels(QRELS), PEOPLE) == ["x", "y"]  # z: nothing relevant


def test_ap_of_each_person_by_hand():
    # P(c|q) rows are topics; x is 1st in t2 and 2nd in t1 and t3 -> order t2, t1/t3.
    s = scores([[0.3, 0.6, 0.1],    # t1: y, x, z
                [0.5, 0.2, 0.3],    # t2: x, z, y
                [0.35, 0.05, 0.6]])  # t3: z, x, y
    run = topic_run(s, ["x", "y"], PEOPLE)
    assert list(run["x"]) == ["t2", "t3", "t1"]  # rank 1, then rank 2 by P(c|q): 0.35 > 0.3
    assert list(run["y"]) == ["t1", "t2", "t3"]  # ranks 1, 3 (0.2), 3 (0.05)
    result = compare_profiling({"a": s, "b": s}, QRELS, PEOPLE, "b")
    # x: relevant t1, t3 at places 3 and 2 -> (1/2 + 2/3) / 2; y: relevant t2 at place 2 -> 1/2.
    assert np.allclose(result.per_person["a"].values["AP"], [(1 / 2 + 2 / 3) / 2, 1 / 2])
    assert result.people == ("x", "y") and result.p_values["a"]["AP"] == 1.0



def test_rank_order_differs_from_probability_order():
    # x is 2nd in t1 with 0.45 but 1st in t2 with only 0.34.
    s = scores([[0.45, 0.54, 0.01], [0.34, 0.33, 0.33], [0.2, 0.1, 0.7]])
    assert list(topic_run(s, ["x"], PEOPLE)["x"]) == ["t2", "t1", "t3"]
    assert list(topic_run(s, ["x"], PEOPLE, order="probability")["x"]) == ["t1", "t2", "t3"]
