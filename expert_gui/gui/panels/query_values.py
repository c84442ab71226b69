"""The number the query panel lists beside each person, under the name of the method that
ranked: P(expert) where the model holds a fit for the method and the query asks what it was
fitted on; else P(c|q) for the log-linear model, or the method's own score, saying why there is
no P(expert)."""

from __future__ import annotations

import numpy as np

from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.names import SCORE_NAMES
from expert_gui.core.rankers.query_type import NO_P_EXPERT_FIT

VALUE_HEADER = "Score"  # the column of numbers until a ranking names its own
# Why a ranking has no P(expert) when nothing more particular is known.
NO_FIT = f"no P(expert): {NO_P_EXPERT_FIT}"


def score_bars(scores: np.ndarray) -> np.ndarray:
    """Bars for a method's own scores, as a share of the best: a log-probability (Model 1/2's
    log P(q|c)) as exp(score - best), a similarity as score / best."""
    scores = np.asarray(scores, dtype=np.float64)
    if not len(scores):
        return scores
    best = float(scores.max())
    if best <= 0:
        return np.exp(scores - best)
    return np.clip(scores / best, 0.0, 1.0)


def shown_values(ranking, ranked_by: str, depth: int,
                 missing: str = "") -> tuple[str, str, list[float], bool]:
    """The column's header, its tooltip, the values of the first `depth` people (in rank order)
    and whether bars suit them. `missing`: why the query's kind has no P(expert) (a paper from
    outside, recency), "" for a topic."""
    method = label(ranked_by)
    people = ranking.people[:depth]
    if ranking.p_expert is not None:
        fit = ranking.extra.get("p_expert", {})
        return (f"{method} P(expert)",
                f"P(expert) by {method}: {method}'s own estimate of the probability that "
                "the person is one of the people of a document like this one (a logistic fit "
                "of how each person's score stands out and how peaked the answer is, on the "
                f"model's {fit.get('queries', 0):,} held-out documents and short pieces of "
                "them), comparable across queries. Each method has its own fit: for one query two "
                "methods can be sure to very different degrees, so compare people within "
                "one method's list, not one method's numbers with another's.",
                ranking.p_expert[:len(people)].tolist(), True)
    if ranked_by == "loglinear" and ranking.probabilities is not None:
        return (f"{method} P(c|q)", "P(c|q) of the log-linear model (Eq. 2): shared "
                "among the people, so not comparable across queries"
                + (f"; {missing}" if missing else ""),
                ranking.probabilities[people].tolist(), True)
    name = SCORE_NAMES.get(ranked_by, "score")
    return (f"{method}: {name}", f"{method}'s own score, {name} ({missing or NO_FIT})",
            ranking.scores[:len(people)].tolist(), False)
