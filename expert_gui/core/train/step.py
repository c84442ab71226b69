"""One training step on the training device, without waiting for it.

At the paper's batch of 1,024 a GPU does a step's arithmetic in well under a millisecond, so the
cost is the host's: batches built in numpy and copied over, the loss read back (a host sync)
after every step, and about ninety small kernel launches. Here the instance arrays stay on the
device for the whole run and each batch is gathered there from a device permutation
(`DeviceInstances`); the weighted cross-entropy and the weights are summed on the device and read
only when the loop asks (`Stepper.read`); the penalty's gradient is one foreach add. On one CUDA GPU the whole
step is captured once in a CUDA graph and replayed (`GraphStepper`, `TrainSettings.cuda_graphs`,
on by default): one launch instead of about 125 per step, 1.27 M instances/s on an H100 against
0.32 M eager (docs/results/gpu.md).
On a CPU the same code does the same arithmetic in the same order as building the batches in
numpy did, so runs stay reproducible to the bit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import torch

from expert_gui.core.train import distributed
from expert_gui.core.train.instances import Instances

log = logging.getLogger(__name__)

# Full-size steps run eagerly on a side stream before the capture (as torch's CUDA graph notes
# ask: lazy initialisation, cuBLAS workspaces and the optimiser's state must exist first).
GRAPH_WARMUP_STEPS = 3


class DeviceInstances:
    """The training instances, resident on the device: windows, weights, and per instance where
    its document's people start in the association array, how many there are and the target
    probability of each (1 / count). The counts stay on the host as well, to size each batch's
    targets without asking the device."""

    def __init__(self, instances: Instances, device: torch.device):
        starts = instances.assoc_indptr[instances.docs]
        counts = instances.assoc_indptr[instances.docs + 1] - starts
        self.device = device
        self.host_counts = counts
        self.windows = torch.from_numpy(instances.windows).to(device)
        self.weights = torch.from_numpy(instances.weights).to(device, torch.float32)
        self.starts = torch.from_numpy(starts).to(device)
        self.counts = torch.from_numpy(counts).to(device)
        self.probs = torch.from_numpy(1.0 / counts).to(device, torch.float32)
        self.people = torch.from_numpy(instances.assoc_people.astype(np.int64)).to(device)

    def batch(self, idx: torch.Tensor, n_targets: int):
        """The instances `idx` (a device tensor) as `window_cross_entropy` takes them.

        Their targets are `n_targets` (row, person, probability) triples, in the order
        `Instances.targets` gives them: exactly the batch's triples when n_targets is their
        number, followed by padding (the last row, probability 0) when it is larger, so that a
        captured step has the same shapes for every batch. Nothing here waits for the device.
        """
        counts = self.counts[idx]
        ends = counts.cumsum(0)
        offsets = self.starts[idx] - (ends - counts)  # position in `people` minus target number
        j = torch.arange(n_targets, device=idx.device)
        rows = torch.searchsorted(ends, j, right=True).clamp_(max=len(idx) - 1)
        people = self.people[(offsets[rows] + j).clamp_(max=len(self.people) - 1)]
        probs = self.probs[idx][rows] * (j < ends[-1])
        return self.windows[idx].long(), rows, people, probs, self.weights[idx]

    def target_counts(self, idx: np.ndarray, batch_size: int,
                      dist: distributed.DistContext) -> np.ndarray:
        """Per batch of `idx` (in order), the number of target triples of this process's share."""
        position = np.arange(len(idx)) % batch_size
        mine = position % dist.world_size == dist.rank
        return np.add.reduceat(self.host_counts[idx] * mine, np.arange(0, len(idx), batch_size))

    def most_targets(self, batch_size: int) -> int:
        """An upper bound on any batch's target triples: the `batch_size` largest counts."""
        counts = np.sort(self.host_counts)
        return int(counts[-batch_size:].sum())

    def plan(self, order: np.ndarray, batch_size: int, dist: distributed.DistContext) -> EpochPlan:
        """An epoch's shuffle, on the device, with each batch's number of targets."""
        return EpochPlan(torch.from_numpy(order).to(self.device), batch_size,
                         self.target_counts(order, batch_size, dist), dist)


@dataclass
class EpochPlan:
    """The instances of one epoch in training order (`perm`, on the device)."""

    perm: torch.Tensor
    batch_size: int
    n_targets: np.ndarray  # per batch, this process's share's target triples
    dist: distributed.DistContext

    def batch(self, b: int) -> tuple[torch.Tensor, int, int]:
        """Batch b: this process's instances, the whole batch's size, its share's targets."""
        idx = self.perm[b * self.batch_size:(b + 1) * self.batch_size]
        mine = idx[self.dist.rank::self.dist.world_size]
        return mine, len(idx), int(self.n_targets[b])


