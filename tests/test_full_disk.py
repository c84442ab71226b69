"""A full disk, a newer model in the way, a save cut short (issue 24): the program stops with a
message naming the path and the space needed, and what was there before stays usable.

A full disk is simulated by making the writer raise ENOSPC, as the kernel does; where this runs
as root and may mount a tmpfs, one check fills a real one (skipped elsewhere, as in CI)."""

import errno
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from fixtures.training import FOLDER
from test_model import tiny_model
from test_storage import checkpoint_meta

from expert_gui.cli import main
from expert_gui.core.errors import OutputFolderError
from expert_gui.core.store import storage
from expert_gui.core.store.storage import (
    FORMAT_VERSION,
    load_checkpoint,
    load_model,
    save_checkpoint,
    save_model,
)
from expert_gui.core.train import trainer

FAST = ["--dim", "8", "--batch-size", "16", "--epochs", "2", "--checkpoint-every", "5",
        "--threads", "1"]


def full_disk_at(monkeypatch, names, after=0):
    """Make the model files' writer raise ENOSPC for files named in `names`, after `after`
    successful writes of such files."""
    real = storage._write_synced
    left = {"writes": after}

    def write(path, data):
        if Path(path).name in names:
            if left["writes"] == 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
            left["writes"] -= 1
        return real(path, data)

    monkeypatch.setattr(storage, "_write_synced", write)


def other_model():
    model = tiny_model()
    model.word_embeddings = model.word_embeddings + np.float32(1)
    return model


# -- item 1: a model is swapped in by one rename ------------------------------------------------
def test_a_save_cut_short_after_its_swap_reads_the_new_model(tmp_path, monkeypatch):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    real = os.replace
    calls = []

    def crash_after_the_swap(src, dst):
        calls.append(Path(dst).name)
        if Path(dst).name == "model.safetensors":
            raise KeyboardInterrupt  # the process dies here
        return real(src, dst)

    monkeypatch.setattr(os, "replace", crash_after_the_swap)
    with pytest.raises(KeyboardInterrupt):
        save_model(other_model(), folder)
    monkeypatch.setattr(os, "replace", real)
    assert calls == ["manifest.json", "model.safetensors"]
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  other_model().word_embeddings)
    save_model(tiny_model(), folder)  # the next save finishes the one cut short first
    assert sorted(p.name for p in folder.iterdir()) == [".expert-gui", "manifest.json",
                                                        "model.safetensors"]
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  tiny_model().word_embeddings)


def test_a_save_cut_short_before_its_swap_keeps_the_old_model(tmp_path, monkeypatch):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        save_model(other_model(), folder)
    monkeypatch.undo()
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  tiny_model().word_embeddings)
    save_model(other_model(), folder)  # the leftover of the cut save is dropped, not used
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  other_model().word_embeddings)
    assert not (folder / "model.safetensors.new").exists()


# -- item 6: the writer refuses a newer format, as every reader does ----------------------------
@pytest.mark.parametrize("which", ["manifest.json", "checkpoint/state.json"])
def test_a_model_folder_of_a_newer_format_is_never_overwritten(tmp_path, capsys, which):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    if which != "manifest.json":
        save_checkpoint(folder / "checkpoint", {"a": torch.arange(3.0)}, checkpoint_meta(1))
    document = json.loads((folder / which).read_text())
    document["format_version"] = FORMAT_VERSION + 1
    (folder / which).write_text(json.dumps(document))
    before = (folder / which).read_bytes()
    with pytest.raises(OutputFolderError, match=f"{which} was written by a newer expert-gui"):
        save_model(tiny_model(), folder)
    assert main(["train", str(FOLDER), "--out", str(folder), *FAST]) == 2
    err = capsys.readouterr().err
    assert "newer expert-gui (format 3" in err and "documents" not in err  # before the load
    assert (folder / which).read_bytes() == before


# -- item 8: a full disk ------------------------------------------------------------------------
def test_a_full_disk_while_saving_a_model_keeps_the_one_before(tmp_path, monkeypatch):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    full_disk_at(monkeypatch, {"manifest.json.tmp"})
    with pytest.raises(OutputFolderError) as caught:
        save_model(other_model(), folder)
    message = str(caught.value)
    assert message.startswith(str(folder)) and "no space left on the device (" in message
    assert "needed" in message and "free" in message and "model before is unchanged" in message
    monkeypatch.undo()
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  tiny_model().word_embeddings)
    assert sorted(p.name for p in folder.iterdir()) == [".expert-gui", "manifest.json",
                                                        "model.safetensors"]


def test_a_full_disk_at_a_checkpoint_keeps_the_one_before(tmp_path, monkeypatch):
    folder = tmp_path / "checkpoint"
    save_checkpoint(folder, {"a": torch.arange(5.0)}, checkpoint_meta(1))
    full_disk_at(monkeypatch, {"state.safetensors", "state.json"})
    with pytest.raises(OutputFolderError, match=r"checkpoint.tmp: no space left on the device "
                                                r"\([\d.,]+ (bytes|KiB) needed, .* free\); "
                                                r"checkpoint/ before this one is kept"):
        save_checkpoint(folder, {"a": torch.arange(6.0)}, checkpoint_meta(2))
    _, meta = load_checkpoint(folder)
    assert meta["run"]["step"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]


