"""Crash points (issue 11): `train` killed (kill -9) just before each of its renames, then run
again with --resume, ends with the model of an uninterrupted run, bit for bit; nothing the run
did not write is touched, and a crash before the first checkpoint says so and starts afresh."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures.training import FOLDER

from expert_gui.cli import main
from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.store.storage import load_model

HARNESS = Path(__file__).parent / "fixtures" / "crash" / "kill_at_rename.py"
# 12 steps, 6 an epoch: checkpoints at steps 5, 6 (the first epoch's end) and 10, each
# replacing the one before, and the final one.
TRAIN = ["--dim", "8", "--batch-size", "16", "--epochs", "2", "--checkpoint-every", "5",
         "--threads", "1", "--seed", "4", "--device", "cpu"]  # bit for bit: on the CPU


def run_killed_at(n: int, out: Path, home: Path, log: Path) -> int:
    env = dict(os.environ, EXPERT_GUI_HOME=str(home), PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(HARNESS), str(n), str(log), "--", "train",
                           str(FOLDER), "--out", str(out), *TRAIN], env=env,
                          capture_output=True, timeout=300)
    return done.returncode


def arrays(model):
    return [model.word_embeddings, model.candidate_weights, model.candidate_bias]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run, in a child like the others, and the renames it made."""
    root = tmp_path_factory.mktemp("reference")
    log = root / "renames.log"
    assert run_killed_at(0, root / "model", root / "home", log) == 0
    renames = log.read_text().splitlines()
    return load_model(root / "model"), renames


def test_the_run_renames_at_every_save(reference):
    _, renames = reference
    targets = [Path(line.split(" -> ")[1]).name for line in renames]
    # the collection cache, the folder's marker, four checkpoint saves (the first one rename,
    # the others two), the model measured, then the model trained again on every document
    # (issue 29): each its manifest (the swap), then its tensors
    assert targets.count("checkpoint") == 4 and targets.count("checkpoint.old") == 3
    assert targets[-4:] == ["manifest.json", "model.safetensors"] * 2
    assert targets[1] == ".expert-gui" and len(targets) == 13


def test_a_save_over_an_older_model_leaves_one_whole_model_at_every_rename(tmp_path):
    # issue 24 item 1: the model was saved by two renames, tensors first; a kill between them
    # left new tensors with the old manifest, which no command could open
    home = tmp_path / "home"
    base = tmp_path / "base"
    assert run_killed_at(0, base, home, tmp_path / "base.log") == 0
    older = load_model(base)
    other = ["--seed", "5"]

    def again(n: int, name: str) -> tuple[int, Path]:
        out = tmp_path / name
        shutil.copytree(base, out)
        env = dict(os.environ, EXPERT_GUI_HOME=str(home), PYTHONPATH=os.pathsep.join(sys.path))
        done = subprocess.run([sys.executable, str(HARNESS), str(n), str(tmp_path / f"{name}.log"),
                               "--", "train", str(FOLDER), "--out", str(out), *TRAIN, *other],
                              env=env, capture_output=True, timeout=300)
        return done.returncode, out

    code, whole = again(0, "whole")
    assert code == 0
    newer = load_model(whole)
    assert not np.array_equal(newer.word_embeddings, older.word_embeddings)
    renames = (tmp_path / "whole.log").read_text().splitlines()
    # Before the measured model's manifest is swapped in: the older model; before the kept
    # model's: the measured one, whole (calibrated, not trained again); before its tensors'
    # rename: the kept one.
    measured = None
    for n in (len(renames) - 3, len(renames) - 1, len(renames)):
        code, out = again(n, f"killed{n}")
        assert code == -signal.SIGKILL
        model = load_model(out)
        if n == len(renames) - 1:
            assert model.calibration and retrained(model) is None
            measured = model
            continue
        expected = older if n == len(renames) - 3 else newer
        for a, b in zip(arrays(model), arrays(expected), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"killed before rename {n}")
    assert retrained(newer) and not np.array_equal(measured.candidate_weights,
                                                   newer.candidate_weights)


@pytest.mark.slow
def test_a_kill_at_any_rename_resumes_to_the_same_model(reference, tmp_path, monkeypatch,
                                                         capsys):
    whole, renames = reference
    targets = [Path(line.split(" -> ")[1]).name for line in renames]
    first_checkpoint = targets.index("checkpoint") + 1  # complete once this rename is done
    for n in range(1, len(renames) + 1):
        out, home = tmp_path / f"out{n}", tmp_path / f"home{n}"
        (tmp_path / "mine.txt").write_text("not the trainer's")
        code = run_killed_at(n, out, home, tmp_path / f"log{n}")
        assert code == -signal.SIGKILL, f"rename {n} was not reached"
        monkeypatch.setenv("EXPERT_GUI_HOME", str(home))
        args = ["train", str(FOLDER), "--out", str(out), *TRAIN]
        if main([*args, "--resume"]) != 0:
            # killed before the first checkpoint was complete: nothing to resume, and it says so
            assert n <= first_checkpoint, f"killed before rename {n}: the resume failed"
            assert "no checkpoint to resume from" in capsys.readouterr().err
            assert not (out / "checkpoint" / "state.json").exists()
            assert main(args) == 0
        model = load_model(out)
        for a, b in zip(arrays(model), arrays(whole), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"killed before rename {n}")
        assert model.history == whole.history
        left = sorted(p.name for p in out.iterdir())
        assert left == [".expert-gui", ".expert-gui.lock", "checkpoint", "manifest.json",
                        "model.safetensors"], (n, left)
        assert (tmp_path / "mine.txt").read_text() == "not the trainer's"
