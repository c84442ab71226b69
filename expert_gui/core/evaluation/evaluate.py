"""Rank every topic with one ranker and score the rankings: the unit of every table and sweep."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from expert_gui.core.evaluation.measures import (
    ALL_MEASURES,
    RANKING_MEASURES,
    PerTopic,
    measure_run,
    ranking_measures,
)
from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.evaluation.runs import run_from_rankings
from expert_gui.core.rankers.ranking import Ranker, Ranking


class Stopped(Exception):
    """The caller's `should_stop` said stop; what was finished before it is kept."""


def check_stop(should_stop: Callable[[], bool] | None) -> None:
    if should_stop is not None and should_stop():
        raise Stopped


def evaluate(ranker: Ranker, queries: Mapping[str, str], qrels: Qrels, topics: Sequence[str], *,
             depth: int | None = 1000, measures: Sequence[str] = ALL_MEASURES,
             progress: Callable[[tuple[int, int]], None] | None = None,
             should_stop: Callable[[], bool] | None = None,
             on_ranking: Callable[[str, Ranking], None] | None = None
             ) -> tuple[PerTopic, dict[str, Ranking]]:
    """Rank every query (all of them, for the run file) and score the judged `topics`.

    Every candidate is ranked, a block of queries at a time (`rank_batch`); the measures of
    ir-measures see the first `depth` people (the run file), AUC and the first relevant rank the
    whole ranking, which `on_ranking` also gets. The rankings returned hold `depth` people.
    `progress` gets (topics done, topics in all) after each block. Raises `Stopped` if
    `should_stop` says so, checked every STOP_EVERY queries at most (the app's Stop and quit).
    """
    from expert_gui.core.rankers.batch import block_size, blocks

    rankings: dict[str, Ranking] = {}
    whole: dict[str, Ranking] = {}
    judged = set(topics)
    wanted = [m for m in measures if m in RANKING_MEASURES]
    full = on_ranking is not None or bool(wanted)
    for part in blocks(list(queries.items()), min(block_size(ranker), STOP_EVERY)):
        check_stop(should_stop)
        ranked = ranker.rank_batch([q for _, q in part], depth=None if full else depth)
        for (topic, _), ranking in zip(part, ranked, strict=True):
            if on_ranking is not None:
                on_ranking(topic, ranking)
            if wanted and topic in judged:
                whole[topic] = ranking
            rankings[topic] = ranking.cut(depth)
        if progress is not None:
            progress((len(rankings), len(queries)))
    per_topic = measure_run(qrels, run_from_rankings(rankings), topics,
                            [m for m in measures if m not in RANKING_MEASURES])
    if wanted:
        extra = ranking_measures(whole, qrels, topics)
        values = {**per_topic.values, **{m: extra[m] for m in wanted}}
        per_topic = PerTopic(per_topic.topics, {m: values[m] for m in measures})
    return per_topic, rankings


STOP_EVERY = 32  # queries ranked between two checks of `should_stop`


def part_progress(progress: Callable[[tuple[float, int]], None] | None, i: int, n: int):
    """Progress (done, total) of the i-th of n parts of a stage, reported as (i + fraction, n)."""
    if progress is None:
        return None
    return lambda event: progress((i + event[0] / max(event[1], 1), n))
