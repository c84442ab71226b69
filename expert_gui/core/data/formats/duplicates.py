"""The same paper exported twice (two downloads of one search, WoS and Scopus of one topic, a
library holding a paper twice) becomes one document.

Records are one paper when they share a DOI and their titles are alike; else a PMID (unless
their DOIs differ); else the same title (folded, words only, at least three words) and year,
unless their DOIs, PMIDs, first pages, volumes or full dates differ. Records that share a DOI
or PMID but are told apart (different titles, different DOIs) are reported, as is every merge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from expert_gui.core.data.formats.names import fold
from expert_gui.core.data.formats.records import Record
from expert_gui.core.data.report import LoadReport

_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
_FULL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_FIRST_PAGE = re.compile(r"[A-Za-z]?\d+[A-Za-z]?")
# Words of a title alike enough (Jaccard) for two records with one DOI to be one paper.
SIMILAR_TITLES = 0.6
MIN_TITLE_WORDS = 3
# Papers of one key a record is compared with: past that many, a record is kept apart (a title
# shared by more papers than this is no sign of one paper, and comparing every pair of
# thousands would take hours).
LOOKED_AT = 64


def title_words(title: str) -> str:
    """A title folded to its words: no case, accents, markup or MEDLINE's [brackets]."""
    return " ".join(re.findall(r"\w+", fold(title)))


def similar_titles(a: str, b: str) -> bool:
    if not a or not b or a in b or b in a:
        return True
    wa, wb = set(a.split()), set(b.split())
    return len(wa & wb) / len(wa | wb) >= SIMILAR_TITLES


@dataclass
class _Facts:
    """What tells two papers apart, for every record of one group."""

    dois: set[str] = field(default_factory=set)
    pmids: set[str] = field(default_factory=set)
    pages: set[str] = field(default_factory=set)
    volumes: set[str] = field(default_factory=set)
    days: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, r: Record) -> _Facts:
        page = _FIRST_PAGE.search(r.pages or "")
        day = _FULL_DATE.match(r.date or "")
        return cls({r.doi} - {""}, {r.pmid} - {""}, {page.group().lower()} if page else set(),
                   {r.volume.strip().lower()} - {""}, {day.group()} if day else set())

    def absorb(self, other: _Facts) -> None:
        for name in ("dois", "pmids", "pages", "volumes", "days"):
            getattr(self, name).update(getattr(other, name))


def _differ(a: set[str], b: set[str]) -> bool:
    return bool(a) and bool(b) and not a & b


def merge_duplicates(records: list[Record], report: LoadReport) -> list[list[int]]:
    """Groups of record indices, one per paper, in reading order (a group's first record is
    the first read); every record merged into a group is reported."""
    n = len(records)
    parent = list(range(n))
    facts = [_Facts.of(r) for r in records]
    titles = [title_words(r.title) for r in records]

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int, why: str) -> None:
        a, b = find(i), find(j)
        first, later = min(a, b), max(a, b)
        parent[later] = first
        facts[first].absorb(facts[later])
        r, s = records[j], records[i]
        report.add("merged-duplicate", r.file, r.line,
                   f"{r.id!r} is the paper {s.id!r} read at {_place(s)} ({why}); merged")

    def doi_apart(i: int, j: int) -> str:
        if not similar_titles(titles[i], titles[j]):
            return "different titles"
        return "different PMIDs" if _differ(facts[find(i)].pmids, facts[find(j)].pmids) else ""

    def pmid_apart(i: int, j: int) -> str:
        return "different DOIs" if _differ(facts[find(i)].dois, facts[find(j)].dois) else ""

    def title_apart(i: int, j: int) -> str:
        a, b = facts[find(i)], facts[find(j)]
        return next((what for what in ("dois", "pmids", "pages", "volumes", "days")
                     if _differ(getattr(a, what), getattr(b, what))), "")

    def title_key(i: int) -> str:
        year = _YEAR.search(records[i].date or "")
        if year is None or len(titles[i].split()) < MIN_TITLE_WORDS:
            return ""
        return f"{titles[i]}|{year.group()}"

    rules: list[tuple[str, Callable[[int], str], Callable[[int, int], str], bool]] = [
        ("same DOI", lambda i: records[i].doi, doi_apart, True),
        ("same PMID", lambda i: records[i].pmid, pmid_apart, True),
        ("same title and year", title_key, title_apart, False),
    ]
    for why, key_of, apart, told in rules:
        seen: dict[str, list[int]] = {}
        for i in range(n):
            key = key_of(i)
            if not key:
                continue
            earlier = seen.setdefault(key, [])
            reasons = []
            for j in earlier[:LOOKED_AT]:
                if find(i) == find(j):
                    break
                reason = apart(j, i)
                if not reason:
                    join(j, i, f"{why} {key.split('|')[0]!r}" if why != "same title and year"
                         else why)
                    break
                reasons.append((j, reason))
            else:
                earlier.append(i)
                if told and reasons:
                    j, reason = reasons[0]
                    report.add("kept-apart", records[i].file, records[i].line,
                               f"{records[i].id!r} shares the {why.split()[1]} {key!r} with "
                               f"{records[j].id!r} at {_place(records[j])}, but {reason}: "
                               "kept as two documents")
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _place(r: Record) -> str:
    return f"{r.file}:{r.line}" if r.line is not None else r.file
