"""Conflicts of interest between papers from outside and the collection's people: who may not
review a paper, each with every reason found.

- its own authors, where they are people of the collection (authors.py joins them; a name that
  may be one of several people makes each of them a possible author);
- their co-authors in the collection (people who share a document with them), only on documents
  of the last `coauthor_years` years before the collection's newest (an undated document
  counts: its age is unknown);
- people who share an institution (name_evidence.institution) with an author, where both the
  paper's source and the collection give affiliations;
- a list the user gives (read_manual): rows of `paper_id, person_id`, or `person_id` alone for
  every paper; a person by id or name.

Nothing here ranks anyone: the caller never assigns (or shows as free) a pair with a reason.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from expert_gui.core.data.candidates import PersonLookup
from expert_gui.core.data.collection import Collection
from expert_gui.core.data.formats.name_evidence import institution
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import InputFileError
from expert_gui.core.reviewers.authors import AuthorMatch, PeopleIndex

DAYS_PER_YEAR = 365.25


@dataclass
class Conflicts:
    """Every (paper, person) pair that may not be assigned, with its reasons, and how each
    paper's authors were found among the people. Papers and people are indices: of the
    submissions' documents and of the collection's people."""

    reasons: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    authors: dict[int, list[AuthorMatch]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, paper: int, person: int, kind: str, reason: str) -> None:
        said = self.reasons.setdefault((paper, person), [])
        if reason not in said:
            said.append(reason)
            self.counts[kind] += 1

    def of(self, paper: int, person: int) -> list[str]:
        return self.reasons.get((paper, person), [])

    def matrix(self, n_papers: int, people: Sequence[int]) -> np.ndarray:
        """papers x `people` (collection indices): True where a pair is in conflict."""
        where = {p: j for j, p in enumerate(people)}
        out = np.zeros((n_papers, len(people)), dtype=bool)
        for paper, person in self.reasons:
            j = where.get(person)
            if j is not None:
                out[paper, j] = True
        return out


def find_conflicts(papers: Collection, collection: Collection, *,
                   coauthor_years: float | None = None,
                   manual: Sequence[tuple[int | None, int, str]] = ()) -> Conflicts:
    """The conflicts of every paper of `papers` (a collection of submissions: its documents and
    their people as authors) with the people of `collection`. `manual`: (paper or None for
    every paper, person, where it was listed) from `read_manual`."""
    found = Conflicts()
    people = PeopleIndex(collection.person_ids, collection.person_names)
    recent = _recent_documents(collection, coauthor_years)
    institutions = _institutions(collection)
    for paper in range(papers.n_documents):
        matches = [people.match(papers.person_names[a], papers.person_ids[a])
                   for a in papers.people_of(paper)]
        found.authors[paper] = matches
        for match in matches:
            if match.person is not None:
                found.add(paper, match.person, "author",
                          f"an author of the paper ({match.author}: {match.how})")
                _coauthors(found, paper, match, match.person, collection, recent)
            for person in match.possible:
                found.add(paper, person, "possible author",
                          f"may be the author {match.author} ({match.how})")
        _shared_places(found, paper, papers, institutions)
    for paper, person, where in manual:
        for p in range(papers.n_documents) if paper is None else (paper,):
            found.add(p, person, "listed", f"listed in {where}")
    return found


def _recent_documents(collection: Collection, years: float | None) -> np.ndarray | None:
    """Which documents count for co-authorship: dated within `years` of the newest, or
    undated (None: all)."""
    if years is None or not collection.has_dates:
        return None
    days = collection.doc_dates.astype("datetime64[D]")
    dated = ~np.isnat(days)
    if not dated.any():
        return None
    start = days[dated].max() - np.timedelta64(int(round(years * DAYS_PER_YEAR)), "D")
    return ~dated | (days >= start)


def _coauthors(found: Conflicts, paper: int, match: AuthorMatch, author: int,
               collection: Collection, recent: np.ndarray | None) -> None:
    shared: dict[int, list[int]] = defaultdict(list)
    for d in collection.documents_of(author):
        if recent is not None and not recent[d]:
            continue
        for other in collection.people_of(int(d)):
            if other != author:
                shared[int(other)].append(int(d))
    for other, documents in shared.items():
        newest = max(documents, key=lambda d: (collection.date_text(d), -d))
        when = collection.date_text(newest) or "undated"
        more = len(documents) - 1
        found.add(paper, other, "co-author",
                  f"co-author of the paper's author {collection.person_names[author]} on "
                  f"«{collection.title(newest, 80)}» ({when})"
                  + (f" and {more:,} more document{'s' if more != 1 else ''}" if more else ""))


def _institutions(collection: Collection) -> dict[str, list[tuple[int, str]]]:
    """institution key -> (person, the affiliation as written) of the collection's people."""
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for person, written in enumerate(collection.person_affiliations or ()):
        for place in written:
            key = institution(place)
            if key:
                out[key].append((person, place))
    return out


def _shared_places(found: Conflicts, paper: int, papers: Collection,
                   institutions: dict[str, list[tuple[int, str]]]) -> None:
    if not institutions or papers.person_affiliations is None:
        return
    for a in papers.people_of(paper):
        for place in papers.affiliations_of(a):
            for person, theirs in institutions.get(institution(place), ()):
                found.add(paper, person, "affiliation",
                          f"shares the affiliation «{theirs}» with the paper's author "
                          f"{papers.person_names[a]} («{place}»)")


def read_manual(path: str | Path, paper_ids: Sequence[str], person_ids: Sequence[str],
                person_names: Sequence[str]) -> list[tuple[int | None, int, str]]:
    """The conflicts a file lists: rows of `paper_id, person_id` (comma or tab), or a person
    alone (a conflict with every paper); a person by id or name; a header row naming "paper"
    and "person" may come first; blank lines and lines starting with '#' are skipped. A paper
    or person that is not there is an `InputFileError` naming the line: a conflict is never
    dropped silently."""
    try:
        text = read_regular(path, InputFileError).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(path, None, f"cannot read as UTF-8: {exc}") from exc
    people = PersonLookup(person_ids, person_names)
    papers = {p: i for i, p in enumerate(paper_ids)}
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        delimiter = "\t" if "\t" in line else ","
        cells = [c.strip() for c in next(csv.reader(io.StringIO(line), delimiter=delimiter))]
        cells = [c for c in cells if c]
        if not out and number == _first_row(text) and _is_header(cells):
            continue
        where = f"{Path(path).name} line {number}"
        if len(cells) == 1:
            out.append((None, people.find(cells[0], path, number), where))
        elif len(cells) == 2:
            if cells[0] not in papers:
                raise InputFileError(path, number, f"{cells[0]!r} is not the id of a paper "
                                                   "being assigned")
            out.append((papers[cells[0]], people.find(cells[1], path, number), where))
        else:
            raise InputFileError(path, number, "expected 'paper_id, person_id' or a person "
                                               f"alone, got {len(cells)} fields")
    return out


def _first_row(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            return number
    return 0


def _is_header(cells: list[str]) -> bool:
    words = {c.casefold() for c in cells}
    return bool(words) and words <= {"paper", "paper_id", "person", "person_id", "reviewer",
                                     "reviewer_id", "submission", "submission_id"}
