"""Every real export of ../shared/realfiles trained as the app trains it: held-out MAP of the
log-linear model and of `auto` against the best baseline, at the paper's settings and at the
settings suggested for the export's size (core/train/shape.py), in one run; and what the app
says of each model (its warning or note, or why nothing could measure it).

    .venv/bin/python benchmarks/realfiles_training.py [--realfiles ../shared/realfiles]
        [--threads 1] [--only NAME ...] [--settings paper suggested] [--cache FILE] [--out FILE]

Each export is opened as the app opens it (the file, or the folder for a folder of exports);
2% of its documents (at least 50) are held out, seeded 0, as the Train button does. The best
baseline is the best held-out MAP of every single method but the log-linear model (Model 1 and 2
with both smoothings, TF-IDF, LSI). A folder this branch cannot read is listed as such. Results
are kept in --cache (JSON lines, one per export and settings) so a run can be resumed; --out
writes the Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import ExpertGuiError
from expert_gui.core.evaluation.calibration import train_and_calibrate
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
from expert_gui.core.evaluation.quality import (
    CHANCE,
    held_out_note,
    held_out_shortfall,
    held_out_warning,
    training_advice,
)
from expert_gui.core.evaluation.tables import label
from expert_gui.core.train.instances import count_instances
from expert_gui.core.train.settings import TrainSettings, suggested_settings
from expert_gui.core.train.shape import run_steps

NOT_BASELINES = ("loglinear", "auto", "ensemble", CHANCE)


def exports(root: Path) -> list[Path]:
    """What a user opens for each folder of the README: its one file, or the folder itself
    when it holds several files (a folder of exports)."""
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [f for f in folder.iterdir() if f.is_file()]
        out.append(files[0] if len(files) == 1 else folder)
    return out


def first_kinds(root: Path) -> set[str]:
    """The folders of the README's first table: the kinds the app read before the ones "added
    later" (which another branch teaches it)."""
    text = (root / "README.md").read_text(encoding="utf-8").split("Added later")[0]
    return {line.split("|")[1].strip().split("/")[0] for line in text.splitlines()
            if line.startswith("| ") and "/" in line.split("|")[1]}


