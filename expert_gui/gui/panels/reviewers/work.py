"""The Reviewers panel's long work as plain functions, each run by a worker (gui/workers.py):
loading the papers and finding their authors among the collection's people, ranking every paper
against the pool with its conflicts (`prepare`, with the manual conflicts read from their file),
solving, and writing the files. Nothing here knows of Qt."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from expert_gui.core.data.collection import Collection
from expert_gui.core.evaluation.calibration import index_for
from expert_gui.core.reviewers.assignment import (
    AssignSettings,
    Prepared,
    Result,
    assign,
    obstacles,
    prepare,
)
from expert_gui.core.reviewers.authors import AuthorMatch, PeopleIndex
from expert_gui.core.reviewers.conflicts import read_manual
from expert_gui.core.reviewers.files import write_affinities, write_assignment
from expert_gui.core.reviewers.papers import load_papers


@dataclass(frozen=True)
class Submissions:
    """The papers to assign, read from `path`, and each paper's authors as found among the
    people of `collection` (None: no collection open)."""

    papers: Collection
    path: Path
    matches: dict[int, list[AuthorMatch]]
    collection: Collection | None


@dataclass(frozen=True)
class Blocked:
    """No assignment exists: why, in the papers' and people's ids (assignment.obstacles)."""

    obstacles: list[str]


def match_authors(papers: Collection, collection: Collection | None) -> dict[int,
                                                                            list[AuthorMatch]]:
    """Who of the collection each paper's authors are, or may be (conflicts.py's matching)."""
    if collection is None:
        return {}
    people = PeopleIndex(collection.person_ids, collection.person_names)
    return {paper: [people.match(papers.person_names[a], papers.person_ids[a])
                    for a in papers.people_of(paper)]
            for paper in range(papers.n_documents)}


def load_submissions(path: Path, settings, collection: Collection | None, progress=None,
                     should_stop=None) -> Submissions | None:
    papers = load_papers(path, settings, progress=progress, should_stop=should_stop)
    if papers is None:
        return None
    return Submissions(papers, Path(path), match_authors(papers, collection), collection)


def rematch(submissions: Submissions, collection: Collection | None) -> Submissions:
    """The same papers, their authors looked for among another collection's people."""
    return replace(submissions, matches=match_authors(submissions.papers, collection),
                   collection=collection)


def prepare_pool(model, collection: Collection, papers: Collection, settings: AssignSettings,
                 conflicts_file: Path | None = None, progress=None,
                 should_stop=None) -> Prepared | None:
    """Every paper ranked against the pool and its conflicts found, the listed conflicts read
    from `conflicts_file` first (an error there names its line)."""
    manual = () if conflicts_file is None else tuple(read_manual(
        conflicts_file, papers.doc_ids, collection.person_ids, collection.person_names))
    return prepare(model, collection, papers, replace(settings, manual=manual),
                   index=index_for(model, collection), progress=progress,
                   should_stop=should_stop)


def solve(prepared: Prepared, pinned=(), forbidden=(), progress=None,
          should_stop=None) -> Result | Blocked | None:
    """The best assignment keeping `pinned` and leaving out `forbidden` ((paper, pool column)
    pairs), or why none exists; None if stopped."""
    blocked = obstacles(prepared, pinned, forbidden)
    if blocked:
        return Blocked(blocked)
    return assign(prepared, pinned, forbidden, progress=progress, should_stop=should_stop)


def with_quotas(prepared: Prepared, per_paper: int, max_per_person: int,
                min_per_person: int) -> Prepared:
    """The same affinities and conflicts under other quotas (they change only the solving);
    QueryError for quotas that cannot be."""
    settings = replace(prepared.settings, per_paper=per_paper, max_per_person=max_per_person,
                       min_per_person=min_per_person)
    return prepared if settings == prepared.settings else replace(prepared, settings=settings)


def export(result: Result, assignment: Path | None, affinities: Path | None,
           model_path: str = "") -> list[Path]:
    """The assignment's CSV and the affinities' TSV, those asked for; the paths written."""
    written = []
    if assignment is not None:
        write_assignment(assignment, result, model_path)
        written.append(assignment)
    if affinities is not None:
        write_affinities(affinities, result.prepared)
        written.append(affinities)
    return written


def marked_pairs(prepared: Prepared, marks: dict[tuple[str, str], str]) -> tuple[
        dict[tuple[int, int], str], int]:
    """The user's marks ((paper id, person id) -> "pin" or "forbid") as (paper, pool column)
    pairs of `prepared`, and how many name a paper or person it does not hold (a pool changed
    since they were set)."""
    papers = {p: i for i, p in enumerate(prepared.papers.doc_ids)}
    columns = {prepared.person_id(c): c for c in range(len(prepared.pool))}
    pairs = {(papers[a], columns[b]): mark for (a, b), mark in marks.items()
             if a in papers and b in columns}
    return pairs, len(marks) - len(pairs)
