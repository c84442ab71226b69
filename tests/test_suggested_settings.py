"""A collection's train_settings.json: read once in core, for the app's form and the CLI."""

import pytest

from expert_gui.core.train.settings import (
    PAPER_DEFAULTS,
    TrainSettings,
    suggested_settings,
    suggested_settings_path,
)


def test_the_file_beside_a_collection_is_applied_over_the_base(tmp_path):
    (tmp_path / "documents.tsv").write_text("doc_id\ttext\n")
    (tmp_path / "train_settings.json").write_text('{"dim": 24, "epochs": 7}')
    base = TrainSettings(threads=3)
    for source in (tmp_path, tmp_path / "documents.tsv"):  # a folder, or a file in it
        found = suggested_settings(source, base, "small")
        assert (found.settings.dim, found.settings.epochs, found.settings.threads) == (24, 7, 3)
        assert found.source == "suggested by small's train_settings.json"
        assert found.values == {"dim": 24, "epochs": 7} and found.problem == ""


def test_without_a_file_the_base_is_used(tmp_path):
    found = suggested_settings(tmp_path, TrainSettings(dim=5))
    assert found.settings == TrainSettings(dim=5) and found.source == PAPER_DEFAULTS
    assert suggested_settings_path("") is None


@pytest.mark.parametrize("text, problem", [("[1, 2", "ignored"), ("[1, 2]", "JSON object"),
                                           ('{"dim": -1}', "dim must be in [1, 8,192]"),
                                           ('{"dim": "big"}', "ignored")])
def test_a_bad_file_is_not_used_and_says_why(tmp_path, text, problem):
    path = tmp_path / "train_settings.json"
    path.write_text(text)
    found = suggested_settings(tmp_path)
    assert found.settings == TrainSettings() and found.source == PAPER_DEFAULTS
    assert problem in found.problem and str(path) in found.problem


def test_names_the_trainer_does_not_have_are_left_out_and_named(tmp_path):
    (tmp_path / "train_settings.json").write_text('{"dim": 8, "bogus": 1, "zeal": 2}')
    found = suggested_settings(tmp_path)
    assert found.settings.dim == 8
    assert found.problem.endswith("left out: bogus, zeal")


@pytest.mark.parametrize("text, problem", [
    ('{"dim": ' + "[" * 100_000 + "]" * 100_000 + "}", "larger than 64 KiB"),
    ('{"dim": ' + "[" * 10_000 + "]" * 10_000 + "}", "nested more than 64 deep"),
    ('{"dim": ' + "9" * 5_000 + "}", "an integer of 5,000 digits"),
])
def test_a_hostile_file_is_not_used_and_says_why(tmp_path, text, problem):
    # issue 32 item 5: a train_settings.json nested 100,000 deep (someone else may have written
    # it) ended `train` in a RecursionError
    (tmp_path / "train_settings.json").write_text(text)
    found = suggested_settings(tmp_path)
    assert found.settings == TrainSettings() and problem in found.problem
