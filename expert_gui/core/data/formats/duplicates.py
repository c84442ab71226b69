"""The same paper exported twice (two downloads of one search, WoS and Scopus of one topic, a
library holding a paper twice) becomes one document.

Records are one paper when they share a DOI and their titles are alike; else a PMID (unless
their DOIs differ); else the same title (folded, words only, at least three words) and year,
unless their DOIs, PMIDs, first or last pages, volumes, full dates or journals differ, or their
authors have no name in common (two book reviews titled "Robot Ethics 2.0" in one year, by
other reviewers in other journals, are two papers). Journals differ when neither name
abbreviates the other word by word ("J Appl Ecol" is "Journal of Applied Ecology"). Records
that share a DOI, a PMID, or a title and year but are told apart are reported with the reason,
as is every merge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from expert_gui.core.data.formats.names import fold, name_key
from expert_gui.core.data.formats.records import Record
from expert_gui.core.data.report import LoadReport

_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
_FULL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_PAGE = re.compile(r"[A-Za-z]?\d+[A-Za-z]?")
# What tells two papers of one title and year apart, and how the report says so.
_TOLD_APART = {"dois": "different DOIs", "pmids": "different PMIDs",
               "pages": "different first pages", "last_pages": "different last pages",
               "volumes": "different volumes", "days": "different dates"}
_BY_IDS = frozenset({"different DOIs", "different PMIDs"})
_JOURNAL_STOPWORDS = frozenset({"of", "the", "and", "for", "in", "on", "de", "la", "le", "der",
                                "und", "et"})
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
    last_pages: set[str] = field(default_factory=set)
    volumes: set[str] = field(default_factory=set)
    days: set[str] = field(default_factory=set)
    journals: set[tuple[str, ...]] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # the authors' names' words

    @classmethod
    def of(cls, r: Record) -> _Facts:
        pages = [p.lower() for p in _PAGE.findall(r.pages or "")[:2]]
        day = _FULL_DATE.match(r.date or "")
        journal = journal_words(r.journal)
        names = {w for a in r.authors if a.name is not None
                 for w in (name_key(a.name)[0], *name_key(a.name)[1]) if len(w) > 1}
        return cls({r.doi} - {""}, {r.pmid} - {""}, set(pages[:1]), set(pages[1:]),
                   {r.volume.strip().lower()} - {""}, {day.group()} if day else set(),
                   {journal} if journal else set(), names)

    def absorb(self, other: _Facts) -> None:
        for name in ("dois", "pmids", "pages", "last_pages", "volumes", "days", "journals",
                     "names"):
            getattr(self, name).update(getattr(other, name))


def _differ(a: set[str], b: set[str]) -> bool:
    return bool(a) and bool(b) and not a & b


def journal_words(journal: str) -> tuple[str, ...]:
    """A journal's name as its folded words, without "of", "the" ..."""
    return tuple(w for w in re.findall(r"\w+", fold(journal or ""))
                 if w not in _JOURNAL_STOPWORDS)


def same_journal(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether one journal name abbreviates the other, word by word in order ("j appl ecol",
    "journal applied ecology"; "plos one", "plos one")."""
    short, long = sorted((a, b), key=len)
    words = iter(long)
    return all(any(w.startswith(s) for w in words) for s in short)


def _journals_differ(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> bool:
    return bool(a) and bool(b) and not any(same_journal(x, y) for x in a for y in b)


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
        what = next((what for what in _TOLD_APART if _differ(getattr(a, what), getattr(b, what))),
                    "")
        if what:
            return _TOLD_APART[what]
        if a.pages & b.pages and a.volumes & b.volumes:
            return ""  # one volume and page: a journal renamed ("Zeitschrift für Kinderheilkunde")
        if _journals_differ(a.journals, b.journals):
            return "different journals"
        return "no author in common" if _differ(a.names, b.names) else ""

    def title_key(i: int) -> str:
        year = _YEAR.search(records[i].date or "")
        if year is None or len(titles[i].split()) < MIN_TITLE_WORDS:
            return ""
        return f"{titles[i]}|{year.group()}"

    # Each rule's name, key, reason to keep two apart, and which reasons it reports: all, or
    # (for a title) only those that are not two ids (two DOIs are two papers, nothing to show).
    rules: list[tuple[str, Callable[[int], str], Callable[[int, int], str], str]] = [
        ("same DOI", lambda i: records[i].doi, doi_apart, "ids"),
        ("same PMID", lambda i: records[i].pmid, pmid_apart, "ids"),
        ("same title and year", title_key, title_apart, "soft"),
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
                shown = [(j, r) for j, r in reasons if told == "ids" or r not in _BY_IDS]
                if shown:
                    j, reason = shown[0]
                    shared = f"the {why.split()[1]} {key!r}" if "|" not in key \
                        else f"its title and year ({key.split('|')[1]})"
                    report.add("kept-apart", records[i].file, records[i].line,
                               f"{records[i].id!r} shares {shared} with {records[j].id!r} at "
                               f"{_place(records[j])}, but {reason}: kept as two documents")
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _place(r: Record) -> str:
    return f"{r.file}:{r.line}" if r.line is not None else r.file
