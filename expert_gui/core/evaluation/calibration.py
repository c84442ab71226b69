"""Training with held-out documents, and what they decide: the weights of `auto`, the held-out
MAP and MRR of its members, and (with early stopping) the epoch to keep.

`calibrate` ranks every held-out document with each member of `auto` (rankers.fusion.MEMBERS),
chooses the fusion weights, and returns the `calibration` record a model keeps in its manifest:

    {"held_out": {fraction, minimum, maximum, seed, documents: [ids]},
     "fusion": {"members": [...], "weights": [...], "normalisation": "z-score"},
     "measures": {method: {"AP": MAP, "RR": MRR}}}   (over the held-out documents; the
                                                      method "chance": a random ranking's)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import Tokenizer
from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.evaluate import Stopped, check_stop, evaluate, part_progress
from expert_gui.core.evaluation.heldout import (
    HeldOut,
    HeldOutSettings,
    fingerprint_without,
    held_out_again,
    hold_out,
)
from expert_gui.core.evaluation.measures import PerTopic, measure_run
from expert_gui.core.evaluation.quality import CHANCE, chance_measures
from expert_gui.core.evaluation.runs import run_from_rankings
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.common import ranked
from expert_gui.core.rankers.fusion import (
    FusionRanker,
    average_precisions,
    choose_weights,
)
from expert_gui.core.store.manifest import MEMBERS
from expert_gui.core.train.settings import TrainSettings

if TYPE_CHECKING:
    from expert_gui.core.rankers.ranking import Ranker

CALIBRATION_MEASURES = ("AP", "RR")


@dataclass(frozen=True)
class TrainingStage:
    """What a run does besides its steps, as a progress event beside the trainer's: "Calibrating
    auto on 904 held-out documents", `done` of `total` (0 of 0: no count), so that the end of a
    run (seconds to minutes on a large collection) is never a silent "950 / 950"."""

    text: str
    done: int = 0
    total: int = 0


@dataclass(frozen=True)
class LossScale:
    """The first event of a run: how to read its losses. Eq. 3 weighs each instance's
    cross-entropy by |d_max| / |d|, so the loss per instance is about `mean_weight` times the
    cross-entropy; a uniform guess over the `n_people` candidates scores log |C| of it."""

    mean_weight: float
    n_people: int


def train_and_calibrate(split: HeldOut, settings: TrainSettings = TrainSettings(), *,
                        out_dir=None, progress=None, should_stop=None, should_pause=None,
                        resume: bool = False, word_vectors=None) -> LogLinearModel:
    """Train on `split.training`, then calibrate `auto` on the held-out documents and save.

    The log-linear model's held-out MAP is recorded after every epoch (about a second on DPDK);
    with `settings.early_stopping` training keeps the epoch where it was best (the validation loss
    kept falling after MAP peaked). The model is saved once, calibrated; a stopped run is saved as
    `train` saves it, uncalibrated.
    """
    from expert_gui.core.train.instances import mean_weight
    from expert_gui.core.train.trainer import train  # torch: only when training

    has_queries = len(split.documents) > 0
    n = len(split.documents)
    tell = progress or (lambda event: None)
    tell(LossScale(mean_weight(split.training, settings.window, settings.overlapping),
                   split.training.n_people))
    measure = held_out_map(split) if has_queries else None
    epochs = {"done": 0}

    def score(params: dict) -> float:
        epochs["done"] += 1
        tell(TrainingStage(f"Measuring the held-out MAP on {n:,} documents after epoch "
                           f"{epochs['done']}"))
        return measure(params)

    def calibrating(done: tuple[int, int]) -> None:
        tell(TrainingStage(f"Calibrating auto on {n:,} held-out documents", *done))
        if done[0] == done[1]:  # every document ranked by every member
            tell(TrainingStage(f"Choosing auto's weights and measuring every member on {n:,} "
                               "held-out documents"))

    def finish(model: LogLinearModel) -> None:
        try:
            model.calibration = calibrate(model, split, should_stop=should_stop,
                                          progress=calibrating)
        except Stopped:
            pass  # stopped while calibrating: saved uncalibrated, as a stopped run
        if out_dir is not None:
            tell(TrainingStage(f"Saving the model to {out_dir}"))

    return train(split.training, settings, out_dir=out_dir, progress=progress,
                 should_stop=should_stop, should_pause=should_pause, resume=resume,
                 word_vectors=word_vectors, epoch_score=score if has_queries else None,
                 finish=finish if has_queries else None)


def train_with_held_out(collection: Collection, settings: TrainSettings = TrainSettings(), *,
                        out_dir=None, progress=None, should_stop=None, should_pause=None,
                        resume: bool = False) -> LogLinearModel:
    """`train_and_calibrate` on the default held-out split (seeded by the training seed): what
    the app's Train button runs."""
    return train_and_calibrate(hold_out(collection, HeldOutSettings(seed=settings.seed)),
                               settings, out_dir=out_dir, progress=progress,
                               should_stop=should_stop, should_pause=should_pause, resume=resume)


