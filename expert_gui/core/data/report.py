"""What a load found: every problem with its file and line, and counts. No problem stops a load;
each is listed for the user (the CLI's `stats`, the app's load report)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

# Kinds of problem a load can report. None of them stops the load; each is listed for the user.
PROBLEM_KINDS = {
    "unknown-document": "association to a document that does not exist",
    "no-people": "document without any person",
    "duplicate-id": "document id seen before (the later one is ignored)",
    "duplicate-association": "the same document-person link given twice",
    "empty-document": "document with no words left after text processing",
    "invalid-utf8": "bytes that are not valid UTF-8 (replaced by U+FFFD)",
    "malformed-record": "a record that could not be read (skipped)",
    "multi-line-record": "a quoted field running over several lines (read as one record)",
    "quotes-as-text": "a field opening with a quote that is not CSV quoting (read as text)",
    "field-count": "a record with more fields than the first (the extra ones ignored)",
    "skipped-file": "a file in the collection's folder that was not read",
    "latex-kept": "a BibTeX field too long to decode its LaTeX (kept as written)",
    "generated-id": "a document without an id in its id column (one was made from its line)",
    "unknown-person": "person named in the people file without any document",
    "invalid-date": "a date that could not be read (the document is kept, undated)",
    "header-like-record": "a first line naming one column, read as a document (not a header)",
    "ids-from-lines": "a header without an id column (ids made from the lines)",
    "record-too-long": "a record over the most a record may hold (not read)",
    "entity-left-out": "an XML entity whose text is outside the file (left out, not fetched)",
    "changed-while-read": "a file that changed while it was read (the load is not cached)",
    "merged-duplicate": "a record of a paper read before (same DOI, PMID, or title and year), "
                        "merged into that document",
    "kept-apart": "records sharing a DOI or PMID that are different papers (kept apart)",
    "shared-key": "a different paper under an id seen before (kept, with '#2' added to its id)",
    "placeholder": "placeholder values such as '[No abstract available]' (not read as text)",
    "merged-names": "a name taken as the one fuller name of its family it abbreviates (or "
                    "extends, with an affiliation or co-author in common)",
    "ambiguous-name": "a name without an author id shared by people with different ids (kept "
                      "as another person)",
    "id-unmatched": "author ids that name none of the record's authors (not used)",
    "affiliation-unmatched": "affiliations that cannot be told to the record's authors (not "
                             "used)",
    "affiliations-cut": "a person's affiliations past the most kept (the rest left out)",
    "name-repaired": "author names the export cut apart or ran together, mended",
    "repeated-field": "a field given more than once in one record (the values joined)",
    "preamble": "lines before a table's header, such as a copyright notice (not read)",
    "likely-duplicate": "people kept apart who may be one person (shown, not joined)",
    "people-edited": "people edits file applied: people merged or spellings split off by hand",
    "people-edit-skipped": "a people edit that is malformed or names nobody here (not applied)",
    "nameless-author": "authors whose names hold no letter or digit (left out)",
}

@dataclass(frozen=True)
class Problem:
    kind: str
    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


@dataclass
class LoadReport:
    """What a load found: counts and every problem, with its file and line."""

    format: str = ""
    files: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def add(self, kind: str, file: str | Path, line: int | None, message: str) -> None:
        self.problems.append(Problem(kind, str(file), line, message))

    def problem_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.problems:
            out[p.kind] = out.get(p.kind, 0) + 1
        return out

    def summary(self) -> str:
        lines = [f"format: {self.format}"]
        lines += [f"{k}: {v:,}" for k, v in self.counts.items()]
        for kind, n in sorted(self.problem_counts().items()):
            lines.append(f"{n:,} × {PROBLEM_KINDS.get(kind, kind)}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "format": self.format,
            "files": self.files,
            "counts": self.counts,
            "problems": [asdict(p) for p in self.problems],
        }

    @classmethod
    def from_dict(cls, d: dict) -> LoadReport:
        return cls(d["format"], d["files"], d["counts"], [Problem(**p) for p in d["problems"]])
