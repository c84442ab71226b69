"""Every ranker of the paper behind one call: `make_ranker(method, model=..., collection=...)`.

"loglinear" needs a trained model; the baselines need the collection; "ensemble" (Eq. 5: Model 2
with Jelinek-Mercer smoothing and the log-linear model, by default) and "auto" (the fusion
chosen on the model's held-out documents, rankers/fusion.py) need both. For a model trained
with held-out documents, the collection is `calibration.index_for(model, collection)`. The
rankers' modules (scipy, scikit-learn) are imported when one is made, so the names below cost
nothing to import.

A ranker is built once for its collection (the log-linear one: its model, whose parameters
are never changed in place), options and device while it is held (the app holds every
method's): `auto` and the ensemble, made anew each time from the model's calibration as it is
then, rank with the very members the app prepared for their own methods, and the rankers over
one collection share its documents x words matrices (rankers/common.py's `shared`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from expert_gui.core.data.derived import derived
from expert_gui.core.data.recency import DocumentWeights, Recency
from expert_gui.core.errors import QueryError
from expert_gui.core.rankers.names import ENSEMBLE_MEMBERS, METHODS
from expert_gui.core.rankers.probability import usable_fit

if TYPE_CHECKING:
    from expert_gui.core.data.collection import Collection
    from expert_gui.core.model.loglinear import LogLinearModel
    from expert_gui.core.rankers.fusion import FusionRanker
    from expert_gui.core.rankers.ranking import Ranker


# Model 1 and 2: (class in language_models.py, smoothing, fixed options).
_LANGUAGE_MODELS = {
    "model1-jm": ("Model1", "jm", {}), "model1-d": ("Model1", "dirichlet", {}),
    "model1-d-doc": ("Model1", "dirichlet", {"beta_from": "documents"}),
    "model2-jm": ("Model2", "jm", {}), "model2-d": ("Model2", "dirichlet", {}),
}


def make_ranker(method: str, *, model: LogLinearModel | None = None,
                collection: Collection | None = None, p_expert: bool = True,
                device: str | None = None, outside: bool = False,
                recency: Recency | None = None, candidates: Sequence[str] | None = None,
                **options) -> Ranker:
    """Build the ranker `method` names.

    Options: loglinear `aggregation` (names.AGGREGATIONS); model1/model2 `lam`
    (Jelinek-Mercer lambda, 0.5) and `beta` (Dirichlet; default the average length of a person's
    profile for "model1-d", of a document for "model1-d-doc" and "model2-d"); model1
    `expand` (add each query word's k nearest W_p words; needs the model); lsi `dims` (300);
    ensemble `members` (default ("model2-jm", "loglinear")), `fusion` ("product" = Eq. 5, or
    "rrf"), and any option of its members.

    With `p_expert`, a method the model's calibration holds a fit of P(expert) for, built with
    the options it was fitted with (the defaults), gives rankings that carry it
    (rankers/probability.py).

    `device` is where `rank_batch` runs: None for numpy on the host, or a torch device ("cuda"
    for the training GPU; rankers/arrays.py).

    `outside`: the queries are papers from outside the collection (who could review this?):
    `auto` then ranks with `fusion.OUTSIDE`'s weights, and no method carries P(expert), whose
    fits answer who wrote a document of the collection. `recency` weighs documents by their
    dates (core/data/recency.py, rankers/recency.py; no P(expert) either: it was fitted
    without). `candidates` (person ids): only those people are ranked; with recency, only
    those with a document that counts.
    """
    from expert_gui.core.rankers.arrays import arrays_for
    from expert_gui.core.rankers.recency import restricted

    weights = recency_weights(collection, recency)
    ranker = _build(method, model, collection, dict(options, outside=outside),
                    arrays_for(device), weights)
    fit = ((model.calibration or {}).get("probability", {}).get(method)
           if p_expert and model is not None and not outside and weights is None else None)
    if usable_fit(fit) and all(_DEFAULTS.get(k, object()) == v for k, v in options.items()):
        from expert_gui.core.rankers.probability import ExpertProbability

        ranker = ExpertProbability(ranker, fit)
    return restricted(ranker, collection, weights, candidates)


def recency_weights(collection: Collection | None,
                    recency: Recency | None) -> DocumentWeights | None:
    """The documents' weights under `recency` (None without it), once per collection."""
    if not recency:
        return None
    if collection is None:
        raise QueryError("recency needs the collection, to read its documents' dates")
    from expert_gui.core.data.recency import document_weights

    return derived(collection, recency.key, lambda: document_weights(collection, recency))


# Options whose values are the ones P(expert) is fitted with (the CLI always passes them).
_DEFAULTS = {"aggregation": "sum", "fusion": "product"}


def _build(method: str, model, collection, options: dict, arrays, weights=None) -> Ranker:
    """The ranker, or the one already built with the same arguments while it is held."""
    if method not in METHODS:
        raise QueryError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    outside = options.pop("outside", False)
    unknown = set(options) - _accepted(method)
    if unknown:
        raise QueryError(f"{method} takes no option {', '.join(sorted(unknown))}")
    if method in ("auto", "ensemble") or options.get("expand"):  # over rankers from _build
        return _make(method, model, collection, options, arrays, weights, outside)
    owner = model if method == "loglinear" else collection
    if owner is None:
        return _make(method, model, collection, options, arrays)  # which says what it needs
    key = (method, tuple(sorted(options.items())), arrays.device,
           None if weights is None else weights.key)
    return derived(owner, key, lambda: _make(method, model, collection, dict(options), arrays,
                                             weights), weak=True)


def _make(method: str, model, collection, options: dict, arrays, weights=None,
          outside: bool = False) -> Ranker:
    if method == "auto":
        return _fusion(model, collection, options, arrays, weights, outside)
    if method == "ensemble":
        members = options.pop("members", ENSEMBLE_MEMBERS)
        fusion = options.pop("fusion", "product")
        rankers = [_build(m, model, collection, _options_for(m, options), arrays, weights)
                   for m in members]
        from expert_gui.core.rankers.ensemble import EnsembleRanker

        return EnsembleRanker(rankers, fusion=fusion)
    if method == "loglinear":
        _require(method, model=model)
        from expert_gui.core.rankers.loglinear import LogLinearRanker
        from expert_gui.core.rankers.recency import log_shares

        return LogLinearRanker(model, **options, arrays=arrays,
                               log_share=log_shares(collection, weights, model.person_ids))
    _require(method, collection=collection)
    if method in ("tfidf", "lsi"):
        from expert_gui.core.rankers import vector_space

        cls = vector_space.TfidfRanker if method == "tfidf" else vector_space.LsiRanker
        return cls(collection, **options, arrays=arrays, weights=weights)
    from expert_gui.core.rankers import language_models

    name, smoothing, fixed = _LANGUAGE_MODELS[method]
    expand = options.pop("expand", 0)
    if not expand:
        return getattr(language_models, name)(collection, smoothing, **fixed, **options,
                                              arrays=arrays, weights=weights)
    if name != "Model1":
        raise QueryError("query expansion is offered for Model 1 only")
    _require(f"{method} with expansion", model=model)
    from expert_gui.core.rankers.expansion import ExpandedModel1

    return ExpandedModel1(_build(method, model, collection, options, arrays, weights), model,
                          k=expand)


def _fusion(model, collection, options, arrays, weights, outside: bool) -> FusionRanker:
    """The members with the weights the model's calibration chose for each query type, and why;
    for a model trained without held-out documents, the anchors of an uncalibrated `auto`; for
    papers from outside, `fusion.OUTSIDE`'s members and weights."""
    _require("auto", model=model, collection=collection)
    from expert_gui.core.rankers.fusion import (
        OUTSIDE,
        OUTSIDE_LABEL,
        UNCALIBRATED,
        FusionRanker,
        anchor_weights,
        describe_auto,
    )
    from expert_gui.core.rankers.query_type import OUTSIDE_PAPER, words_in
    from expert_gui.core.store.manifest import MEMBERS

    if outside:
        rankers = [_build(m, model, collection, dict(member_options), arrays, weights)
                   for m, member_options, _ in OUTSIDE]
        return FusionRanker(rankers, [w for _, _, w in OUTSIDE], decision="outside",
                            label=OUTSIDE_LABEL, kind=OUTSIDE_PAPER)
    fusion = (model.calibration or {}).get("fusion")
    stopped = bool(model.settings.get("stopped"))
    if fusion is None:
        members, member_weights = MEMBERS, anchor_weights(UNCALIBRATED, MEMBERS)
        decision, label = "uncalibrated", describe_auto(None, 0, stopped)
        short = None  # one set of weights for every query
    else:
        members, member_weights = fusion["members"], fusion["weights"]
        decision = fusion.get("decision", "earlier rule")
        short = fusion.get("short_topics")
        n = len(model.calibration.get("held_out", {}).get("documents", ()))
        label = fusion.get("label") or describe_auto(fusion, n, stopped)
    rankers = [_build(m, model, collection, _options_for(m, options), arrays, weights)
               for m in members]
    return FusionRanker(rankers, member_weights, decision=decision, label=label,
                        short_weights=None if short is None else short["weights"],
                        short_label="" if short is None else short["label"],
                        count_words=partial(words_in, model.tokenizer))


_OPTIONS = {"loglinear": {"aggregation"}, "tfidf": set(), "lsi": {"dims", "seed"}}
_LANGUAGE_MODEL_OPTIONS = {"lam", "beta", "expand"}


def _accepted(method: str) -> set[str]:
    if method == "auto":
        return {"aggregation"}
    if method == "ensemble":
        return {"members", "fusion"}.union(_LANGUAGE_MODEL_OPTIONS, *_OPTIONS.values())
    return _OPTIONS.get(method, _LANGUAGE_MODEL_OPTIONS)


def _options_for(method: str, options: dict) -> dict:
    return {k: v for k, v in options.items() if k in _accepted(method)}


def _require(method: str, **needed) -> None:
    missing = [name for name, value in needed.items() if value is None]
    if missing:
        raise QueryError(f"{method} needs a {' and a '.join(missing)}")
