"""A collection's suggested training settings: its train_settings.json, and the batch size and
epochs its size needs (core/train/shape.py); read once in core, for the app's form and the CLI."""

import pytest
from fixtures.one_paper_authors import collection

from expert_gui.core.train.instances import make_instances
from expert_gui.core.train.settings import (
    PAPER_DEFAULTS,
    TrainSettings,
    suggested_settings,
    suggested_settings_path,
)
from expert_gui.core.train.shape import MIN_BATCH, Shape, suggest


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


# -- settings suggested from the collection's size (core/train/shape.py) --------------------------



def one_paper_authors(documents: int = 40, words: int = 20):
    """A librarian's export: every document by three people who wrote nothing else."""
    return collection(documents, words)


def test_the_shape_counts_what_training_cuts():
    c = one_paper_authors(40, 20)
    shape = Shape.of(c, window=8)
    assert (shape.documents, shape.people, shape.single_document_people) == (40, 120, 120)
    assert shape.median_length == 20
    assert shape.windows == len(make_instances(c, 8)) == 40 * 3  # ceil(20 / 8) each
    assert Shape.of(c, 8, overlapping=True).windows == 40 * 13
    assert shape.text() == ("40 documents (median 20 words), 120 people, 100% with one "
                            "document, 120 training windows")


def test_one_paper_authors_get_small_batches_and_many_epochs():
    batch, epochs, reasons = suggest(Shape.of(one_paper_authors()), 1024, 5)
    # 120 windows: 5 steps in five epochs of 1,024; batches of 32 (the smallest) make 4 steps
    # an epoch, and 60 steps take 15 epochs
    assert (batch, epochs) == (MIN_BATCH, 15)
    assert reasons["batch_size"] == ("120 training windows make 5 steps in 5 epochs of batches "
                                     "of 1,024; batches of 32 make 4 steps an epoch (a run of "
                                     "at least 60 steps wanted, batches of at least 32)")
    assert reasons["epochs"] == ("15 epochs of 4 steps make 60 steps (a run of at least 60 "
                                 "steps wanted)")
    found = suggested_settings("", collection=one_paper_authors())
    assert found.settings == TrainSettings(batch_size=32, epochs=15)  # only these change
    assert suggest(Shape.of(one_paper_authors(2)), 1024, 5)[:2] == (32, 60)  # a step an epoch


def test_a_web_of_science_export_of_titles():
    # WOS_653.bib: 652 titles, 1,220 windows; two steps an epoch at the paper's settings
    shape = Shape(documents=652, people=9673, single_document_people=4063, median_length=11,
                  windows=1220)
    batch, epochs, reasons = suggest(shape, 1024, 5)
    assert (batch, epochs) == (101, 5)  # 13 steps an epoch, 65 steps in the paper's five epochs
    assert set(reasons) == {"batch_size"}


def test_a_collection_of_abstracts_keeps_the_papers_settings():
    # AMiner: 1,641 abstracts, 12,723 windows, 65 steps in five epochs of 1,024, where auto
    # answered its queries from outside it best (shape.py)
    shape = Shape(documents=1641, people=684, single_document_people=109, median_length=58,
                  windows=12723)
    assert suggest(shape, 1024, 5) == (1024, 5, {})


def test_a_collection_of_dpdks_shape_keeps_the_papers_settings():
    # DPDK: 200,337 windows, 196 steps an epoch in batches of 1,024, 980 in five epochs
    shape = Shape(documents=45205, people=1473, single_document_people=515, median_length=42,
                  windows=200337)
    assert suggest(shape, 1024, 5) == (1024, 5, {})


def test_what_a_file_or_an_option_sets_is_kept_and_the_rest_sized_around_it(tmp_path):
    c = one_paper_authors()
    shape = Shape.of(c)
    assert suggest(shape, 64, 5, {"batch_size"})[:2] == (64, 30)  # 2 steps an epoch
    assert set(suggest(shape, 64, 5, {"batch_size"})[2]) == {"epochs"}
    assert suggest(shape, 1024, 7, {"epochs"})[:2] == (32, 7)
    assert set(suggest(shape, 1024, 7, {"epochs"})[2]) == {"batch_size"}
    (tmp_path / "train_settings.json").write_text('{"batch_size": 16}')
    found = suggested_settings(tmp_path, TrainSettings(), "small", collection=c)
    assert (found.settings.batch_size, found.settings.epochs) == (16, 8)  # 8 steps an epoch
    assert found.values == {"batch_size": 16} and set(found.reasons) == {"epochs"}
    assert found.source == ("suggested by small's train_settings.json, and for this "
                            "collection's size (epochs 8)")
    found = suggested_settings(tmp_path, TrainSettings(), collection=c, given=("epochs",))
    assert found.settings == TrainSettings(batch_size=16) and found.reasons == {}


def test_the_suggestion_reaches_the_settings_without_a_file():
    found = suggested_settings("", TrainSettings(threads=2), collection=one_paper_authors())
    assert found.settings == TrainSettings(threads=2, batch_size=32, epochs=15)
    assert found.source == "suggested for this collection's size (batch size 32, epochs 15)"
    assert suggested_settings("", collection=None).source == PAPER_DEFAULTS
