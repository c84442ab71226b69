"""Checkpoints every few minutes of training, not only every N steps or at epoch ends (an epoch
of a large collection takes hours; a kill lost 150 steps on DPDK), and a pause that neither
counts as training time nor leaves a stale speed."""

import numpy as np
import pytest
from fixtures.training import load_training_fixture

from expert_gui.core.store.storage import latest_checkpoint, load_checkpoint
from expert_gui.core.train import trainer
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

# No checkpoint by steps nor at epoch ends: only the time rule can make one.
SETTINGS = TrainSettings(dim=16, batch_size=16, epochs=3, validation_fraction=0.1, seed=3,
                         checkpoint_every=0)


class Killed(Exception):
    pass


def die_at(step: int):
    def progress(event):
        if event.step == step:
            raise Killed
    return progress


@pytest.fixture(scope="module")
def collection():
    return load_training_fixture()


def test_a_run_checkpoints_after_its_minutes_of_training(collection, tmp_path):
    # Any time at all is more than 1e-9 minutes: a checkpoint after every step.
    settings = TrainSettings(**{**SETTINGS.to_dict(), "checkpoint_minutes": 1e-9})
    with pytest.raises(Killed):
        train(collection, settings, out_dir=tmp_path, progress=die_at(7))
    _, meta = load_checkpoint(tmp_path / "checkpoint")
    assert meta["run"]["step"] == 7
    resumed = train(collection, settings, out_dir=tmp_path, resume=True)
    whole = train(collection, settings)
    np.testing.assert_array_equal(resumed.word_embeddings, whole.word_embeddings)


def test_without_minutes_nor_steps_a_killed_run_has_no_checkpoint(collection, tmp_path):
    settings = TrainSettings(**{**SETTINGS.to_dict(), "checkpoint_minutes": 0})
    with pytest.raises(Killed):
        train(collection, settings, out_dir=tmp_path, progress=die_at(7))
    assert latest_checkpoint(tmp_path) is None


class FakeClock:
    """The trainer's clock: every reading takes a millisecond, a sleep its length."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.001
        return self.now

    monotonic = perf_counter

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_pause_is_not_counted_in_the_speed_nor_as_training_time(collection, tmp_path,
                                                                  monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(trainer, "time", clock)
    polls = {"n": 0}

    def pause() -> bool:  # asked once per step: paused for 600 polls (60 s) before step 6
        polls["n"] += 1
        return 6 <= polls["n"] < 606

    events = []
    # 30 s of training between checkpoints: the 60 s pause alone must not make one.
    settings = TrainSettings(**{**SETTINGS.to_dict(), "checkpoint_minutes": 0.5})
    with pytest.raises(Killed):
        train(collection, settings, out_dir=tmp_path, should_pause=pause,
              progress=lambda e: (events.append(e), die_at(9)(e)))
    by_step = {e.step: e for e in events}
    assert by_step[6].instances_per_s > by_step[5].instances_per_s / 2
    assert latest_checkpoint(tmp_path) is None
