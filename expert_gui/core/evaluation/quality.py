"""Whether a trained model learned anything: its held-out MAP against a random ranking's and
against the baselines it is fused with.

A run can end "trained" and still be useless (an Adadelta eps of 0 trained a DPDK model whose
held-out MAP was 0.064 against 0.90 for a good one). The calibration therefore records, beside
each member's held-out measures, what a random ranking of the same people would score on the
same queries ("chance"), and `held_out_warning` turns the two comparisons into one sentence
that the app shows on the model, in the status bar and in the saved-models list.

For a query with R relevant people among N, a random ranking places the relevant ones at
uniformly random ranks, and:
    E[AP] = (1/N) (H_N + (R - 1)/(N - 1) (N - H_N))        (H_N the N-th harmonic number)
    E[RR] = sum_k P(first relevant at rank k) / k,  P(1) = R/N,
            P(k + 1) = P(k) (N - R - k + 1) / (N - k)
(AP: rank n holds a relevant person with probability R/N, and then holds in expectation
1 + (n - 1)(R - 1)/(N - 1) relevant people at ranks 1..n.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from expert_gui.core.evaluation.fusion_choice import MIN_DOCUMENTS
from expert_gui.core.rankers.names import METHOD_LABELS

CHANCE = "chance"  # the calibration's measures of a random ranking
# A held-out MAP is "near chance" below this many times chance's, or, where chance is high (a
# few people: chance 0.41 among 6), below this share of the way from chance to a perfect 1
# (there a model that learned scores 0.71, one that did not about 0.5).
NEAR_CHANCE, NEAR_CHANCE_SHARE = 2.0, 0.4
FAR_BELOW = 0.5  # ... below this share of the best baseline's is "far below" it
# `auto` holds up when its held-out MAP is at most this far below the best baseline's.
AUTO_TOLERANCE = 0.01
BASELINES = ("model2-jm", "model1-d")  # the members of `auto` besides the log-linear model


def expected_random_ap(relevant: int, n: int) -> float:
    """E[AP] of a uniformly random ranking of `n` people, `relevant` of them relevant."""
    if relevant <= 0 or n <= 0:
        return 0.0
    if n == 1:
        return 1.0
    harmonic = float(np.sum(1.0 / np.arange(1, n + 1)))
    return (harmonic + (relevant - 1) / (n - 1) * (n - harmonic)) / n


@lru_cache(maxsize=256)
def expected_random_rr(relevant: int, n: int) -> float:
    """E[RR] of a uniformly random ranking of `n` people, `relevant` of them relevant."""
    if relevant <= 0 or n <= 0:
        return 0.0
    k = np.arange(1, n - relevant + 1, dtype=np.float64)  # ranks 1 .. N - R: P(k + 1) / P(k)
    ratios = (n - relevant - k + 1) / (n - k)
    first = relevant / n * np.concatenate([[1.0], np.cumprod(ratios)])
    return float(np.sum(first / np.arange(1, len(first) + 1)))


def chance_measures(relevant_counts: Sequence[int], n: int) -> dict[str, float]:
    """Mean E[AP] and E[RR] of a random ranking over queries with these numbers of relevant
    people: the calibration's "chance" row."""
    if not len(relevant_counts):
        return {"AP": 0.0, "RR": 0.0}
    return {"AP": float(np.mean([expected_random_ap(int(r), n) for r in relevant_counts])),
            "RR": float(np.mean([expected_random_rr(int(r), n) for r in relevant_counts]))}


def held_out_warning(measures: Mapping[str, Mapping[str, float]] | None, *,
                     documents: int | None = None, advice: str = "") -> str:
    """'' for a model whose answers hold up, else why not: its held-out MAP near chance's, or
    far below the best baseline's, while `auto` (which answers first) is below that baseline
    too. `measures` is a calibration's (method -> {"AP", "RR"}) over `documents` held-out
    documents (fewer than MIN_DOCUMENTS tell nothing: no warning); `advice` says what to change
    (`training_advice`; a general sentence without it)."""
    weak = _weakness(measures, documents)
    if not weak or _auto_holds_up(measures, weak.baseline):
        return ""
    auto = measures.get("auto", {}).get("AP")
    best = METHOD_LABELS.get(weak.baseline, "")
    also = (f", and auto's {auto:.3f} is below {best}'s too" if auto is not None and best
            else "")
    instead = f"; {best} answers better meanwhile (choose it as the method)" if best else ""
    return (f"{weak.text}{also}: the model learned little{instead}; "
            f"{advice or GENERAL_ADVICE}")


def held_out_note(measures: Mapping[str, Mapping[str, float]] | None, *,
                  documents: int | None = None, advice: str = "") -> str:
    """Where `held_out_warning` is silent because `auto` holds up, whether the log-linear model
    alone is weak all the same ('' when it is not): its nearest terms, profiles and P(c|q) come
    from it alone."""
    weak = _weakness(measures, documents)
    if not weak or not _auto_holds_up(measures, weak.baseline):
        return ""
    auto = measures["auto"]["AP"]
    return (f"auto holds up (held-out MAP {auto:.3f}, {METHOD_LABELS[weak.baseline]} "
            f"{measures[weak.baseline]['AP']:.3f}), but the log-linear model alone learned "
            f"little ({weak.text}), and its nearest terms, profiles and P(c|q) with it; "
            f"{advice or GENERAL_ADVICE}")


