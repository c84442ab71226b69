"""The device-resident step (run here on the CPU): batches gathered on the device match the numpy
ones, padding changes nothing, steps never wait for the device, and the loss read later is the
loss of every step."""

import contextlib
import logging
import math

import numpy as np
import pytest
import torch
from fixtures.training import load_training_fixture, train_killed_at
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode

from expert_gui.core.errors import TrainingError
from expert_gui.core.store.storage import load_checkpoint
from expert_gui.core.train import trainer as training
from expert_gui.core.train.distributed import DistContext
from expert_gui.core.train.instances import make_instances
from expert_gui.core.train.net import LogLinearNet, initial_parameters, make_optimizer
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.step import (
    GRAPH_WARMUP_STEPS,
    DeviceInstances,
    GraphStepper,
    Stepper,
    make_stepper,
)
from expert_gui.core.train.trainer import train

SETTINGS = TrainSettings(dim=16, batch_size=16, epochs=3, validation_fraction=0.1, seed=3,
                         device="cpu")
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
    total = weights = 0.0
    for b in range(steps):
        idx = order[b * 16:(b + 1) * 16]
        opt.zero_grad()
        ce = ref(*numpy_batch(instances, idx), 16)
        penalty = settings.l2 / 32 * (ref.word_embeddings.pow(2).sum()
                                      + ref.candidate_weights.pow(2).sum())
        (ce + penalty).backward()
        opt.step()
        total += float(ce.detach()) * 16  # the sums shown leave the penalty out
        weights += float(instances.weights[idx].sum())
    assert host_reads(stepper.read) <= 1  # one copy to the host off the CPU, none on it
    assert stepper.read() == pytest.approx((total, weights), rel=1e-6)
    for a, b in zip(net.parameters(), ref.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_progress_losses_are_means_since_the_last_read(collection, monkeypatch):
    monkeypatch.setitem(training.READ_EVERY_S, "cpu", 1e9)  # as on a GPU, but rarely
    events = []
    model = train(collection, SETTINGS, progress=events.append)
    instances = make_instances(collection, 8)
    train_idx, _ = training.split_validation(len(instances), 0.1, SETTINGS.seed)
    n_batches = -(-len(train_idx) // 16)
    for epoch, history in enumerate(model.history, 1):
        order = training.epoch_order(train_idx, SETTINGS.seed, epoch - 1)
        weights = [instances.weights[order[16 * b:16 * (b + 1)]].sum() for b in range(n_batches)]
        steps = [e for e in events if e.epoch == epoch and e.step > (epoch - 1) * n_batches]
        total, since = 0.0, 0.0
        for e, w in zip(steps, weights, strict=False):
            since += w  # a read's loss is the weighted mean of the steps since the last read
            if e.loss_is_new:
                total, since = total + e.train_loss * since, 0.0
        assert since == 0  # the epoch's last step was read
        assert sum(e.loss_is_new for e in steps) == (2 if epoch == 1 else 1)
        # the device sums float32 weights
        assert total / sum(weights) == pytest.approx(history["train_loss"], rel=1e-7)


def test_cuda_graphs_are_on_by_default_and_off_cuda_the_same_step_runs_eagerly(collection,
                                                                              caplog):
    assert SETTINGS.cuda_graphs  # the default
    events = []
    with caplog.at_level(logging.INFO):
        graphs = train(collection, SETTINGS, progress=events.append)
    assert not caplog.text  # nothing to warn about: graphs are for CUDA only
    assert {e.path for e in events} == {"CPU"}
    plain = train(collection, TrainSettings(**{**SETTINGS.to_dict(), "cuda_graphs": False}))
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


class FakeStream:
    """Stands in for a CUDA stream: work on the CPU is already in order."""

    def __init__(self, *args):
        pass

    def wait_stream(self, other):
        pass


class FakeGraph:
    """A captured step, replayed by running the step it recorded."""

    def __init__(self):
        self.step = None

    def replay(self):
        self.step()


def fake_cuda_graphs(monkeypatch, fail: bool = False) -> tuple[dict, list]:
    """torch.cuda's streams and graphs as the GraphStepper uses them, on the CPU. A capture,
    like CUDA's, records the step without doing it: what the block changed is put back.
    Returns where to put the stepper, and the graphs captured."""
    held, captures = {}, []

    @contextlib.contextmanager
    def graph(g, stream=None, capture_error_mode="global"):
        stepper = held["stepper"]
        # captured on the warm-up stream, leaving the GUI's threads free to use the GPU
        assert stream is stepper.side and capture_error_mode == "thread_local"
        state = [stepper.sums, *stepper.net.parameters(),
                 *(t for s in stepper.optimizer.state.values() for t in s.values()
                   if torch.is_tensor(t))]
        saved = [t.clone() for t in state]
        yield
        with torch.no_grad():
            for t, s in zip(state, saved, strict=True):
                t.copy_(s)
        if fail:
            raise RuntimeError("operation not permitted when stream is capturing")
        g.step = stepper._static_step
        captures.append(g)

    monkeypatch.setattr(torch.cuda, "Stream", FakeStream)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: FakeStream())
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "CUDAGraph", FakeGraph)
    monkeypatch.setattr(torch.cuda, "graph", graph)
    return held, captures


