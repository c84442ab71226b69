"""Trainer speed: ours (eager, and replayed from a CUDA graph) against a straightforward model.

    .venv/bin/python benchmarks/bench_train.py ../shared/data/dpdk-maintainers [--device cuda]
        [--steps N] [--epoch] [--parts dpdk,synthetic]

Parts (each in its own process, so each peak memory is its own):
- dpdk: on the same batches, from the same initial parameters, on one device:
  `ours` (the step `train` runs: train/step.py's Stepper on device-resident instances), on CUDA
  also `ours-graph` (the same step replayed from a CUDA graph, `cuda_graphs`), and `straightforward`
  (nn.Embedding, nn.Linear, per-word log_softmax, sum over the window, log_softmax, soft
  cross-entropy on dense targets, Adadelta, the loss read after every step). Trainers alternate
  in blocks of --block steps; a block ends when the device has finished it (ours reads its loss
  there, as `train` does about every 100 ms), and speeds come from the median block, so other
  work on a shared machine slows all alike. Then, each alone: host syncs (reads of a device
  value, `aten::_local_scalar_dense`), operators and CUDA kernel launches per step from
  torch.profiler; and ours' step-time split (batch assembly, forward+backward, penalty and
  optimiser, the loss read), each part timed alone between device synchronisations. With
  --epoch, one full epoch of `train` with eager steps (and, on CUDA, with the default: CUDA graphs).
- synthetic: ours on a random collection with 50,000 people (e=300, n=8, m=1024),
  and the peak memory (the straightforward model too, for a few steps, with
  --straightforward-steps).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.loading import load_collection
from expert_gui.core.train.distributed import DistContext
from expert_gui.core.train.instances import make_instances
from expert_gui.core.train.net import (
    LogLinearNet,
    device_memory_bytes,
    initial_parameters,
    make_optimizer,
    select_device,
    weighted_mean_loss,
)
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.step import DeviceInstances, make_stepper
from expert_gui.core.train.trainer import READ_EVERY_S, train

ROOT = Path(__file__).resolve().parents[1]
LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
            "cudaGraphLaunch")
COPIES = ("cudaMemcpyAsync", "cudaMemsetAsync", "cudaMemcpy")


class Straightforward(nn.Module):
    """The model as one would first write it: a softmax per word of every window."""

    def __init__(self, wp, wc, b):
        super().__init__()
        self.embed = nn.Embedding.from_pretrained(wp.clone(), freeze=False)
        self.linear = nn.Linear(wc.shape[1], wc.shape[0])
        with torch.no_grad():
            self.linear.weight.copy_(wc)
            self.linear.bias.copy_(b)

    def loss(self, windows, targets, weights, l2):
        m = len(windows)
        per_word = torch.log_softmax(self.linear(self.embed(windows)), dim=-1)
        log_p = torch.log_softmax(per_word.sum(dim=1), dim=-1)
        ce = -(targets * log_p).sum(dim=1)
        penalty = self.embed.weight.pow(2).sum() + self.linear.weight.pow(2).sum()
        return (weights * ce).sum() / m + l2 / (2 * m) * penalty


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# -- the trainers: each has step(b) (no wait), finish() (waits; returns the summed loss) --------
class Ours:
    """The step `train` runs, on this run's batches."""

    def __init__(self, instances, n_words, n_people, settings, order, device):
        self.net = LogLinearNet(*initial_parameters(n_words, n_people, settings),
                                chunk=settings.candidate_chunk).to(device)
        self.optimizer = make_optimizer(self.net.parameters(), settings, device)
        self.data = DeviceInstances(instances, device)
        self.stepper = make_stepper(self.net, self.net, self.optimizer, self.data, settings,
                                    DistContext())
        self.plan = self.data.plan(order, settings.batch_size, DistContext())
        self.stepper.start_epoch(0.0, 0.0)

    def step(self, b: int) -> None:
        self.stepper.step(self.plan, b)

    def finish(self) -> float:
        return weighted_mean_loss(*self.stepper.read())


