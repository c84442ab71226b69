"""The exact reviewer assignment: against brute force and the LP over every pair, the reasons
it gives when there is no assignment, and the inputs it refuses."""

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

from expert_gui.core.errors import QueryError
from expert_gui.core.reviewers.solve import (
    Infeasible,
    Obstacle,
    Problem,
    _restricted_lp,
    _smallest,
    infeasibility,
    solve,
)


def random_problem(rng, papers: int, people: int) -> Problem:
    """Random quotas near what the totals allow (so that conflicts and pins decide), conflicts
    and pins; affinities with ties half of the time."""
    k = int(rng.integers(1, min(3, people) + 1))
    fair = papers * k / people
    most = max(0, int(np.ceil(fair)) + int(rng.integers(-1, 2)))
    least = min(most, max(0, int(fair) - int(rng.integers(0, 2)))) if rng.random() < 0.4 else 0
    affinity = (rng.normal(size=(papers, people)) if rng.random() < 0.5
                else rng.integers(0, 3, (papers, people)).astype(float))
    allowed = rng.random((papers, people)) >= rng.choice([0.0, 0.2, 0.4])
    pinned = rng.random((papers, people)) < 0.1 if rng.random() < 0.4 else None
    return Problem(affinity, allowed, k, most, least, pinned)


def tight_problem(rng) -> Problem:
    """Quotas at the totals' edge and few allowed pairs, every paper with enough people and every
    person with enough papers: only sets of papers or of people can fall short."""
    papers, k = int(rng.integers(2, 5)), int(rng.integers(1, 3))
    if rng.random() < 0.5:  # the minimum binds: people share a few papers
        people = int(rng.integers(k, papers * k + 1))
        least, most, extra = papers * k // people, papers, 0
        pool = min(papers, least + int(rng.integers(0, 2)))
        allowed = np.zeros((papers, people), bool)
        for r in range(people):
            allowed[rng.choice(pool, least, replace=False), r] = True
    else:  # the maximum binds: papers have few people each
        people = int(rng.integers(k, 6))
        least, most, extra = 0, int(np.ceil(papers * k / people)), int(rng.integers(0, 2))
        allowed = np.zeros((papers, people), bool)
    for p in range(papers):
        others = np.flatnonzero(~allowed[p])
        missing = min(max(0, k + extra - allowed[p].sum()), len(others))
        allowed[p, rng.choice(others, missing, replace=False)] = True
    return Problem(rng.normal(size=(papers, people)), allowed, k, most, least)


def brute_best(problem: Problem) -> float | None:
    """The best total over every assignment, enumerated; None when there is none."""
    n_papers, n_people = problem.shape
    pinned = problem.pinned if problem.pinned is not None else np.zeros(problem.shape, bool)
    loads, totals = np.zeros((1, n_people), int), np.zeros(1)
    for p in range(n_papers):
        pins = set(np.flatnonzero(pinned[p]))
        options = [c for c in combinations(range(n_people), problem.per_paper)
                   if problem.allowed[p, list(c)].all() and pins <= set(c)]
        chosen = np.zeros((len(options), n_people), int)
        for i, c in enumerate(options):
            chosen[i, list(c)] = 1
        values = np.array([problem.affinity[p, list(c)].sum() for c in options])
        loads = (loads[:, None, :] + chosen[None]).reshape(-1, n_people)
        totals = (totals[:, None] + values[None]).reshape(-1)
        fits = (loads <= problem.max_per_person).all(axis=1)
        loads, totals = loads[fits], totals[fits]
    fits = (loads >= problem.min_per_person).all(axis=1)
    return float(totals[fits].max()) if fits.any() else None