def run_epochs(stepper, data, settings, epochs: int = 2) -> list[float]:
    """Epoch losses of `stepper` over the fixture's instances, as `train` drives it."""
    losses = []
    for epoch in range(epochs):
        order = np.random.default_rng([5, epoch]).permutation(data.host_counts.size)
        plan = data.plan(order, settings.batch_size, DistContext())
        stepper.start_epoch(0.0, 0.0)
        sizes = [stepper.step(plan, b) for b in range(-(-len(order) // settings.batch_size))]
        assert sum(sizes) == len(order)
        losses.append(stepper.read())
    return losses


@pytest.mark.parametrize("fail", [False, True], ids=["captured", "capture-fails"])
def test_graph_stepper_warms_up_captures_once_and_replays_the_same_steps(
        collection, instances, monkeypatch, caplog, fail):
    settings = SETTINGS
    params = initial_parameters(len(collection.vocab), collection.n_people, settings)
    data = DeviceInstances(instances, CPU)
    held, captures = fake_cuda_graphs(monkeypatch, fail)
    results = []
    for graphs in (False, True):
        net = LogLinearNet(*(p.clone() for p in params))
        optimizer = make_optimizer(net.parameters(), settings)
        args = (net, net, optimizer, data, settings.l2, DistContext())
        stepper = GraphStepper(*args, settings.batch_size) if graphs else Stepper(*args)
        held["stepper"] = stepper
        with caplog.at_level(logging.WARNING):
            losses = run_epochs(stepper, data, settings)
        results.append((losses, [p.detach().clone() for p in net.parameters()]))
    # 85 instances in batches of 16: three warm-up steps, the capture at the fourth full batch,
    # then every full batch replayed; the last batch of 5 runs eagerly.
    assert stepper.warm_steps == GRAPH_WARMUP_STEPS
    assert len(captures) == (0 if fail else 1)
    assert (stepper.graph is None) == fail
    assert ("CUDA graph failed" in caplog.text) == fail
    (plain_losses, plain), (graph_losses, graph) = results
    assert graph_losses == plain_losses
    for a, b in zip(plain, graph, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_a_step_calls_no_operator_that_makes_a_gpu_wait_for_the_host(collection, instances):
    """CUDA graphs cannot capture such operators, and eagerly each one stalls the GPU."""
    settings = SETTINGS
    net = LogLinearNet(*initial_parameters(len(collection.vocab), collection.n_people, settings))
    data = DeviceInstances(instances, CPU)
    stepper = Stepper(net, net, make_optimizer(net.parameters(), settings), data, settings.l2,
                      DistContext())
    plan = data.plan(np.arange(len(instances)), settings.batch_size, DistContext())
    stepper.step(plan, 0)  # the optimiser's state is made at the first step

    class Operators(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.add(func.overloadpacket.__name__)
            indices = [t for a in args if isinstance(a, list | tuple) for t in a]
            if any(torch.is_tensor(t) and t.dtype == torch.bool for t in indices):
                self.names.add("boolean mask index")  # needs nonzero, which waits
            return func(*args, **(kwargs or {}))

    with Operators() as seen:
        stepper.step(plan, 1)
    assert "mm" in seen.names and "_foreach_add_" in seen.names  # it saw the step
    waits = {"_local_scalar_dense", "item", "nonzero", "masked_select", "unique",
             "_unique2", "unique_consecutive", "bincount", "repeat_interleave", "histc",
             "boolean mask index"}
    assert not seen.names & waits


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_the_captured_step_is_replayed_and_trains_as_the_eager_one(collection,
                                                                            instances):
    settings = SETTINGS
    params = initial_parameters(len(collection.vocab), collection.n_people, settings)
    cuda = torch.device("cuda")
    data = DeviceInstances(instances, cuda)
    results = []
    for graphs in (False, True):
        net = LogLinearNet(*(p.clone() for p in params)).to(cuda)
        graph_settings = TrainSettings(**{**settings.to_dict(), "cuda_graphs": graphs})
        optimizer = make_optimizer(net.parameters(), graph_settings, cuda)
        stepper = make_stepper(net, net, optimizer, data, graph_settings, DistContext())
        losses = run_epochs(stepper, data, settings)
        results.append((losses, [p.detach().cpu() for p in net.parameters()]))
    assert isinstance(stepper, GraphStepper) and stepper.graph is not None  # no fallback
    (plain_losses, plain), (graph_losses, graph) = results
    # Atomic adds on a GPU sum in no fixed order, so the two agree closely, not to the bit.
    assert graph_losses == pytest.approx(plain_losses, rel=1e-5)
    for a, b in zip(plain, graph, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_the_default_trains_from_a_cuda_graph_and_a_killed_run_resumes(collection,
                                                                                tmp_path):
    """The one click: default settings on a GPU capture the step (the status bar says so), and a
    run killed mid-way and resumed ends where an uninterrupted one does, to a GPU's rounding."""
    settings = TrainSettings(**{**SETTINGS.to_dict(), "device": "cuda", "checkpoint_every": 5})
    events = []
    whole = train(collection, settings, progress=events.append)
    assert {e.path for e in events} == {"GPU (CUDA graph)"}
    train_killed_at(collection, settings, tmp_path, 13)
    resumed = train(collection, settings, out_dir=tmp_path, resume=True)
    for a, b in ((resumed.word_embeddings, whole.word_embeddings),
                 (resumed.candidate_weights, whole.candidate_weights)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert [h["epoch"] for h in resumed.history] == [h["epoch"] for h in whole.history]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_a_capture_that_fails_goes_on_eagerly_and_says_so(collection, monkeypatch,
                                                                    caplog):
    """A step that reads the device while being captured (here planted) cannot be a graph: the
    capture fails, the run goes on with eager steps on the same GPU, and says which it took."""
    static_step = GraphStepper._static_step

    def reads_the_device_when_captured(self):
        static_step(self)
        if torch.cuda.is_current_stream_capturing():
            float(self.sums[0])  # a host read: not allowed in a capture

    settings = TrainSettings(**{**SETTINGS.to_dict(), "device": "cuda"})
    eager = train(collection, TrainSettings(**{**settings.to_dict(), "cuda_graphs": False}))
    monkeypatch.setattr(GraphStepper, "_static_step", reads_the_device_when_captured)
    events = []
    with caplog.at_level(logging.WARNING):
        fallen_back = train(collection, settings, progress=events.append)
    assert "CUDA graph failed" in caplog.text
    assert events[-1].path == "GPU (eager: CUDA graph capture failed)"
    np.testing.assert_allclose(fallen_back.word_embeddings, eager.word_embeddings, rtol=1e-4,
                               atol=1e-5)