class Plain:
    """The straightforward model, its dense targets built on the host and copied over."""

    def __init__(self, instances, n_words, n_people, settings, order, device):
        self.model = Straightforward(*initial_parameters(n_words, n_people, settings)).to(device)
        self.optimizer = make_optimizer(self.model.parameters(), settings)
        self.instances, self.n_people, self.l2, self.device = (instances, n_people, settings.l2,
                                                               device)
        self.order, self.m, self.total = order, settings.batch_size, 0.0

    def step(self, b: int) -> None:
        idx = self.order[b * self.m:(b + 1) * self.m]
        targets = torch.from_numpy(self.instances.target_matrix(idx, self.n_people)).float()
        loss = self.model.loss(torch.from_numpy(self.instances.windows[idx]).long().to(self.device),
                               targets.to(self.device),
                               torch.from_numpy(self.instances.weights[idx]).float().to(self.device),
                               self.l2)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.total += loss.item() * len(idx)

    def finish(self) -> float:
        synchronize(self.device)
        return self.total


# -- measuring ----------------------------------------------------------------------------------
def run_blocks(trainers: dict, steps: int, block: int) -> dict[str, list[float]]:
    """Seconds per step of each block of `block` steps, the trainers taking turns."""
    times: dict[str, list[float]] = {name: [] for name in trainers}
    for start in range(0, steps - block + 1, block):
        for name, trainer in trainers.items():
            t = time.perf_counter()
            for b in range(start, start + block):
                trainer.step(b)
            trainer.finish()
            times[name].append((time.perf_counter() - t) / block)
    return times


def profile_steps(trainer, first: int, n: int, device) -> dict:
    """Host syncs, operators and CUDA launches per step over n steps (the final wait excluded
    for ours: `train` reads once per ~100 ms, not per step)."""
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda"
                                           else [])
    synchronize(device)
    with profile(activities=activities) as prof:
        for b in range(first, first + n):
            trainer.step(b)
        synchronize(device)
    events = prof.events()
    counts = {"host_syncs_per_step": 0, "operators_per_step": 0, "cuda_launches_per_step": 0,
              "cuda_copies_and_memsets_per_step": 0, "cuda_kernels_per_step": 0}
    for e in events:
        if e.name == "aten::_local_scalar_dense":
            counts["host_syncs_per_step"] += 1
        if e.name.startswith("aten::") and not _inside_operator(e):
            counts["operators_per_step"] += 1
        if e.name in LAUNCHES:
            counts["cuda_launches_per_step"] += 1
        if e.name in COPIES:
            counts["cuda_copies_and_memsets_per_step"] += 1
        if e.device_type == torch.autograd.DeviceType.CUDA:
            counts["cuda_kernels_per_step"] += 1
    out = {k: v / n for k, v in counts.items()}
    if device.type != "cuda":
        out = {k: v for k, v in out.items() if "cuda" not in k}
    return out


def _inside_operator(event) -> bool:
    parent = event.cpu_parent
    while parent is not None:
        if parent.name.startswith("aten::"):
            return True
        parent = parent.cpu_parent
    return False


def step_split(ours: Ours, first: int, n: int, device) -> dict:
    """Median seconds of each part of ours' step, each timed alone between synchronisations."""
    parts: dict[str, list[float]] = {"batch_assembly_s": [], "forward_backward_s": [],
                                     "penalty_and_optimizer_s": [], "loss_read_s": []}
    stepper = ours.stepper
    for b in range(first, first + n):
        idx, size, n_targets = ours.plan.batch(b)
        synchronize(device)
        t0 = time.perf_counter()
        batch = ours.data.batch(idx, n_targets)
        synchronize(device)
        t1 = time.perf_counter()
        ce = stepper.forward_backward(batch, size)
        synchronize(device)
        t2 = time.perf_counter()
        stepper.update(ce, size)
        synchronize(device)
        t3 = time.perf_counter()
        stepper.read()
        t4 = time.perf_counter()
        for key, dt in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            parts[key].append(dt)
    return {k: float(np.median(v)) for k, v in parts.items()}


