"""TREC run files (`topic_id Q0 person_id rank score tag`), written from `Ranking`s and read back."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from expert_gui.core.errors import TopicsError
from expert_gui.core.evaluation.qrels import text_lines
from expert_gui.core.ranking import Ranking

Run = dict[str, dict[str, float]]
"""topic id -> person id -> score, the form ir-measures takes."""


def run_from_rankings(rankings: Mapping[str, Ranking]) -> Run:
    """Scores by topic and person id; a topic with an empty ranking maps to an empty dict."""
    return {topic: {pid: score for pid, score in r.top()} for topic, r in rankings.items()}


def write_run(path: str | Path, rankings: Mapping[str, Ranking], tag: str) -> None:
    """Write a run trec_eval accepts. Scores are made strictly decreasing by rank (trec_eval sorts
    by score, not by rank) so that its order is the ranking's own order, ties included."""
    lines = []
    for topic, ranking in rankings.items():
        previous = math.inf
        for rank, (pid, score) in enumerate(ranking.top(), start=1):
            score = min(float(score), math.nextafter(previous, -math.inf))
            previous = score
            lines.append(f"{topic} Q0 {pid} {rank} {score!r} {tag}\n")
    Path(path).write_text("".join(lines), encoding="utf-8")


def read_run(path: str | Path) -> Run:
    """Read a TREC run; a malformed line is a `TopicsError` naming the file and line."""
    path = Path(path)
    lines = text_lines(path, "run")
    run: Run = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 6:
            raise TopicsError(path, number, f"expected 'topic Q0 person rank score tag', got {line!r}")
        topic, _, person, _, score, _ = fields
        try:
            value = float(score)
        except ValueError:
            raise TopicsError(path, number, f"score must be a number, got {score!r}") from None
        if not math.isfinite(value):
            raise TopicsError(path, number, f"score must be finite, got {score!r}")
        ranked = run.setdefault(topic, {})
        if person in ranked:
            raise TopicsError(path, number, f"{person} ranked twice for topic {topic}")
        ranked[person] = value
    return run