def full_lp_best(problem: Problem) -> float:
    """The LP over every allowed pair at once, written apart from the solver's."""
    rows, cols = np.nonzero(problem.allowed)
    n_papers, n_people = problem.shape
    n = len(rows)
    paper_rows = sparse.csr_array((np.ones(n), (rows, np.arange(n))), shape=(n_papers, n))
    person_rows = sparse.csr_array((np.ones(n), (cols, np.arange(n))), shape=(n_people, n))
    lower = problem.pinned[rows, cols].astype(float) if problem.pinned is not None else 0
    result = linprog(-problem.affinity[rows, cols],
                     A_ub=sparse.vstack([person_rows, -person_rows]),
                     b_ub=np.r_[np.full(n_people, problem.max_per_person),
                                np.full(n_people, -problem.min_per_person)],
                     A_eq=paper_rows, b_eq=np.full(n_papers, problem.per_paper),
                     bounds=np.c_[np.zeros(n) + lower, np.ones(n)], method="highs")
    assert result.status == 0
    return -result.fun


def assert_valid(problem: Problem, assignment) -> None:
    pairs = assignment.pairs
    papers, people = pairs[:, 0], pairs[:, 1]
    assert pairs.dtype == np.int64 and len({tuple(p) for p in pairs}) == len(pairs)
    assert (np.bincount(papers, minlength=problem.shape[0]) == problem.per_paper).all()
    loads = np.bincount(people, minlength=problem.shape[1])
    assert (loads <= problem.max_per_person).all() and (loads >= problem.min_per_person).all()
    assert problem.allowed[papers, people].all()
    if problem.pinned is not None:
        taken = np.zeros(problem.shape, bool)
        taken[papers, people] = True
        assert taken[problem.pinned].all()
    scores = problem.affinity[papers, people]
    assert assignment.total == pytest.approx(scores.sum(), abs=1e-9)
    same_paper = papers[1:] == papers[:-1]
    assert (papers[1:] >= papers[:-1]).all()
    assert (scores[1:][same_paper] <= scores[:-1][same_paper]).all()


