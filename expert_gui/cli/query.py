"""`expert-gui query`: who knows most about a text, by one method."""

from __future__ import annotations

import json

from expert_gui.cli import COMMANDS
from expert_gui.cli.ranker_options import (
    add_ranker_options,
    open_ranker,
    p_expert_missing,
    recency_line,
    score_name,
)
from expert_gui.core.rankers.query_type import (
    OUTSIDE_PAPER,
    auto_reason,
    outside_reason,
    query_kind,
    query_type,
    words_in,
)


def register(sub):
    p = sub.add_parser("query", help=COMMANDS["query"],
                       description="Rank people for a query, by default with 'auto' (the "
                                   "fusion chosen on the model's held-out documents). Each "
                                   "person's score is the method's own; P(expert) is the "
                                   "probability of being one of the right people, the same "
                                   "scale for every query and method (fitted on the held-out "
                                   "documents). The log-linear answer also carries P(c|q) and "
                                   "its normalized entropy (Eq. 6).")
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
        if ranking.p_expert is not None:
            row["p_expert"] = float(ranking.p_expert[rank - 1])
        if ranking.probabilities is not None:
            row["probability"] = float(ranking.probabilities[person])
        if explain:
            why = ranker.explain(ranking, int(person), collection)
            row["word_log_probs"] = dict(why.word_log_probs)
            row["documents"] = [{"doc_id": d.doc_id, "matches": d.matches, "words": d.words}
                                for d in why.documents]
        rows.append(row)
    if args.json:
        print(json.dumps({"query": args.text, "method": args.method, "model": args.model_dir,
                          "query_type": OUTSIDE_PAPER if args.outside else query_type(
                              query_words(model, args.text)),
                          "recency": recency_json(collection, args),
                          "text_rule_note": model.text_rule_note,
                          "score": score_name(args), "p_expert": p_expert_json(ranking),
                          "no_p_expert": None if ranking.p_expert is not None
                          else missing_reason(ranking, args),
                          **auto_json(ranking, model, args.text, args.outside),
                          "candidates": None if ranking.candidates is None
                          else len(ranking.candidates),
                          "known_words": ranking.known_words,
                          "unknown_words": ranking.unknown_words,
                          "no_known_words": ranking.no_known_words,
                          "entropy": ranking.entropy, "results": rows}, indent=2))
        return 0
    if ranking.unknown_words:
        print(f"unknown words (ignored): {' '.join(ranking.unknown_words)}")
    if ranking.no_known_words:
        print("no known words: none of the query's words is in the vocabulary; nobody ranked")
        return 0
    if "label" in ranking.extra:
        print(f"auto: {ranking.extra['label']}")
        n = query_words(model, args.text)
        if args.outside:
            print(f"  for this {OUTSIDE_PAPER} ({n:,} words): {outside_reason()}")
        else:
            print(f"  for this {query_kind(n)}: {auto_reason(model.calibration, n)}")
    said = recency_line(collection, ranker, args)
    if said:
        print(said)
    if model.text_rule_note:
        print(f"note: {model.text_rule_note}")
    if ranking.candidates is not None:
        print(f"ranked among the {len(ranking.candidates):,} people of {args.candidates}")
    if ranking.entropy is not None:
        print(f"normalized entropy of P(c|q): {ranking.entropy:.3f}")
    p_expert = ranking.p_expert is not None
    prob = ranking.probabilities is not None
    print(f"{'rank':>4}  {'person':<30} {score_name(args):>24}"
          + (f" {'P(expert)':>9}" if p_expert else "") + (f" {'P(c|q)':>9}" if prob else ""))
    for row in rows:
        line = f"{row['rank']:>4}  {row['name'][:30]:<30} {row['score']:>24.4f}"
        line += f" {row['p_expert']:>9.4f}" if p_expert else ""
        print(line + (f" {row['probability']:>9.4f}" if prob else ""))
        if explain:
            words = "  ".join(f"{w} {lp:.2f}" for w, lp in row["word_log_probs"].items())
            print(f"      log P(c|w): {words}")
            for d in row["documents"]:
                print(f"      {d['doc_id']}: {d['matches']} matches ({', '.join(d['words'])})")
    if not p_expert:
        print("(no P(expert): " + missing_reason(ranking, args) + ")")
    return 0


def missing_reason(ranking, args) -> str:
    """Why the ranking has no P(expert): its query's type (the ranking says), or the model and
    options (`p_expert_missing`)."""
    return ranking.extra.get("no_p_expert") or p_expert_missing(args)


def p_expert_json(ranking) -> dict | None:
    """What P(expert) is: the fit it comes from (None: not available)."""
    fit = ranking.extra.get("p_expert")
    if fit is None:
        return None
    return {"what": "P(one of the right people | query) = sigmoid(w . features + intercept), "
                    "the features of each person's answer named in 'features' "
                    "(rankers/probability.py)", **fit}


def auto_json(ranking, model, text: str, outside: bool = False) -> dict:
    if "decision" not in ranking.extra:
        return {}
    n = query_words(model, text)
    kind, why = (OUTSIDE_PAPER, outside_reason()) if outside else (
        query_type(n), auto_reason(model.calibration, n))
    return {"auto": {**{k: ranking.extra[k] for k in ("decision", "label", "members", "weights")},
                     "query_type": kind, "why": why}}


def recency_json(collection, args) -> dict | None:
    """--since and --half-life, with the undated documents and those left out (None without)."""
    from expert_gui.cli.ranker_options import recency_of
    from expert_gui.core.rankers.methods import recency_weights

    weights = recency_weights(collection, recency_of(args))
    if weights is None:
        return None
    return {"since": args.since, "half_life": args.half_life, "undated_documents": weights.undated,
            "documents_counting_for_nothing": weights.dropped, "newest": weights.newest,
            "people_not_ranked": int((weights.shares(collection) == 0).sum()),
            "what": weights.describe()}


def query_words(model, text: str) -> int:
    """The query's words as the model reads them, known or not."""
    return words_in(model.tokenizer, text)
