"""Rank every topic with one ranker and score the rankings: the unit of every table and sweep."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from expert_gui.core.evaluation.measures import PerTopic, measure_run
from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.evaluation.runs import run_from_rankings
from expert_gui.core.rankers.ranking import Ranker, Ranking


class Stopped(Exception):
    """The caller's `should_stop` said stop; what was finished before it is kept."""


def check_stop(should_stop: Callable[[], bool] | None) -> None:
    if should_stop is not None and should_stop():
        raise Stopped


def evaluate(ranker: Ranker, queries: Mapping[str, str], qrels: Qrels, topics: Sequence[str], *,
             depth: int | None = 1000,
             progress: Callable[[tuple[int, int]], None] | None = None,
             should_stop: Callable[[], bool] | None = None
             ) -> tuple[PerTopic, dict[str, Ranking]]:
    """Rank every query (all of them, for the run file) and score the judged `topics`.

    `progress` gets (topics done, topics in all). Raises `Stopped` if `should_stop` says so.
    """
    rankings: dict[str, Ranking] = {}
    for i, (topic, query) in enumerate(queries.items()):
        check_stop(should_stop)
        rankings[topic] = ranker.rank(query, depth=depth)
        if progress is not None:
            progress((i + 1, len(queries)))
    return measure_run(qrels, run_from_rankings(rankings), topics), rankings


def part_progress(progress: Callable[[tuple[float, int]], None] | None, i: int, n: int):
    """Progress (done, total) of the i-th of n parts of a stage, reported as (i + fraction, n)."""
    if progress is None:
        return None
    return lambda event: progress((i + event[0] / max(event[1], 1), n))
