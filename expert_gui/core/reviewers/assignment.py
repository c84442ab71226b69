"""Many papers from outside assigned to the collection's people: every paper gets exactly K
people, nobody more than M papers (at least m), no pair in conflict, the total affinity as
high as it can be (solve.py finds the optimum exactly).

`prepare` does the slow part once (loading is the caller's): every paper's affinity with every
person of the pool (affinity.py, `auto` for papers from outside by default), the conflicts
(conflicts.py), and which pairs may be assigned. `assign` then solves, as often as the user
pins or forbids a pair, and says why nothing can be assigned where that is so, before solving.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.recency import Recency
from expert_gui.core.errors import QueryError
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.fusion import OUTSIDE_LABEL
from expert_gui.core.rankers.methods import make_ranker, recency_weights
from expert_gui.core.rankers.names import METHOD_LABELS
from expert_gui.core.reviewers.affinity import Affinities, affinities
from expert_gui.core.reviewers.conflicts import Conflicts, find_conflicts
from expert_gui.core.reviewers.evidence import Evidence, EvidenceFinder
from expert_gui.core.reviewers.solve import Infeasible, Problem, infeasibility, solve

Progress = Callable[[object], None] | None


@dataclass(frozen=True)
class AssignSettings:
    """K, M and m; the method and recency that give the affinities; who may review (person
    ids; None: everybody); the conflicts' co-author window in years (None: all documents) and
    the manual list's rows (conflicts.read_manual)."""

    per_paper: int = 3
    max_per_person: int = 6
    min_per_person: int = 0
    method: str = "auto"
    recency: Recency = field(default_factory=Recency)
    candidates: tuple[str, ...] | None = None
    coauthor_years: float | None = None
    manual: tuple[tuple[int | None, int, str], ...] = ()

    def __post_init__(self):
        if self.per_paper < 1:
            raise QueryError(f"each paper needs at least one person, not {self.per_paper}")
        if self.max_per_person < 1 or not 0 <= self.min_per_person <= self.max_per_person:
            raise QueryError(f"the load per person must satisfy 0 <= min <= max and max >= 1; "
                             f"got min {self.min_per_person}, max {self.max_per_person}")
        if self.coauthor_years is not None and not self.coauthor_years > 0:
            raise QueryError(f"--coauthor-years takes a positive number, not "
                             f"{self.coauthor_years}")


@dataclass
class Prepared:
    """Everything an assignment is solved from. `pool` holds the collection's person indices
    of the people who may review (the columns of `affinity` and `allowed`)."""

    papers: Collection
    collection: Collection
    settings: AssignSettings
    pool: np.ndarray
    affinity: Affinities
    conflicts: Conflicts
    label: str  # what ranked the papers (method, weights, recency)
    idle: int  # people left out of the pool by recency (no document that counts)
    seconds: dict[str, float] = field(default_factory=dict)  # "ranking", "conflicts"

    @property
    def allowed(self) -> np.ndarray:
        """papers x pool: False where a pair is in conflict."""
        return ~self.conflicts.matrix(self.papers.n_documents, self.pool)

    def person_id(self, column: int) -> str:
        return self.collection.person_ids[self.pool[column]]

    def person_name(self, column: int) -> str:
        return self.collection.person_names[self.pool[column]]


@dataclass(frozen=True)
class Row:
    """One assigned pair, as assignment.csv writes it."""

    paper: int
    person: int  # a column of the pool
    affinity: float
    rank: int  # this person's place for this paper among the people allowed to review it
    evidence: Evidence
    pinned: bool = False


@dataclass
class Result:
    """The assignment: its rows (by paper, best first), the total affinity, each person's load
    (pool order), and how the solver got there."""

    prepared: Prepared
    rows: list[Row]
    total: float
    loads: np.ndarray
    seconds: float
    pinned: frozenset[tuple[int, int]] = frozenset()
    forbidden: frozenset[tuple[int, int]] = frozenset()


