"""`expert-gui assign MODEL SUBMISSIONS ...`: papers from outside assigned to the collection's
people, K per paper, at most M per person, no conflict of interest, the total affinity as high
as it can be."""

from __future__ import annotations

import sys
import time

from expert_gui.cli import COMMANDS
from expert_gui.cli.ranker_options import add_candidates_argument, add_recency_arguments
from expert_gui.core.rankers.names import METHODS


def register(sub):
    p = sub.add_parser("assign", help=COMMANDS["assign"],
                       description="Assign papers from outside the collection (an export, a "
                                   "folder of them, or a table with an id, text and optionally "
                                   "authors and affiliations) to the model's people: exactly "
                                   "K people per paper, at most M papers per person, never a "
                                   "pair in conflict (the paper's authors, their co-authors, "
                                   "people of an author's affiliation, a list), with the "
                                   "highest total affinity (an exact optimum).")
    p.add_argument("model_dir", metavar="MODEL", help="a trained model folder")
    p.add_argument("submissions", metavar="SUBMISSIONS", help="the papers to assign")
    p.add_argument("--per-paper", type=int, required=True, metavar="K",
                   help="people per paper (exactly)")
    p.add_argument("--max-per-person", type=int, required=True, metavar="M",
                   help="papers per person, at most")
    p.add_argument("--min-per-person", type=int, default=0, metavar="m",
                   help="papers per person, at least (default 0)")
    p.add_argument("--conflicts", metavar="FILE",
                   help="more conflicts: rows of 'paper_id, person_id' (comma or tab), or a "
                        "person alone for every paper; a person by id or name")
    p.add_argument("--coauthor-years", type=float, metavar="N",
                   help="co-authors conflict only on documents of the last N years before the "
                        "collection's newest (default: on every document)")
    add_candidates_argument(p)
    add_recency_arguments(p)
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="what gives the affinities (default auto, for papers from outside)")
    p.add_argument("--collection", metavar="PATH",
                   help="the model's collection (default: the one it was trained on)")
    p.add_argument("--out", required=True, metavar="assignment.csv",
                   help="the assignment, a row per pair, with the evidence")
    p.add_argument("--affinity", metavar="affinity.tsv",
                   help="also write every pair's affinity and conflict")
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.cli.ranker_options import candidates_of, load_collection_of, recency_of
    from expert_gui.core.errors import QueryError
    from expert_gui.core.evaluation.calibration import index_for
    from expert_gui.core.reviewers.assignment import AssignSettings, assign, obstacles, prepare
    from expert_gui.core.reviewers.conflicts import read_manual
    from expert_gui.core.reviewers.files import write_affinities, write_assignment
    from expert_gui.core.reviewers.papers import load_papers
    from expert_gui.core.store.outputs import check_output_file
    from expert_gui.core.store.storage import load_model

    for path in (args.out, args.affinity):
        if path:
            check_output_file(path)  # before the work
    times = {}
    started = time.perf_counter()
    model = load_model(args.model_dir)
    collection = load_collection_of(model, args.collection, whole=True)
    papers = load_papers(args.submissions, model.text_settings)
    times["loading"] = time.perf_counter() - started
    manual = () if not args.conflicts else tuple(read_manual(
        args.conflicts, papers.doc_ids, collection.person_ids, collection.person_names))
    settings = AssignSettings(args.per_paper, args.max_per_person, args.min_per_person,
                              args.method, recency_of(args), _tuple(candidates_of(args, model)),
                              args.coauthor_years, manual)
    stamp = time.perf_counter()
    prepared = prepare(model, collection, papers, settings, index=index_for(model, collection))
    times["building the methods"] = time.perf_counter() - stamp - sum(prepared.seconds.values())
    times.update(prepared.seconds)
    _summary(prepared, model)
    blocked = obstacles(prepared)
    if blocked:
        raise QueryError("no assignment exists: " + "; ".join(blocked))
    stamp = time.perf_counter()
    result = assign(prepared)
    times["solving"] = result.seconds
    times["evidence"] = time.perf_counter() - stamp - result.seconds
    stamp = time.perf_counter()
    write_assignment(args.out, result, str(args.model_dir))
    if args.affinity:
        write_affinities(args.affinity, prepared)
    times["writing"] = time.perf_counter() - stamp
    loads = result.loads
    print(f"assigned {len(result.rows):,} pairs: total affinity {result.total:.3f}, "
          f"mean {result.total / max(len(result.rows), 1):.3f}; people with papers "
          f"{int((loads > 0).sum()):,} of {len(loads):,} (load {int(loads.min())} to "
          f"{int(loads.max())}); written to {args.out}"
          + (f" and {args.affinity}" if args.affinity else ""))
    total = time.perf_counter() - started
    print("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
          + f"; {total:.1f} s in all", file=sys.stderr)
    return 0


def _tuple(values):
    return None if values is None else tuple(values)


def _summary(prepared, model) -> None:
    """What the assignment starts from: papers, pool, what ranks them, the conflicts."""
    papers, conflicts = prepared.papers, prepared.conflicts
    print(f"{papers.n_documents:,} papers, a pool of {len(prepared.pool):,} people"
          + (f" ({prepared.idle:,} more have no document that counts and may not review)"
             if prepared.idle else ""))
    print(f"affinity: {prepared.label}")
    if model.text_rule_note:
        print(f"note: {model.text_rule_note}")
    authors = [m for matches in conflicts.authors.values() for m in matches]
    joined = sum(m.person is not None for m in authors)
    possible = sum(bool(m.possible) for m in authors)
    print(f"authors: {len(authors):,} on the papers; {joined:,} are people of the collection"
          + (f", {possible:,} may be (kept as conflicts)" if possible else "")
          + ("" if authors else " (the papers name no authors: only listed conflicts apply)"))
    if conflicts.reasons:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in sorted(conflicts.counts.items(),
                                                                  key=lambda kv: -kv[1]))
        print(f"conflicts: {len(conflicts.reasons):,} pairs ({kinds})")
    else:
        print("conflicts: none found")
    blind = prepared.affinity.blind
    if blind.any():
        ids = [papers.doc_ids[i] for i in blind.nonzero()[0]]
        print(f"warning: {len(ids):,} papers have no word the collection knows; their "
              f"affinities are all 0, so their people are chosen for the quotas only: "
              f"{', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''}", file=sys.stderr)
