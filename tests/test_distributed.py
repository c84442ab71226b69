"""Two gloo processes under torchrun reach the model one process reaches with the same batch."""

import os
import subprocess
import sys

import numpy as np
from fixtures.training import DDP_SETTINGS, FOLDER, load_training_fixture

from expert_gui.core.store.storage import load_checkpoint, load_model
from expert_gui.core.train.trainer import train


def test_two_processes_match_one(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nnodes", "1",
           "--nproc_per_node", "2", str(FOLDER / "ddp_worker.py"), str(tmp_path / "ddp")]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    two = load_model(tmp_path / "ddp")
    one = train(load_training_fixture(), DDP_SETTINGS)
    for name in ("word_embeddings", "candidate_weights", "candidate_bias"):
        np.testing.assert_allclose(getattr(two, name), getattr(one, name), rtol=1e-5, atol=1e-6)
    for a, b in zip(two.history, one.history, strict=True):
        assert abs(a["val_loss"] - b["val_loss"]) <= 1e-5 * b["val_loss"]
    _, meta = load_checkpoint(tmp_path / "ddp" / "checkpoint")  # written by rank 0
    assert meta["run"]["step"] == two.settings["steps"]
