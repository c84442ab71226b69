"""Calibration on the held-out documents: the per-query loop of main (every method ranks one
held-out document at a time) against the batch path (`rank_batch`, each method built once), in
the same run, on the same model and split.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_calibration.py \\
        /work/shared/data/dpdk-maintainers [--model DIR] [--repeats 3] [--old-rev main]

The old path is `calibrate` of the calibration module at `--old-rev` (git show), with that
revision's fit of P(expert) and choice of auto's weights, run against this tree's rankers, whose
per-query `rank` is the reference. Without --model a model is trained
first (64 dimensions, one epoch: what it learnt does not change the cost, and the weights and
MAPs of both paths are compared on it). Prints each path's median seconds, the ratio, and
whether auto's weights, decision and every method's held-out MAP and MRR agree (to 1e-9).

With --old-tree REV the whole of that revision (its rankers too: what a user waited for then)
also calibrates the same model and split in a process of its own, timed in the same run; its
weights and measures are compared with the new path's (LSI's to 1e-3: its SVD is fitted in
single precision since). The model is handed to it re-signed without the manifest keys that
revision does not know (OLD_UNKNOWN).

With --prebuilt every method's index (Model 1 and 2's term matrices, TF-IDF, LSI's SVD) is built
once before the timings (make_ranker remembers what it built), so they time the ranking of the
held-out documents, auto's choice, the fits and the measures alone.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation import calibration
from expert_gui.core.evaluation.heldout import HeldOutSettings, held_out_again, hold_out
from expert_gui.core.store.storage import load_model

OLD_MODULES = ("probability_fit", "fusion_choice", "calibration")  # imported in this order
OLD_UNKNOWN = ("retrained",)  # calibration keys newer than the revisions compared with

# run by --old-tree's process, with the old revision first on sys.path
OLD_TREE_SCRIPT = """
import json, shutil, sys, tempfile, time
from pathlib import Path
from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import calibrate
from expert_gui.core.evaluation.heldout import held_out_again
from expert_gui.core.store.manifest import digest
from expert_gui.core.store.storage import load_model
collection, model_dir, unknown = sys.argv[1], sys.argv[2], sys.argv[3:]
copy = Path(tempfile.mkdtemp()) / "model"
shutil.copytree(model_dir, copy)
manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
for key in unknown:
    manifest.get("calibration", {}).pop(key, None)
