"""Output folders (issue 11): nothing the program did not write is deleted or overwritten, a bad
--out is refused before any work, and one folder has one trainer at a time."""

import json
import os

import numpy as np
import pytest
from fixtures.training import FOLDER, load_training_fixture

from expert_gui.cli import main
from expert_gui.core.errors import OutputFolderError
from expert_gui.core.store.outputs import MARKER, locked, remove_own
from expert_gui.core.store.storage import MODEL_LAYOUT, load_model
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

FAST = ["--dim", "8", "--batch-size", "64", "--epochs", "1"]
TINY = TrainSettings(dim=8, batch_size=64, epochs=1)


@pytest.fixture(scope="module")
def collection():
    return load_training_fixture()


def test_a_users_checkpoint_folder_is_never_deleted(tmp_path, capsys):
    # issue 11's reproducer: mkdir -p u/checkpoint; echo x > u/checkpoint/thesis.tex; train
    (tmp_path / "u" / "checkpoint").mkdir(parents=True)
    (tmp_path / "u" / "checkpoint" / "thesis.tex").write_text("x\n")
    assert main(["train", str(FOLDER), "--out", str(tmp_path / "u"), *FAST]) == 2
    err = capsys.readouterr().err
    assert "did not write (checkpoint)" in err and err.count("\n") == 1
    assert (tmp_path / "u" / "checkpoint" / "thesis.tex").read_text() == "x\n"
    assert os.listdir(tmp_path / "u") == ["checkpoint"]


def test_a_non_empty_foreign_folder_is_refused_and_an_empty_one_taken(tmp_path, collection):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(OutputFolderError, match=r"holds files expert-gui did not write \(todo"):
        train(collection, TINY, out_dir=tmp_path / "notes")
    assert os.listdir(tmp_path / "notes") == ["todo.txt"]
    (tmp_path / "empty").mkdir()
    train(collection, TINY, out_dir=tmp_path / "empty")
    marker = json.loads((tmp_path / "empty" / MARKER).read_text())
    assert marker == {"written_by": "expert-gui", "kind": "model"}
    train(collection, TINY, out_dir=tmp_path / "empty")  # its own folder: written again


def test_a_model_folder_of_an_older_version_is_recognised(tmp_path, collection):
    train(collection, TINY, out_dir=tmp_path / "m")
    os.unlink(tmp_path / "m" / MARKER)  # as version 1 wrote it: no marker
    train(collection, TINY, out_dir=tmp_path / "m")
    assert (tmp_path / "m" / MARKER).is_file() and load_model(tmp_path / "m").dim == 8


@pytest.mark.parametrize("out", ["/dev/null/m", "FILE/m", "FILE"])
def test_an_unwritable_out_is_refused_before_the_first_step(tmp_path, collection, capsys, out):
    # issue 11: --out /dev/null/m trained 81 steps, then lost the model in a traceback
    (tmp_path / "FILE").write_text("a file")
    out = out.replace("FILE", str(tmp_path / "FILE"))

    def no_step(event):
        raise AssertionError("trained before checking the output folder")

    with pytest.raises(OutputFolderError, match="cannot create it|expected a folder"):
        train(collection, TINY, out_dir=out, progress=no_step)
    assert main(["train", str(FOLDER), "--out", out, *FAST]) == 2
    captured = capsys.readouterr()
    assert "error:" in captured.err and "documents" not in captured.err  # nothing loaded


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_out_is_refused(tmp_path, collection):
    (tmp_path / "ro").mkdir()
    os.chmod(tmp_path / "ro", 0o500)
    with pytest.raises(OutputFolderError, match="permission denied"):
        train(collection, TINY, out_dir=tmp_path / "ro")


def test_a_second_trainer_on_the_same_folder_is_refused(tmp_path, collection, capsys):
    # issue 11: two trainers on one --out: one crashed with a traceback, last writer won
    folder = tmp_path / "m"
    train(collection, TINY, out_dir=folder)
    with locked(folder, "training"):  # what the first trainer holds while it runs
        with pytest.raises(OutputFolderError, match="another expert-gui run is training"):
            train(collection, TINY, out_dir=folder)
        assert main(["train", str(FOLDER), "--out", str(folder), *FAST]) == 2
        assert "another expert-gui run" in capsys.readouterr().err
    train(collection, TINY, out_dir=folder)  # released: the next run may go


def test_remove_own_deletes_only_what_the_program_writes(tmp_path):
    layout = MODEL_LAYOUT["checkpoint"]
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "state.json").write_text("{}")
    (tmp_path / "c" / "thesis.tex").write_text("x")
    with pytest.raises(OutputFolderError, match="nothing was deleted"):
        remove_own(tmp_path / "c", layout)
    assert sorted(os.listdir(tmp_path / "c")) == ["state.json", "thesis.tex"]
    os.unlink(tmp_path / "c" / "thesis.tex")
    remove_own(tmp_path / "c", layout)
    assert not (tmp_path / "c").exists()


def test_an_experiment_never_overwrites_a_users_report(tmp_path, fixtures):
    from expert_gui.core.evaluation.experiment import run_experiment

    folder = fixtures / "evaluation"
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "report.md").write_text("my own report")
    with pytest.raises(OutputFolderError, match=r"did not write \(report.md\)"):
        run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt", tmp_path / "paper")
    assert os.listdir(tmp_path / "paper") == ["report.md"]