def compare(collection: Collection, settings: TrainSettings, args, label: str,
            straightforward: bool) -> dict:
    device = torch.device(args.device)
    instances = make_instances(collection, settings.window, settings.overlapping)
    m = settings.batch_size
    extra = args.profile_steps + args.split_steps  # after the timed steps
    steps = args.steps
    rng = np.random.default_rng(0)  # as many shuffled epochs as the steps need
    order = np.concatenate([rng.permutation(len(instances))
                            for _ in range(math.ceil((steps + extra) * m / len(instances)))])
    order = order[:(steps + extra) * m]
    args_ = (instances, len(collection.vocab), collection.n_people, settings, order, device)
    eager = (*args_[:3], replace(settings, cuda_graphs=False), *args_[4:])
    trainers = {"ours": Ours(*eager)}
    if device.type == "cuda":
        trainers["ours-graph"] = Ours(*args_[:3], replace(settings, cuda_graphs=True),
                                      *args_[4:])
    if straightforward:
        trainers["straightforward"] = Plain(*args_)
    times = run_blocks(trainers, steps, args.block)
    out = {"set": label, "device": str(device), "instances": len(instances),
           "people": collection.n_people, "vocabulary": len(collection.vocab),
           "batch_size": m, "steps": steps, "block": args.block,
           "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
    losses = {name: t.finish() / (steps * m) for name, t in trainers.items()}
    for name, ts in times.items():
        kept = ts[1:] if len(ts) > 2 else ts  # the first block warms up (and captures)
        out[f"{name}_median_step_s"] = float(np.median(kept))
        out[f"{name}_fastest_step_s"] = float(np.min(kept))
        out[f"{name}_instances_per_s"] = m / float(np.median(kept))
        out[f"{name}_mean_loss"] = losses[name]
    for name in trainers:
        if name == "ours":
            continue
        out[f"ours_speedup_over_{name}"] = (out[f"{name}_median_step_s"]
                                            / out["ours_median_step_s"])
        out[f"ours_speedup_over_{name}_fastest_steps"] = (out[f"{name}_fastest_step_s"]
                                                          / out["ours_fastest_step_s"])
        out[f"relative_loss_difference_{name}"] = abs(losses[name] - losses["ours"]) / abs(
            losses[name])
    first = steps
    for name, trainer in trainers.items():
        if name == "ours-graph":
            out["ours-graph_captured"] = trainer.stepper.graph is not None
        for k, v in profile_steps(trainer, first, args.profile_steps, device).items():
            out[f"{name}_{k}"] = v
    # `train` reads the loss every READ_EVERY_S seconds (every step on the CPU, where it is free).
    every = READ_EVERY_S.get(device.type, 0.1)
    out["ours_loop_reads_per_step"] = min(1.0, out["ours_median_step_s"] / every) if every else 1.0
    out.update({f"ours_split_{k}": v for k, v in step_split(
        trainers["ours"], first + args.profile_steps, args.split_steps, device).items()})
    return out


def synthetic_collection(people=50_000, documents=50_000, vocabulary=20_000, seed=0):
    """Random documents of Zipf-distributed words, each with 1-3 people (words are letters
    only, since a token holding a digit is folded into the number token)."""
    rng = np.random.default_rng(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(letters[i // 26**k % 26] for k in range(4)) for i in range(vocabulary)]
    lengths = rng.integers(5, 60, documents)
    p = 1 / np.arange(1, vocabulary + 1)
    draws = rng.choice(vocabulary, lengths.sum(), p=p / p.sum())
    ends = np.cumsum(lengths)
    docs = ((f"d{i}", " ".join(words[w] for w in draws[e - n:e]))
            for i, (n, e) in enumerate(zip(lengths, ends, strict=True)))
    owners = rng.integers(0, people, (documents, 3))
    n_owners = rng.integers(1, 4, documents)
    assocs = [(f"d{i}", f"p{owners[i, j]:05d}") for i in range(documents)
              for j in range(n_owners[i])]
    assocs += [(f"d{i % documents}", f"p{i:05d}") for i in range(people)]  # everyone has one
    return Collection.from_records(docs, assocs, name="synthetic")


def part_dpdk(args) -> dict:
    t = time.perf_counter()
    collection = load_collection(Path(args.data))
    load_s = time.perf_counter() - t
    settings = TrainSettings(device=args.device)
    out = compare(collection, settings, args, "dpdk", straightforward=True)
    out["load_s"] = load_s
    if args.epoch:
        variants = {"epoch": replace(settings, cuda_graphs=False)}
        if args.device == "cuda":
            variants["epoch_cuda_graphs"] = replace(settings, cuda_graphs=True)
        for key, s in variants.items():
            t = time.perf_counter()
            model = train(collection, replace(s, epochs=1, checkpoint_every=0))
            out[f"{key}_s"] = time.perf_counter() - t
            out[f"{key}_val_loss"] = model.history[-1]["val_loss"]
    out["peak_memory_bytes"] = device_memory_bytes(torch.device(args.device))
    out["load_average_1min"] = os.getloadavg()[0]
    return out


def part_synthetic(args) -> dict:
    collection = synthetic_collection(people=args.people)
    settings = TrainSettings(device=args.device)
    before = device_memory_bytes(torch.device(args.device))
    out = compare(collection, settings, replace_args(args, steps=args.synthetic_steps),
                  f"synthetic-{args.people}", straightforward=False)
    out["peak_memory_bytes"] = device_memory_bytes(torch.device(args.device))
    out["peak_memory_before_training_bytes"] = before
    out["load_average_1min"] = os.getloadavg()[0]
    return out


def part_synthetic_straightforward(args) -> dict:
    collection = synthetic_collection(people=args.people)
    instances = make_instances(collection, 8)
    settings = TrainSettings(device=args.device)
    order = np.random.default_rng(0).permutation(len(instances))
    plain = Plain(instances, len(collection.vocab), collection.n_people, settings, order,
                  torch.device(args.device))
    times = run_blocks({"straightforward": plain}, args.straightforward_steps, 1)
    return {"set": f"synthetic-{args.people}-straightforward", "steps": len(times),
            "straightforward_instances_per_s": settings.batch_size / float(np.median(
                times["straightforward"])),
            "peak_memory_bytes": device_memory_bytes(torch.device(args.device))}


def replace_args(args, **changes):
    return argparse.Namespace(**{**vars(args), **changes})


PARTS = {"dpdk": part_dpdk, "synthetic": part_synthetic,
         "synthetic-straightforward": part_synthetic_straightforward}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", nargs="?", default="../shared/data/dpdk-maintainers")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--steps", type=int, default=None,
                   help="timed steps of each DPDK trainer (default 180 on a CPU, 1000 on CUDA)")
    p.add_argument("--block", type=int, default=None,
                   help="steps per block (default 10 on a CPU, 50 on CUDA)")
    p.add_argument("--profile-steps", type=int, default=5, help="steps profiled, per trainer")
    p.add_argument("--split-steps", type=int, default=20, help="steps of ours' step-time split")
    p.add_argument("--synthetic-steps", type=int, default=50)
    p.add_argument("--straightforward-steps", type=int, default=0,
                   help="steps of the straightforward model on the synthetic set (0: skip)")
    p.add_argument("--people", type=int, default=50_000)
    p.add_argument("--epoch", action="store_true", help="also time one full epoch of `train`")
    p.add_argument("--parts", default="dpdk,synthetic",
                   help=f"comma-separated, of {sorted(PARTS)} (default dpdk,synthetic)")
    p.add_argument("--part", choices=sorted(PARTS), help="run one part in this process")
    args = p.parse_args()
    cuda = args.device.startswith("cuda")
    if args.block is None:
        args.block = 50 if cuda else 10
    if args.steps is None:
        args.steps = 1000 if cuda else 180
    select_device(args.device)  # refuses a device that is not there
    if args.part:
        print(json.dumps(PARTS[args.part](args)))
        return
    print(f"device: {args.device}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    parts = args.parts.split(",")
    if args.straightforward_steps and "synthetic-straightforward" not in parts:
        parts.append("synthetic-straightforward")
    for part in parts:
        cmd = [sys.executable, __file__, *sys.argv[1:], "--part", part]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{part}: failed\n{result.stderr[-3000:]}")
            continue
        out = json.loads(result.stdout.strip().splitlines()[-1])
        print(json.dumps(out, indent=1), flush=True)


if __name__ == "__main__":
    main()