def test_train_on_a_full_disk_exits_2_and_resumes_from_the_checkpoint_before(
        tmp_path, monkeypatch, capsys):
    out = tmp_path / "m"
    # the second checkpoint of the run (step 6, the first epoch's end, one step after the first:
    # taken whatever the time between them) finds the disk full
    monkeypatch.setattr(trainer, "EPOCH_CHECKPOINT_RATIO", 0)
    full_disk_at(monkeypatch, {"state.json"}, after=1)
    assert main(["train", str(FOLDER), "--out", str(out), *FAST]) == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("expert-gui train: error: ")
    assert f"{out / 'checkpoint.tmp'}: no space left on the device (" in last
    monkeypatch.undo()
    _, meta = load_checkpoint(out / "checkpoint")
    assert meta["run"]["step"] == 5
    assert main(["train", str(FOLDER), "--out", str(out), *FAST, "--resume"]) == 0
    assert len(load_model(out).history) == 2


def test_train_with_a_full_disk_at_the_model_exits_2(tmp_path, monkeypatch, capsys):
    out = tmp_path / "m"
    full_disk_at(monkeypatch, {"model.safetensors.new"})
    assert main(["train", str(FOLDER), "--out", str(out), *FAST]) == 2
    err = capsys.readouterr().err
    assert f"{out}: no space left on the device (" in err and "nothing was written" in err
    monkeypatch.undo()
    assert main(["train", str(FOLDER), "--out", str(out), *FAST, "--resume"]) == 0
    assert len(load_model(out).history) == 2


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 256 KiB tmpfs, where this process may mount one (root, outside most CI)."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
            capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path, leave: int) -> None:
    """Fill a file system until about `leave` bytes are free."""
    free = shutil.disk_usage(folder).free
    with open(folder / "filler", "wb") as f:
        try:
            f.write(b"\0" * max(free - leave, 0))
        except OSError:
            pass


def test_a_real_full_disk_at_a_checkpoint(small_tmpfs):
    folder = small_tmpfs / "checkpoint"
    save_checkpoint(folder, {"a": torch.arange(5.0)}, checkpoint_meta(1))
    fill(small_tmpfs, leave=0)
    with pytest.raises(OutputFolderError, match="no space left on the device"):
        save_checkpoint(folder, {"a": torch.zeros(20_000)}, checkpoint_meta(2))
    _, meta = load_checkpoint(folder)
    assert meta["run"]["step"] == 1 and not (small_tmpfs / "checkpoint.tmp").exists()


# -- issue 32 item 8: a rename that fails -------------------------------------------------------
def failing_rename_to(monkeypatch, name: str, code: int) -> None:
    """Make os.replace raise OSError(code), as the kernel does, for renames onto `name`."""
    real = os.replace

    def replace(src, dst):
        if Path(dst).name == name:
            raise OSError(code, os.strerror(code), str(src))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("code", [errno.EIO, errno.ENOSPC])
def test_a_failed_swap_keeps_the_model_before_and_says_so(tmp_path, monkeypatch, code):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    failing_rename_to(monkeypatch, "manifest.json", code)
    with pytest.raises(OutputFolderError) as caught:
        save_model(other_model(), folder)
    message = str(caught.value)
    assert message.startswith(str(folder)) and message.endswith("the model before is unchanged")
    assert ("Input/output error" if code == errno.EIO else "no space left") in message
    monkeypatch.undo()
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  tiny_model().word_embeddings)
    assert sorted(p.name for p in folder.iterdir()) == [".expert-gui", "manifest.json",
                                                        "model.safetensors"]


def test_a_failed_rename_after_the_swap_saves_the_model_and_warns(tmp_path, monkeypatch, caplog):
    folder = tmp_path / "m"
    save_model(tiny_model(), folder)
    failing_rename_to(monkeypatch, "model.safetensors", errno.EIO)
    save_model(other_model(), folder)
    assert "the model is saved, but model.safetensors.new could not be renamed" in caplog.text
    monkeypatch.undo()
    np.testing.assert_array_equal(load_model(folder).word_embeddings,
                                  other_model().word_embeddings)


@pytest.mark.parametrize("name", ["manifest.json", "checkpoint"])
def test_train_exits_2_with_a_message_when_a_rename_fails(tmp_path, monkeypatch, capsys, name):
    # issue 32 item 8: an OSError traceback, exit 1
    out = tmp_path / "m"
    failing_rename_to(monkeypatch, name, errno.EIO)
    assert main(["train", str(FOLDER), "--out", str(out), *FAST]) == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("expert-gui train: error: ")
    assert "cannot write here: Input/output error" in last