class Stepper:
    """Optimiser steps on device batches. Every step adds its sum of weighted cross-entropies
    (Eq. 3's first term times the batch's size) and its sum of weights |d_max| / |d| to `sums`
    on the device, in float64, in step order: their ratio is the loss the app shows (net.py's
    `weighted_mean_loss`). `read` is the one place the host waits for the device."""

    def __init__(self, model, net, optimizer, data: DeviceInstances, l2: float,
                 dist: distributed.DistContext):
        self.model, self.net, self.optimizer, self.data = model, net, optimizer, data
        self.l2, self.dist = l2, dist
        self.sums = torch.zeros(2, dtype=torch.float64, device=data.device)

    @property
    def path(self) -> str:
        """How the steps run, for the user: "CPU", "GPU (eager)", "Apple GPU (MPS)"."""
        return _PATHS.get(self.data.device.type, self.data.device.type)

    def start_epoch(self, loss_sum: float, weight_sum: float) -> None:
        self.sums.copy_(torch.tensor([loss_sum, weight_sum], dtype=torch.float64))

    def read(self) -> tuple[float, float]:
        """The epoch's sums so far, of weighted cross-entropies and of weights (waits for the
        steps queued before it)."""
        loss_sum, weight_sum = self.sums.tolist()
        return loss_sum, weight_sum

    def step(self, plan: EpochPlan, b: int) -> int:
        """Queue the step of batch b; returns the batch's number of instances."""
        idx, n, n_targets = plan.batch(b)
        self.update(self.forward_backward(self.data.batch(idx, n_targets), n), n)
        return n

    def forward_backward(self, batch, n: int) -> torch.Tensor:
        """The weighted cross-entropy of a batch of n instances (this process's share) and the
        sum of the share's weights, both times world_size; and the cross-entropy's gradient."""
        self.optimizer.zero_grad(set_to_none=True)
        # DDP averages gradients over processes: scaling each share by world_size makes the
        # average the gradient of the whole batch's loss (and the average weight sum the
        # whole batch's).
        ce = self.model(*batch, n) * self.dist.world_size
        ce.backward()
        weights = batch[4].sum().double() * self.dist.world_size
        return torch.stack([ce.detach().double() * n, weights])

    def update(self, sums: torch.Tensor, n: int) -> None:
        """The penalty's gradient, the optimiser's step, and the batch's sums added."""
        self.net.add_penalty(self.l2, n)
        self.optimizer.step()
        self.sums.add_(distributed.mean(sums, self.dist))


class GraphStepper(Stepper):
    """The step of a full batch captured once in a CUDA graph and replayed: one launch instead
    of about ninety. The batch's indices are copied into a static buffer before each replay;
    targets are padded to `most_targets` so every batch has the captured shapes. The first
    GRAPH_WARMUP_STEPS full steps run eagerly on a side stream; the last, smaller batch of an
    epoch runs eagerly. Needs an optimiser made with capturable=True. If the capture fails the
    run goes on eagerly."""

    def __init__(self, model, net, optimizer, data: DeviceInstances, l2: float,
                 dist: distributed.DistContext, batch_size: int):
        super().__init__(model, net, optimizer, data, l2, dist)
        self.batch_size = batch_size
        self.static_idx = torch.zeros(batch_size, dtype=torch.int64, device=data.device)
        self.static_targets = data.most_targets(batch_size)
        self.warm_steps = 0
        # Warm-up and capture share one side stream, so that per-stream handles (cuBLAS
        # workspaces) exist before the capture starts.
        self.side = torch.cuda.Stream(data.device)
        self.graph: torch.cuda.CUDAGraph | None = None
        self.failed = False

    @property
    def path(self) -> str:
        return "GPU (eager: CUDA graph capture failed)" if self.failed else "GPU (CUDA graph)"

    def step(self, plan: EpochPlan, b: int) -> int:
        idx, n, _ = plan.batch(b)
        if n != self.batch_size or self.failed:
            return super().step(plan, b)
        self.static_idx.copy_(idx)
        if self.graph is None and self.warm_steps < GRAPH_WARMUP_STEPS:
            current = torch.cuda.current_stream(self.data.device)
            self.side.wait_stream(current)
            with torch.cuda.stream(self.side):
                self._static_step()
            current.wait_stream(self.side)
            self.warm_steps += 1
            return n
        if self.graph is None and not self._capture():
            return super().step(plan, b)
        self.graph.replay()
        return n

    def _static_step(self) -> None:
        n = self.batch_size
        batch = self.data.batch(self.static_idx, self.static_targets)
        self.update(self.forward_backward(batch, n), n)

    def _capture(self) -> bool:
        graph = torch.cuda.CUDAGraph()
        self.optimizer.zero_grad(set_to_none=True)  # gradients are allocated in the graph
        try:
            # The app trains in a worker thread: "global" would also forbid the other threads'
            # CUDA calls (an allocation, a device query) while the step is being captured.
            with torch.cuda.graph(graph, stream=self.side, capture_error_mode="thread_local"):
                self._static_step()
        except RuntimeError as exc:
            log.warning("capturing the training step in a CUDA graph failed (%s); "
                        "training goes on without it", exc)
            self.failed = True
            self.optimizer.zero_grad(set_to_none=True)
            return False
        self.graph = graph
        return True


def make_stepper(model, net, optimizer, data: DeviceInstances, settings,
                 dist: distributed.DistContext) -> Stepper:
    """A GraphStepper on one CUDA GPU in one process (unless `cuda_graphs` is off), else a
    Stepper: a CPU, Apple's GPU, or several processes run the same step eagerly."""
    if settings.cuda_graphs and data.device.type == "cuda":
        if not dist.active:
            return GraphStepper(model, net, optimizer, data, settings.l2, dist,
                                settings.batch_size)
        log.info("CUDA graphs need one process; under torchrun each step runs eagerly")
    return Stepper(model, net, optimizer, data, settings.l2, dist)


_PATHS = {"cpu": "CPU", "cuda": "GPU (eager)", "mps": "Apple GPU (MPS)"}