def prepare(model: LogLinearModel, collection: Collection, papers: Collection,
            settings: AssignSettings, *, index: Collection | None = None,
            progress: Progress = None,
            should_stop: Callable[[], bool] | None = None) -> Prepared | None:
    """The affinities and conflicts of every paper of `papers` with the pool (None if
    stopped). `collection` is the whole collection (every document counts for conflicts and
    evidence), `index` the one the model's rankers index (calibration.index_for; by default
    the whole)."""
    index = collection if index is None else index
    weights = recency_weights(index, settings.recency)
    ranker = make_ranker(settings.method, model=model, collection=index, outside=True,
                         recency=settings.recency, candidates=settings.candidates)
    chosen = getattr(ranker, "candidates", None)
    order = collection.person_index
    ranked_people = list(ranker.person_ids)
    pool_in_ranker = np.arange(len(ranked_people)) if chosen is None else np.asarray(chosen)
    pool_in_ranker = np.array([i for i in pool_in_ranker if ranked_people[i] in order],
                              dtype=np.int64)
    pool = np.array([order[ranked_people[i]] for i in pool_in_ranker], dtype=np.int64)
    if not len(pool):
        raise QueryError("nobody may review: no person of the pool has a document that counts"
                         + (f" ({settings.recency.describe()})" if settings.recency else ""))
    texts = [papers.text(d) for d in range(papers.n_documents)]
    if not texts:
        raise QueryError("no papers to assign")
    _say(progress, ("ranking", 0, len(texts)))
    started = time.perf_counter()
    found = affinities(ranker, texts, pool_in_ranker, z_scored=settings.method == "auto",
                       progress=None if progress is None else
                       lambda e: progress(("ranking", *e)),
                       should_stop=should_stop)
    if found is None:
        return None
    ranked = time.perf_counter()
    _say(progress, ("conflicts", 0, 1))
    conflicts = find_conflicts(papers, collection, coauthor_years=settings.coauthor_years,
                               manual=settings.manual)
    seconds = {"ranking": ranked - started, "conflicts": time.perf_counter() - ranked}
    idle = 0
    if weights is not None:
        shares = weights.shares(index)
        wanted = set(settings.candidates) if settings.candidates is not None else None
        idle = int(sum(1 for p, s in zip(index.person_ids, shares, strict=True)
                       if s == 0 and (wanted is None or p in wanted)))
    return Prepared(papers, collection, settings, pool, found, conflicts,
                    _label(settings, weights), idle, seconds)


def _label(settings: AssignSettings, weights) -> str:
    """What made the affinities, as every screen and file says it."""
    what = OUTSIDE_LABEL if settings.method == "auto" else (
        f"{METHOD_LABELS.get(settings.method, settings.method)}, its z-score per paper")
    return what + ("" if weights is None else f"; recency: {weights.describe()}")


def _say(progress: Progress, event) -> None:
    if progress is not None:
        progress(event)


def problem_of(prepared: Prepared, pinned: Sequence[tuple[int, int]] = (),
               forbidden: Sequence[tuple[int, int]] = ()) -> Problem:
    """The solver's problem: `pinned` and `forbidden` are (paper, pool column) pairs."""
    allowed = prepared.allowed
    for paper, column in forbidden:
        allowed[paper, column] = False
    pins = None
    if pinned:
        pins = np.zeros_like(allowed)
        for paper, column in pinned:
            pins[paper, column] = True
    s = prepared.settings
    return Problem(prepared.affinity.values, allowed, s.per_paper, s.max_per_person,
                   s.min_per_person, pins)


def obstacles(prepared: Prepared, pinned=(), forbidden=()) -> list[str]:
    """Why no assignment exists, in the papers' and people's own ids ([] when one does)."""
    return [describe(prepared, o) for o in infeasibility(problem_of(prepared, pinned,
                                                                    forbidden))]


def describe(prepared: Prepared, obstacle) -> str:
    """An obstacle of the solver in ids and titles instead of indices."""
    return obstacle.describe(lambda p: f"{prepared.papers.doc_ids[p]} "
                                       f"«{prepared.papers.title(p, 60)}»",
                             lambda c: f"{prepared.person_name(c)} ({prepared.person_id(c)})")


def assign(prepared: Prepared, pinned: Sequence[tuple[int, int]] = (),
           forbidden: Sequence[tuple[int, int]] = (), *, progress: Progress = None,
           should_stop: Callable[[], bool] | None = None) -> Result | None:
    """The optimal assignment with `pinned` pairs kept and `forbidden` ones left out (both
    (paper, pool column)); a `QueryError` naming every obstacle when none exists; None if
    stopped."""
    problem = problem_of(prepared, pinned, forbidden)
    try:
        solution = solve(problem, progress=progress, should_stop=should_stop)
    except Infeasible as exc:
        raise QueryError("no assignment exists: " + "; ".join(
            describe(prepared, o) for o in exc.obstacles)) from None
    if solution is None:
        return None
    finder = EvidenceFinder(prepared.collection,
                            recency_weights(prepared.collection, prepared.settings.recency))
    vectors: dict[int, object] = {}
    rows = []
    allowed = problem.allowed
    values = prepared.affinity.values
    pins = set(map(tuple, pinned))
    for paper, column in solution.pairs:
        paper, column = int(paper), int(column)
        if paper not in vectors:
            vectors[paper] = finder.paper_vector(prepared.papers.text(paper))
        here = values[paper]
        rank = 1 + int(((here > here[column]) & allowed[paper]).sum())
        rows.append(Row(paper, column, float(here[column]), rank,
                        finder.evidence(vectors[paper], int(prepared.pool[column])),
                        (paper, column) in pins))
    loads = np.bincount(solution.pairs[:, 1], minlength=len(prepared.pool)) \
        if len(solution.pairs) else np.zeros(len(prepared.pool), dtype=np.int64)
    return Result(prepared, rows, float(solution.total), loads, solution.seconds,
                  frozenset(pins), frozenset(map(tuple, forbidden)))