def measure(path: Path, which: str, threads: int) -> dict:
    """Train `path`'s collection as the app would, at the paper's or the suggested settings:
    the numbers (what the app says is made from them at the end, by the current code)."""
    try:
        collection = load_collection(path)
    except (ExpertGuiError, ValueError, OSError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    base = TrainSettings(threads=threads, checkpoint_every=0, checkpoint_minutes=0,
                         retrain_on_all=False)  # held-out figures of the measured model
    found = suggested_settings(path, base, collection=collection) if which == "suggested" \
        else None
    if found is not None and found.settings == base:
        return {"same_as": "paper"}  # the same model as the paper's settings train
    settings = found.settings if found else base
    split = hold_out(collection, HeldOutSettings(seed=settings.seed))
    per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
    row = {"format": collection.report.format, "documents": collection.n_documents,
           "people": collection.n_people, "one_document": int(np.sum(per_person == 1)),
           "held_out": len(split.documents), "batch_size": settings.batch_size,
           "epochs": settings.epochs}
    if not len(split.documents):
        return row  # nothing to measure the model with: the app says why (`says`)
    started = time.perf_counter()
    model = train_and_calibrate(split, settings)
    row["seconds"] = time.perf_counter() - started
    if model.calibration:
        row |= {"measures": {m: v["AP"] for m, v in model.calibration["measures"].items()},
                "auto": model.calibration["fusion"]["label"]}
    return row


def says(path: Path, row: dict) -> str:
    """What the app says of the model `row` measured: why nothing measured it, its warning (⚠)
    or its note, with what to change; 'nothing' when it learned."""
    collection = load_collection(path)
    if "measures" not in row:
        return held_out_shortfall(collection, row["held_out"])
    measures = {m: {"AP": v, "RR": v} for m, v in row["measures"].items()}
    trained = TrainSettings(batch_size=row["batch_size"], epochs=row["epochs"])
    # the steps such a run takes on every document (the held-out ones are not in the cache)
    steps = run_steps(count_instances(collection, trained.window, trained.overlapping), trained)
    model = SimpleNamespace(settings={**trained.to_dict(), "steps": steps}, calibration=None)
    quality = {"documents": row["held_out"], "advice": training_advice(model, collection)}
    warning = held_out_warning(measures, **quality)
    return (f"⚠ {warning}" if warning else held_out_note(measures, **quality) or
            held_out_shortfall(collection, row["held_out"]) or "nothing: the model learned")


def table(rows: dict[str, dict[str, dict]], root: Path, title: str) -> str:
    lines = [f"### {title}", "", "| export (read as) | documents | people (one document) | held "
             "out | settings | log-linear | auto | best baseline | auto - best | what the app "
             "says |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, by in rows.items():
        for which in ("paper", "suggested"):
            r = by.get(which)
            if r is None:
                continue
            if "documents" not in r:
                why = r["error"].split(str(root / name))[-1].lstrip(":0123456789 ")
                lines.append(f"| {name} | not read by this branch: {why.split(';')[0][:90]} "
                             "| | | | | | | | |")
                break
            first = which == "paper" or "paper" not in by
            head = (f"| {name} ({r['format']}) | {r['documents']:,} | {r['people']:,} "
                    f"({r['one_document']:,}) | {r['held_out']} |" if first else "| | | | |")
            head += f" {which}: batch {r['batch_size']:,}, {r['epochs']} epochs |"
            text = says(root / name, r).replace("|", "/")
            if "measures" not in r:
                lines.append(f"{head} – | – | – | – | {text} |")
                continue
            m = r["measures"]
            base = {k: v for k, v in m.items() if k not in NOT_BASELINES}
            best = max(base, key=base.get)
            lines.append(f"{head} {m['loglinear']:.3f} | {m['auto']:.3f} | {label(best)} "
                         f"{base[best]:.3f} | {m['auto'] - base[best]:+.3f} | {text} |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--realfiles", type=Path, default=Path("../shared/realfiles"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--only", nargs="+", default=[])
    p.add_argument("--settings", nargs="+", default=["paper", "suggested"],
                   choices=["paper", "suggested"])
    p.add_argument("--cache", type=Path, default=Path("/tmp/realfiles-training.jsonl"))
    p.add_argument("--out", type=Path)
    args = p.parse_args()

    done = {}
    if args.cache.is_file():
        for line in args.cache.read_text().splitlines():
            r = json.loads(line)
            done[(r["export"], r["which"])] = r["row"]
    rows: dict[str, dict[str, dict]] = {}
    for path in exports(args.realfiles):
        name = str(path.relative_to(args.realfiles))
        if args.only and not any(o in name for o in args.only):
            continue
        for which in sorted(args.settings):  # the paper's first: a suggestion may be the same
            if (name, which) not in done:
                row = measure(path, which, args.threads)
                done[(name, which)] = row
                with args.cache.open("a") as f:
                    f.write(json.dumps({"export": name, "which": which, "row": row}) + "\n")
            r = done[(name, which)]
            if r.get("same_as"):
                r = done.get((name, r["same_as"])) or measure(path, r["same_as"], args.threads)
            rows.setdefault(name, {})[which] = r
            print(f"{name} [{which}]: " + (
                f"log-linear {r['measures']['loglinear']:.3f}, auto {r['measures']['auto']:.3f}"
                f" ({r.get('seconds', 0):.0f} s)" if "measures" in r else
                r.get("error", "no held-out documents")), file=sys.stderr, flush=True)
    first = first_kinds(args.realfiles)
    parts = ((True, "The 18 kinds of the README's first table"),
             (False, "Added later to ../shared/realfiles (issue 30 teaches the app to read them)"))
    text = "\n\n".join(
        table({n: r for n, r in rows.items() if (n.split("/")[0] in first) == f},
              args.realfiles, title) for f, title in parts)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