GENERAL_ADVICE = ("train it with the settings suggested for the collection (Reset in the "
                  "training form; smaller batches and more epochs for a small collection)")


@dataclass(frozen=True)
class _Weak:
    text: str  # "held-out MAP 0.036 is far below Model 1 (d)'s 0.393"
    baseline: str  # the best baseline ('' when no baseline was measured)


def _best_baseline(measures: Mapping[str, Mapping[str, float]]) -> str:
    found = {m: measures[m]["AP"] for m in BASELINES if m in measures}
    return max(found, key=found.get) if found else ""


def _weakness(measures, documents: int | None) -> _Weak | None:
    """How the log-linear model's held-out MAP falls short (None when it does not, or when too
    few documents measured it to tell)."""
    if not measures or "loglinear" not in measures:
        return None
    if documents is not None and documents < MIN_DOCUMENTS:
        return None
    mean_ap = measures["loglinear"]["AP"]
    chance = measures.get(CHANCE, {}).get("AP")
    best = _best_baseline(measures)
    if chance is not None and mean_ap <= min(NEAR_CHANCE * chance,
                                             chance + NEAR_CHANCE_SHARE * (1 - chance)):
        where = "below" if mean_ap < chance else "near"
        return _Weak(f"held-out MAP {mean_ap:.3f} is {where} chance ({chance:.3f}, a random "
                     "ranking's)", best)
    if best and mean_ap < FAR_BELOW * measures[best]["AP"]:
        return _Weak(f"held-out MAP {mean_ap:.3f} is far below {METHOD_LABELS[best]}'s "
                     f"{measures[best]['AP']:.3f}", best)
    return None


def _auto_holds_up(measures, baseline: str) -> bool:
    """Whether `auto`'s held-out MAP is within AUTO_TOLERANCE of the best baseline's."""
    auto = measures.get("auto", {}).get("AP")
    return auto is not None and bool(baseline) and \
        auto >= measures[baseline]["AP"] - AUTO_TOLERANCE


def training_advice(model, collection) -> str:
    """What to change for `model`, trained on `collection`, that learned little: the settings
    suggested for the collection (what the form's Reset gives) where the model's differ from
    them, else what to rank with instead (its people have too little text each). Step counts
    are the ones the runs take: the model's own, and the suggested run's on the same documents
    (without the held-out ones its calibration records)."""
    import numpy as np

    from expert_gui.core.train.instances import count_instances
    from expert_gui.core.train.settings import (
        HOW_IT_RUNS,
        TrainSettings,
        describe_settings,
        suggested_settings,
    )
    from expert_gui.core.train.shape import Shape, run_steps

    trained = TrainSettings.from_dict(dict(model.settings))
    took = int(model.settings.get("steps", 0))
    found = suggested_settings(collection.source, TrainSettings(), collection=collection)
    differ = [f for f in found.settings.to_dict() if f not in (*HOW_IT_RUNS, "seed")
              and getattr(trained, f) != getattr(found.settings, f)]
    if differ:
        held = (model.calibration or {}).get("held_out", {}).get("documents", ())
        index = collection.doc_index
        without = np.array([index[d] for d in held if d in index], dtype=np.int64)
        s = found.settings
        steps = run_steps(count_instances(collection, s.window, s.overlapping, without), s)
        sizes = {"batch_size", "epochs"} & set(differ)
        return (f"it was trained with {describe_settings(trained, differ)}"
                + (f" ({took:,} steps)" if sizes else "")
                + "; train it again with the settings suggested for this collection: "
                + describe_settings(s, differ) + (f" ({steps:,} steps)" if sizes else ""))
    shape = Shape.of(collection, trained.window, trained.overlapping)
    single = shape.single_document_people / shape.people if shape.people else 0.0
    return (f"its people have too little text each (median {shape.median_length:,.0f} words a "
            f"document, {single:.0%} with one document) for the log-linear model to learn them "
            f"in the {took:,} steps it took, and more epochs would only memorise who wrote "
            "what; rank with auto or a baseline (the method list), which match exact words")


def held_out_shortfall(collection, documents: int | None = None, settings=None) -> str:
    """Why the held-out documents cannot measure a model of `collection` ('' when they can):
    fewer than MIN_DOCUMENTS of them can be held out, because a held-out document's people must
    each keep another document (heldout.py), and most people here have one (a PubMed export of
    200 papers by 1,015 people has none to hold out). `documents`: how many were held out
    (None: drawn again with `settings`, the default split when None)."""
    from expert_gui.core.evaluation.heldout import HeldOutSettings, sample_documents

    settings = HeldOutSettings() if settings is None else settings
    if settings.fraction == 0:
        return ""
    n = len(sample_documents(collection, settings)) if documents is None else documents
    if n >= MIN_DOCUMENTS:
        return ""
    per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
    single = int(np.sum(per_person == 1))
    several = collection.n_people - single
    what = "no document" if n == 0 else f"only {n} document{'s' * (n != 1)}"
    then = ("nothing measures the model, and auto is the log-linear model and Model 2 (jm) with "
            "equal weights, not calibrated" if n == 0 else
            f"too few to calibrate auto (at least {MIN_DOCUMENTS}) or to tell whether the model "
            "learned")
    return (f"{what} can be held out to measure the model: a held-out document's people must "
            f"each keep another document, and {single:,} of the {collection.n_people:,} people "
            f"have only one ({several:,} have several); {then}. The model still ranks everyone; "
            "to measure it, add more of each person's documents (a larger export)")
