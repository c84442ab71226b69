"""`expert-gui heldout MODEL_DIR`: every method's MAP and MRR on the documents held out of the
model's training, used as queries: which method works best on this collection."""

from __future__ import annotations

import json

from expert_gui.cli import COMMANDS
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
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.cli.rank import load_collection_of
    from expert_gui.core.errors import QueryError
    from expert_gui.core.evaluation.calibration import held_out_measures
    from expert_gui.core.evaluation.tables import label
    from expert_gui.core.store.storage import load_model

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise QueryError(f"unknown methods {', '.join(unknown)}; choose from {', '.join(METHODS)}")
    model = load_model(args.model_dir)
    collection = load_collection_of(model, args.collection, whole=True)
    per_method = held_out_measures(model, collection, methods)
    means = {m: {"MAP": p.mean("AP"), "MRR": p.mean("RR")} for m, p in per_method.items()}
    if args.json:
        n = len(next(iter(per_method.values())).topics)
        print(json.dumps({"held_out_documents": n, "methods": means}, indent=2))
        return 0
    n = len(model.calibration["held_out"]["documents"])
    print(f"{n:,} held-out documents as queries, their people as the answers:")
    print(f"  {'method':<26} {'MAP':>6} {'MRR':>6}")
    for m, v in sorted(means.items(), key=lambda kv: -kv[1]["MAP"]):
        print(f"  {label(m):<26} {v['MAP']:>6.3f} {v['MRR']:>6.3f}")
    return 0
