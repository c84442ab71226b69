"""Input files (issue 11): a FIFO or a device given as any input file is refused by name, never
opened to block or read without end; `stats /` does not walk the disk."""

import os

import pytest
from test_model import tiny_model

from expert_gui.cli import main
from expert_gui.core.data.inputs import content_hash, read_regular
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import TextSettings, Tokenizer
from expert_gui.core.errors import (
    CollectionError,
    EmbeddingsFileError,
    InputFileError,
    ModelFileError,
    TopicsError,
)
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.evaluation.runs import read_run
from expert_gui.core.store.storage import load_checkpoint, load_model, save_model
from expert_gui.core.train.embeddings import load_word_vectors


@pytest.fixture(params=["fifo", "device"])
def special(request, tmp_path):
    """A FIFO, or a link to /dev/zero, named like an ordinary input file."""
    def make(path):
        if request.param == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
        return path
    make.word = "FIFO" if request.param == "fifo" else "character device"
    return make


def test_every_reader_refuses_a_fifo_or_a_device(special, tmp_path):
    words = tiny_model().vocab
    cases = [
        (lambda p: read_regular(p), InputFileError),
        (lambda p: content_hash(p), InputFileError),
        (read_qrels, TopicsError),
        (read_run, TopicsError),
        (lambda p: load_word_vectors(p, words), EmbeddingsFileError),
        (lambda p: Tokenizer(TextSettings(stopwords=str(p))), InputFileError),
        (lambda p: load_collection(p), CollectionError),
        (lambda p: load_collection(p, format="bibtex"), CollectionError),
        (lambda p: load_collection(p, format="trec"), CollectionError),
    ]
    for k, (read, error) in enumerate(cases):
        path = special(tmp_path / f"input{k}.bib")
        with pytest.raises(error, match=special.word) as err:
            read(path)
        assert err.value.path == str(path) or err.value.path.endswith(path.name)


@pytest.mark.parametrize("name", ["documents.tsv", "associations.tsv", "people.tsv"])
def test_a_collection_file_that_is_a_fifo_is_refused(special, tmp_path, name):
    (tmp_path / "documents.tsv").write_text("doc_id\ttext\nd1\tring\n", encoding="utf-8")
    (tmp_path / "associations.tsv").write_text("d1\tp\n", encoding="utf-8")
    (tmp_path / name).unlink(missing_ok=True)
    special(tmp_path / name)
    with pytest.raises(CollectionError, match=special.word) as err:
        load_collection(tmp_path, use_cache=False)
    assert err.value.path.endswith(name)
    with pytest.raises(CollectionError, match=special.word):
        load_collection(tmp_path / "documents.tsv" if name != "documents.tsv" else tmp_path,
                        associations=tmp_path / name, use_cache=False)


def test_model_and_checkpoint_files_that_are_fifos_are_refused(special, tmp_path):
    folder = save_model(tiny_model(), tmp_path / "m")
    (folder / "manifest.json").unlink()
    special(folder / "manifest.json")
    with pytest.raises(ModelFileError, match=special.word):
        load_model(folder)
    (tmp_path / "checkpoint").mkdir()
    special(tmp_path / "checkpoint" / "state.json")
    with pytest.raises(ModelFileError, match=special.word):
        load_checkpoint(tmp_path / "checkpoint")


def test_topics_and_qrels_from_the_cli(special, tmp_path, capsys):
    folder = save_model(tiny_model(), tmp_path / "m")
    topics = special(tmp_path / "topics.tsv")
    assert main(["rank", str(folder), "--topics", str(topics), "--run", str(tmp_path / "r")]) == 2
    assert special.word in capsys.readouterr().err


def test_stats_of_the_root_folder_does_not_walk_the_disk(capsys, monkeypatch):
    # issue 11: `expert-gui stats /` walked the whole disk and ended in a PermissionError; later,
    # on a machine with a project checked out under /, it read every export on the disk
    def no_walk(*args, **kwargs):
        raise AssertionError("the disk was walked")

    monkeypatch.setattr("expert_gui.core.data.formats.reading.os.walk", no_walk)
    assert main(["stats", "/", "--no-cache"]) == 2
    assert "the root of the file system is not a collection" in capsys.readouterr().err
