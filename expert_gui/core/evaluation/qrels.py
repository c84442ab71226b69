"""TREC relevance judgments (`topic_id iteration person_id relevance`), as trec_eval reads them."""

from __future__ import annotations

from pathlib import Path

from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import TopicsError

Qrels = dict[str, dict[str, int]]
"""topic id -> person id -> relevance grade (0 = judged not relevant)."""


def text_lines(path: Path, what: str) -> list[str]:
    """A TREC-style file's lines; an unreadable file is a `TopicsError` naming it."""
    try:
        return read_regular(path, TopicsError).decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise TopicsError(path, None, f"cannot read {what}: {exc}") from exc


def read_qrels(path: str | Path) -> Qrels:
    """Read a qrels file; any malformed line is a `TopicsError` naming the file and line."""
    path = Path(path)
    lines = text_lines(path, "qrels")
    qrels: Qrels = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 4:
            raise TopicsError(path, number, f"expected 'topic_id 0 person_id relevance', got {line!r}")
        topic, _, person, grade = fields
        try:
            relevance = int(grade)
        except ValueError:
            raise TopicsError(path, number, f"relevance must be an integer, got {grade!r}") from None
        judged = qrels.setdefault(topic, {})
        if person in judged and judged[person] != relevance:
            raise TopicsError(path, number, f"{person} judged twice for topic {topic} with different grades")
        judged[person] = relevance
    if not qrels:
        raise TopicsError(path, None, "no judgments in qrels file")
    return qrels


def relevant(qrels: Qrels, topic: str) -> set[str]:
    """The people judged relevant (grade > 0) for a topic."""
    return {person for person, grade in qrels.get(topic, {}).items() if grade > 0}
