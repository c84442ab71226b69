"""Is `assign`'s assignment the optimum, and does it keep every rule? On a real collection: the
total against HiGHS's linear program over every allowed pair at once (the same affinities, to
1e-6), exactly K people per paper, at most M (at least m) papers per person, no pair in
conflict; and every author whose name is written as a person of the collection is (by a rule
simpler than the app's joins: the same name, case and spacing aside) among the conflicts.

    .venv/bin/python benchmarks/check_assignment.py MODEL_DIR SUBMISSIONS -k 3 -m 20 [--min 0]
        [--coauthor-years N] [--candidates FILE]

The checks print their figures and exit with status 1 when one fails; the timing of the whole
command is benchmarks/bench_assign.py's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from expert_gui.cli.ranker_options import load_collection_of
from expert_gui.core.data.candidates import read_candidates
from expert_gui.core.evaluation.calibration import index_for
from expert_gui.core.reviewers.assignment import AssignSettings, assign, prepare
from expert_gui.core.reviewers.papers import load_papers
from expert_gui.core.store.storage import load_model


def full_lp(affinity: np.ndarray, allowed: np.ndarray, k: int, most: int, least: int) -> float:
    """The optimum of the LP over every allowed pair (integral here: totally unimodular)."""
    rows, cols = np.nonzero(allowed)
    n_papers, n_people = allowed.shape
    columns, ones = np.arange(len(rows)), np.ones(len(rows))
    per_person = sparse.csr_array((ones, (cols, columns)), shape=(n_people, len(rows)))
    a_ub, b_ub = per_person, np.full(n_people, float(most))
    if least:
        a_ub = sparse.vstack([per_person, -per_person], format="csr")
        b_ub = np.concatenate([b_ub, np.full(n_people, -float(least))])
    result = linprog(-affinity[rows, cols], A_ub=a_ub, b_ub=b_ub,
                     A_eq=sparse.csr_array((ones, (rows, columns)), shape=(n_papers, len(rows))),
                     b_eq=np.full(n_papers, float(k)), bounds=(0, 1), method="highs")
    if result.status != 0:
        raise SystemExit(f"the LP over every pair failed: {result.message}")
    return -result.fun


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("submissions", type=Path)
    p.add_argument("-k", type=int, default=3)
    p.add_argument("-m", type=int, default=6)
    p.add_argument("--min", type=int, default=0)
    p.add_argument("--coauthor-years", type=float)
    p.add_argument("--candidates", type=Path)
    args = p.parse_args()
    model = load_model(args.model)
    collection = load_collection_of(model, None, whole=True)
    papers = load_papers(args.submissions, model.text_settings)
    pool = None if args.candidates is None else tuple(
        model.person_ids[i] for i in read_candidates(args.candidates, model.person_ids,
                                                     model.person_names))
    settings = AssignSettings(args.k, args.m, args.min, candidates=pool,
                              coauthor_years=args.coauthor_years)
    prepared = prepare(model, collection, papers, settings, index=index_for(model, collection))
    result = assign(prepared)
    allowed = prepared.allowed
    started = time.perf_counter()
    optimum = full_lp(prepared.affinity.values, allowed, args.k, args.m, args.min)
    lp_seconds = time.perf_counter() - started
    pairs = np.array([(r.paper, r.person) for r in result.rows])
    per_paper = np.bincount(pairs[:, 0], minlength=papers.n_documents)
    loads = np.bincount(pairs[:, 1], minlength=len(prepared.pool))
    by_name = {" ".join(n.split()).casefold(): i for i, n in enumerate(collection.person_names)}
    own = [(d, by_name[key]) for d in range(papers.n_documents) for a in papers.people_of(d)
           if (key := " ".join(papers.person_names[a].split()).casefold()) in by_name]
    checks = {
        "the total equals the LP's optimum over every allowed pair (1e-6)":
            abs(result.total - optimum) <= 1e-6 * max(1.0, abs(optimum)),
        f"every paper has exactly {args.k} people": bool((per_paper == args.k).all()),
        f"nobody has more than {args.m} papers (or fewer than {args.min})":
            bool(loads.max() <= args.m and loads.min() >= args.min),
        "no assigned pair is in conflict": bool(allowed[pairs[:, 0], pairs[:, 1]].all()),
        "no pair is assigned twice": len({tuple(x) for x in pairs}) == len(pairs),
        "every author named as a person of the collection is a conflict, with a reason":
            all(prepared.conflicts.of(d, person) for d, person in own),
    }
    print(f"{papers.n_documents:,} papers x {len(prepared.pool):,} people, K = {args.k}, "
          f"M = {args.m}, m = {args.min}: {len(prepared.conflicts.reasons):,} conflicts "
          f"({dict(prepared.conflicts.counts)}), {len(own):,} authors in the collection")
    print(f"assign's total {result.total:.9f} in {result.seconds:.2f} s; the LP over every "
          f"allowed pair ({int(allowed.sum()):,}) {optimum:.9f} in {lp_seconds:.2f} s; "
          f"difference {result.total - optimum:+.2e}")
    for what, ok in checks.items():
        print(f"  {'ok ' if ok else 'FAILED'} {what}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