def test_small_problems_match_brute_force():
    rng = np.random.default_rng(7)
    feasible = 0
    for _ in range(400):
        problem = random_problem(rng, int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        best = brute_best(problem)
        obstacles = infeasibility(problem)
        if best is None:
            assert obstacles
            with pytest.raises(Infeasible) as raised:
                solve(problem)
            assert raised.value.obstacles == obstacles
            continue
        feasible += 1
        assert obstacles == []
        assignment = solve(problem)
        assert_valid(problem, assignment)
        assert assignment.total == pytest.approx(best, abs=1e-9)
    assert 100 < feasible < 350  # both outcomes were tried often


def test_sets_of_papers_or_people_that_fall_short_match_brute_force():
    """The flow check's verdict, and the set it names cannot be served: recounted by hand, and
    for papers, brute force finds no assignment of those papers alone."""
    rng = np.random.default_rng(8)
    kinds = Counter()
    for _ in range(300):
        problem = tight_problem(rng)
        best, obstacles = brute_best(problem), infeasibility(problem)
        assert (best is None) == bool(obstacles)
        if best is not None:
            assert solve(problem).total == pytest.approx(best, abs=1e-9)
            continue
        [obstacle] = obstacles
        kinds[obstacle.kind] += 1
        k, most, least = problem.per_paper, problem.max_per_person, problem.min_per_person
        allowed = problem.allowed
        if obstacle.kind == "papers_short":
            papers = list(obstacle.papers)
            can_give = np.minimum(most, allowed[papers].sum(axis=0))
            assert (obstacle.needed, obstacle.available) == (k * len(papers), can_give.sum())
            assert obstacle.people == tuple(np.flatnonzero(can_give))
            alone = Problem(problem.affinity[papers], allowed[papers], k, most)
            assert brute_best(alone) is None
        else:
            people = list(obstacle.people)
            can_take = np.minimum(k, allowed[:, people].sum(axis=1))
            assert (obstacle.needed, obstacle.available) == (least * len(people), can_take.sum())
            assert obstacle.papers == tuple(np.flatnonzero(can_take))
        assert obstacle.available < obstacle.needed
    assert kinds["papers_short"] > 20 and kinds["people_short"] > 5


def test_column_generation_matches_the_lp_over_every_pair():
    rng = np.random.default_rng(11)
    rounds = []
    for i in range(8):
        n_papers, n_people, k = 60, 80, 1 + i % 4
        most = int(np.ceil(n_papers * k / n_people * rng.uniform(1.0, 1.5)))
        popular = rng.normal(0, 1, n_people)  # people most papers want: their quotas bind
        affinity = rng.normal(size=(n_papers, n_people)) + 2 * popular
        allowed = rng.random((n_papers, n_people)) > 0.1
        pinned = np.zeros((n_papers, n_people), bool)
        pinned[np.arange(5), np.arange(5) * 7] = allowed[np.arange(5), np.arange(5) * 7] = True
        problem = Problem(affinity, allowed, k, most, int(k > 1 and i % 2), pinned)
        assignment = solve(problem)
        assert_valid(problem, assignment)
        assert assignment.total == pytest.approx(full_lp_best(problem), abs=1e-6)
        assert assignment.columns < allowed.sum()
        rounds.append(assignment.rounds)
    assert max(rounds) > 2  # pricing added pairs that mattered


def test_scipy_marginals_are_derivatives_of_the_minimum():
    """The signs pricing relies on: reduced costs c - A_eq' y_eq - A_ub' y_ub are the bounds'
    marginals, for linprog's HiGHS methods."""
    rng = np.random.default_rng(3)
    c = rng.normal(size=12)
    a_eq = rng.integers(0, 2, (3, 12)).astype(float)
    a_ub = rng.integers(-1, 2, (4, 12)).astype(float)
    for method in ("highs-ds", "highs"):
        result = linprog(c, A_ub=a_ub, b_ub=np.full(4, 2.0), A_eq=a_eq, b_eq=a_eq.sum(1) / 2,
                         bounds=(0, 1), method=method)
        reduced = c - a_eq.T @ result.eqlin.marginals - a_ub.T @ result.ineqlin.marginals
        assert reduced == pytest.approx(result.lower.marginals + result.upper.marginals, abs=1e-9)
        assert (result.ineqlin.marginals <= 1e-12).all()


def test_the_duals_price_the_pairs_in_the_lp_as_optimal():
    """At the LP's optimum a pair taken has a gain >= 0 and a pair left out a gain <= 0: the
    paper and person duals enter the gain with the signs the pricing uses."""
    rng = np.random.default_rng(5)
    affinity = rng.normal(size=(30, 20)) + rng.normal(size=20)
    allowed = rng.random((30, 20)) > 0.2
    problem = Problem(affinity, allowed, 2, 4, 2)
    rows, cols = np.nonzero(allowed)
    taken, paper_dual, person_dual = _restricted_lp(problem, np.zeros_like(allowed), rows, cols)
    gain = affinity[rows, cols] + paper_dual[rows] + person_dual[cols]
    assert (gain[taken] >= -1e-7).all() and (gain[~taken] <= 1e-7).all()
    assert (gain[taken] > 1e-3).any() and (gain[~taken] < -1e-3).any()


def test_popular_people_beyond_every_shortlist_are_still_found():
    """Every paper ranks the same two people first, and each person takes one paper: the best
    assignment needs pairs far down every list."""
    affinity = np.tile(np.arange(10.0, 0.0, -1.0), (10, 1))
    affinity += np.arange(10)[:, None] * 0.01 * np.arange(10)[None, :]
    problem = Problem(affinity, np.ones((10, 10), bool), 1, 1)
    assignment = solve(problem)
    assert_valid(problem, assignment)
    assert assignment.total == pytest.approx(full_lp_best(problem), abs=1e-9)
    assert assignment.rounds > 1


def test_ties_and_equal_affinities_give_a_valid_assignment():
    problem = Problem(np.full((6, 5), 0.5), np.ones((6, 5), bool), 2, 3, 2)
    assignment = solve(problem)
    assert_valid(problem, assignment)
    assert assignment.total == pytest.approx(6.0)


def test_progress_and_stop():
    rng = np.random.default_rng(2)
    problem = Problem(rng.normal(size=(8, 6)), np.ones((8, 6), bool), 2, 3)
    said = []
    assert solve(problem, progress=said.append) is not None
    assert said[0] == "checking that an assignment exists" and said[-1].startswith("round ")
    assert solve(problem, should_stop=lambda: True) is None


def test_no_papers():
    problem = Problem(np.zeros((0, 3)), np.zeros((0, 3), bool), 2, 1)
    assert infeasibility(problem) == []
    assert solve(problem).pairs.shape == (0, 2)


def obstacles_of(papers, people, k, most, least=0, allowed=None, pinned=None):
    allowed = np.ones((papers, people), bool) if allowed is None else allowed
    problem = Problem(np.zeros((papers, people)), allowed, k, most, least, pinned)
    return infeasibility(problem)


def test_a_paper_short_of_allowed_people():
    allowed = np.ones((3, 4), bool)
    allowed[1, 1:] = False
    [obstacle] = obstacles_of(3, 4, 2, 3, allowed=allowed)
    assert obstacle == Obstacle("paper_short", (1,), (), 2, 1)
    assert obstacle.message == ("paper 1 needs 2 reviewers but only 1 person may review it; "
                                "allow more people or lower the reviewers per paper")


def test_a_person_short_of_allowed_papers():
    allowed = np.ones((4, 4), bool)
    allowed[:3, 3] = False
    [obstacle] = obstacles_of(4, 4, 2, 3, least=2, allowed=allowed)
    assert obstacle == Obstacle("person_short", (), (3,), 2, 1)
    assert "person 3 must review at least 2 papers but may review only 1" in obstacle.message


def test_capacity_and_minimum_totals():
    [capacity] = obstacles_of(20, 9, 3, 6)
    assert capacity == Obstacle("capacity", (), (), 60, 54)
    assert capacity.message.startswith("the papers need 60 reviews but the people can give at "
                                       "most 54, 6 short")
    [minimum] = obstacles_of(5, 10, 1, 3, least=1)
    assert minimum == Obstacle("minimum", (), (), 10, 5)
    assert "lower the minimum per person" in minimum.message


def test_pins_over_quota_and_on_forbidden_pairs():
    pinned = np.zeros((4, 5), bool)
    pinned[0, :3] = True  # paper 0 takes 2
    pinned[1:4, 4] = True  # person 4 reviews at most 2
    allowed = np.ones((4, 5), bool)
    allowed[2, 4] = False
    found = obstacles_of(4, 5, 2, 2, allowed=allowed, pinned=pinned)
    assert found == [Obstacle("forbidden_pin", (2,), (4,), 1, 0),
                     Obstacle("paper_overpinned", (0,), (0, 1, 2), 3, 2),
                     Obstacle("person_overpinned", (1, 2, 3), (4,), 3, 2)]
    assert found[0].message.startswith("paper 2 is pinned to person 4, who may not review it")
    assert found[1].message == "paper 0 is pinned to 3 people but takes 2 reviewers; unpin 1"
    assert found[2].message.startswith("person 4 is pinned to 3 papers but reviews at most 2")


def test_papers_that_together_lack_people():
    """No single paper and no total explains it: papers 0 and 1 may only have people 0-2, who
    take one paper each."""
    allowed = np.ones((4, 8), bool)
    allowed[:2, 3:] = False
    [obstacle] = obstacles_of(4, 8, 2, 1, allowed=allowed)
    assert obstacle == Obstacle("papers_short", (0, 1), (0, 1, 2), 4, 3)
    assert obstacle.message.startswith("papers 0 and 1 need 4 reviewers but the 3 people allowed "
                                       "to review them can give only 3")
    named = obstacle.describe(paper=lambda p: f"P{p}", person=lambda r: "abc"[r])
    assert named.startswith("papers P0 and P1 need 4 reviewers")


def test_of_two_groups_of_papers_short_of_people_the_smaller_is_named():
    allowed = np.ones((6, 12), bool)
    allowed[:2, 3:] = False  # papers 0 and 1 need 4 of people 0-2
    allowed[2:5, :3] = allowed[2:5, 8:] = False  # papers 2-4 need 6 of people 3-7
    [obstacle] = obstacles_of(6, 12, 2, 1, allowed=allowed)
    assert obstacle == Obstacle("papers_short", (0, 1), (0, 1, 2), 4, 3)


def test_a_paper_that_is_not_needed_to_explain_is_dropped():
    links = np.zeros((3, 5), bool)
    links[:2, :3] = True  # papers 0 and 1 share people 0-2
    links[2, [0, 3, 4]] = True  # paper 2 shares person 0 with them, and has two of its own
    keep, need, given = _smallest(np.array([2, 2, 2]), links, np.ones(5, int))
    assert keep.tolist() == [True, True, False] and (need, given) == (4, 3)


def test_pins_count_in_a_set_of_papers():
    allowed = np.zeros((2, 4), bool)
    allowed[:, :3] = True
    pinned = np.zeros((2, 4), bool)
    pinned[0, 0] = True
    [obstacle] = obstacles_of(2, 4, 2, 1, allowed=allowed, pinned=pinned)
    assert obstacle == Obstacle("papers_short", (0, 1), (0, 1, 2), 4, 3)


def test_people_that_together_lack_papers():
    allowed = np.ones((3, 3), bool)
    allowed[1:, :2] = False
    [obstacle] = obstacles_of(3, 3, 1, 3, least=1, allowed=allowed)
    assert obstacle == Obstacle("people_short", (0,), (0, 1), 2, 1)
    assert obstacle.message.startswith("people 0 and 1 must review at least 2 papers between "
                                       "them but the 1 paper they may review can take only 1 of "
                                       "them")


def test_the_smallest_set_is_named_among_many_papers():
    rng = np.random.default_rng(1)
    allowed = rng.random((200, 400)) > 0.05
    allowed[[17, 40, 41], :] = False
    allowed[[17, 40, 41], :4] = True  # three papers of 3 reviewers share 4 people of 2 papers
    problem = Problem(rng.normal(size=(200, 400)), allowed, 3, 2)
    [obstacle] = infeasibility(problem)
    assert obstacle == Obstacle("papers_short", (17, 40, 41), (0, 1, 2, 3), 9, 8)
    with pytest.raises(Infeasible, match="no assignment exists: papers 17, 40 and 41 need 9"):
        solve(problem)


def test_long_lists_are_cut_in_messages():
    obstacle = Obstacle("papers_short", tuple(range(13)), (1, 2), 39, 4)
    assert obstacle.message.startswith("papers 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 3 more need 39")


@pytest.mark.parametrize("change, message", [
    ({"affinity": np.zeros(4)}, "papers x people matrix of numbers"),
    ({"affinity": np.array([[0.0, np.inf]] * 2)},
     "2 affinities are not finite (the first: paper 0, person 1)"),
    ({"allowed": np.ones((2, 2), int)}, "allowed must be a boolean matrix"),
    ({"allowed": np.ones((2, 3), bool)},
     "allowed must be a boolean matrix of the affinities' shape (2, 2)"),
    ({"pinned": np.ones((3, 2), bool)}, "pinned must be a boolean matrix"),
    ({"per_paper": 0}, "per_paper must be at least 1; got 0"),
    ({"per_paper": 1.5}, "per_paper must be a whole number; got 1.5"),
    ({"min_per_person": -1}, "min_per_person must be at least 0"),
    ({"min_per_person": 3}, "min_per_person (3) is above max_per_person (2)"),
])
def test_bad_inputs_are_refused(change, message):
    given = {"affinity": np.zeros((2, 2)), "allowed": np.ones((2, 2), bool),
             "per_paper": 1, "max_per_person": 2} | change
    with pytest.raises(QueryError) as raised:
        Problem(**given)
    assert message in str(raised.value)
