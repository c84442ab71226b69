"""A run that needs more memory than the machine has is refused before anything is allocated,
with the memory needed and free (issue 32 item 5)."""

import subprocess
import sys

import pytest
from fixtures.training import load_training_fixture

from expert_gui.core.errors import TrainingError
from expert_gui.core.train import memory, trainer
from expert_gui.core.train.instances import count_instances, make_instances
from expert_gui.core.train.memory import check_memory, memory_needed
from expert_gui.core.train.settings import TrainSettings

SETTINGS = TrainSettings(dim=16, batch_size=16, epochs=1, device="cpu")


def test_the_need_grows_with_what_holds_memory():
    base = memory_needed(1000, 50, 10_000, SETTINGS)
    wider = memory_needed(1000, 50, 10_000, TrainSettings(dim=32, batch_size=16))
    longer = memory_needed(1000, 50, 10_000, TrainSettings(window=16, dim=16, batch_size=16))
    assert wider.parameters == pytest.approx(2 * base.parameters, rel=0.01)
    assert longer.instances > base.instances and wider.step > base.step
    assert base.total > base.instances + base.parameters + base.step  # and torch's own


def test_a_run_past_the_free_memory_is_refused_with_what_it_needs():
    with pytest.raises(TrainingError) as caught:
        check_memory(65_536, 1000, 10**7, TrainSettings(dim=8192, window=64),
                     available=4 << 30)
    message = str(caught.value)
    assert "needs about" in message and "this machine has 4.0 GiB free" in message
    assert "lower the window, the dimensions" in message
    assert check_memory(100, 4, 100, SETTINGS, available=4 << 30).total < 4 << 30


def test_on_a_gpu_the_device_holds_it_all_and_the_machine_makes_the_instances():
    need = memory_needed(65_536, 1000, 10**6, TrainSettings(dim=512))
    host = need.instances + need.parameters
    check_memory(65_536, 1000, 10**6, TrainSettings(dim=512), available=host,
                 device_free=need.total)  # both fit
    with pytest.raises(TrainingError, match="the GPU has"):
        check_memory(65_536, 1000, 10**6, TrainSettings(dim=512), available=host,
                     device_free=need.total - 1)
    with pytest.raises(TrainingError, match="this machine has"):
        check_memory(65_536, 1000, 10**6, TrainSettings(dim=512), available=host - 1,
                     device_free=need.total)


def test_train_checks_before_making_the_instances(monkeypatch):
    collection = load_training_fixture()

    def never(*args):
        raise AssertionError("the instances were made")

    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 10)
    monkeypatch.setattr(trainer, "make_instances", never)
    with pytest.raises(TrainingError, match="this machine has 1.0 KiB free"):
        trainer.train(collection, SETTINGS)


def test_count_instances_is_what_make_instances_makes():
    collection = load_training_fixture()
    for window, overlapping in [(8, False), (3, True), (1024, False)]:
        assert count_instances(collection, window, overlapping) == \
            len(make_instances(collection, window, overlapping))


def test_the_free_memory_is_within_the_process_limit():
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, "
            "resource.getrlimit(resource.RLIMIT_AS)[1]));"
            "from expert_gui.core.train.memory import available_memory; print(available_memory())")
    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS and /proc are Linux's")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert 0 < int(out) < 3 << 30