manifest.pop("sha256")
manifest["sha256"] = digest((copy / "model.safetensors").read_bytes(), manifest)
(copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
model = load_model(copy)
split = held_out_again(load_collection(collection), model.calibration)
start = time.perf_counter()
result = calibrate(model, split)
print(json.dumps({"seconds": time.perf_counter() - start, "calibration": result}))
"""


def old_calibration(rev: str):
    """The calibration module as it was at `rev`, imported beside this tree's, with the fit of
    P(expert) and auto's choice it used then (the rankers are this tree's)."""
    root = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp())
    saved = {}
    try:
        for name in OLD_MODULES:
            full = f"expert_gui.core.evaluation.{name}"
            source = subprocess.run(["git", "-C", str(root), "show",
                                     f"{rev}:expert_gui/core/evaluation/{name}.py"],
                                    check=True, capture_output=True, text=True).stdout
            path = folder / f"old_{name}.py"
            path.write_text(source, encoding="utf-8")
            spec = importlib.util.spec_from_file_location(f"old_{name}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[f"old_{name}"] = module  # dataclasses look their module up
            spec.loader.exec_module(module)
            saved.setdefault(full, sys.modules.get(full))
            sys.modules[full] = module  # what the next old module imports
    finally:
        for full, module in saved.items():
            sys.modules[full] = module
    return sys.modules["old_calibration"]


def old_tree_folder(rev: str) -> Path:
    """Revision `rev`'s code (git archive) in a folder of its own."""
    root = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp())
    archive = subprocess.run(["git", "-C", str(root), "archive", rev, "expert_gui", "resources"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def old_tree(folder: Path, collection: str, model_dir: str) -> tuple[float, dict]:
    """One calibration by the code in `folder` as a whole, in a process of its own: its
    seconds (the load left out) and its record."""
    done = subprocess.run([sys.executable, "-c", OLD_TREE_SCRIPT, str(Path(collection).resolve()),
                           str(Path(model_dir).resolve()), *OLD_UNKNOWN], cwd=folder, check=True,
                          stdout=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": str(folder),
                               "EXPERT_GUI_HOME": str(folder / "home")})
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["seconds"], result["calibration"]


def model_and_split(collection_path: str, model_dir: str | None):
    collection = load_collection(collection_path)
    if model_dir:
        model = load_model(model_dir)
        return model, held_out_again(collection, model.calibration)
    from expert_gui.core.train.settings import TrainSettings
    from expert_gui.core.train.trainer import train

    split = hold_out(collection, HeldOutSettings())
    start = time.perf_counter()
    model = train(split.training, TrainSettings(dim=64, epochs=1, checkpoint_every=0))
    print(f"trained a 64-dimensional model for one epoch in {time.perf_counter() - start:.0f} s",
          flush=True)
    return model, split


def prebuild() -> None:
    """make_ranker remembers each ranker it builds (both paths import it when they run)."""
    from expert_gui.core.rankers import methods

    build, built = methods.make_ranker, {}

    def remembered(method, **kwargs):
        key = (method, *sorted((k, v) for k, v in kwargs.items() if k not in ("model",
                                                                            "collection")))
        if key not in built:
            built[key] = build(method, **kwargs)
        return built[key]

    methods.make_ranker = remembered


def same(a: dict, b: dict, loose: Mapping[str, float] = {}, fits: float = 1e-6) -> list[str]:
    """What differs between two calibrations (empty: the same decision, weights and evidence
    (bagged weights, out-of-fold MAP, p) to 1e-9, every method's measures to 1e-9 and fit of
    P(expert) to `fits` relative; a method of `loose` to its tolerance instead)."""
    problems = []
    fa, fb = a["fusion"], b["fusion"]
    if fa["decision"] != fb["decision"] or max(
            abs(x - y) for x, y in zip(fa["weights"], fb["weights"], strict=True)) > 1e-9:
        problems.append(f"auto: {fa['decision']} {fa['weights']} vs {fb['decision']} "
                        f"{fb['weights']}")
    for key in ("bagged_weights", "bootstrap_sd"):
        if any(abs(x - y) > 1e-9 for x, y in zip(fa.get(key, ()), fb.get(key, ()),
                                                  strict=True)):
            problems.append(f"auto's {key}: {fa.get(key)} vs {fb.get(key)}")
    for key in ("anchor_map", "oof_map", "p"):
        x, y = fa["cv"].get(key), fb["cv"].get(key)
        if (x is None) != (y is None) or (x is not None and abs(x - y) > 1e-9):
            problems.append(f"auto's {key}: {x} vs {y}")
    for method, m in a["measures"].items():
        for k, v in m.items():
            if abs(v - b["measures"][method][k]) > loose.get(method, 1e-9):
                problems.append(f"{method} {k}: {v:.6f} vs {b['measures'][method][k]:.6f}")
    if set(a["probability"]) != set(b["probability"]):
        problems.append(f"fits of {sorted(a['probability'])} vs {sorted(b['probability'])}")
    for method, fit in a["probability"].items():
        other = b["probability"].get(method, fit)
        for k in ("slope", "intercept", "queries"):
            if abs(fit[k] - other[k]) > max(fits, loose.get(method, 0)) * max(1, abs(fit[k])):
                problems.append(f"{method} P(expert) {k} {fit[k]!r} vs {other[k]!r}")
    return problems


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("collection")
    p.add_argument("--model")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--old-rev", default="main")
    p.add_argument("--prebuilt", action="store_true", help="build every index before timing")
    p.add_argument("--old-tree", metavar="REV",
                   help="also time REV's calibration as a whole, rankers included (needs --model)")
    args = p.parse_args(argv)
    if args.old_tree and not args.model:
        p.error("--old-tree needs --model")
    old = old_calibration(args.old_rev)
    model, split = model_and_split(args.collection, args.model)
    print(f"{len(split.documents):,} held-out documents, {split.training.n_documents:,} "
          f"documents indexed, {split.training.n_people:,} people", flush=True)
    if args.prebuilt:
        prebuild()
        calibration.calibrate(model, split)
        print("every method's index built", flush=True)
    times = {"old": [], "new": []}
    results = {}
    tree = old_tree_folder(args.old_tree) if args.old_tree else None
    for _ in range(args.repeats):  # interleaved, so that a change of load hits every path
        for name, fn in (("new", calibration.calibrate), ("old", old.calibrate)):
            start = time.perf_counter()
            results[name] = fn(model, split)
            times[name].append(time.perf_counter() - start)
            print(f"  {name}: {times[name][-1]:.2f} s", flush=True)
        if tree is not None:
            seconds, results["tree"] = old_tree(tree, args.collection, args.model)
            times.setdefault("tree", []).append(seconds)
            print(f"  {args.old_tree} as a whole: {seconds:.2f} s", flush=True)
    old_s, new_s = (statistics.median(times[k]) for k in ("old", "new"))
    what = "calibration with every index built before" if args.prebuilt else "calibration"
    print(f"{what}, median of {args.repeats}: {args.old_rev}'s calibration module {old_s:.2f} s, "
          f"this tree's {new_s:.2f} s, {old_s / new_s:.1f}x faster")
    problems = same(results["old"], results["new"])
    if tree is not None:
        tree_s = statistics.median(times["tree"])
        print(f"{args.old_tree} as a whole (its rankers too), median of {args.repeats}: "
              f"{tree_s:.2f} s, this tree's {new_s:.2f} s, {tree_s / new_s:.1f}x faster")
        problems += [f"{args.old_tree} as a whole: {p}" for p in
                     same(results["tree"], results["new"], loose={"lsi": 1e-3})]
    fusion = results["new"]["fusion"]
    print(f"auto: {fusion['decision']}, weights {[round(w, 4) for w in fusion['weights']]}")
    print("held-out MAP: " + ", ".join(f"{m} {v['AP']:.4f}"
                                       for m, v in results["new"]["measures"].items()))
    print("same weights, decision, MAPs, MRRs and fits: " + ("yes" if not problems else
                                                             "NO\n  " + "\n  ".join(problems)))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
