"""`expert-gui query`: who knows most about a text, by one method."""

from __future__ import annotations

import json

from expert_gui.cli import COMMANDS
from expert_gui.cli.rank import add_ranker_options, open_ranker


def register(sub):
    p = sub.add_parser("query", help=COMMANDS["query"],
                       description="Rank people for a query, by default with 'auto' (the "
                                   "fusion calibrated on the model's held-out documents). The "
                                   "log-linear answer carries P(c|q) and its normalized "
                                   "entropy (Eq. 6).")
    add_ranker_options(p)
    p.add_argument("text", help="the query")
    p.add_argument("-k", type=int, default=10, help="people to show (default 10)")
    p.add_argument("--explain", action="store_true",
                   help="log-linear: show each query word's log P(c|w) and the supporting "
                        "documents of each person shown")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def run(args) -> int:
    explain = args.explain and args.method == "loglinear"
    model, collection, ranker = open_ranker(args, need_collection=explain)
    ranking = ranker.rank(args.text, depth=args.k)
    names = dict(zip(model.person_ids, model.person_names, strict=True))
    rows = []
    for rank, (person, score) in enumerate(zip(ranking.people, ranking.scores, strict=True), 1):
        pid = ranking.person_ids[person]
        row = {"rank": rank, "person_id": pid, "name": names.get(pid, pid), "score": float(score)}
        if ranking.probabilities is not None:
            row["probability"] = float(ranking.probabilities[person])
        if explain:
            why = ranker.explain(ranking, int(person), collection)
            row["word_log_probs"] = dict(why.word_log_probs)
            row["documents"] = [{"doc_id": d.doc_id, "matches": d.matches, "words": d.words}
                                for d in why.documents]
        rows.append(row)
    if args.json:
        print(json.dumps({"query": args.text, "method": ranking.method,
                          "known_words": ranking.known_words,
                          "unknown_words": ranking.unknown_words,
                          "no_known_words": ranking.no_known_words,
                          "entropy": ranking.entropy, **_fusion_json(ranking),
                          "results": rows}, indent=2))
        return 0
    if ranking.unknown_words:
        print(f"unknown words (ignored): {' '.join(ranking.unknown_words)}")
    if ranking.no_known_words:
        print("no known words: none of the query's words is in the vocabulary; nobody ranked")
        return 0
    if "weights" in ranking.extra:
        print(fusion_line(ranking))
    if ranking.entropy is not None:
        print(f"normalized entropy of P(c|q): {ranking.entropy:.3f}")
    prob = ranking.probabilities is not None
    print(f"{'rank':>4}  {'person':<30} {'score':>12}" + (f" {'P(c|q)':>9}" if prob else ""))
    for row in rows:
        line = f"{row['rank']:>4}  {row['name'][:30]:<30} {row['score']:>12.4f}"
        print(line + (f" {row['probability']:>9.4f}" if prob else ""))
        if explain:
            words = "  ".join(f"{w} {lp:.2f}" for w, lp in row["word_log_probs"].items())
            print(f"      log P(c|w): {words}")
            for d in row["documents"]:
                print(f"      {d['doc_id']}: {d['matches']} matches ({', '.join(d['words'])})")
    return 0


def _fusion_json(ranking) -> dict:
    if "weights" not in ranking.extra:
        return {}
    return {"fusion": {"members": ranking.extra["members"], "weights": ranking.extra["weights"],
                       "calibrated": ranking.extra["calibrated"]}}


def fusion_line(ranking) -> str:
    """What `auto` combined: its members' weights, and whether held-out documents chose them."""
    from expert_gui.core.evaluation.tables import weights_text

    parts = weights_text(ranking.extra["members"], ranking.extra["weights"])
    how = "calibrated on the held-out documents" if ranking.extra["calibrated"] else \
        "equal weights: the model was trained without held-out documents"
    return f"auto = {parts} ({how})"
