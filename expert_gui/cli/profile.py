"""`expert-gui profile`: what a person knows (words, topics), who works on the same, and when."""

from __future__ import annotations

import json
import sys

from expert_gui.cli import COMMANDS
from expert_gui.core.explore.profile import WORD_SCORE_LABELS, WORD_SCORES
from expert_gui.core.explore.timeline import PERIODS

BAR_WIDTH = 40


def register(sub):
    p = sub.add_parser("profile", help=COMMANDS["profile"],
                       description="The words that characterise a person (by the model), the "
                                   "topics of a topic set they rank highest in, the people with "
                                   "the most similar candidate vectors, their co-authors, and "
                                   "their documents per year.")
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("person", metavar="PERSON_ID", help="the person's id")
    p.add_argument("--topics", metavar="FILE",
                   help="rank this topic set's topics for the person (TSV, SERT or TREC)")
    p.add_argument("-k", type=int, default=20,
                   help="words, topics, similar people and co-authors to show (default 20)")
    p.add_argument("--word-score", choices=WORD_SCORES, default="kl",
                   help="how words are scored: kl = P(w|c) log(P(w|c)/P(w)) (default), "
                        "bayes = P(w|c), posterior = P(c|w) (Eq. 1)")
    p.add_argument("--period", choices=PERIODS, default="year",
                   help="the timeline's period (default year)")
    p.add_argument("--about", metavar="TEXT",
                   help="a word or topic: how many of the person's documents per period are "
                        "about it (likelier to produce it than the collection is); JSON: "
                        "an \"about\" count in each timeline entry")
    p.add_argument("--collection", metavar="PATH",
                   help="the model's collection (default: the one it was trained on)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.errors import QueryError
    from expert_gui.core.explore.profile import Profiler, score_topics
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.store.storage import load_model

    if args.k < 1:
        raise QueryError(f"-k must be at least 1, not {args.k}")
    model = load_model(args.model_dir)
    person = Profiler(model).person(args.person)  # an unknown id fails before the slow parts
    topics = read_topics(args.topics) if args.topics else None
    profiler = Profiler(model, _collection(model, args.collection))
    scores = None
    if topics is not None:
        scores = score_topics(make_ranker("loglinear", model=model),
                              {t.id: t.query for t in topics})
    profile = profiler.profile(person, args.k, scores, args.word_score, args.period)
    about = profiler.about(profile, args.about)[1] if args.about else ()
    if args.json:
        out = profile.to_dict()
        for entry, (_, n) in zip(out["timeline"], about, strict=False):
            entry["about"] = n
        print(json.dumps(out, indent=2))
        return 0
    _print(profile, profiler, {t.id: t.query for t in topics or ()}, about, args)
    return 0


def _collection(model, path):
    """The collection for documents, co-authors and the timeline; None (with a note) when the
    model does not record one and none is given."""
    from expert_gui.cli.ranker_options import load_collection_of

    if not path and not model.collection_source:
        print("note: the model does not record its collection; give --collection PATH for "
              "documents, co-authors and the timeline", file=sys.stderr)
        return None
    return load_collection_of(model, path, whole=True)


def _print(profile, profiler, queries: dict[str, str], about, args) -> None:
    c = profiler.collection
    head = f"{profile.name} ({profile.person_id})"
    if c is not None:
        head += f": {len(profile.documents):,} documents"
        if profile.timeline:
            head += f", {profile.timeline[0][0]} to {profile.timeline[-1][0]}"
    print(head)
    print(f"\nwords by {WORD_SCORE_LABELS[profile.word_score]}"
          + (", with the documents that hold them:" if c is not None else ":"))
    for r, w in enumerate(profile.words, 1):
        docs = "" if w.documents is None else f"  {w.documents:>6,} documents"
        print(f"{r:>4}  {w.word:<24} {w.score:>10.4g}{docs}")
    if profile.topics is not None:
        print(f"\ntopics of {args.topics}, by this person's rank in each (then P(c|q)):")
        for t in profile.topics:
            print(f"  {t.topic_id:<10} rank {t.rank:>5,}  P(c|q) {t.probability:.4f}  "
                  f"{queries.get(t.topic_id, '')}")
    print("\nsimilar people (cosine of their W_c rows), with the words they share:")
    for s in profile.similar:
        print(f"  {s.person_id:<30} {s.score:>6.3f}  {s.name[:30]:<30} {', '.join(s.words)}")
    if c is not None:
        print("\nco-authors (documents shared):")
        if not profile.coauthors:
            print("  none: no document of this person has another person")
        for a in profile.coauthors:
            print(f"  {a.person_id:<30} {a.documents:>6,}  {a.name}")
        if profile.timeline:
            print(f"\ndocuments per {args.period}"
                  + (f" (about {args.about!r}: *)" if args.about else "") + ":")
            peak = max(n for _, n in profile.timeline) or 1
            on = [m for _, m in about] or [0] * len(profile.timeline)
            for (period, n), m in zip(profile.timeline, on, strict=True):
                bar = "*" * round(BAR_WIDTH * m / peak)
                bar += "#" * (round(BAR_WIDTH * n / peak) - len(bar))
                count = f"{n:>6,}" + (f" {m:>6,}" if args.about else "")
                print(f"  {period:<8} {count}  {bar}")
        elif not c.has_dates:
            print("\nno timeline: the collection's documents have no dates")
