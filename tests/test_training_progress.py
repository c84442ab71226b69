"""Instances per second and the time left come from the steps the device has finished, not
from the host's queueing: checked with a fake slow device on a fake clock (no timing here)."""

import types

import pytest
from fixtures.training import load_training_fixture

from expert_gui.core.train import trainer as training
from expert_gui.core.train.settings import TrainSettings

HOST_S, DEVICE_S = 0.001, 0.5  # seconds the host takes to queue a step, the device to run it
SETTINGS = TrainSettings(dim=8, batch_size=2, epochs=2, validation_fraction=0.1, seed=3,
                         device="cpu", checkpoint_every=0)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def perf_counter(self):
        return self.now

    monotonic = perf_counter

    def sleep(self, s):
        self.now += s


def slow_device(clock, make_stepper):
    """make_stepper whose steps return at once (the host only queues them) and whose loss read
    waits until the device has run every queued step, DEVICE_S each."""
    def make(*args, **kwargs):
        stepper = make_stepper(*args, **kwargs)
        queued = {"n": 0}
        real_step, real_read = stepper.step, stepper.read

        def step(plan, b):
            clock.now += HOST_S
            queued["n"] += 1
            return real_step(plan, b)

        def read():
            clock.now += DEVICE_S * queued["n"]
            queued["n"] = 0
            return real_read()

        stepper.step, stepper.read = step, read
        return stepper
    return make


def test_rate_and_eta_follow_the_device_not_the_host(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(training, "time", types.SimpleNamespace(
        perf_counter=clock.perf_counter, monotonic=clock.monotonic, sleep=clock.sleep))
    monkeypatch.setattr(training, "make_stepper", slow_device(clock, training.make_stepper))
    monkeypatch.setitem(training.READ_EVERY_S, "cpu", 0.01)  # read as on a GPU: every 10 steps
    events = []
    training.train(load_training_fixture(), SETTINGS, progress=events.append)
    steps = [e for e in events if e.step > 12 and e.instances_per_s > 0
             and e.step < e.total_steps]
    assert steps
    device_rate = SETTINGS.batch_size / (DEVICE_S + HOST_S)  # full batches
    for e in steps:
        # the host queued 1,000 steps a second; the device ran 2
        assert e.instances_per_s == pytest.approx(device_rate, rel=0.15)
        left = (e.total_steps - e.step) * SETTINGS.batch_size
        assert e.eta_s == pytest.approx(left / e.instances_per_s)


def test_phase_times_split_the_wall_time_by_the_events(monkeypatch):
    from expert_gui.cli.train import time_spent
    from expert_gui.core.evaluation import calibration
    from expert_gui.core.evaluation.calibration import PhaseTimes, TrainingStage, UniformGuess

    clock = Clock()
    monkeypatch.setattr(calibration, "time", types.SimpleNamespace(
        perf_counter=clock.perf_counter))
    phases = PhaseTimes()
    for event, seconds in ((UniformGuess(4), 1), (TrainingStage("m", phase="held-out MAP"), 2),
                           (UniformGuess(4), 3), (TrainingStage("c", phase="calibration"), 4),
                           (TrainingStage("s", phase="saving"), 0.5)):
        phases(event)
        clock.now += seconds
    phases.end()
    assert phases.seconds == {"steps": 4, "held-out MAP": 2, "calibration": 4, "saving": 0.5}
    assert time_spent(2.0, phases.seconds, 20.0) == (
        "wall time 20.0 s: load 2.0 s, setting up 7.5 s, steps 4.0 s, held-out MAP 2.0 s, "
        "calibration 4.0 s, saving 0.5 s; 80% outside the steps")


def test_the_time_left_leaves_out_an_epochs_end_from_the_rate_and_adds_the_ends_to_come(
        monkeypatch):
    """An epoch's end (its validation loss and held-out MAP) is not a slow step, and the ends
    still to come are part of the time left: on Lens the time left at an epoch's start was
    twice what followed, from the few steps timed since the measure restarted."""
    import torch

    clock = Clock()
    monkeypatch.setattr(training, "time", types.SimpleNamespace(
        perf_counter=clock.perf_counter, monotonic=clock.monotonic, sleep=clock.sleep))
    meter = training._Meter(0)
    for _ in range(4):  # epoch 1: 4 steps of 10 instances, a second each
        clock.now += 1.0
        meter.queued(10)
        meter.finished()
    assert meter.rate == pytest.approx(10.0)
    clock.now += 5.0  # the epoch's end
    meter.epoch_end_s = 5.0
    meter.skip()
    clock.now += 2.0  # a slow first step of epoch 2
    meter.queued(10)
    meter.finished()
    # the steps since the first read, the slow one included: four in five seconds (not the
    # slow one alone, nor the epoch's end as a step of six seconds)
    assert meter.rate == pytest.approx(40 / 5)
    run = training._Run(steps_per_epoch=4, epoch=1, step=5)
    event = meter.event(run, 12, TrainSettings(batch_size=10, epochs=3), 1.0,
                        torch.device("cpu"), loss_is_new=True, path="CPU")
    # 7 steps of 10 instances at 8 a second, and the ends of epochs 2 and 3
    assert event.eta_s == pytest.approx(70 / 8 + 2 * 5.0)
