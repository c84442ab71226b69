"""Where calibration's time goes, by its named progress steps (the texts `train` and the app
show), for each ranking device asked: None (numpy) and "cpu" (the rankers' torch path, which
stands for the GPU's: there the ranking shrinks and the steps that run on the host whatever the
device are what is left).

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_calibration_steps.py \\
        /tmp/dpdk20 --model /tmp/dpdk20-model [--devices none cpu] [--old-rev e546ccf] \\
        [--repeats 1] [--save OUT.json] [--compare OUT.json]

The model's own held-out documents are the queries (as `bench_calibration.py --model`). Prints
the seconds of each step per device (medians over --repeats); ranking steps of auto's members
are summed over their blocks. With --old-rev, the calibration, P(expert)'s fit and auto's choice
of that revision (`bench_calibration.old_calibration`, this tree's rankers) take turns with
this tree's, step by step, and their records are compared. --save writes each device's record,
so that another tree's can be compared with it (--compare OUT.json). Compared: auto's decision,
weights and evidence (bagged weights, out-of-fold MAP, p), every method's AP and RR to 1e-9,
and the fits of P(expert) to 1e-9 relative.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from bench_calibration import old_calibration, same

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation import calibration
from expert_gui.core.evaluation.heldout import held_out_again
from expert_gui.core.store.storage import load_model


def timed_steps(calibrate, model, split, device: str | None
                ) -> tuple[dict[str, float], float, dict]:
    """Seconds per named step of one calibration (each step lasts until the next event), the
    total, and the calibration record."""
    seconds: dict[str, float] = {}
    state = {"what": "building auto's members, ranking their first block", "since": time.perf_counter()}

    def progress(event) -> None:
        now = time.perf_counter()
        what = state["what"]
        seconds[what] = seconds.get(what, 0.0) + now - state["since"]
        state["what"], state["since"] = event[2], now

    start = time.perf_counter()
    record = calibrate(model, split, progress=progress, device=device)
    end = time.perf_counter()
    seconds[state["what"]] = seconds.get(state["what"], 0.0) + end - state["since"]
    return seconds, end - start, record


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("collection")
    p.add_argument("--model", required=True)
    p.add_argument("--devices", nargs="+", default=["none", "cpu"])
    p.add_argument("--old-rev", help="also time this revision's calibration, step by step")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--save", type=Path, help="write each device's calibration record here")
    p.add_argument("--compare", type=Path, help="compare with the records saved here")
    args = p.parse_args(argv)
    paths = {"new": calibration.calibrate}
    if args.old_rev:
        paths["old"] = old_calibration(args.old_rev).calibrate
    model = load_model(args.model)
    split = held_out_again(load_collection(args.collection), model.calibration)
    print(f"{len(split.documents):,} held-out documents, {split.training.n_documents:,} "
          f"documents indexed, {split.training.n_people:,} people", flush=True)
    records, problems = {}, []
    saved = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else {}
    for name in args.devices:
        device = None if name == "none" else name
        steps = {path: {} for path in paths}
        totals = {path: [] for path in paths}
        for _ in range(args.repeats):  # the paths take turns, so that load hits both
            for path, calibrate in paths.items():
                seconds, total, record = timed_steps(calibrate, model, split, device)
                for what, s in seconds.items():
                    steps[path].setdefault(what, []).append(s)
                totals[path].append(total)
                records.setdefault(name, {})[path] = record
                print(f"  device {name}, {path}: {total:.1f} s", flush=True)
        print(f"\ndevice {name}, medians of {args.repeats} (seconds): "
              + ", ".join(f"{path} {statistics.median(t):.1f}" for path, t in totals.items()))
        print("  " + "  ".join(f"{path:>7}" for path in paths) + "  step")
        for what in steps["new"] | steps.get("old", {}):
            cells = [f"{statistics.median(steps[path][what]):7.1f}" if what in steps[path]
                     else "      -" for path in paths]
            print("  " + "  ".join(cells) + f"  {what}")
        new = records[name]["new"]
        if "old" in paths:
            problems += [f"{name}, old vs new: {d}" for d in
                         same(records[name]["old"], new, fits=1e-9)]
        if name in saved:
            problems += [f"{name}, saved vs new: {d}" for d in
                         same(saved[name], new, fits=1e-9)]
    if args.save:
        args.save.write_text(json.dumps({name: r["new"] for name, r in records.items()}),
                             encoding="utf-8")
    if args.old_rev or args.compare:
        print("the same decisions, measures and fits: "
              + ("yes" if not problems else "NO\n  " + "\n  ".join(problems)))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
