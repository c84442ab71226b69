"""What the ranking commands share (`query`, `rank`, `assign`, `heldout`, `profile`): their
options, opening a model and, for the baselines, its collection, and the ranker they ask for."""

from __future__ import annotations

import sys
import time

from expert_gui.core.errors import CollectionError, QueryError
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import AGGREGATIONS, FUSIONS, METHODS


def add_ranker_options(p) -> None:
    """Options every ranking command takes."""
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="ranker (default: auto, the fusion chosen on the model's held-out "
                        "documents); all but loglinear also use the model's collection")
    p.add_argument("--collection", metavar="PATH",
                   help="collection for the baselines (default: the one the model was trained on)")
    p.add_argument("--aggregation", choices=AGGREGATIONS, default="sum",
                   help="log-linear: combine query words by the paper's sum (Eq. 2), a mean, "
                        "weights by informativeness (1 - entropy), or the sum with each "
                        "person's prior counted once instead of once per word (prior-once); "
                        "default sum")
    p.add_argument("--fusion", choices=FUSIONS, default="product",
                   help="ensemble: the paper's product of reciprocal ranks (Eq. 5, default) or "
                        "reciprocal rank fusion")
    add_candidates_argument(p)
    add_outside_argument(p)
    add_recency_arguments(p)


def add_outside_argument(p) -> None:
    p.add_argument("--outside", action="store_true",
                   help="the text is a paper or proposal from outside the collection: who could "
                        "review it? auto then adds the members that judge how each person's "
                        "writing fits its topic, with equal weights")


def add_recency_arguments(p) -> None:
    p.add_argument("--since", type=int, metavar="YEAR",
                   help="only documents from YEAR on count (undated ones count fully)")
    p.add_argument("--half-life", type=float, metavar="YEARS",
                   help="a document counts half as much for every YEARS it is older than the "
                        "collection's newest (undated ones count fully)")


def recency_of(args):
    """The `Recency` of --since and --half-life (falsy without either)."""
    from expert_gui.core.data.recency import Recency

    return Recency(getattr(args, "since", None), getattr(args, "half_life", None))


def add_candidates_argument(p) -> None:
    p.add_argument("--candidates", metavar="FILE",
                   help="rank only these people: a file of person ids or names, one a line "
                        "(current staff, a reviewer pool); measures are computed within them")


def open_ranker(args, *, need_collection: bool = False, times: dict | None = None):
    """The model, the collection (when the method, recency or the caller needs it) and the
    ranker: for papers from outside with --outside, with --since and --half-life's recency,
    ranking only the people of --candidates when given; `times` gets the seconds of "load" (the
    model and the collection) and of "build" (the method's index)."""
    from expert_gui.core.store.storage import load_model

    started = time.perf_counter()
    model = load_model(args.model_dir)
    recency = recency_of(args)
    collection = None
    if args.method != "loglinear" or need_collection or recency:
        collection = load_collection_of(model, args.collection)
    loaded = time.perf_counter()
    options = {"aggregation": args.aggregation} \
        if args.method in ("loglinear", "ensemble", "auto") else {}
    if args.method == "ensemble":
        options["fusion"] = args.fusion
    ranker = make_ranker(args.method, model=model, collection=collection,
                         outside=getattr(args, "outside", False), recency=recency,
                         candidates=candidates_of(args, model), **options)
    if times is not None:
        times.update(load=loaded - started, build=time.perf_counter() - loaded)
    return model, collection, ranker


def recency_line(collection, ranker, args) -> str | None:
    """What --since and --half-life did: the weights, the undated documents, the people left
    out (None without them)."""
    from expert_gui.core.rankers.methods import recency_weights

    weights = recency_weights(collection, recency_of(args))
    if weights is None:
        return None
    shares = weights.shares(collection)
    idle = int((shares == 0).sum())
    return f"recency: {weights.describe()}" + (
        f"; {idle:,} of {len(shares):,} people have no document that counts and are not ranked"
        if idle else "")


def p_expert_missing(args) -> str:
    """Why a ranking carries no P(expert)."""
    from expert_gui.core.rankers.query_type import p_expert_missing as why

    return why(getattr(args, "outside", False), bool(recency_of(args)))


def candidates_of(args, model) -> list[str] | None:
    """The person ids --candidates names (None without it)."""
    if not getattr(args, "candidates", None):
        return None
    from expert_gui.core.data.candidates import read_candidates

    chosen = read_candidates(args.candidates, model.person_ids, model.person_names)
    return [model.person_ids[i] for i in chosen]


def score_name(args) -> str:
    """What the method's score is ("log P(q|c)", ...)."""
    from expert_gui.core.rankers.names import SCORE_NAMES

    if args.method == "ensemble" and args.fusion == "rrf":
        return SCORE_NAMES["rrf"]
    if args.method == "loglinear" and args.aggregation == "prior-once":
        return "log P(c|q), the prior once"
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
        people = "" if sorted(model.person_ids) == sorted(collection.person_ids) else (
            ", and so have its people (its files or its people edits): the log-linear model "
            "ranks the people it was trained on, the other methods the people as they are now; "
            "train it again to rank them alike")
        print(f"warning: {path} has changed since the model was trained on it{people}",
              file=sys.stderr)
    return collection if whole else index_for(model, collection)
