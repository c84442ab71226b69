"""TREC relevance judgments (`topic_id iteration person_id relevance`), as trec_eval reads them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import QueryError, TopicsError

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


@dataclass(frozen=True)
class Coverage:
    """How far relevance judgments match the topics and the people they are used with: the
    qrels' topics (`judged`), those among the topics (`matched`); the people judged relevant
    for those (`relevant`), those among the candidates (`known`)."""

    topics: int
    judged: int
    matched: int
    relevant: int
    known: int

    def text(self) -> str:
        return (f"qrels for {self.judged:,} topics, {self.matched:,} of them among the "
                f"{self.topics:,} topics; {self.known:,} of the {self.relevant:,} people judged "
                "relevant for those are in the collection")

    def problem(self) -> str:
        """Why no measure can be computed ('' when some can)."""
        if not self.matched:
            return (f"none of the {self.judged:,} topic ids of the qrels is among the "
                    f"{self.topics:,} topics: no measure can be computed (are they the topics "
                    "the qrels were made for?)")
        if not self.known:
            return (f"none of the {self.relevant:,} people the qrels judge relevant is a person "
                    "of the collection: every measure would be 0 (are they the collection's "
                    "person ids?)")
        return ""


def coverage(qrels: Qrels, topic_ids: Iterable[str], person_ids: Iterable[str]) -> Coverage:
    topic_ids, people = set(topic_ids), set(person_ids)
    matched = [t for t in qrels if t in topic_ids]
    wanted = {p for t in matched for p in relevant(qrels, t)}
    return Coverage(len(topic_ids), len(qrels), len(matched), len(wanted), len(wanted & people))


def check_coverage(qrels: Qrels, topic_ids: Iterable[str],
                   person_ids: Iterable[str]) -> Coverage:
    """The coverage; a `QueryError` saying so when no measure can be computed."""
    found = coverage(qrels, topic_ids, person_ids)
    if found.problem():
        raise QueryError(found.problem())
    return found


def restrict(qrels: Qrels, people: Iterable[str]) -> tuple[Qrels, list[str]]:
    """The judgments of `people` only (measures within a candidate set, as published protocols
    compute them), without the topics none of whose relevant people is left; and those topics."""
    people = set(people)
    kept, dropped = {}, []
    for topic, judged in qrels.items():
        mine = {p: g for p, g in judged.items() if p in people}
        if any(g > 0 for g in mine.values()):
            kept[topic] = mine
        else:
            dropped.append(topic)
    return kept, dropped