def calibrate(model: LogLinearModel, split: HeldOut, *,
              progress: Callable[[tuple[int, int]], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> dict:
    """Rank the held-out documents with every member, choose the weights, measure all, and
    what a random ranking would score on them (quality.CHANCE)."""
    from expert_gui.core.rankers.methods import make_ranker

    members = [make_ranker(m, model=model, collection=split.training) for m in MEMBERS]
    fusion = FusionRanker(members, np.full(len(members), 1.0 / len(members)))
    index = {p: i for i, p in enumerate(fusion.person_ids)}
    queries, qrels = split.queries(), split.qrels()
    topics, zs, relevant = [], [], []
    for i, (topic, text) in enumerate(queries.items()):
        check_stop(should_stop)
        _, z = fusion.member_scores(text)
        topics.append(topic)
        zs.append(z)
        relevant.append(np.array([index[p] for p in qrels[topic]], dtype=np.int64))
        if progress is not None:
            progress((i + 1, len(queries)))
    weights, _ = choose_weights(zs, relevant)
    measures = {}
    for name, row in [*((m, np.eye(len(MEMBERS))[k]) for k, m in enumerate(MEMBERS)),
                      ("auto", weights)]:
        rankings = {t: _ranking(fusion, row @ z, z) for t, z in zip(topics, zs, strict=True)}
        per_topic = measure_run(qrels, run_from_rankings(rankings), topics,
                                CALIBRATION_MEASURES)
        measures[name] = per_topic.means()
    measures[CHANCE] = chance_measures([len(r) for r in relevant], len(fusion.person_ids))
    return {
        "held_out": {**split.settings.to_dict(), "documents": split.doc_ids},
        "fusion": {"members": list(MEMBERS), "weights": [float(w) for w in weights],
                   "normalisation": "z-score"},
        "measures": measures,
    }


def _ranking(fusion: FusionRanker, scores: np.ndarray, z: np.ndarray, depth: int = 1000):
    """The ranking `scores` give; nobody when no member knew a word of the query."""
    if not z.any():
        return ranked("", "", fusion.person_ids, np.zeros(0), (), (), 0)
    return ranked("", "", fusion.person_ids, scores, (), (), depth)


def held_out_map(split: HeldOut) -> Callable[[dict], float]:
    """MAP of the log-linear model (Eq. 2) on the held-out documents, from raw parameters
    (word_embeddings, candidate_weights, candidate_bias): what early stopping watches at the end
    of every epoch. The queries are encoded once."""
    training = split.training
    tokenizer = Tokenizer(training.settings)
    index = training.person_index
    queries, qrels = split.queries(), split.qrels()
    encoded = [(training.vocab.encode(tokenizer.words(text))[0],
                np.array([index[p] for p in qrels[topic]], dtype=np.int64))
               for topic, text in queries.items()]

    def score(params: dict) -> float:
        wp, wc, b = (np.asarray(params[k], dtype=np.float64) for k in
                     ("word_embeddings", "candidate_weights", "candidate_bias"))
        total = 0.0
        for ids, rel in encoded:
            if len(ids):
                logits = wc @ wp[ids].sum(axis=0) + len(ids) * b
                total += float(average_precisions(logits[None, :], rel)[0])
        return total / max(len(encoded), 1)

    return score


def held_out_measures(model: LogLinearModel, collection: Collection,
                      methods: Sequence[str] | None = None, *, depth: int = 1000,
                      progress: Callable[[tuple[float, int]], None] | None = None,
                      should_stop: Callable[[], bool] | None = None,
                      rankers: Mapping[str, Ranker] | None = None) -> dict[str, PerTopic]:
    """Every method's measures on the model's held-out documents as queries (their people the
    answers): which method works best on this collection. `collection` is the whole one the model
    was trained from; the rankers index it without the held-out documents. `rankers` already
    built on that index (an experiment's: LSI alone takes seconds to build) are used as given."""
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.rankers.names import METHODS

    if not model.calibration:
        raise QueryError("this model was trained without held-out documents; train it again "
                         "with some (the default) to see which method works best")
    methods = METHODS if methods is None else methods
    split = held_out_again(collection, model.calibration)
    if len(split.documents) == 0:
        raise QueryError("none of the model's held-out documents is in this collection: give "
                         "the whole collection the model was trained from")
    queries, qrels = split.queries(), split.qrels()
    topics = list(queries)
    out = {}
    for i, method in enumerate(methods):
        if rankers is not None and method in rankers:
            ranker = rankers[method]
        else:
            ranker = make_ranker(method, model=model, collection=split.training)
        out[method], _ = evaluate(ranker, queries, qrels, topics, depth=depth,
                                  progress=part_progress(progress, i, len(methods)),
                                  should_stop=should_stop)
    return out


def trained_on(model: LogLinearModel, collection: Collection) -> bool:
    """Whether the model was trained on this collection (less its held-out documents), by
    fingerprint, without building anything."""
    if not (model.calibration and collection.fingerprint):
        return model.collection_fingerprint == collection.fingerprint
    index = collection.doc_index
    held = sorted(index[d] for d in model.calibration["held_out"]["documents"] if d in index)
    expected = fingerprint_without(collection.fingerprint, [collection.doc_ids[d] for d in held])
    return model.collection_fingerprint == expected


def index_for(model: LogLinearModel, collection: Collection) -> Collection:
    """The collection as the model's rankers index it: without the documents held out of its
    training (the same ones again, by id), or whole for a model trained on all of it."""
    if model.calibration:
        return held_out_again(collection, model.calibration).training
    return collection
