"""Model folders as the app lists them: finished, partial (stopped) and interrupted runs, and
which collection each belongs to."""

import os
import shutil

import numpy as np
import pytest
from fixtures.training import load_training_fixture, train_killed_at

from expert_gui.core.store.model_folders import (
    COMPLETE,
    DAMAGED,
    INTERRUPTED,
    PARTIAL,
    is_partial,
    list_model_folders,
    model_fits,
    partial_text,
    read_model_folder,
)
from expert_gui.core.store.storage import load_model
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

FAST = TrainSettings(dim=8, batch_size=16, epochs=3, checkpoint_every=2, seed=1)


@pytest.fixture(scope="module")
def collection():
    return load_training_fixture()


@pytest.fixture(scope="module")
def runs(collection, tmp_path_factory):
    """A finished run, one stopped at step 7, one killed at step 5 (checkpoint only)."""
    root = tmp_path_factory.mktemp("models")
    train(collection, FAST, out_dir=root / "finished")
    steps = iter(range(100))
    train(collection, FAST, out_dir=root / "stopped", should_stop=lambda: next(steps) >= 7)
    train_killed_at(collection, FAST, root / "killed", 5)
    return root


def test_a_finished_run_is_complete_and_belongs_to_its_collection(runs, collection):
    info = read_model_folder(runs / "finished")
    model = load_model(runs / "finished")
    assert info.kind == COMPLETE and not info.can_continue and not is_partial(model)
    assert (info.n_people, info.n_words, info.dim) == (4, model.n_words, 8)
    assert model.n_words == len(collection.vocab) - 1  # the padding token is no word
    assert info.belongs_to(collection) and model_fits(model, collection)
    assert info.status_text() == f"4 people, {model.n_words:,} words, dim 8"


def test_a_stopped_run_is_partial_and_says_how_far_it_got(runs, collection):
    model = load_model(runs / "stopped")
    total = model.settings["total_steps"]
    per_epoch = total // FAST.epochs
    finished = load_model(runs / "finished").settings
    assert total == finished["total_steps"] == finished["steps"] and not finished["stopped"]
    assert model.settings["steps"] == 7
    info = read_model_folder(runs / "stopped")
    assert info.kind == PARTIAL and info.can_continue
    epoch = 7 // per_epoch + 1
    assert partial_text(model) == f"stopped at step 7 of {total} (epoch {epoch} of 3)"
    assert info.status_text().startswith(f"partial: stopped at step 7 of {total} (epoch {epoch} "
                                         "of 3); 4 people")


def test_an_interrupted_run_is_listed_with_its_last_checkpoint(runs, collection, tmp_path):
    killed = shutil.copytree(runs / "killed", tmp_path / "killed")
    assert not (killed / "manifest.json").exists()
    info = read_model_folder(killed)
    total = load_model(runs / "finished").settings["total_steps"]
    assert info.kind == INTERRUPTED and info.can_continue
    assert info.step == 4 and info.total_steps == total  # the checkpoint every 2 steps
    assert info.status_text() == f"interrupted at step 4 of {total} (epoch 1 of 3)"
    assert info.belongs_to(collection)  # by the fingerprint in the checkpoint
    # Continuing it reaches the model of an uninterrupted run.
    resumed = train(collection, TrainSettings.from_dict(info.settings), out_dir=killed,
                    resume=True)
    finished = load_model(runs / "finished")
    assert (resumed.word_embeddings == finished.word_embeddings).all()
    assert read_model_folder(killed).kind == COMPLETE


def test_listing_is_newest_first_and_skips_folders_without_a_model(runs, tmp_path):
    root = tmp_path / "models"
    for i, name in enumerate(("finished", "stopped")):
        shutil.copytree(runs / name, root / name)
        for f in (root / name).rglob("*"):
            os.utime(f, (1_000_000 + i, 1_000_000 + i))
    (root / "empty").mkdir()
    (root / "broken").mkdir()
    (root / "broken" / "manifest.json").write_text("{oops", encoding="utf-8")
    os.utime(root / "broken" / "manifest.json", (900_000, 900_000))
    listed = list_model_folders(root)
    assert [m.name for m in listed] == ["stopped", "finished", "broken"]
    assert listed[-1].kind == DAMAGED and "manifest.json" in listed[-1].problem


def test_a_model_belongs_by_fingerprint_or_by_the_same_people_and_words(runs, collection):
    model = load_model(runs / "finished")
    moved = load_training_fixture()
    moved.fingerprint = "the same files, touched since"
    assert model_fits(model, moved) and read_model_folder(runs / "finished").belongs_to(moved)
    other = load_training_fixture()
    other.fingerprint = "another"
    other.person_ids = [*other.person_ids[:-1], "someone-else"]
    assert not model_fits(model, other)
    assert not read_model_folder(runs / "finished").belongs_to(other)
    # Trained without some documents (held out as queries): the same people, fewer words.
    from expert_gui.core.evaluation.heldout import without_documents

    fewer = without_documents(collection, np.array([0, 1, 2]))
    fewer.fingerprint = "the collection less three documents"
    smaller = train(fewer, FAST)
    assert smaller.collection_fingerprint != collection.fingerprint
    assert model_fits(smaller, collection) and model_fits(smaller, moved)
    # An interrupted run has no vocabulary to compare: only its fingerprint counts (and the
    # trainer resumes only on the same fingerprint).
    assert read_model_folder(runs / "killed").belongs_to(collection)
    assert not read_model_folder(runs / "killed").belongs_to(moved)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_checkpoint_state_that_is_not_a_file_is_damaged_not_read(runs, tmp_path):
    """Listing the models folder opens a checkpoint's state as every input file is opened: a
    FIFO there is named, not read (which would block the listing for ever)."""
    killed = shutil.copytree(runs / "killed", tmp_path / "killed")
    state = killed / "checkpoint" / "state.json"
    state.unlink()
    os.mkfifo(state)
    info = read_model_folder(killed)
    assert info.kind == DAMAGED and not info.can_continue
    assert "checkpoint/state.json" in info.problem and "FIFO" in info.problem
