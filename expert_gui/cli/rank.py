"""`expert-gui rank`: rank every topic of a file with one method and write a TREC run.

Also holds what `query` shares with it: opening a model and, for the baselines, its collection.
"""

from __future__ import annotations

import sys

from expert_gui.cli import COMMANDS
from expert_gui.core.errors import CollectionError, QueryError
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import AGGREGATIONS, FUSIONS, METHODS


def add_ranker_options(p) -> None:
    """Options every ranking command takes."""
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="ranker (default: auto, the fusion calibrated on the model's held-out "
                        "documents); all but loglinear also use the model's collection")
    p.add_argument("--collection", metavar="PATH",
                   help="collection for the baselines (default: the one the model was trained on)")
    p.add_argument("--aggregation", choices=AGGREGATIONS, default="sum",
                   help="log-linear: combine query words by the paper's sum (Eq. 2), a mean, or "
                        "weights by informativeness (1 - entropy); default sum")
    p.add_argument("--fusion", choices=FUSIONS, default="product",
                   help="ensemble: the paper's product of reciprocal ranks (Eq. 5, default) or "
                        "reciprocal rank fusion")


def open_ranker(args, *, need_collection: bool = False):
    """The model, the collection (when the method or the caller needs it) and the ranker."""
    from expert_gui.core.store.storage import load_model

    model = load_model(args.model_dir)
    collection = None
    if args.method != "loglinear" or need_collection:
        collection = load_collection_of(model, args.collection)
    options = {"aggregation": args.aggregation} \
        if args.method in ("loglinear", "ensemble", "auto") else {}
    if args.method == "ensemble":
        options["fusion"] = args.fusion
    return model, collection, make_ranker(args.method, model=model, collection=collection,
                                          **options)


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
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.evaluation.runs import write_run
    from expert_gui.core.store.outputs import check_output_file

    check_output_file(args.run)  # before the work, as train --out
    topics = read_topics(args.topics)
    _, _, ranker = open_ranker(args)
    rankings = {}
    no_words = []
    for topic in topics:
        rankings[topic.id] = ranking = ranker.rank(topic.query, depth=args.depth)
        if ranking.no_known_words:
            no_words.append(topic.id)
    write_run(args.run, rankings, args.tag or ranker.name)
    print(f"{len(topics)} topics ranked with {ranker.name}, written to {args.run}")
    if no_words:
        print(f"{len(no_words)} topics have no known words and rank nobody: "
              f"{', '.join(no_words[:10])}{' ...' if len(no_words) > 10 else ''}",
              file=sys.stderr)
    return 0
