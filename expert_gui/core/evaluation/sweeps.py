"""The analyses that re-rank or retrain: the window sweep of Figure 2 and the query-expansion
curve of Model 1 (jm) over k of Figure 4."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from expert_gui.core.data.collection import Collection
from expert_gui.core.evaluation.evaluate import check_stop, evaluate, part_progress
from expert_gui.core.evaluation.qrels import Qrels
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

Curve = dict[int, dict[str, float]]
"""x (window n or k) -> measure -> mean over the judged topics."""


def query_expansion_curve(collection: Collection, model: LogLinearModel, queries: Mapping[str, str],
                          qrels: Qrels, topics: Sequence[str], ks: Sequence[int], *,
                          depth: int | None = 1000,
                          progress: Callable[[tuple[int, int]], None] | None = None,
                          should_stop: Callable[[], bool] | None = None) -> Curve:
    """Figure 4: Model 1 (jm) with each query word's k nearest W_p words added; k = 0 is plain."""
    curve: Curve = {}
    for i, k in enumerate(ks):
        check_stop(should_stop)
        ranker = make_ranker("model1-jm", model=model, collection=collection, expand=k)
        per_topic, _ = evaluate(ranker, queries, qrels, topics, depth=depth,
                                progress=part_progress(progress, i, len(ks)), should_stop=should_stop)
        curve[k] = per_topic.means()
    return curve


def window_sweep(collection: Collection, settings: TrainSettings, windows: Sequence[int],
                 queries: Mapping[str, str], qrels: Qrels, topics: Sequence[str], *,
                 depth: int | None = 1000,
                 progress: Callable[[tuple[int, int]], None] | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 curve: Curve | None = None) -> Curve:
    """Figure 2: train one log-linear model per window size n and score it.

    Largest windows first: with non-overlapping n-grams they have the fewest instances and train
    fastest, so a stop (which raises `Stopped`) leaves the most points in `curve`, filled in place.
    """
    curve = {} if curve is None else curve
    for i, n in enumerate(sorted(windows, reverse=True)):
        check_stop(should_stop)
        steps = part_progress(progress, i, len(windows))
        model = train(collection, dataclasses.replace(settings, window=n),
                      progress=None if steps is None else _train_steps(steps),
                      should_stop=should_stop)
        check_stop(should_stop)
        ranker = make_ranker("loglinear", model=model, collection=collection)
        per_topic, _ = evaluate(ranker, queries, qrels, topics, depth=depth,
                                should_stop=should_stop)
        curve[n] = per_topic.means()
    return curve


def _train_steps(steps):
    """The trainer's events (step, total_steps) as (done, total)."""
    return lambda event: steps((event.step, event.total_steps)) if event.total_steps else None