# -- issue 24: outputs checked before the work; a read-only mount named as such -----------------
class _ReadOnlyMount:
    f_flag = os.ST_RDONLY


def test_a_read_only_mount_is_reported_as_such(tmp_path, monkeypatch, collection, capsys):
    # issue 24 item 14: a read-only mount was reported as "permission denied"
    (tmp_path / "ro").mkdir()
    monkeypatch.setattr(os, "statvfs", lambda path: _ReadOnlyMount())
    with pytest.raises(OutputFolderError, match="cannot write here: read-only file system"):
        train(collection, TINY, out_dir=tmp_path / "ro")
    assert main(["train", str(FOLDER), "--out", str(tmp_path / "ro" / "new"), *FAST]) == 2
    assert "is not writable (read-only file system)" in capsys.readouterr().err


@pytest.fixture
def read_only_tmpfs(tmp_path):
    """A read-only tmpfs, where this process may mount one (root, outside most CI)."""
    import shutil
    import subprocess

    mount = tmp_path / "ro"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(mount)],
            capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_real_read_only_mount_is_reported_as_such(read_only_tmpfs, capsys):
    assert main(["train", str(FOLDER), "--out", str(read_only_tmpfs), *FAST]) == 2
    assert "cannot write here: read-only file system" in capsys.readouterr().err


def test_train_help_gives_the_real_default_of_numbers(capsys):
    # issue 24 item 14: the help said --numbers defaulted to any-digit
    from expert_gui.core.data.text import TextSettings

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"'{TextSettings().numbers}' (the default:" in text and "digit (default)" not in text


@pytest.fixture
def model_dir(tmp_path):
    from test_model import tiny_model

    from expert_gui.core.store.storage import save_model

    return save_model(tiny_model(), tmp_path / "model")


def no_work(*args, **kwargs):
    raise AssertionError("the work began before the output was checked")


@pytest.mark.parametrize("out", ["FILE", "FILE/sub", "ro"])
def test_export_embeddings_checks_its_out_before_the_work(tmp_path, model_dir, monkeypatch,
                                                          capsys, out):
    # issue 24 item 10: --out onto a file or a read-only folder failed after the work, in a
    # traceback
    from expert_gui.core.store import storage

    (tmp_path / "FILE").write_text("mine")
    (tmp_path / "ro").mkdir()
    if out == "ro":
        monkeypatch.setattr(os, "statvfs", lambda path: _ReadOnlyMount())
    monkeypatch.setattr(storage, "load_model", no_work)
    assert main(["export-embeddings", str(model_dir), "--out", str(tmp_path / out),
                 "--what", "words"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("expert-gui export-embeddings: error: ") and err.count("\n") == 1
    assert "is not a folder" in err or "read-only file system" in err
    assert (tmp_path / "FILE").read_text() == "mine"


def test_export_embeddings_still_writes_and_replaces_whole_files(tmp_path, model_dir, capsys):
    out = tmp_path / "projector"
    assert main(["export-embeddings", str(model_dir), "--out", str(out), "--what", "words"]) == 0
    first = (out / "words" / "vectors.tsv").read_text()
    assert len(first.splitlines()) == 5
    assert main(["export-embeddings", str(model_dir), "--out", str(out), "--what", "words"]) == 0
    assert (out / "words" / "vectors.tsv").read_text() == first
    assert sorted(os.listdir(out / "words")) == ["metadata.tsv", "vectors.tsv"]


@pytest.mark.parametrize("run", ["FOLDER", "ro/run.txt"])
def test_rank_checks_its_run_file_before_the_work(tmp_path, model_dir, monkeypatch, capsys,
                                                  run):
    from expert_gui.core.store import storage

    (tmp_path / "FOLDER").mkdir()
    (tmp_path / "ro").mkdir()
    if run.startswith("ro"):
        monkeypatch.setattr(os, "statvfs", lambda path: _ReadOnlyMount())
    (tmp_path / "topics.tsv").write_text("topic_id\tquery\nt1\twordab\n")
    monkeypatch.setattr(storage, "load_model", no_work)
    assert main(["rank", str(model_dir), "--method", "loglinear", "--topics",
                 str(tmp_path / "topics.tsv"), "--run", str(tmp_path / run)]) == 2
    err = capsys.readouterr().err
    assert "this is a folder" in err or "read-only file system" in err


def test_a_full_disk_while_writing_a_run_keeps_the_file_before(tmp_path, monkeypatch):
    import errno

    from expert_gui.core.evaluation.runs import write_run
    from expert_gui.core.rankers.ranking import Ranking

    path = tmp_path / "run.txt"
    path.write_text("the run before\n")
    ranking = Ranking(query="q", method="m", person_ids=["a"], people=np.array([0]),
                      scores=np.array([1.0]), known_words=["q"], unknown_words=[])
    real = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputFolderError, match=r"run.txt: no space left on the device \("
                                                r"\d+ bytes needed, .* free\); the file before"):
        write_run(path, {"t": ranking}, "tag")
    monkeypatch.setattr(os, "fsync", real)
    assert path.read_text() == "the run before\n" and os.listdir(tmp_path) == ["run.txt"]
