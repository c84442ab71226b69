"""The device-resident step (run here on the CPU): batches gathered on the device match the numpy
ones, padding changes nothing, steps never wait for the device, and the loss read later is the
loss of every step."""

import logging
import math

import numpy as np
import pytest
import torch
from fixtures.training import load_training_fixture
from torch.profiler import ProfilerActivity, profile

from expert_gui.core import training
from expert_gui.core.distributed import DistContext
from expert_gui.core.errors import TrainingError
from expert_gui.core.instances import make_instances
from expert_gui.core.storage import load_checkpoint
from expert_gui.core.training import (
    LogLinearNet,
    TrainSettings,
    initial_parameters,
    make_optimizer,
    train,
)
from expert_gui.core.training_step import DeviceInstances, Stepper, make_stepper

SETTINGS = TrainSettings(dim=16, batch_size=16, epochs=3, validation_fraction=0.1, seed=3)
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def collection():
    return load_training_fixture()


@pytest.fixture(scope="module")
def instances(collection):
    return make_instances(collection, 8)


def numpy_batch(instances, idx):
    """The batch as the trainer built it before, in numpy."""
    rows, people, probs = instances.targets(idx)
    return (torch.from_numpy(instances.windows[idx]).long(), torch.from_numpy(rows),
            torch.from_numpy(people), torch.from_numpy(probs).float(),
            torch.from_numpy(instances.weights[idx]).float())


def test_device_batch_is_the_numpy_batch(instances):
    data = DeviceInstances(instances, CPU)
    idx = np.random.default_rng(0).permutation(len(instances))[:37]
    n_targets = int(data.target_counts(idx, 37, DistContext())[0])
    ours = data.batch(torch.from_numpy(idx), n_targets)
    for a, b in zip(ours, numpy_batch(instances, idx), strict=True):
        assert a.dtype == b.dtype
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_padded_targets_give_the_same_loss_and_gradients(collection, instances):
    data = DeviceInstances(instances, CPU)
    idx = torch.arange(5, 25)
    exact = int(data.target_counts(idx.numpy(), 20, DistContext())[0])
    results = []
    for n_targets in (exact, data.most_targets(20)):
        assert n_targets >= exact
        net = LogLinearNet(*initial_parameters(len(collection.vocab), collection.n_people,
                                               SETTINGS))
        loss = net(*data.batch(idx, n_targets), 20)
        loss.backward()
        results.append([loss.detach()] + [p.grad for p in net.parameters()])
    for a, b in zip(*results, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_shares_of_a_batch_count_their_own_targets(instances):
    data = DeviceInstances(instances, CPU)
    order = np.random.default_rng(1).permutation(len(instances))
    both = [data.target_counts(order, 21, DistContext(rank, 2, 0)) for rank in (0, 1)]
    whole = data.target_counts(order, 21, DistContext())
    np.testing.assert_array_equal(both[0] + both[1], whole)
    plan = data.plan(order, 21, DistContext(1, 2, 0))
    idx, n, n_targets = plan.batch(3)
    assert n == 21 and idx.tolist() == order[3 * 21 + 1:4 * 21:2].tolist()
    assert n_targets == data.host_counts[idx.numpy()].sum()


def host_reads(fn) -> int:
    """How many times `fn` copies a tensor's value to the host (.item(), float(), ...)."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return sum(e.count for e in prof.key_averages() if e.key == "aten::_local_scalar_dense")


def test_steps_do_not_read_the_device_and_the_read_loss_is_every_steps(collection, instances):
    settings = SETTINGS
    params = initial_parameters(len(collection.vocab), collection.n_people, settings)
    net = LogLinearNet(*(p.clone() for p in params))
    data = DeviceInstances(instances, CPU)
    stepper = Stepper(net, net, make_optimizer(net.parameters(), settings), data, settings.l2,
                      DistContext())
    order = np.random.default_rng(2).permutation(len(instances))
    plan = data.plan(order, settings.batch_size, DistContext())
    steps = len(order) // settings.batch_size
    assert host_reads(lambda: [stepper.step(plan, b) for b in range(steps)]) == 0
    # The same steps written out: the loss read after every step, the penalty by autograd.
    ref = LogLinearNet(*(p.clone() for p in params))
    opt = make_optimizer(ref.parameters(), settings)
    total = 0.0
    for b in range(steps):
        idx = order[b * 16:(b + 1) * 16]
        opt.zero_grad()
        ce = ref(*numpy_batch(instances, idx), 16)
        penalty = settings.l2 / 32 * (ref.word_embeddings.pow(2).sum()
                                      + ref.candidate_weights.pow(2).sum())
        (ce + penalty).backward()
        opt.step()
        total += (float(ce.detach()) + float(penalty.detach())) * 16
    assert host_reads(stepper.read) == 1
    assert stepper.read() == pytest.approx(total, rel=1e-6)
    for a, b in zip(net.parameters(), ref.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_progress_losses_are_means_since_the_last_read(collection, monkeypatch):
    monkeypatch.setitem(training.READ_EVERY_S, "cpu", 1e9)  # as on a GPU, but rarely
    events = []
    model = train(collection, SETTINGS, progress=events.append)
    n_train = len(make_instances(collection, 8)) - round(0.1 * len(make_instances(collection, 8)))
    sizes = [min(16, n_train - 16 * b) for b in range(-(-n_train // 16))]
    for epoch, history in enumerate(model.history, 1):
        steps = [e for e in events if e.epoch == epoch and e.step > (epoch - 1) * len(sizes)]
        total, since = 0.0, 0
        for e, n in zip(steps, sizes, strict=False):
            since += n
            if e.loss_is_new:
                total, since = total + e.train_loss * since, 0
        assert since == 0  # the epoch's last step was read
        assert sum(e.loss_is_new for e in steps) == (2 if epoch == 1 else 1)
        assert total / n_train == pytest.approx(history["train_loss"], rel=1e-9)


def test_cuda_graphs_fall_back_to_the_eager_step_off_cuda(collection, caplog):
    with caplog.at_level(logging.WARNING):
        graphs = train(collection, TrainSettings(**{**SETTINGS.to_dict(), "cuda_graphs": True}))
    assert "CUDA graphs" in caplog.text
    plain = train(collection, SETTINGS)
    np.testing.assert_array_equal(graphs.word_embeddings, plain.word_embeddings)
    assert type(make_stepper(None, None, None, DeviceInstances(make_instances(collection), CPU),
                             SETTINGS, DistContext())) is Stepper


def test_a_non_finite_loss_seen_late_names_its_steps_and_keeps_the_checkpoint_before(
        collection, tmp_path, monkeypatch):
    # Read as on a GPU, but rarely: after the first step, at checkpoints and epoch ends.
    monkeypatch.setitem(training.READ_EVERY_S, "cpu", 1e9)
    calls = {"n": 0}
    forward_backward = Stepper.forward_backward

    def nan_from_step_3(self, batch, n):
        calls["n"] += 1
        return forward_backward(self, batch, n) * (math.nan if calls["n"] >= 3 else 1.0)

    monkeypatch.setattr(Stepper, "forward_backward", nan_from_step_3)
    settings = TrainSettings(**{**SETTINGS.to_dict(), "checkpoint_every": 2})
    with pytest.raises(TrainingError, match=r"loss became nan in steps 3-4 \(epoch 1\)"):
        train(collection, settings, out_dir=tmp_path)
    tensors, meta = load_checkpoint(tmp_path / "checkpoint")
    assert meta["run"]["step"] == 2
    assert all(torch.isfinite(v).all() for v in tensors.values())
