"""The pairwise measure (scores comparable across topics) by hand, and the sheet that feeds it."""

import math

import numpy as np
import pytest

from expert_gui.core.evaluation.pairwise import ScoreSheet, judged_people, pairwise_error
from expert_gui.core.rankers.ranking import Ranking


def test_pairwise_error_by_hand():
    qrels = {"T1": {"ann": 1, "bob": 0}, "T2": {"bob": 1}, "T3": {"ann": 1, "bob": 1}}
    values = {"T1": {"ann": 0.9, "bob": 0.5},
              "T2": {"ann": 0.95, "bob": 0.2},
              "T3": {"ann": 0.3}}  # bob unscored for T3 (no answer): the lowest
    # ann: relevant T1 (0.9), T3 (0.3); not T2 (0.95): both pairs wrong -> 2/2
    # bob: relevant T2 (0.2), T3 (-inf); not T1 (0.5): both wrong -> 2/2 ... make one tie:
    values["T1"]["bob"] = 0.2  # now T2 ties T1 (half), T3 below (wrong) -> 1.5/2
    got = pairwise_error(values, qrels, ["T1", "T2", "T3"])
    assert got.per_person == {"ann": 1.0, "bob": 0.75}
    assert got.mean == pytest.approx(0.875) and got.pooled == pytest.approx(3.5 / 4)
    assert got.people == 2


def test_people_relevant_everywhere_or_never_scored_do_not_count():
    qrels = {"T1": {"ann": 1, "cy": 1}, "T2": {"ann": 1, "dee": 1}}
    values = {"T1": {"ann": 1.0, "dee": 0.1}, "T2": {"ann": 2.0, "dee": 0.5}}
    got = pairwise_error(values, qrels, ["T1", "T2"])
    # ann is relevant for both topics (no pair); cy is never scored (no candidate)
    assert got.per_person == {"dee": 0.0} and got.people == 1
    empty = pairwise_error({}, qrels, ["T1", "T2"])
    assert empty.people == 0 and math.isnan(empty.mean)


def test_score_sheet_keeps_the_judged_peoples_scores_and_p_expert():
    people = ["ann", "bob", "cy"]
    ranking = Ranking("q", "m", people, np.array([2, 0, 1]), np.array([3.0, 2.0, 1.0]),
                      known_words=("w",), p_expert=np.array([0.7, 0.2, 0.1]))
    sheet = ScoreSheet(judged_people({"T1": {"ann": 1, "bob": 0}}, ["T1"]))
    sheet.add("T1", ranking)
    sheet.add("T2", Ranking("q", "m", people, np.zeros(0, dtype=np.int64), np.zeros(0)))
    assert sheet.scores == {"T1": {"ann": 2.0}, "T2": {}}
    assert sheet.p_expert == {"T1": {"ann": 0.2}, "T2": {}}
