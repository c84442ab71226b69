"""TREC run files (`topic_id Q0 person_id rank score tag`, optionally a 7th field: P(expert)),
written from `Ranking`s and read back."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote

from expert_gui.core.errors import QueryError, TopicsError
from expert_gui.core.evaluation.qrels import text_lines
from expert_gui.core.rankers.ranking import Ranking
from expert_gui.core.store.outputs import replacing

Run = dict[str, dict[str, float]]
"""topic id -> person id -> score, the form ir-measures takes."""


def run_from_rankings(rankings: Mapping[str, Ranking]) -> Run:
    """Scores by topic and person id; a topic with an empty ranking maps to an empty dict."""
    return {topic: {pid: score for pid, score in r.top()} for topic, r in rankings.items()}


def write_run(path: str | Path, rankings: Mapping[str, Ranking], tag: str, *,
              p_expert: bool = False) -> None:
    """Write a run trec_eval accepts. Scores are made strictly decreasing by rank (trec_eval sorts
    by score, not by rank) so that its order is the ranking's own order, ties included. Topic
    ids, person ids and the tag go through `run_field`, so no id can add a field or a line.
    With `p_expert`, each line gets a 7th field, the ranking's P(expert) (trec_eval ignores
    fields after the tag)."""
    lines = []
    tag = run_field(tag)
    for topic, ranking in rankings.items():
        topic = run_field(topic)
        previous = math.inf
        for rank, (pid, score) in enumerate(ranking.top(), start=1):
            score = min(float(score), math.nextafter(previous, -math.inf))
            previous = score
            extra = f" {float(ranking.p_expert[rank - 1])!r}" if p_expert else ""
            lines.append(f"{topic} Q0 {run_field(pid)} {rank} {score!r} {tag}{extra}\n")
    text = "".join(lines)
    with replacing(path, size=len(text.encode("utf-8"))) as f:
        f.write(text)


def run_field(text: str) -> str:
    """One field of a run line: white space, '%' and characters that are not printable (control
    and format characters, lone surrogates) written as %XX per UTF-8 byte, the escape of URLs.

    A person id read from a collection may hold a space or a newline; written verbatim it would
    split into fields or inject a line. `read_run` decodes the escapes, so ids read back exactly.
    """
    if _PLAIN_FIELD.fullmatch(text):
        return text
    if not text:
        raise QueryError("an empty id or tag cannot be written to a run file")
    return "".join(c if _PLAIN_FIELD.fullmatch(c) else
                   "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
                   for c in text)


def _field_value(text: str) -> str:
    return unquote(text, errors="surrogatepass") if "%" in text else text


# Characters written as they are: printable, neither white space nor '%'.
_PLAIN_FIELD = re.compile(r"[^\s%\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e"
                          r"\u2060-\u206f\ufeff\ud800-\udfff\ufff9-\ufffb]+")


def read_run(path: str | Path) -> Run:
    """Read a TREC run; a malformed line is a `TopicsError` naming the file and line."""
    path = Path(path)
    lines = text_lines(path, "run")
    run: Run = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) not in (6, 7):
            raise TopicsError(path, number, "expected 'topic Q0 person rank score tag' (and "
                                            f"perhaps P(expert)), got {line!r}")
        topic, _, person, _, score = fields[:5]
        topic, person = _field_value(topic), _field_value(person)
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
