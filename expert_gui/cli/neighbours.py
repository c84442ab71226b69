"""`expert-gui neighbours`: the words nearest to a word (or a sum of words) in W_p."""

from __future__ import annotations

import json
import sys

from expert_gui.cli import COMMANDS
from expert_gui.core.errors import QueryError
from expert_gui.core.model.neighbours import METRICS, nearest_words, neighbours_tsv


def register(sub):
    p = sub.add_parser("neighbours", help=COMMANDS["neighbours"],
                       description="The k words nearest to a word, or to the sum of several "
                                   "words, in W_p (Euclidean, as in the paper, or cosine).")
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("words", metavar="WORD", nargs="+", help="one or more words")
    p.add_argument("-k", type=int, default=10, help="neighbours to show (default 10)")
    p.add_argument("--metric", choices=METRICS, default="euclidean")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--tsv", action="store_true", help="print TSV (query, metric, rank, word, "
                                                        "distance)")
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.core.store.storage import load_model

    model = load_model(args.model_dir)
    ids, known, unknown = model.encode(" ".join(args.words))
    if unknown:
        print(f"unknown words (ignored): {' '.join(unknown)}", file=sys.stderr)
    if len(ids) == 0:
        raise QueryError("none of the words is in the model's vocabulary")
    found = nearest_words(model, ids, args.k, args.metric)
    query = " + ".join(known)
    if args.json:
        print(json.dumps({"query": known, "metric": args.metric, "neighbours": [
            {"rank": r, "word": n.word, "distance": n.distance} for r, n in enumerate(found, 1)]},
            indent=2))
    elif args.tsv:
        sys.stdout.write(neighbours_tsv(query, args.metric, found))
    else:
        print(f"nearest to {query} ({args.metric} distance):")
        for r, n in enumerate(found, 1):
            print(f"{r:>4}  {n.word:<30} {n.distance:.4f}")
    return 0
