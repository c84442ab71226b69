"""The records of one collection of bibliographic exports (one file or a folder of them), held
until all are read: then the same paper exported twice becomes one document (duplicates.py),
names and author ids become people (people.py), and the documents go to the
`CollectionBuilder`, each person with the affiliations of every occurrence resolved to them.

A merged document keeps its first record's id, the text of the record with the most text, the
authors of the record that says most about them (ids, full given names), and the most precise
date. The ids and affiliations of one author in the other copies join that author (matched by
name), so a WoS ORCID and a Scopus author id of one person meet. Two different papers under one
id (a BibTeX key used twice) are both kept, the later as `key#2`, and reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.duplicates import merge_duplicates
from expert_gui.core.data.formats.names import has_letters
from expert_gui.core.data.formats.people import AuthorMatcher, People
from expert_gui.core.data.formats.reading import Progress, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, TextCleaner

_YEAR = re.compile(r"\s*(\d{4})\b")  # a date's year, for the years of a person's work


class Bibliography:
    """Collects `Record`s from any number of export files; `finish` builds the documents."""

    def __init__(self, builder: CollectionBuilder, *, merge: bool = True):
        self.builder = builder
        self.report = builder.report
        self.records: list[Record] = []
        self._merge = merge
        self._cleaners: dict[str, TextCleaner] = {}

    def cleaner(self, path: Path | str) -> TextCleaner:
        """The text cleaner of one file (it counts the placeholders it leaves out)."""
        return self._cleaners.setdefault(str(path), TextCleaner())

    def add(self, record: Record) -> None:
        self.records.append(record)

    def finish(self) -> None:
        records = self.records
        for file, cleaner in self._cleaners.items():
            if cleaner.placeholders:
                shown = ", ".join(f"{v!r} × {n}" for v, n in sorted(
                    cleaner.placeholders.items(), key=lambda kv: -kv[1])[:5])
                self.report.add("placeholder", file, None,
                                f"{sum(cleaner.placeholders.values()):,} placeholder values "
                                f"left out of the text: {shown}")
        groups = merge_duplicates(records, self.report) if self._merge \
            else [[i] for i in range(len(records))]
        people = People(self.report)
        documents = []
        for group in groups:
            first = records[group[0]]
            text = max((records[i] for i in group), key=lambda r: sum(map(len, r.text)))
            authors = self._named(_with_copies_details([records[i].authors for i in group]),
                                  first)
            date = max((records[i].date for i in group), key=len)
            year = _YEAR.match(date)
            occurrences = [people.add(a, first.file, first.line, len(documents),
                                      int(year.group(1)) if year else None) for a in authors]
            documents.append((first, text.text, occurrences, authors, date))
        person_ids, names = people.resolve()
        spellings = [people.spelling(k) for k in range(len(person_ids))]
        as_read = person_ids
        if self.builder.people_edits is not None:
            person_ids = self.builder.people_edits.apply(person_ids, names, self.report,
                                                         spellings)
        self.builder.spellings = _spellings(person_ids, spellings)
        places: dict[str, list[str]] = {}
        for _, _, occurrences, authors, _ in documents:
            for k, author in zip(occurrences, authors, strict=True):
                places.setdefault(person_ids[k], []).extend(author.affiliations)
        used: dict[str, Record] = {}
        named: set[str] = set()
        for first, text, occurrences, _, date in documents:
            doc_id = self._unique_id(first, used)
            ids, read_as = [], {}
            for k in occurrences:
                pid = person_ids[k]
                if pid not in named:
                    named.add(pid)
                    self.builder.add_person(pid, names[pid], first.file, first.line,
                                            affiliations=places[pid])
                # people merged by hand on one paper are one link; one person written twice
                # stays a repeat, which the builder reports
                if read_as.setdefault(pid, as_read[k]) == as_read[k]:
                    ids.append(pid)
            self.builder.add_document(doc_id, "\n".join(t for t in text if t), first.file,
                                      first.line, people=ids, date=date)
        self.report.counts["records"] = len(records)
        if self._merge:
            self.report.counts["duplicates merged"] = len(records) - len(groups)

    def _named(self, authors: list[Author], record: Record) -> list[Author]:
        """The authors less those whose names hold no letter or digit ("?", "--") and who have
        no id: such names say nothing of who wrote it, and all would be one person."""
        kept, nameless = [], []
        for a in authors:
            named = a.fixed or a.ids or a.name is None or has_letters(a.name)
            (kept if named else nameless).append(a)
        if nameless:
            shown = ", ".join(repr(a.name.display()[:20]) for a in nameless[:5])
            self.report.add("nameless-author", record.file, record.line,
                            f"authors whose names hold no letter or digit, left out "
                            f"({len(nameless)}): {shown}")
        return kept

    def _unique_id(self, record: Record, used: dict[str, Record]) -> str:
        doc_id, n = record.id, 1
        while doc_id in used:
            n += 1
            doc_id = f"{record.id}#{n}"
        if n > 1:
            other = used[record.id]
            where = f"{other.file}:{other.line}" if other.line is not None else other.file
            self.report.add("shared-key", record.file, record.line,
                            f"{record.id!r} is also the id of another paper, read at {where}; "
                            f"this one is called {doc_id!r}")
        used[doc_id] = record
        return doc_id


def _spellings(person_ids: list[str], spellings: list[str | None]) -> dict[str, list[str]]:
    """Each person written more than one way -> those spellings, as first written."""
    out: dict[str, dict[str, None]] = {}
    for pid, spelling in zip(person_ids, spellings, strict=True):
        if spelling is not None:
            out.setdefault(pid, {})[spelling] = None
    return {pid: list(written) for pid, written in out.items() if len(written) > 1}


def _with_copies_details(lists: list[list[Author]]) -> list[Author]:
    """The author list that says most (ids, then full given names, then length), with the ids
    and affiliations the other copies give each of its authors."""
    def score(authors: list[Author]) -> tuple[int, int, int]:
        return (sum(bool(a.ids) for a in authors),
                sum(sum(c.isalpha() for c in a.name.given) for a in authors if a.name),
                len(authors))

    if len(lists) == 1:
        return lists[0]
    best = max(lists, key=score)
    if not any(a.ids or a.affiliations for other in lists if other is not best for a in other):
        return best
    merged = [replace(a) for a in best]
    matcher = AuthorMatcher(merged)
    for other in lists:
        if other is best:
            continue
        for a in other:
            if not (a.ids or a.affiliations) or a.name is None:
                continue
            k = matcher.match(a.name)
            if k is not None:
                merged[k].ids = tuple(dict.fromkeys((*merged[k].ids, *a.ids)))
                merged[k].affiliations = tuple(dict.fromkeys((*merged[k].affiliations,
                                                              *a.affiliations)))
    return merged


def read_export(read_records: Callable[[Path, Bibliography, Progress], None], path: Path,
                builder: CollectionBuilder, associations: Path | None, people: Path | None,
                progress: Progress, kind: str) -> None:
    """A format's `read` for one export file: its records read, merged and resolved, built."""
    own_authors_file(path, associations, people, kind, f"{kind} export")
    progress.total = path.stat().st_size
    bibliography = Bibliography(builder)
    read_records(path, bibliography, progress)
    bibliography.finish()
