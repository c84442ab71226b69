"""`expert-gui rank`: rank every topic of a file with one method and write a TREC run."""

from __future__ import annotations

import sys
import time

from expert_gui.cli import COMMANDS
from expert_gui.cli.ranker_options import (
    add_ranker_options,
    open_ranker,
    p_expert_missing,
    recency_line,
)


def register(sub):
    p = sub.add_parser("rank", help=COMMANDS["rank"],
                       description="Rank every topic of a topic file (TSV with topic_id and "
                                   "query columns, SERT id;query, or TREC <top>) and write a "
                                   "TREC run: topic Q0 person rank score tag.")
    add_ranker_options(p)
    p.add_argument("--topics", required=True, metavar="FILE", help="topic file")
    p.add_argument("--run", required=True, metavar="OUT", help="run file to write")
    p.add_argument("--depth", type=int, default=1000, help="people per topic (default 1000)")
    p.add_argument("--tag", help="run tag (default: the method's name)")
    p.add_argument("--p-expert", action="store_true",
                   help="add a 7th column: P(expert), the probability of being one of the "
                        "right people, comparable across topics (trec_eval ignores fields after "
                        "the tag), where it is calibrated for every topic (whole documents, "
                        "not short topics); else the run is written without it and says why")
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.evaluation.runs import write_run
    from expert_gui.core.store.outputs import check_output_file

    check_output_file(args.run)  # before the work, as train --out
    topics = read_topics(args.topics)
    times = {}
    model, collection, ranker = open_ranker(args, times=times)
    started = time.perf_counter()
    ranked = ranker.rank_batch([topic.query for topic in topics], depth=args.depth)
    times["rank"] = time.perf_counter() - started
    rankings = {topic.id: ranking for topic, ranking in zip(topics, ranked, strict=True)}
    no_words = [topic for topic, ranking in rankings.items() if ranking.no_known_words]
    without = [r for r in rankings.values() if len(r) and r.p_expert is None]
    p_expert = args.p_expert and not without
    write_run(args.run, rankings, args.tag or ranker.name, p_expert=p_expert)
    chosen = getattr(ranker, "candidates", None)
    within = "" if chosen is None else f" among {len(chosen):,} candidates"
    kind = " as papers from outside" if args.outside else ""
    print(f"{len(topics)} topics ranked{kind} with {ranker.name}{within}, written to {args.run}"
          + (" (7th column: P(expert))" if p_expert else ""))
    if args.p_expert and without:
        print(f"no P(expert) column: {len(without):,} of {len(rankings):,} topics have none, "
              f"so the run gives each person's score only: "
              f"{without[0].extra.get('no_p_expert') or p_expert_missing(args)}",
              file=sys.stderr)
    if args.method == "auto":
        for line in auto_lines(model, [t.query for t in topics], args.outside):
            print(line)
    said = recency_line(collection, ranker, args)
    if said:
        print(said)
    if model.text_rule_note:
        print(f"note: {model.text_rule_note}")
    if no_words:
        print(f"{len(no_words)} topics have no known words and rank nobody: "
              f"{', '.join(no_words[:10])}{' ...' if len(no_words) > 10 else ''}",
              file=sys.stderr)
    print(f"time: loading the model and collection {times['load']:.1f} s, building "
          f"{args.method}'s index {times['build']:.1f} s, ranking the topics "
          f"{times['rank']:.1f} s", file=sys.stderr)
    return 0


def auto_lines(model, queries: list[str], outside: bool) -> list[str]:
    """What `auto` ranked queries with, and why, for each query type among them."""
    from expert_gui.core.rankers.fusion import OUTSIDE_LABEL, auto_label
    from expert_gui.core.rankers.query_type import (
        auto_reason,
        outside_reason,
        query_type,
        words_in,
    )

    if outside:
        return [f"auto: {OUTSIDE_LABEL}", f"  {outside_reason()}"]
    lines = [f"auto: {auto_label(model.calibration, bool(model.settings.get('stopped')))}"]
    lengths = [words_in(model.tokenizer, q) for q in queries]
    for kind in ("short topic", "whole document"):
        of_kind = [n for n in lengths if query_type(n) == kind]
        if of_kind:
            lines.append(f"  {len(of_kind):,} {kind}s (up to {max(of_kind):,} words): "
                         f"{auto_reason(model.calibration, of_kind[0])}")
    return lines
