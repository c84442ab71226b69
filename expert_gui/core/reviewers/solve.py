"""The best assignment of papers to reviewers, exactly, and why there is none when there is none.

An assignment gives every paper exactly `per_paper` people and every person between
`min_per_person` and `max_per_person` papers, never a pair outside `allowed` (a conflict of
interest or a pair the user forbade) and always every `pinned` pair; the best one maximises the
total affinity of its pairs.

    Problem(affinity, allowed, per_paper, max_per_person, min_per_person=0, pinned=None)
    infeasibility(problem) -> list[Obstacle]    why no assignment exists; [] when one does
    solve(problem, progress=None, should_stop=None) -> Assignment | None
        the best assignment; None when `should_stop` said stop; raises `Infeasible` (a
        QueryError holding the obstacles) when there is none
    Obstacle(kind, papers, people, needed, available).describe(paper=str, person=str)
        a reason in plain words, papers and people named by the caller (`message`: by index)

Exactness. The constraints of this bipartite b-matching are totally unimodular, so a basic optimal
solution of the linear relaxation (0 <= x <= 1) is integral: HiGHS's dual simplex finds one, and
it is checked to be integral. The LP over every allowed pair is too large at 2,000 x 2,000 (4
million columns), so it is solved by column generation: first over each paper's best allowed
people, the pins and an assignment the flow check found, then adding, a round at a time, the pairs
whose reduced cost says they would raise the total (and a few close to it), until none would; the
optimum over the pairs in the LP is then the optimum over every pair. Pricing scores a block of
papers at a time: besides the affinities, memory holds a few boolean matrices and one block.

Feasibility is decided exactly by a maximum flow with lower bounds (papers get exactly their
reviewers, people at least their minimum). Once the cheap checks pass, its minimum cut is either a
set of papers that need more reviewers than the people allowed to review them can give, or a set
of people who need more papers than the papers they may review have room for; the set is shrunk
while it still explains, so that the user reads a small one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from scipy.sparse.csgraph import breadth_first_order, connected_components, maximum_flow

from expert_gui.core.errors import QueryError

SHORTLIST = 4  # the LP starts from each paper's SHORTLIST * per_paper best allowed people
PER_ROUND = 3  # pairs added per paper and round, at most
BLOCK = 1 << 23  # affinities (64 MiB of float64) scored at once: shortlists, pricing
INTEGRAL = 1e-6  # how far from 0 or 1 a value of the LP's optimum may be
LISTED = 10  # papers or people a message names before "and N more"

Kind = Literal["forbidden_pin", "paper_overpinned", "person_overpinned", "paper_short",
               "person_short", "capacity", "minimum", "papers_short", "people_short"]


@dataclass(frozen=True, eq=False)
class Problem:
    """Papers x people affinities (finite numbers, higher is better; forbid a pair in `allowed`
    rather than giving it -inf), the allowed and pinned pairs, and the quotas. Checked when made:
    a `QueryError` says what is wrong."""

    affinity: np.ndarray
    allowed: np.ndarray
    per_paper: int
    max_per_person: int
    min_per_person: int = 0
    pinned: np.ndarray | None = None

    def __post_init__(self):
        affinity = np.asarray(self.affinity)
        if affinity.ndim != 2 or affinity.dtype.kind not in "iuf":
            raise QueryError(f"the affinities must be a papers x people matrix of numbers; got "
                             f"{affinity.dtype} of shape {affinity.shape}")
        affinity = affinity.astype(np.float64, copy=False)
        bad = ~np.isfinite(affinity)
        if bad.any():
            p, r = np.argwhere(bad)[0]
            raise QueryError(f"{int(bad.sum()):,} affinities are not finite (the first: paper {p}, "
                             f"person {r}); forbid such pairs in `allowed` and give them any "
                             f"finite affinity")
        object.__setattr__(self, "affinity", affinity)
        for name in ("allowed", "pinned"):
            value = getattr(self, name)
            if name == "pinned" and value is None:
                continue
            if not (isinstance(value, np.ndarray) and value.dtype == bool
                    and value.shape == affinity.shape):
                got = (f"{value.dtype} of shape {value.shape}" if isinstance(value, np.ndarray)
                       else type(value).__name__)
                raise QueryError(f"{name} must be a boolean matrix of the affinities' shape "
                                 f"{affinity.shape}; got {got}")
        for name, least in (("per_paper", 1), ("max_per_person", 0), ("min_per_person", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise QueryError(f"{name} must be a whole number; got {value!r}")
            if value < least:
                raise QueryError(f"{name} must be at least {least}; got {value}")
            object.__setattr__(self, name, int(value))
        if self.min_per_person > self.max_per_person:
            raise QueryError(f"min_per_person ({self.min_per_person}) is above max_per_person "
                             f"({self.max_per_person})")

    @property
    def shape(self) -> tuple[int, int]:
        return self.affinity.shape


@dataclass(frozen=True)
class Obstacle:
    """One reason no assignment exists: the papers and people (indices) it is about, and the
    number that is `needed` against the number `available`.

    kind               papers, people                needed / available
    forbidden_pin      the pair                      1 / 0
    paper_overpinned   the paper, its pinned people  pins / per paper
    person_overpinned  its pinned papers, the person pins / max per person
    paper_short        the paper                     per paper / people allowed
    person_short       the person                    min per person / papers allowed
    capacity           -                             reviews needed / the people can give
    minimum            -                             the minimums' sum / reviews the papers take
    papers_short       the papers, their people      reviewers / what those people can give
    people_short       the people, their papers      reviews / what those papers can take
    """

    kind: Kind
    papers: tuple[int, ...]
    people: tuple[int, ...]
    needed: int
    available: int

    @property
    def message(self) -> str:
        return self.describe()

    def describe(self, paper: Callable[[int], str] = str,
                 person: Callable[[int], str] = str) -> str:
        """The reason in plain words, papers and people named by `paper` and `person`."""
        papers = _named("paper", "papers", self.papers, paper)
        people = _named("person", "people", self.people, person)
        need, have, short = self.needed, self.available, self.needed - self.available
        match self.kind:
            case "forbidden_pin":
                return (f"{papers} is pinned to {people}, who may not review it (a conflict of "
                        f"interest or a forbidden pair); unpin the pair or allow it")
            case "paper_overpinned":
                return (f"{papers} is pinned to {need:,} people but takes {have:,} reviewers; "
                        f"unpin {short:,}")
            case "person_overpinned":
                return (f"{people} is pinned to {need:,} papers but reviews at most {have:,}; "
                        f"unpin {short:,} or raise the maximum per person")
            case "paper_short":
                return (f"{papers} needs {need:,} reviewers but only "
                        f"{_count(have, 'person', 'people')} may review it; allow more people or "
                        f"lower the reviewers per paper")
            case "person_short":
                return (f"{people} must review at least {_count(need, 'paper', 'papers')} but may "
                        f"review only {have:,}; allow more papers or lower the minimum per person")
            case "capacity":
                return (f"the papers need {need:,} reviews but the people can give at most "
                        f"{have:,}, {short:,} short; add people, raise the maximum per person or "
                        f"lower the reviewers per paper")
            case "minimum":
                return (f"the people's minimums add up to {need:,} reviews but the papers take "
                        f"only {have:,}; lower the minimum per person")
            case "papers_short":
                verb, them = ("needs", "it") if len(self.papers) == 1 else ("need", "them")
                return (f"{papers} {verb} {need:,} reviewers but the "
                        f"{_count(len(self.people), 'person', 'people')} allowed to review {them} "
                        f"can give only {have:,}; allow more people for {them} or raise the "
                        f"maximum per person")
            case "people_short":
                between = " between them" if len(self.people) > 1 else ""
                return (f"{people} must review at least {need:,} papers{between} but the "
                        f"{_count(len(self.papers), 'paper', 'papers')} they may review can take "
                        f"only {have:,} of them; allow them more papers or lower the minimum per "
                        f"person")


class Infeasible(QueryError):
    """No assignment meets the quotas, conflicts and pins; `obstacles` says why."""

    def __init__(self, obstacles: list[Obstacle]):
        self.obstacles = obstacles
        more = len(obstacles) - 1
        rest = f" (and {_count(more, 'other reason', 'other reasons')})" if more else ""
        super().__init__(f"no assignment exists: {obstacles[0].message}{rest}")


@dataclass(frozen=True)
class Assignment:
    """The best assignment: `pairs` (paper, person) sorted by paper, then by affinity from the
    highest; `total` their affinity; the column generation's `rounds` and the `columns` (pairs)
    its last LP held."""

    pairs: np.ndarray
    total: float
    rounds: int
    columns: int
    seconds: float


def infeasibility(problem: Problem) -> list[Obstacle]:
    """Why no assignment exists, exactly: every cheap reason found, else the flow check's one;
    [] when an assignment exists."""
    quotas = _Quotas.of(problem)
    quick = _quick_obstacles(problem, quotas)
    if quick:
        return quick
    _, obstacle, _ = _flow_check(problem, quotas)
    return [] if obstacle is None else [obstacle]


def solve(problem: Problem, progress: Callable[[str], None] | None = None,
          should_stop: Callable[[], bool] | None = None) -> Assignment | None:
    """The assignment of the highest total affinity (one of them, on ties); None if
    `should_stop` said stop (asked between rounds). `progress` gets short texts."""
    started = time.perf_counter()
    say = progress or (lambda _text: None)
    say("checking that an assignment exists")
    quotas = _Quotas.of(problem)
    quick = _quick_obstacles(problem, quotas)
    if quick:
        raise Infeasible(quick)
    if problem.shape[0] == 0:
        return Assignment(np.zeros((0, 2), np.int64), 0.0, 0, 0, time.perf_counter() - started)
    start, obstacle, (rows, cols) = _flow_check(problem, quotas)
    if obstacle is not None:
        raise Infeasible([obstacle])
    in_lp = quotas.pinned.copy()
    in_lp[rows, cols] = True
    in_lp[start] = True
    rows, cols = np.nonzero(in_lp)
    tolerance = 1e-9 * max(1.0, -float(problem.affinity.min()), float(problem.affinity.max()))
    rounds = 0
    while True:
        if should_stop is not None and should_stop():
            return None
        taken, paper_dual, person_dual = _restricted_lp(problem, quotas.pinned, rows, cols)
        rounds += 1
        more_rows, more_cols = _improving(problem, in_lp, paper_dual, person_dual, tolerance)
        say(f"round {rounds}: {len(rows):,} pairs considered, "
            f"{len(more_rows):,} more may raise the total")
        if not len(more_rows):
            break
        in_lp[more_rows, more_cols] = True
        rows, cols = np.concatenate([rows, more_rows]), np.concatenate([cols, more_cols])
    papers, people = rows[taken], cols[taken]
    scores = problem.affinity[papers, people]
    order = np.lexsort((people, -scores, papers))
    pairs = np.stack([papers[order], people[order]], axis=1).astype(np.int64)
    return Assignment(pairs, float(scores.sum()), rounds, len(rows), time.perf_counter() - started)


@dataclass(frozen=True)
class _Quotas:
    """What is left to assign once the pins are placed: `need` reviewers per paper, `room` and
    `least` papers per person, over the `free` pairs (allowed, not pinned)."""

    pinned: np.ndarray
    free: np.ndarray
    need: np.ndarray
    room: np.ndarray
    least: np.ndarray

    @classmethod
    def of(cls, problem: Problem) -> _Quotas:
        pinned = (problem.pinned if problem.pinned is not None
                  else np.zeros(problem.shape, bool))
        per_person = pinned.sum(axis=0)
        return cls(pinned, problem.allowed & ~pinned, problem.per_paper - pinned.sum(axis=1),
                   problem.max_per_person - per_person,
                   np.maximum(problem.min_per_person - per_person, 0))


def _quick_obstacles(problem: Problem, quotas: _Quotas) -> list[Obstacle]:
    """The reasons one paper, one person or the totals give at once."""
    n_papers, n_people = problem.shape
    k, most, least = problem.per_paper, problem.max_per_person, problem.min_per_person
    pinned, allowed = quotas.pinned, problem.allowed
    found = [Obstacle("forbidden_pin", (int(p),), (int(r),), 1, 0)
             for p, r in np.argwhere(pinned & ~allowed)]
    for p in np.flatnonzero(quotas.need < 0):
        pins = np.flatnonzero(pinned[p])
        found.append(Obstacle("paper_overpinned", (int(p),), _ints(pins), len(pins), k))
    for r in np.flatnonzero(quotas.room < 0):
        pins = np.flatnonzero(pinned[:, r])
        found.append(Obstacle("person_overpinned", _ints(pins), (int(r),), len(pins), most))
    per_paper = allowed.sum(axis=1)
    found += [Obstacle("paper_short", (int(p),), (), k, int(per_paper[p]))
              for p in np.flatnonzero(per_paper < k)]
    per_person = allowed.sum(axis=0)
    found += [Obstacle("person_short", (), (int(r),), least, int(per_person[r]))
              for r in np.flatnonzero(per_person < least)]
    if n_people * most < n_papers * k:
        found.append(Obstacle("capacity", (), (), n_papers * k, n_people * most))
    if n_people * least > n_papers * k:
        found.append(Obstacle("minimum", (), (), n_people * least, n_papers * k))
    return found


def _shortlist(problem: Problem, free: np.ndarray,
               scale: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The free pairs the flow check and the LP try first: each paper's scale * SHORTLIST *
    per_paper best people and, when people have a minimum, each person's scale * SHORTLIST *
    minimum best papers."""
    n_papers, n_people = problem.shape
    rows, cols = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    per_paper = min(n_people, scale * SHORTLIST * problem.per_paper)
    for block in _blocks(n_papers, n_people):
        best = _best(problem.affinity[block], free[block], per_paper)
        rows.append(block.start + best[0])
        cols.append(best[1])
    per_person = min(n_papers, scale * SHORTLIST * problem.min_per_person)
    if per_person:
        for block in _blocks(n_people, n_papers):
            best = _best(problem.affinity[:, block].T, free[:, block].T, per_person)
            rows.append(best[1])
            cols.append(block.start + best[0])
    return np.concatenate(rows), np.concatenate(cols)


