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
from expert_gui.core.train.settings import TrainSettings, suggested_settings

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
    try:
        collection = load_collection(path)
    except (ExpertGuiError, ValueError, OSError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    base = TrainSettings(threads=threads, checkpoint_every=0, checkpoint_minutes=0)
    found = suggested_settings(path, base, collection=collection) if which == "suggested" \
        else None
    settings = found.settings if found else base
    split = hold_out(collection, HeldOutSettings(seed=settings.seed))
    per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
    row = {"format": collection.report.format, "documents": collection.n_documents, "people": collection.n_people,
           "one_document": int(np.sum(per_person == 1)), "held_out": len(split.documents),
           "batch_size": settings.batch_size, "epochs": settings.epochs,
           "reasons": found.reasons if found else {},
           "shortfall": held_out_shortfall(collection, len(split.documents), split.settings)}
    if not collection.n_documents or not len(collection.assoc_people):
        return {**row, "error": "no document with people"}
    started = time.perf_counter()
    model = train_and_calibrate(split, settings)
    row["seconds"] = time.perf_counter() - started
    if model.calibration:
        measures = model.calibration["measures"]
        quality = {"documents": len(split.documents),
                   "advice": training_advice(model.settings, collection)}
        row |= {"measures": {m: v["AP"] for m, v in measures.items()},
                "warning": held_out_warning(measures, **quality),
                "note": held_out_note(measures, **quality),
                "auto": model.calibration["fusion"]["label"]}
    return row


def table(rows: dict[str, dict[str, dict]], title: str) -> str:
    lines = [f"### {title}", "", "| export | documents | people (one document) | held out | settings | log-linear "
             "| auto | best baseline | auto - best | what the app says |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, by in rows.items():
        for which in ("paper", "suggested"):
            r = by.get(which)
            if r is None:
                continue
            if "documents" not in r:
                lines.append(f"| {name} | not read by this branch: {r['error']} |||||||||")
                continue
            kind = r.get("format") or by.get("paper", {}).get("format", "")
            head = (f"| {name} ({kind}) | {r['documents']:,} | {r['people']:,} ({r['one_document']:,}) | "
                    f"{r['held_out']} | {which}: batch {r['batch_size']:,}, {r['epochs']} epochs |"
                    if which == "paper" or "paper" not in by else
                    f"| | | | | {which}: batch {r['batch_size']:,}, {r['epochs']} epochs |")
            if "measures" not in r:
                says = r.get("shortfall") or r.get("error", "")
                lines.append(f"{head} – | – | – | – | {says} |")
                continue
            m = r["measures"]
            base = {k: v for k, v in m.items() if k not in NOT_BASELINES}
            best = max(base, key=base.get)
            says = (f"⚠ {r['warning']}" if r["warning"] else r["note"] or r["shortfall"] or
                    "nothing: the model learned")
            lines.append(f"{head} {m['loglinear']:.3f} | {m['auto']:.3f} | {label(best)} "
                         f"{base[best]:.3f} | {m['auto'] - base[best]:+.3f} | {says} |")
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
        for which in args.settings:
            if (name, which) not in done:
                row = measure(path, which, args.threads)
                done[(name, which)] = row
                with args.cache.open("a") as f:
                    f.write(json.dumps({"export": name, "which": which, "row": row}) + "\n")
            rows.setdefault(name, {})[which] = done[(name, which)]
            r = done[(name, which)]
            print(f"{name} [{which}]: " + (
                f"log-linear {r['measures']['loglinear']:.3f}, auto {r['measures']['auto']:.3f}"
                f" ({r.get('seconds', 0):.0f} s)" if "measures" in r else
                r.get("error") or r.get("shortfall", "")), file=sys.stderr, flush=True)
    first = first_kinds(args.realfiles)
    text = "\n\n".join(table({n: r for n, r in rows.items() if (n.split("/")[0] in first) == f},
                              title) for f, title in ((True, "The 18 kinds of the README's first "
                                                            "table"),
                                                      (False, "Added later to ../shared/realfiles")))
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
