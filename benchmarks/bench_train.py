"""Trainer speed and memory: ours against a straightforward PyTorch version of the same model.

    .venv/bin/python benchmarks/bench_train.py ../shared/data/dpdk-maintainers [--steps 100]

Parts (each in its own process, so each peak resident memory is its own):
- dpdk: instances/s of `training.window_cross_entropy` and of the straightforward model
  (nn.Embedding, nn.Linear, per-word log_softmax, sum over the window, log_softmax, soft
  cross-entropy on dense targets, Adadelta), the same batches from the same initial parameters,
  with the loss of both at the end, and the time of the loss and its gradient alone (the
  optimiser's update of the dense W_p is the same work for both); with --epoch, the time of one
  full epoch of `train`.
- synthetic: `train` on a random collection with 50,000 people (e=300, n=8, m=1024) for a few
  hundred steps, and its peak resident memory (and the straightforward model's, for a few steps).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from expert_gui.core.collection import Collection, CollectionBuilder
from expert_gui.core.instances import Instances, make_instances
from expert_gui.core.text import TextSettings
from expert_gui.core.training import (
    LogLinearNet,
    TrainSettings,
    initial_parameters,
    make_optimizer,
    select_device,
    train,
)


def load_dpdk(path: str | Path, settings: TextSettings = TextSettings()) -> Collection:
    """The DPDK collection (through core.loading when present, else its two TSV files)."""
    path = Path(path)
    try:
        from expert_gui.core.loading import load_collection
    except ImportError:
        load_collection = None
    if load_collection is not None:
        return load_collection(path, settings=settings)
    csv.field_size_limit(1 << 30)
    b = CollectionBuilder(settings, name=path.name)
    with open(path / "documents.tsv", encoding="utf-8", newline="") as f:
        for line, row in enumerate(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE), 2):
            b.add_document(row["doc_id"], row["text"], f.name, line)
    with open(path / "associations.tsv", encoding="utf-8", newline="") as f:
        for line, row in enumerate(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE), 2):
            b.add_association(row["doc_id"], row["person_id"], f.name, line)
    return b.build(fingerprint=f"dpdk-{path.stat().st_mtime_ns}", source=str(path))


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


def _batches(instances: Instances, settings: TrainSettings, steps: int):
    order = np.random.default_rng(0).permutation(len(instances))
    m = settings.batch_size
    return [order[i * m:(i + 1) * m] for i in range(min(steps, math.ceil(len(order) / m)))]


def ours(instances, n_words, n_people, settings):
    """One step of the trainer's own loss (`LogLinearNet` + the hand-added penalty gradient)."""
    net = LogLinearNet(*initial_parameters(n_words, n_people, settings))
    opt = make_optimizer(net.parameters(), settings)

    def step(idx) -> tuple[float, float]:
        rows, people, probs = instances.targets(idx)
        t = time.perf_counter()
        ce = net(torch.from_numpy(instances.windows[idx]).long(), torch.from_numpy(rows),
                 torch.from_numpy(people), torch.from_numpy(probs).float(),
                 torch.from_numpy(instances.weights[idx]).float(), len(idx))
        opt.zero_grad(set_to_none=True)
        ce.backward()
        penalty = net.add_penalty(settings.l2, len(idx))
        model_s = time.perf_counter() - t
        opt.step()
        return ce.item() + penalty, model_s

    return step