def _best(scores: np.ndarray, free: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of each row's k highest free scores."""
    scores = np.where(free, scores, -np.inf)
    top = np.argpartition(scores, scores.shape[1] - k, axis=1)[:, scores.shape[1] - k:]
    keep = np.isfinite(np.take_along_axis(scores, top, axis=1))
    return np.nonzero(keep)[0], top[keep]


def _blocks(n_rows: int, row_length: int):
    """Consecutive slices of rows of at most BLOCK numbers."""
    size = max(1, BLOCK // max(row_length, 1))
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


@dataclass(frozen=True)
class _Flow:
    """A maximum flow's verdict: an assignment's free pairs (rows, columns) when there is one,
    else which nodes are on the source's side of the minimum cut."""

    pairs: tuple[np.ndarray, np.ndarray] | None
    source_side: np.ndarray | None


def _flow_check(problem: Problem, quotas: _Quotas):
    """An assignment's free pairs, the obstacle when there is none (the minimum cut's, over
    every free pair), and the shortlist the LP starts from: each paper's best people, twice as
    many each time they hold no assignment (popular people's quotas fill), so that memory
    follows the shortlist, not every pair (20,000 x 30,000 has 600 million)."""
    n_papers, n_people = problem.shape
    scale = 1
    while True:
        rows, cols = _shortlist(problem, quotas.free, scale)
        flow = _max_flow(quotas, rows, cols)
        if flow.pairs is not None:
            return flow.pairs, None, (rows, cols)
        whole = (scale * SHORTLIST * problem.per_paper >= n_people
                 and scale * SHORTLIST * problem.min_per_person >= n_papers)
        if whole or len(rows) * 8 >= quotas.free.size:  # the shortlist is nearly every pair
            break
        scale *= 2
    flow = _max_flow(quotas, *_free_pairs(quotas.free))
    if flow.pairs is None:
        return None, _cut_obstacle(quotas, flow.source_side), (rows, cols)
    return flow.pairs, None, (rows, cols)


def _free_pairs(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of every free pair, as int32, a block of rows at a time."""
    rows, cols = [], []
    for block in _blocks(*free.shape):
        r, c = np.nonzero(free[block])
        rows.append((r + block.start).astype(np.int32))
        cols.append(c.astype(np.int32))
    return np.concatenate(rows), np.concatenate(cols)


def _max_flow(quotas: _Quotas, rows: np.ndarray, cols: np.ndarray) -> _Flow:
    """The maximum flow of the lower-bounded network over the pairs (rows, cols).

    Nodes: source 0, papers 1..P, people P+1..P+R, t, sink. Papers draw their `need` from the
    source and send one unit along each pair; a person's `least` goes straight to the sink, the
    rest (up to `room - least`) through t. The standard reduction of lower bounds adds source -> t
    (the sum of `least`) and t -> sink (the sum of `need`): an assignment exists exactly when the
    flow saturates every edge out of the source.
    """
    n_papers, n_people = len(quotas.need), len(quotas.room)
    t, sink = n_papers + n_people + 1, n_papers + n_people + 2
    i32 = np.int32  # node ids and capacities: half the memory of every pair's edge
    papers = np.arange(1, n_papers + 1, dtype=i32)
    people = np.arange(n_papers + 1, n_papers + n_people + 1, dtype=i32)
    need, least = int(quotas.need.sum()), int(quotas.least.sum())
    tails = np.concatenate([np.zeros(n_papers, i32), (rows + 1).astype(i32, copy=False),
                            people, people, np.array([0, t], i32)])
    heads = np.concatenate([papers, (cols + 1 + n_papers).astype(i32, copy=False),
                            np.full(n_people, t, i32), np.full(n_people, sink, i32),
                            np.array([t, sink], i32)])
    rest = np.minimum(quotas.room - quotas.least, n_papers)  # a huge maximum fits in int32
    caps = np.concatenate([quotas.need.astype(i32), np.ones(len(rows), i32), rest.astype(i32),
                           quotas.least.astype(i32), np.array([least, need], i32)])
    used = caps > 0
    graph = sparse.csr_array((caps[used], (tails[used], heads[used])), shape=(sink + 1, sink + 1))
    result = maximum_flow(graph, 0, sink, method="dinic")
    if result.flow_value == need + least:
        assigned = result.flow[1:n_papers + 1, n_papers + 1:t].tocoo()
        on = assigned.data > 0
        return _Flow((assigned.row[on], assigned.col[on]), None)
    residual = (graph - result.flow).tocoo()
    open_ = residual.data > 0
    reach = sparse.csr_array((np.ones(open_.sum()), (residual.row[open_], residual.col[open_])),
                             shape=graph.shape)
    side = np.zeros(sink + 1, bool)
    side[breadth_first_order(reach, 0, directed=True, return_predecessors=False)] = True
    return _Flow(None, side)


def _cut_obstacle(quotas: _Quotas, source_side: np.ndarray) -> Obstacle:
    """The obstacle a minimum cut of `_max_flow`'s network shows.

    With t beyond the cut, the cut is short by need(X) - sum_r min(room_r, pairs(X, r)) for the
    papers X on the source's side: they need more than their people can give. With t on the
    source's side it is short by least(Z) - sum_p min(need_p, pairs(p, Z)) for the people Z
    beyond the cut: they need more than their papers can take. Pins count on both sides.
    """
    n_papers, n_people = len(quotas.need), len(quotas.room)
    pins = quotas.pinned
    if not source_side[n_papers + n_people + 1]:
        papers = np.flatnonzero(source_side[1:n_papers + 1] & (quotas.need > 0))
        keep, need, have = _smallest(quotas.need[papers], quotas.free[papers], quotas.room)
        papers = papers[keep]
        pinned = int(pins[papers].sum())
        people = np.flatnonzero(quotas.free[papers].any(axis=0) | pins[papers].any(axis=0))
        return Obstacle("papers_short", _ints(papers), _ints(people), need + pinned,
                        have + pinned)
    beyond = ~source_side[n_papers + 1:n_papers + n_people + 1]
    people = np.flatnonzero(beyond & (quotas.least > 0))
    keep, need, have = _smallest(quotas.least[people], quotas.free[:, people].T, quotas.need)
    people = people[keep]
    pinned = int(pins[:, people].sum())
    papers = np.flatnonzero(quotas.free[:, people].any(axis=1) | pins[:, people].any(axis=1))
    return Obstacle("people_short", _ints(papers), _ints(people), need + pinned, have + pinned)


def _smallest(need: np.ndarray, links: np.ndarray,
              room: np.ndarray) -> tuple[np.ndarray, int, int]:
    """A small subset of members (rows of `links`) that needs more than the others they link to
    can give it (sum over others of min(room, links to the subset)), from a set that does.

    Members that share no others add up their shortfalls, so one group of linked members falls
    short on its own: the smallest that does is kept, then members are dropped, those with the
    most links first, while the rest still falls short. Returns which members stay, their need and
    what they can be given.
    """
    n = len(need)
    graph = sparse.csr_array(links)
    _, group = connected_components(sparse.bmat([[None, graph], [graph.T, None]]), directed=False)
    group = group[:n]
    short = [g for g in np.unique(group) if need[group == g].sum()
             > np.minimum(room, links[group == g].sum(axis=0)).sum()]
    keep = group == min(short, key=lambda g: (np.count_nonzero(group == g), g))
    counts = links[keep].sum(axis=0)
    total_need = int(need[keep].sum())
    given = int(np.minimum(room, counts).sum())
    order = np.argsort(-links.sum(axis=1), kind="stable")
    dropped = True
    while dropped:
        dropped = False
        for i in order[keep[order]]:
            others = np.flatnonzero(links[i])
            lost = int((np.minimum(room[others], counts[others])
                        - np.minimum(room[others], counts[others] - 1)).sum())
            if total_need - need[i] > given - lost:
                keep[i] = False
                counts[others] -= 1
                total_need -= int(need[i])
                given -= lost
                dropped = True
    return keep, total_need, given


def _restricted_lp(problem: Problem, pinned: np.ndarray, rows: np.ndarray,
                   cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LP's optimum over the pairs (rows, cols): which pairs it takes, and the duals of the
    papers' and people's constraints that price the pairs outside it (see `_improving`)."""
    n_papers, n_people = problem.shape
    n = len(rows)
    ones, columns = np.ones(n), np.arange(n)
    per_paper = sparse.csr_array((ones, (rows, columns)), shape=(n_papers, n))
    per_person = sparse.csr_array((ones, (cols, columns)), shape=(n_people, n))
    bounds = np.zeros((n, 2))
    bounds[:, 1] = 1.0
    bounds[pinned[rows, cols], 0] = 1.0
    b_ub = np.full(n_people, float(problem.max_per_person))
    if problem.min_per_person:
        per_person = sparse.vstack([per_person, -per_person], format="csr")
        b_ub = np.concatenate([b_ub, np.full(n_people, -float(problem.min_per_person))])
    result = linprog(-problem.affinity[rows, cols], A_ub=per_person, b_ub=b_ub,
                     A_eq=per_paper, b_eq=np.full(n_papers, float(problem.per_paper)),
                     bounds=bounds, method="highs-ds")
    if result.status != 0:
        raise RuntimeError(f"HiGHS did not solve the assignment LP over {n:,} pairs "
                           f"({result.message}) although an assignment exists; please report it")
    off = np.abs(result.x - np.round(result.x)).max(initial=0.0)
    if off > INTEGRAL:
        raise RuntimeError(f"the assignment LP's optimum is not integral (a value {off:.2g} "
                           f"from 0 or 1), so it is no assignment; please report it")
    person_dual = result.ineqlin.marginals[:n_people]
    if problem.min_per_person:
        person_dual = person_dual - result.ineqlin.marginals[n_people:]
    return result.x > 0.5, result.eqlin.marginals, person_dual


def _improving(problem: Problem, in_lp: np.ndarray, paper_dual: np.ndarray,
               person_dual: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """The allowed pairs outside the LP to add to it: none when no pair's gain is above
    `tolerance` (the LP's optimum is then the optimum over every pair), else each paper's
    PER_ROUND best pairs whose gain is within the best gain of zero.

    linprog minimises -affinity; its marginals are the derivatives of that minimum by the
    right-hand sides (papers' `== per_paper`, people's `<= max` and `-x <= -min`). A pair's
    reduced cost is then -a - paper_dual - max_dual + min_dual, and it would lower the minimum,
    that is raise the total, when its gain a + paper_dual + person_dual (person_dual = max_dual -
    min_dual) is above zero. The duals of this degenerate LP are one choice among many, so a pair
    just below zero often gains under the next round's: taking it now saves rounds.
    """
    n_papers, n_people = problem.shape
    k = min(PER_ROUND, n_people)
    tops, gains = [], []
    for block in _blocks(n_papers, n_people):
        gain = problem.affinity[block] + paper_dual[block, None]
        gain += person_dual
        gain[~problem.allowed[block] | in_lp[block]] = -np.inf
        top = np.argpartition(gain, n_people - k, axis=1)[:, n_people - k:]
        tops.append(top)
        gains.append(np.take_along_axis(gain, top, axis=1))
    top, gain = np.concatenate(tops), np.concatenate(gains)
    best = gain.max(initial=-np.inf)
    if best <= tolerance:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    rows, place = np.nonzero(gain > -best)
    return rows, top[rows, place]


def _named(one: str, many: str, indices: tuple[int, ...], name: Callable[[int], str]) -> str:
    """'paper 3', 'papers 3, 5 and 9', 'papers 1, 2, ... and 12 more'."""
    names = [name(i) for i in indices[:LISTED]]
    if len(indices) <= 1:
        return f"{one} {names[0]}" if names else ""
    if len(indices) <= LISTED:
        return f"{many} {', '.join(names[:-1])} and {names[-1]}"
    return f"{many} {', '.join(names)} and {len(indices) - LISTED:,} more"


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _ints(indices: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in indices)
