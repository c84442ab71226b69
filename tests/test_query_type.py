"""What `auto` says per kind of query (issue 29, part 2): for a short topic, weights of its own
from the log-linear model's anchor (or, for a model calibrated before, that it has none); for
whole documents the warning that the weights were chosen on authorship, with the best single
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


SHORT = {**CALIBRATION, "fusion": {**CALIBRATION["fusion"], "short_topics": {
    "weights": [1.0], "label": "Log-linear", "short_share": 0.2}}}


def test_short_topics_are_told_auto_starts_from_the_log_linear_model():
    said = auto_reason(SHORT, 3)
    assert "auto starts from the log-linear model" in said and "within 0.01" in said
    assert "authorship" not in said


def test_short_topics_of_a_collection_of_titles_are_told_the_held_out_documents_chose():
    titles = {**SHORT, "fusion": {**SHORT["fusion"], "short_topics": {
        **SHORT["fusion"]["short_topics"], "short_share": 0.8}}}
    said = auto_reason(titles, 3)
    assert "most held-out documents are short like this query" in said
    assert "starts from the log-linear model" not in said


def test_a_model_calibrated_before_short_topics_had_weights_says_to_train_again():
    said = auto_reason(CALIBRATION, LONG_QUERY_WORDS)
    assert "the same for every query" in said and "train it again" in said
    assert auto_reason(CALIBRATION, 40) == auto_reason(SHORT, 40)


def test_whole_documents_are_told_the_weights_measure_authorship_and_the_best_single_method():
    said = auto_reason(CALIBRATION, 40)
    assert "measure authorship" in said
    # the best single method, not auto itself, the ensemble (two methods) nor the chance floor
    assert "the best single method was Model 1 (d) (MAP 0.600)" in said


def test_an_uncalibrated_auto_says_so_whatever_the_query():
    assert auto_reason(None, 40) == auto_reason({}, 3) == \
        "auto is not calibrated, so it ranks with its starting weights"
