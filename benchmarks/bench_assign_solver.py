"""The exact reviewer assignment (core/reviewers/solve.py): column generation against the LP
over every allowed pair at once.

    .venv/bin/python benchmarks/bench_assign_solver.py [--sizes 500 1000 2000] [--repeats 3]

Problems: P papers x P people, 3 reviewers per paper, at most 6 papers per person, 1% of the
pairs conflicts. Affinities are shaped like a ranker's: per paper z-scores of noise, a person's
standing that many papers share (so the popular people's quotas bind) and 5 strong people per
paper.

Each measurement runs in a fresh process, so that its peak memory (ru_maxrss, the problem's
arrays included) is its own: `infeasibility` (the feasibility check alone), `solve` (the check and
column generation) and the baseline, HiGHS's dual simplex over every allowed pair, which is
skipped above --full-max-pairs pairs (the report says so). Medians of --repeats runs, of
--full-repeats for the baseline (at 2,000 x 2,000 one run takes minutes and gigabytes); the
objectives must agree to 1e-6. Reported as medians and ratios, never asserted.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from expert_gui.core.reviewers.solve import Problem, infeasibility, solve

PER_PAPER, MAX_PER_PERSON, CONFLICTS, STRONG = 3, 6, 0.01, 5


def problem_of(size: int, seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    affinity = rng.normal(size=(size, size))
    affinity += rng.normal(0, 0.7, size)
    strong = rng.integers(0, size, (size, STRONG))
    affinity[np.arange(size)[:, None], strong] += rng.uniform(2, 4, (size, STRONG))
    affinity -= affinity.mean(axis=1, keepdims=True)
    affinity /= affinity.std(axis=1, keepdims=True)
    allowed = rng.random((size, size)) >= CONFLICTS
    return Problem(affinity, allowed, PER_PAPER, MAX_PER_PERSON)


def full_lp(problem: Problem) -> float:
    """The LP over every allowed pair, solved at once."""
    rows, cols = np.nonzero(problem.allowed)
    n_papers, n_people = problem.shape
    columns, ones = np.arange(len(rows)), np.ones(len(rows))
    result = linprog(-problem.affinity[rows, cols],
                     A_ub=sparse.csr_array((ones, (cols, columns)), shape=(n_people, len(rows))),
                     b_ub=np.full(n_people, problem.max_per_person),
                     A_eq=sparse.csr_array((ones, (rows, columns)), shape=(n_papers, len(rows))),
                     b_eq=np.full(n_papers, problem.per_paper), bounds=(0, 1), method="highs-ds")
    if result.status != 0:
        raise SystemExit(f"the full LP failed: {result.message}")
    return -result.fun


def measure(method: str, size: int, seed: int, repeats: int) -> dict:
    """One method's seconds (each run), objective and peak memory, in this process."""
    problem = problem_of(size, seed)
    problem_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    seconds, out = [], {}
    for _ in range(repeats):
        started = time.perf_counter()
        if method == "check":
            out["obstacles"] = len(infeasibility(problem))
        elif method == "solve":
            assignment = solve(problem)
            out.update(objective=assignment.total, rounds=assignment.rounds,
                       columns=assignment.columns)
        else:
            out["objective"] = full_lp(problem)
        seconds.append(time.perf_counter() - started)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out | {"seconds": seconds, "problem_mib": problem_mib, "peak_mib": peak,
                  "pairs": int(problem.allowed.sum())}


def in_fresh_process(*args) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, *args).result()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000],
                   help="papers (= people) of each problem")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--full-repeats", type=int, default=1)
    p.add_argument("--full-max-pairs", type=int, default=5_000_000,
                   help="run the full LP only up to this many allowed pairs")
    args = p.parse_args()
    print(f"K={PER_PAPER}, M={MAX_PER_PERSON}, {CONFLICTS:.0%} conflicts, medians of "
          f"{args.repeats} (full LP: {args.full_repeats}), each method in a fresh process")
    for size in args.sizes:
        check = in_fresh_process("check", size, args.seed, args.repeats)
        ours = in_fresh_process("solve", size, args.seed, args.repeats)
        print(f"== {size:,} x {size:,}: {ours['pairs']:,} allowed pairs "
              f"(the process once the problem is made: {ours['problem_mib']:,.0f} MiB)")
        print(f"  check only          {statistics.median(check['seconds']):7.2f} s   "
              f"peak {check['peak_mib']:6,.0f} MiB   obstacles: {check['obstacles']}")
        cg = statistics.median(ours["seconds"])
        print(f"  column generation   {cg:7.2f} s   peak {ours['peak_mib']:6,.0f} MiB   "
              f"objective {ours['objective']:.6f} (LPs solved: {ours['rounds']}, "
              f"{ours['columns']:,} pairs in the last LP)")
        if ours["pairs"] > args.full_max_pairs:
            print(f"  full LP             skipped: {ours['pairs']:,} pairs > --full-max-pairs "
                  f"{args.full_max_pairs:,}")
            continue
        full = in_fresh_process("full", size, args.seed, args.full_repeats)
        seconds = statistics.median(full["seconds"])
        gap = abs(full["objective"] - ours["objective"])
        print(f"  full LP (baseline)  {seconds:7.2f} s   peak {full['peak_mib']:6,.0f} MiB   "
              f"objective {full['objective']:.6f}")
        print(f"  column generation / full LP: {cg / seconds:.2f} of the time; objectives "
              f"{'agree' if gap <= 1e-6 else 'DIFFER'} (|difference| {gap:.1e})")


if __name__ == "__main__":
    main()
