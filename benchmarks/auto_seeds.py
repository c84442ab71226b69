"""`auto` against its members on a topic set, over seeds: the measurement behind the rule that
chooses auto's weights (docs/results/calibration.md).

    .venv/bin/python benchmarks/auto_seeds.py COLLECTION --topics FILE --qrels FILE \
        --models DIR [--seeds 0 1 2] [--no-suggested-settings] [--threads 1] [--recalibrate] \
        [--pairwise] [--json OUT]

For each seed S the model in DIR/seed-S is used when it is there, else it is trained as
`expert-gui train COLLECTION --seed S` trains it (the documents held out seeded by S; the
collection's train_settings.json over the paper's defaults unless --no-suggested-settings) and
saved there. --recalibrate calibrates a saved model again with the current rule (its training is
unchanged, so this is the model a new training gives). Then auto, the log-linear model, Model 2
(jm), Model 1 (d) and the ensemble rank every topic (ir-measures' AP, all people ranked, depth
1000). Printed per seed: each MAP, the best of the four others, auto minus it, and auto's label;
then auto's spread over the seeds. --pairwise adds, per method (all of them), the pairwise
measure of its own score and of its P(expert).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.calibration import calibrate, index_for, train_and_calibrate
from expert_gui.core.evaluation.evaluate import evaluate
from expert_gui.core.evaluation.heldout import HeldOutSettings, held_out_again, hold_out
from expert_gui.core.evaluation.measures import evaluated_topics
from expert_gui.core.evaluation.pairwise import ScoreSheet, judged_people, pairwise_error
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.store.storage import load_model, save_model
from expert_gui.core.train.settings import PAPER_DEFAULTS, TrainSettings, suggested_settings

COMPARED = ("loglinear", "model2-jm", "model1-d", "ensemble")


def model_for(collection, folder: Path, settings: TrainSettings, recalibrate: bool):
    if (folder / "manifest.json").is_file():
        model = load_model(folder)
        if recalibrate:
            model.calibration = calibrate(model, held_out_again(collection, model.calibration))
            save_model(model, folder)
        return model
    split = hold_out(collection, HeldOutSettings(seed=settings.seed))
    model = train_and_calibrate(split, settings, out_dir=folder)
    return model


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("collection")
    p.add_argument("--topics", required=True)
    p.add_argument("--qrels", required=True)
    p.add_argument("--models", required=True, type=Path)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--no-suggested-settings", action="store_true")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--recalibrate", action="store_true")
    p.add_argument("--pairwise", action="store_true")
    p.add_argument("--json", type=Path)
    args = p.parse_args()

    collection = load_collection(args.collection)
    queries = {t.id: t.query for t in read_topics(args.topics)}
    qrels = read_qrels(args.qrels)
    topics = evaluated_topics(qrels, list(queries))
    base = TrainSettings(threads=args.threads, checkpoint_every=0, retrain_on_all=False)
    found = (suggested_settings(args.collection, base) if not args.no_suggested_settings
             else None)
    settings = found.settings if found else base
    print(f"settings: {found.source if found else PAPER_DEFAULTS}: dim {settings.dim}, batch "
          f"{settings.batch_size}, {settings.epochs} epochs, threads {settings.threads}; "
          f"{len(topics)} judged topics", file=sys.stderr)
    rows, pairwise = [], {}
    print("| seed | auto | " + " | ".join(label(m) for m in COMPARED) +
          " | best of the four | auto - best | auto |")
    print("|---" * (len(COMPARED) + 5) + "|")
    for seed in args.seeds:
        model = model_for(collection, args.models / f"seed-{seed}",
                          dataclasses.replace(settings, seed=seed), args.recalibrate)
        index = index_for(model, collection)
        maps = {}
        methods = METHODS if args.pairwise and seed == args.seeds[0] else ("auto", *COMPARED)
        for method in methods:
            sheet = ScoreSheet(judged_people(qrels, topics))
            per_topic, _ = evaluate(make_ranker(method, model=model, collection=index),
                                    queries, qrels, topics, measures=("AP",),
                                    on_ranking=sheet.add)
            maps[method] = per_topic.mean("AP")
            if args.pairwise and seed == args.seeds[0]:
                pairwise[method] = [dataclasses.asdict(pairwise_error(values, qrels, topics))
                                    for values in (sheet.scores, sheet.p_expert)]
        best = max(maps[m] for m in COMPARED)
        text = auto_label(model.calibration)
        rows.append({"seed": seed, "maps": maps, "best": best, "label": text,
                     "weights": model.calibration["fusion"]["weights"]})
        print(f"| {seed} | {maps['auto']:.3f} | " +
              " | ".join(f"{maps[m]:.3f}" for m in COMPARED) +
              f" | {best:.3f} | {maps['auto'] - best:+.3f} | {text} |", flush=True)
    autos = [r["maps"]["auto"] for r in rows]
    print(f"\nauto over seeds {args.seeds}: {min(autos):.3f} to {max(autos):.3f} (spread "
          f"{max(autos) - min(autos):.3f}); worst auto - best: "
          f"{min(r['maps']['auto'] - r['best'] for r in rows):+.3f}")
    if pairwise:
        print(f"\npairwise measure, seed {args.seeds[0]} (mean over people / pooled; lower is "
              "better):\n\n| method | own score | pooled | P(expert) | pooled | people |\n"
              "|---|---|---|---|---|---|")
        for method, (raw, cal) in pairwise.items():
            print(f"| {label(method)} | {raw['mean']:.3f} | {raw['pooled']:.3f} | "
                  f"{cal['mean']:.3f} | {cal['pooled']:.3f} | {raw['people']} |")
    if args.json:
        for values in pairwise.values():
            for v in values:
                v.pop("per_person")
        args.json.write_text(json.dumps({"rows": rows, "pairwise": pairwise}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