def straightforward(instances, n_words, n_people, settings):
    model = Straightforward(*initial_parameters(n_words, n_people, settings))
    opt = make_optimizer(model.parameters(), settings)

    def step(idx) -> tuple[float, float]:
        targets = torch.from_numpy(instances.target_matrix(idx, n_people)).float()
        t = time.perf_counter()
        loss = model.loss(torch.from_numpy(instances.windows[idx]).long(), targets,
                          torch.from_numpy(instances.weights[idx]).float(), settings.l2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        model_s = time.perf_counter() - t
        opt.step()
        return loss.item(), model_s

    return step


def timed(step, batches) -> tuple[list[float], list[float], list[float]]:
    """Per step: seconds of the whole step, seconds of the loss and its gradient, the loss."""
    whole, model, losses = [], [], []
    for idx in batches:
        t = time.perf_counter()
        loss, model_s = step(idx)
        whole.append(time.perf_counter() - t)
        model.append(model_s)
        losses.append(loss)
    return whole, model, losses


def compare(collection: Collection, settings: TrainSettings, steps: int, label: str,
            straightforward_steps: int | None = None) -> dict:
    """Both trainers on the same batches; their steps alternate in blocks of 5, and speeds are
    from median step times (and fastest steps), so other work on the machine slows both alike
    and spikes drop out."""
    instances = make_instances(collection, settings.window, settings.overlapping)
    batches = _batches(instances, settings, steps)
    args = (instances, len(collection.vocab), collection.n_people, settings)
    sb = batches if straightforward_steps is None else batches[:straightforward_steps]
    ours_step = ours(*args)
    base_step = straightforward(*args) if sb else None
    ours_t: tuple[list, list, list] = ([], [], [])
    base_t: tuple[list, list, list] = ([], [], [])
    for start in range(0, len(batches), 5):
        for acc, more in zip(ours_t, timed(ours_step, batches[start:start + 5]), strict=True):
            acc.extend(more)
        if base_step is not None and start < len(sb):
            for acc, more in zip(base_t, timed(base_step, sb[start:start + 5]), strict=True):
                acc.extend(more)
    m = settings.batch_size
    out = {"set": label, "instances": len(instances), "people": collection.n_people,
           "vocabulary": len(collection.vocab), "steps": len(batches),
           "ours_median_step_s": float(np.median(ours_t[0])),
           "ours_fastest_step_s": float(np.min(ours_t[0])),
           "ours_instances_per_s": m / float(np.median(ours_t[0])),
           "ours_median_loss_and_gradient_s": float(np.median(ours_t[1])),
           "ours_final_loss": float(np.mean(ours_t[2][-10:]))}
    if sb:
        out.update({
            "straightforward_steps": len(sb),
            "straightforward_median_step_s": float(np.median(base_t[0])),
            "straightforward_fastest_step_s": float(np.min(base_t[0])),
            "straightforward_instances_per_s": m / float(np.median(base_t[0])),
            "straightforward_median_loss_and_gradient_s": float(np.median(base_t[1])),
            "straightforward_final_loss": float(np.mean(base_t[2][-10:])),
            "speedup": float(np.median(base_t[0]) / np.median(ours_t[0])),
            # Fastest steps: what each costs when nothing else runs (robust on a shared box).
            "speedup_fastest_steps": float(np.min(base_t[0]) / np.min(ours_t[0])),
            "speedup_loss_and_gradient": float(np.median(base_t[1]) / np.median(ours_t[1])),
        })
        if len(sb) == len(batches):
            out["max_relative_loss_difference"] = float(np.max(
                np.abs(np.array(ours_t[2]) - np.array(base_t[2])) / np.abs(np.array(base_t[2]))))
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


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def part_dpdk(args) -> dict:
    t = time.perf_counter()
    collection = load_dpdk(args.data)
    load_s = time.perf_counter() - t
    settings = TrainSettings(device="cpu")
    out = compare(collection, settings, args.steps, "dpdk")
    out["load_s"] = load_s
    if args.epoch:
        t = time.perf_counter()
        model = train(collection, TrainSettings(epochs=1, device="cpu", checkpoint_every=0))
        out["epoch_s"] = time.perf_counter() - t
        out["epoch_val_loss"] = model.history[-1]["val_loss"]
    out["peak_rss_bytes"] = peak_rss_bytes()
    out["load_average_1min"] = os.getloadavg()[0]
    return out


def part_synthetic(args) -> dict:
    collection = synthetic_collection(people=args.people)
    settings = TrainSettings(device="cpu")
    rss_before = peak_rss_bytes()
    out = compare(collection, settings, args.synthetic_steps, f"synthetic-{args.people}",
                  straightforward_steps=0)
    out["peak_rss_bytes"] = peak_rss_bytes()
    out["peak_rss_before_training_bytes"] = rss_before
    out["load_average_1min"] = os.getloadavg()[0]
    return out


def part_synthetic_straightforward(args) -> dict:
    collection = synthetic_collection(people=args.people)
    instances = make_instances(collection, 8)
    batches = _batches(instances, TrainSettings(), args.straightforward_steps)
    whole, _, _ = timed(straightforward(instances, len(collection.vocab), collection.n_people,
                                        TrainSettings()), batches)
    return {"set": f"synthetic-{args.people}-straightforward", "steps": len(batches),
            "straightforward_instances_per_s": TrainSettings().batch_size / np.median(whole),
            "peak_rss_bytes": peak_rss_bytes()}


PARTS = {"dpdk": part_dpdk, "synthetic": part_synthetic,
         "synthetic-straightforward": part_synthetic_straightforward}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", nargs="?", default="../shared/data/dpdk-maintainers")
    p.add_argument("--steps", type=int, default=100, help="steps of each DPDK trainer")
    p.add_argument("--synthetic-steps", type=int, default=100)
    p.add_argument("--straightforward-steps", type=int, default=0,
                   help="steps of the straightforward model on the synthetic set (0: skip)")
    p.add_argument("--people", type=int, default=50_000)
    p.add_argument("--epoch", action="store_true", help="also time one full epoch of `train`")
    p.add_argument("--part", choices=sorted(PARTS), help="run one part in this process")
    args = p.parse_args()
    print(f"device available: {select_device('auto')}; torch threads: {torch.get_num_threads()}",
          file=sys.stderr)
    if args.part:
        print(json.dumps(PARTS[args.part](args)))
        return
    parts = ["dpdk", "synthetic"] + (["synthetic-straightforward"]
                                     if args.straightforward_steps else [])
    for part in parts:
        cmd = [sys.executable, __file__, *sys.argv[1:], "--part", part]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{part}: failed\n{result.stderr[-2000:]}")
            continue
        out = json.loads(result.stdout.strip().splitlines()[-1])
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
