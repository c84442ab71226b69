"""Where a process's first training run spends its time before and between its steps, against
the same run again in the same process (the baseline: torch imported, the device started,
nothing left to load lazily), and what the checkpoints at the epochs' ends add.

    .venv/bin/python benchmarks/first_run_timeline.py COLLECTION [--device cuda]

It prints the seconds since the process started at which torch was imported, this project's
modules were, the collection was loaded and the device answered; then, for each run, its whole
time, when its progress reported step 1, 5 and 20, when each epoch began, and its last event.
On an H200 (docs/results/gpu.md) DPDK's first run took 5.0 s, the same run again 0.9 s: most
of the difference came before step 1.
"""

from __future__ import annotations

import argparse
import tempfile
import time

START = time.perf_counter()


def since_start() -> float:
    return time.perf_counter() - START


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("collection")
    p.add_argument("--device", default="cuda")
    args = p.parse_args()
    import torch

    imported_torch = since_start()
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.train.settings import TrainSettings
    from expert_gui.core.train.trainer import train

    imported = since_start()
    collection = load_collection(args.collection)
    loaded = since_start()
    if args.device == "cuda":
        torch.zeros(1, device="cuda")
        torch.cuda.synchronize()
    print(f"since the start: torch imported {imported_torch:.2f} s, the project's modules "
          f"{imported:.2f} s, collection loaded {loaded:.2f} s, device up {since_start():.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        for label, out, every in (("first run, no checkpoints", None, 0),
                                  ("the same again", None, 0),
                                  ("again, a checkpoint at each epoch's end", folder, 10**9)):
            events = []
            start = time.perf_counter()
            train(collection, TrainSettings(device=args.device, checkpoint_every=every,
                                            checkpoint_minutes=0), out_dir=out,
                  progress=lambda e, s=start, seen=events: seen.append(
                      (time.perf_counter() - s, e.step, e.epoch, e.path)))
            total = time.perf_counter() - start
            epochs = {}
            for t, _, epoch, _ in events:
                epochs.setdefault(epoch, t)
            at = [t for t, *_ in events]
            print(f"{label}: {total:.2f} s, {events[-1][1]} steps on {events[-1][3]}; step 1 at "
                  f"{at[0]:.2f} s, step 5 at {at[min(4, len(at) - 1)]:.2f}, step 20 at "
                  f"{at[min(19, len(at) - 1)]:.2f}; epochs began at "
                  + ", ".join(f"{t:.2f}" for _, t in sorted(epochs.items()))
                  + f"; last event {at[-1]:.2f} s")


if __name__ == "__main__":
    main()
