"""A model folder from someone else, or shared with another process (issue 43 items 3, 4, 10
and 13): links planted at the names a save writes are never followed, a rename that fails at
two saves keeps a model that opens, a tensor file is checked against the manifest before it is
read, two runs never take one folder, and a load that meets a save reads it again; nor is any
file of an experiment's folder written through a link."""

import errno
import os
import tracemalloc

import numpy as np
import pytest
import torch
from safetensors.numpy import save
from test_full_disk import failing_rename_to, other_model
from test_model import tiny_model
from test_storage import checkpoint_meta

from expert_gui.core.errors import ModelFileError, OutputFolderError
from expert_gui.core.evaluation.figures import window_sweep_figure
from expert_gui.core.evaluation.tables import Table, write_table
from expert_gui.core.store import storage
from expert_gui.core.store.outputs import MARKER, new_folder, replacing
from expert_gui.core.store.storage import load_model, save_checkpoint, save_model

# The names a save writes before renaming them into place.
TEMPORARY = ["manifest.json.tmp", "model.safetensors.new", "model.safetensors.tmp"]


def answers(model) -> np.ndarray:
    """What a query of the model's first two words gives: P(person | words)."""
    return model.query_log_probs(np.array([1, 2]))


@pytest.mark.parametrize("dangling", [False, True])
def test_links_at_the_names_a_save_writes_are_never_followed(tmp_path, dangling):
    # issue 43 item 3: the new manifest was written through a link named manifest.json.tmp,
    # replacing the file it pointed to; a dangling model.safetensors.new created its target
    folder, outside = tmp_path / "m", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / MARKER).write_text('{"written_by": "expert-gui", "kind": "model"}\n')
    targets = {name: outside / name for name in TEMPORARY}
    for name, target in targets.items():
        if not dangling:
            target.write_bytes(b"the user's file " + name.encode())
        (folder / name).symlink_to(target)
    save_model(tiny_model(), folder)
    save_model(other_model(), folder)
    save_checkpoint(folder / "checkpoint", {"a": torch.arange(5.0)}, checkpoint_meta(1))
    for name, target in targets.items():
        if dangling:
            assert not target.exists()
        else:
            assert target.read_bytes() == b"the user's file " + name.encode()
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  other_model().word_embeddings)


def test_a_link_at_a_replaced_files_temporary_name_is_never_followed(tmp_path):
    target = tmp_path / "users-file"
    target.write_text("kept")
    path = tmp_path / "run.txt"
    (tmp_path / f".run.txt.{os.getpid()}.tmp").symlink_to(target)
    with replacing(path) as f:
        f.write("a run\n")
    assert target.read_text() == "kept" and path.read_text() == "a run\n"


def test_a_rename_that_fails_at_two_saves_keeps_a_model_that_opens(tmp_path, monkeypatch):
    # issue 43 item 4: the second save's error handler deleted model.safetensors.new, which the
    # manifest on disk named, and said "the model before is unchanged"
    folder = tmp_path / "m"
    failing_rename_to(monkeypatch, "model.safetensors", errno.EIO)
    save_model(tiny_model(), folder)  # saved in .new, with a warning
    with pytest.raises(OutputFolderError, match="the model before is unchanged"):
        save_model(other_model(), folder)  # the run's save after training on every document
    monkeypatch.undo()
    model = load_model(folder)
    np.testing.assert_array_equal(model.word_embeddings, tiny_model().word_embeddings)
    np.testing.assert_allclose(answers(model), answers(tiny_model()))
    save_model(other_model(), folder)  # once the rename works again, the next save goes in
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  other_model().word_embeddings)


def test_a_huge_tensor_file_is_refused_before_it_is_read(tmp_path):
    # issue 43 item 10: an 8 GB model.safetensors was read whole (3 GB and more) before the
    # hash told it apart; a sparse file costs no disk
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    huge = 256 << 20
    os.truncate(folder / "model.safetensors", huge)
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=r"256\.0 MiB where its header names"):
            load_model(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < huge // 16


def test_a_huge_manifest_is_refused_before_it_is_read(tmp_path, monkeypatch):
    # issue 43 item 10: the manifest, read first, was read whole whatever its size
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    monkeypatch.setattr(storage, "MAX_MODEL_DOCUMENT", 1 << 20)
    os.truncate(folder / "manifest.json", 64 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=r"larger than the 1 MiB"):
            load_model(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


def test_a_header_naming_a_dimension_no_training_makes_is_refused(tmp_path):
    folder = tmp_path / "m"
    model = tiny_model()
    save_model(model, folder)
    dim = storage.MAX_DIM + 1
    tensors = {"word_embeddings": np.zeros((model.n_words + 1, dim), np.float32),
               "candidate_weights": np.zeros((model.n_people, dim), np.float32),
               "candidate_bias": np.zeros(model.n_people, np.float32)}
    (folder / "model.safetensors").write_bytes(save(tensors))
    with pytest.raises(ModelFileError, match="a dimension from 1 to 8,192"):
        load_model(folder)


def test_two_runs_started_in_the_same_second_take_two_folders(tmp_path):
    # issue 43 item 13: both picked models/NAME-STAMP, and the second was refused
    first, second, third = (new_folder(tmp_path / "models", "dpdk-20260101-120000")
                            for _ in range(3))
    assert [first.name, second.name, third.name] == [
        "dpdk-20260101-120000", "dpdk-20260101-120000-2", "dpdk-20260101-120000-3"]
    assert all(p.is_dir() for p in (first, second, third))


def test_a_load_that_meets_a_save_reads_the_folder_again(tmp_path, monkeypatch):
    # issue 43 item 13: a load while another process saved the model was refused (125 of
    # 1,640): it had read the old manifest, then the new tensors
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    real = storage._tensors_of
    saves = []

    def save_in_between(folder, manifest):  # the other process's whole save, at the worst time
        if not saves:
            saves.append(save_model(other_model(), folder))
        return real(folder, manifest)

    monkeypatch.setattr(storage, "_tensors_of", save_in_between)
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  other_model().word_embeddings)


def test_a_damaged_folder_is_still_refused_at_once(tmp_path, monkeypatch):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    (folder / "model.safetensors").write_bytes(b"\0" * 8)
    monkeypatch.setattr(storage.time, "sleep", lambda s: pytest.fail("waited for nothing"))
    with pytest.raises(ModelFileError):
        load_model(folder)


def test_an_experiments_files_are_never_written_through_links(tmp_path):
    # issue 43 item 3, the class: an experiment's folder from someone else, links at the names
    # of its tables and figures
    outside = tmp_path / "users-file"
    outside.write_bytes(b"kept")
    names = ["table.md", "table.csv", "table.tex", "figure.png", "figure.svg"]
    for name in names:
        (tmp_path / name).symlink_to(outside)
    table = Table("T", "lm", ("lm",), ("AP",), {"lm": {"AP": 0.5}}, {}, {"lm": {"AP": 0.1}})
    write_table(table, tmp_path, "table")
    window_sweep_figure({1: {"AP": 0.1, "RR": 0.2}, 2: {"AP": 0.3, "RR": 0.4}}, tmp_path,
                        "figure")
    assert outside.read_bytes() == b"kept"
    assert not any((tmp_path / name).is_symlink() for name in names)
    assert (tmp_path / "figure.png").read_bytes().startswith(b"\x89PNG")
