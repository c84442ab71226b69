"""An assignment as files an editor can open, check and defend.

`assignment.csv` (comma-separated, a header row, one row per assigned pair, by paper): paper_id,
title, person_id, name, affinity, rank (this person's place for this paper among the people
allowed to review it), closest_documents and shared_words (the evidence), pinned; then, on
every row as every export of the app does, what made the numbers (the affinity's method and
weights, the model, the collection, the settings, the date), so a row read alone still says
where it comes from. `--affinity` (tab-separated, a header row): every paper and person of the
pool with the affinity and the conflict (its reasons joined by " | ", or empty); what made them
is assignment.csv's. Each file replaces the one before only once complete
(store/outputs.replacing), written as it is made: 2,000 x 2,000 pairs are 4 million lines.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

from expert_gui.core.reviewers.assignment import Prepared, Result
from expert_gui.core.store.outputs import replacing

ASSIGNMENT_COLUMNS = ("paper_id", "title", "person_id", "name", "affinity", "rank",
                      "closest_documents", "shared_words", "pinned")
AFFINITY_COLUMNS = ("paper_id", "person_id", "affinity", "conflict")


def provenance(prepared: Prepared, model_path: str = "") -> dict[str, str]:
    """What made the numbers, column by column."""
    s = prepared.settings
    return {
        "affinity_by": prepared.label,
        "model": model_path,
        "collection": prepared.collection.source or prepared.collection.name,
        "papers": prepared.papers.source or prepared.papers.name,
        "settings": f"{s.per_paper} people per paper, at most {s.max_per_person} papers per "
                    f"person" + (f", at least {s.min_per_person}" if s.min_per_person else "")
                    + f"; a pool of {len(prepared.pool):,}"
                    + (f"; co-authors within {s.coauthor_years:g} years"
                       if s.coauthor_years else "; co-authors on every document"),
        "exported": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def write_assignment(path: str | Path, result: Result, model_path: str = "") -> None:
    prepared = result.prepared
    about = provenance(prepared, model_path)
    papers = prepared.papers
    with replacing(Path(path)) as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow([*ASSIGNMENT_COLUMNS, *about])
        for row in result.rows:
            docs = "; ".join(f"{doc_id} «{title}» ({cos:.2f})"
                             for _, doc_id, title, cos in row.evidence.documents)
            writer.writerow([papers.doc_ids[row.paper], papers.title(row.paper, 200),
                             prepared.person_id(row.person), prepared.person_name(row.person),
                             f"{row.affinity:.6f}", row.rank, docs,
                             ", ".join(row.evidence.words), "yes" if row.pinned else "",
                             *about.values()])


def write_affinities(path: str | Path, prepared: Prepared) -> None:
    values = prepared.affinity.values
    papers = prepared.papers
    people = [_field(prepared.person_id(c)) for c in range(len(prepared.pool))]
    with replacing(Path(path)) as f:
        f.write("\t".join(AFFINITY_COLUMNS) + "\n")
        for paper in range(papers.n_documents):
            paper_id = _field(papers.doc_ids[paper])
            lines = []
            for column, person in enumerate(people):
                reasons = prepared.conflicts.of(paper, int(prepared.pool[column]))
                lines.append(f"{paper_id}\t{person}\t{values[paper, column]:.6f}\t"
                             f"{_field(' | '.join(reasons))}\n")
            f.write("".join(lines))


def _field(text: str) -> str:
    """A TSV field: no tab or line break can split it."""
    return " ".join(text.split())
