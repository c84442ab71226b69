"""`expert-gui heldout MODEL_DIR`: every method's MAP and MRR on the documents held out of the
model's training, used as queries: which method works best on this collection."""

from __future__ import annotations

import json

from expert_gui.cli import COMMANDS
from expert_gui.cli.ranker_options import add_candidates_argument
from expert_gui.core.rankers.names import METHODS


def register(sub):
    p = sub.add_parser("heldout", help=COMMANDS["heldout"],
                       description="Rank each document held out of the model's training with "
                                   "every method, its own people being the right answers, and "
                                   "print MAP and MRR per method, best first.")
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("--collection", metavar="PATH",
                   help="the model's collection (default: the one it was trained on)")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated methods (default: all of {','.join(METHODS)})")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_candidates_argument(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.cli.ranker_options import candidates_of, load_collection_of
    from expert_gui.core.errors import QueryError
    from expert_gui.core.evaluation.calibration import held_out_measures
    from expert_gui.core.evaluation.every_document import retrained
    from expert_gui.core.evaluation.tables import label
    from expert_gui.core.rankers.fusion import auto_label
    from expert_gui.core.store.storage import load_model

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise QueryError(f"unknown methods {', '.join(unknown)}; choose from {', '.join(METHODS)}")
    model = load_model(args.model_dir)
    collection = load_collection_of(model, args.collection, whole=True)
    people = candidates_of(args, model)
    per_method = held_out_measures(model, collection, methods, candidates=people)
    means = {m: {"MAP": p.mean("AP"), "MRR": p.mean("RR")} for m, p in per_method.items()}
    n = len(next(iter(per_method.values())).topics)
    if args.json:
        fusion = model.calibration["fusion"]
        print(json.dumps({"held_out_documents": n, "retrained": retrained(model),
                          "candidates": None if people is None else len(people),
                          "auto": {"decision": fusion.get("decision", "earlier rule"),
                                   "label": auto_label(model.calibration), "members": fusion["members"],
                                   "weights": fusion["weights"],
                                   "short_topic_weights": fusion.get("short_topics", fusion)[
                                       "weights"]},
                          "methods": means}, indent=2))
        return 0
    within = "" if people is None else f" (those with one of their people among the " \
                                        f"{len(people):,} candidates, ranked among them)"
    print(f"{n:,} held-out documents as queries{within}, their people as the answers:")
    print(f"  {'method':<26} {'MAP':>6} {'MRR':>6}")
    for m, v in sorted(means.items(), key=lambda kv: -kv[1]["MAP"]):
        print(f"  {label(m):<26} {v['MAP']:>6.3f} {v['MRR']:>6.3f}")
    print(f"auto: {auto_label(model.calibration)}")
    left_out = [m for m in methods if m not in per_method]
    if left_out:  # a model trained again on every document: see every_document.py
        before = model.calibration["measures"]
        print("not measured again: the model kept was trained again on every document, the "
              "held-out ones included; the model measured before scored, at calibration: "
              + ", ".join(f"{label(m)} MAP {before[m]['AP']:.3f}" for m in left_out
                          if m in before))
    return 0
