"""`expert-gui rank`: rank every topic of a file with one method and write a TREC run.

Also holds what `query` shares with it: opening a model and, for the baselines, its collection.
"""

from __future__ import annotations

import sys
import time

from expert_gui.cli import COMMANDS
from expert_gui.core.errors import CollectionError, QueryError
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import AGGREGATIONS, FUSIONS, METHODS

# Why a ranking has no P(expert), as `rank --p-expert` and `query` say it.
P_EXPERT_MISSING = ("the model was trained without held-out documents, before P(expert) "
                    "existed, or the method's options differ from those it was fitted with")


def add_ranker_options(p) -> None:
    """Options every ranking command takes."""
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="ranker (default: auto, the fusion chosen on the model's held-out "
                        "documents); all but loglinear also use the model's collection")
    p.add_argument("--collection", metavar="PATH",
                   help="collection for the baselines (default: the one the model was trained on)")
    p.add_argument("--aggregation", choices=AGGREGATIONS, default="sum",
                   help="log-linear: combine query words by the paper's sum (Eq. 2), a mean, or "
                        "weights by informativeness (1 - entropy); default sum")
    p.add_argument("--fusion", choices=FUSIONS, default="product",
                   help="ensemble: the paper's product of reciprocal ranks (Eq. 5, default) or "
                        "reciprocal rank fusion")
    add_candidates_argument(p)


def add_candidates_argument(p) -> None:
    p.add_argument("--candidates", metavar="FILE",
                   help="rank only these people: a file of person ids or names, one a line "
                        "(current staff, a reviewer pool); measures are computed within them")


def open_ranker(args, *, need_collection: bool = False, times: dict | None = None):
    """The model, the collection (when the method or the caller needs it) and the ranker, which
    ranks only the people of --candidates when given; `times` gets the seconds of "load" (the
    model and the collection) and of "build" (the method's index)."""
    from expert_gui.core.store.storage import load_model

    started = time.perf_counter()
    model = load_model(args.model_dir)
    collection = None
    if args.method != "loglinear" or need_collection:
        collection = load_collection_of(model, args.collection)
    loaded = time.perf_counter()
    options = {"aggregation": args.aggregation} \
        if args.method in ("loglinear", "ensemble", "auto") else {}
    if args.method == "ensemble":
        options["fusion"] = args.fusion
    ranker = make_ranker(args.method, model=model, collection=collection, **options)
    if times is not None:
        times.update(load=loaded - started, build=time.perf_counter() - loaded)
    people = candidates_of(args, model)
    return model, collection, ranker if people is None else restricted(ranker, people)


def candidates_of(args, model) -> list[str] | None:
    """The person ids --candidates names (None without it)."""
    if not getattr(args, "candidates", None):
        return None
    from expert_gui.core.data.candidates import read_candidates

    chosen = read_candidates(args.candidates, model.person_ids, model.person_names)
    return [model.person_ids[i] for i in chosen]


def restricted(ranker, people: list[str]):
    from expert_gui.core.rankers.candidates import Restricted

    return Restricted(ranker, people)


def score_name(args) -> str:
    """What the method's score is ("log P(q|c)", ...)."""
    from expert_gui.core.rankers.names import SCORE_NAMES

    if args.method == "ensemble" and args.fusion == "rrf":
        return SCORE_NAMES["rrf"]
    if args.method == "loglinear" and args.aggregation != "sum":
        return f"log P(c|q), words weighted by {args.aggregation}"
    return SCORE_NAMES[args.method]


def load_collection_of(model, path: str | None, *, whole: bool = False):
    """The model's collection as its rankers index it (without its held-out documents), or the
    whole of it."""
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.evaluation.calibration import index_for, trained_on

    given, path = path, path or model.collection_source
    if not path:
        raise QueryError("the model does not record its collection; give --collection PATH")
    # The collection it was trained on is read as it was then, so a file gone since is named
    # (a folder that lost its documents.tsv is not read as a folder of text files).
    trained_as = None if given else model.collection_format or None
    try:
        collection = load_collection(path, settings=model.text_settings, format=trained_as)
    except CollectionError as exc:
        if trained_as is None:
            raise
        raise CollectionError(exc.path, exc.line, f"{exc.message}; the model was trained on it "
                                                  f"as a {trained_as} collection",
                              cli_hint="--collection PATH") from exc
    if model.collection_fingerprint and collection.fingerprint and \
            not trained_on(model, collection):
        if set(model.person_ids).isdisjoint(collection.person_ids):
            raise CollectionError(path, None, f"none of the model's people has a document here "
                                              f"(read as a {collection.report.format} "
                                              "collection): not the collection it was trained on",
                                  cli_hint="--collection PATH")
        print(f"warning: {path} has changed since the model was trained on it", file=sys.stderr)
    return collection if whole else index_for(model, collection)


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
                        "the tag)")
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.evaluation.runs import write_run
    from expert_gui.core.rankers.fusion import auto_label
    from expert_gui.core.rankers.query_type import auto_reason, query_type
    from expert_gui.core.store.outputs import check_output_file

    check_output_file(args.run)  # before the work, as train --out
    topics = read_topics(args.topics)
    times = {}
    model, _, ranker = open_ranker(args, times=times)
    started = time.perf_counter()
    ranked = ranker.rank_batch([topic.query for topic in topics], depth=args.depth)
    times["rank"] = time.perf_counter() - started
    rankings = {topic.id: ranking for topic, ranking in zip(topics, ranked, strict=True)}
    no_words = [topic for topic, ranking in rankings.items() if ranking.no_known_words]
    if args.p_expert and any(r.p_expert is None for r in rankings.values() if len(r)):
        raise QueryError(f"no P(expert) for {args.method}: {P_EXPERT_MISSING}")
    write_run(args.run, rankings, args.tag or ranker.name, p_expert=args.p_expert)
    print(f"{len(topics)} topics ranked with {ranker.name}"
          + (f" among {len(ranker.candidates):,} candidates" if args.candidates else "")
          + f", written to {args.run}" + (" (7th column: P(expert))" if args.p_expert else ""))
    if args.method == "auto":
        print(f"auto: {auto_label(model.calibration, bool(model.settings.get('stopped')))}")
        lengths = [len(model.tokenizer.words(t.query)) for t in topics]
        for kind in ("short topic", "whole document"):
            of_kind = [n for n in lengths if query_type(n) == kind]
            if of_kind:
                print(f"  {len(of_kind):,} {kind}s (up to {max(of_kind):,} words): "
                      f"{auto_reason(model.calibration, of_kind[0])}")
    if no_words:
        print(f"{len(no_words)} topics have no known words and rank nobody: "
              f"{', '.join(no_words[:10])}{' ...' if len(no_words) > 10 else ''}",
              file=sys.stderr)
    print(f"time: loading the model and collection {times['load']:.1f} s, building "
          f"{args.method}'s index {times['build']:.1f} s, ranking the topics "
          f"{times['rank']:.1f} s", file=sys.stderr)
    return 0
