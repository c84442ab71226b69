"""What `auto` does per kind of query (issue 29, part 2): the same weights for every query, and
for whole documents the warning that they were chosen on authorship, with the best single
method on the held-out documents named."""

from expert_gui.core.rankers.query_type import (
    LONG_QUERY_WORDS,
    auto_reason,
    query_kind,
    query_type,
)

CALIBRATION = {"fusion": {"members": ["loglinear"], "weights": [1.0]},
               "measures": {"auto": {"AP": 0.9, "RR": 0.9}, "loglinear": {"AP": 0.4, "RR": 0.5},
                            "model1-d": {"AP": 0.6, "RR": 0.7}, "chance": {"AP": 0.95, "RR": 1},
                            "tfidf": {"AP": 0.5, "RR": 0.5}, "ensemble": {"AP": 0.7, "RR": 0.7}}}


def test_a_query_of_more_than_twelve_words_is_a_whole_document():
    assert query_type(LONG_QUERY_WORDS) == "short topic"
    assert query_type(LONG_QUERY_WORDS + 1) == "whole document"
    assert query_kind(1) == "short topic (1 word)"
    assert query_kind(1300) == "whole document (1,300 words)"


def test_short_topics_are_told_auto_did_as_well_as_the_best_method_elsewhere():
    said = auto_reason(CALIBRATION, 3)
    assert "as well as the best single method or better" in said and "authorship" not in said


def test_whole_documents_are_told_the_weights_measure_authorship_and_the_best_single_method():
    said = auto_reason(CALIBRATION, 40)
    assert "measure authorship" in said
    # the best single method, not auto itself, the ensemble (two methods) nor the chance floor
    assert "the best single method was Model 1 (d) (MAP 0.600)" in said


def test_an_uncalibrated_auto_says_so_whatever_the_query():
    assert auto_reason(None, 40) == auto_reason({}, 3) == \
        "auto is not calibrated, so it ranks with its starting weights"
