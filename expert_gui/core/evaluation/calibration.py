"""Training with held-out documents, and what they decide: the weights of `auto`, every
method's held-out MAP and MRR, each method's fit of P(expert), and (with early stopping) the
epoch to keep.

`calibrate` ranks every held-out document with every method, chooses the weights of `auto`
(fusion_choice.py), fits P(expert) per method (probability_fit.py), and returns the
`calibration` record a model keeps in its manifest:

    {"held_out": {fraction, minimum, maximum, seed, documents: [ids]},
     "fusion": {"members": [...], "weights": [...], "normalisation": "z-score", "decision",
                "label", "anchor", "cv": {...}, ...},
     "measures": {method: {"AP": MAP, "RR": MRR}},   (over the held-out documents; the
                                                      method "chance": a random ranking's)
     "probability": {method: {"slope": a, "intercept": b, "queries": n}}}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import Tokenizer
from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.evaluate import Stopped, check_stop, evaluate, part_progress
from expert_gui.core.evaluation.every_document import (
    USES_THE_MODEL,
    retrained,
    train_on_every_document,
)
from expert_gui.core.evaluation.fusion_choice import choose_fusion, grid_average_precisions
from expert_gui.core.evaluation.heldout import (
    HeldOut,
    HeldOutSettings,
    fingerprint_without,
    held_out_again,
    hold_out,
)
from expert_gui.core.evaluation.measures import PerTopic, measure_run
from expert_gui.core.evaluation.probability_fit import fit_expert_probability
from expert_gui.core.evaluation.qrels import restrict
from expert_gui.core.evaluation.quality import CHANCE, chance_measures
from expert_gui.core.evaluation.runs import run_from_rankings
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.common import ranked
from expert_gui.core.rankers.fusion import FusionRanker, average_precisions, simplex_grid
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

    def per_instance(self, loss: float) -> float:
        """Eq. 3's loss per instance as cross-entropy per instance (nats), as the app plots
        it and the CLI prints it."""
        return loss / self.mean_weight if self.mean_weight > 0 else loss

    @classmethod
    def of_model(cls, model) -> LossScale:
        """The scale of a saved model's history (1: a model saved before it was recorded)."""
        return cls(float(model.settings.get("mean_weight") or 1.0), model.n_people)


def train_and_calibrate(split: HeldOut, settings: TrainSettings = TrainSettings(), *,
                        out_dir=None, progress=None, should_stop=None, should_pause=None,
                        resume: bool = False, word_vectors=None) -> LogLinearModel:
    """Train on `split.training`, then calibrate `auto` on the held-out documents, train again on
    every document (`settings.retrain_on_all`, every_document.py; not under torchrun) and save.

    The log-linear model's held-out MAP is recorded after every epoch (about a second on DPDK);
    with `settings.early_stopping` training keeps the epoch where it was best (the validation loss
    kept falling after MAP peaked). The model is saved calibrated (the measured one first when it
    is trained again, so that a second run stopped or cut short keeps it); a run stopped before
    the calibration is saved as `train` saves it, uncalibrated.
    """
    from expert_gui.core.store.storage import save_model
    from expert_gui.core.train import distributed
    from expert_gui.core.train.instances import mean_weight
    from expert_gui.core.train.trainer import train  # torch: only when training

    has_queries = len(split.documents) > 0
    n = len(split.documents)
    tell = progress or (lambda event: None)
    tell(LossScale(mean_weight(split.training, settings.window, settings.overlapping),
                   split.training.n_people))
    measure = held_out_map(split) if has_queries else None

    def score(params: dict, epoch: int) -> float:
        tell(TrainingStage(f"Measuring the held-out MAP on {n:,} documents after epoch "
                           f"{epoch}"))
        return measure(params)

    def calibrating(event: tuple) -> None:
        # each held-out document ranked by auto's members (for its weights), then by each other
        # method (for its P(expert) and held-out measures); what runs between two counts
        done, total, *what = event
        tell(TrainingStage(f"Calibrating auto and P(expert) on {n:,} held-out documents"
                           + (f": {what[0]}" if what else ""), done, total))

    def finish(model: LogLinearModel) -> LogLinearModel:
        try:
            model.calibration = calibrate(model, split, should_stop=should_stop,
                                          progress=calibrating)
        except Stopped:
            return model  # stopped while calibrating: saved uncalibrated, as a stopped run
        if settings.retrain_on_all and not distributed.context().active:
            if out_dir is not None:  # kept if the second run is stopped or cut short
                tell(TrainingStage(f"Saving the measured model to {out_dir}"))
                save_model(model, out_dir)
            try:
                model = train_on_every_document(model, split, settings, progress=lambda *a:
                                                tell(TrainingStage(*a)),
                                                should_stop=should_stop,
                                                should_pause=should_pause)
            except Stopped:
                pass  # the measured model, calibrated, is the one kept
        if out_dir is not None:
            tell(TrainingStage(f"Saving the model to {out_dir}"))
        return model

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
    """Rank the held-out documents with every method; choose the weights of `auto`, measure
    every method and fit its P(expert), and measure what a random ranking would score on them
    (quality.CHANCE)."""
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.rankers.names import METHOD_LABELS, METHODS

    def build(method):
        return make_ranker(method, model=model, collection=split.training, p_expert=False)

    members = [build(m) for m in MEMBERS]
    fusion = FusionRanker(members, np.full(len(members), 1.0 / len(members)))
    queries, qrels = split.queries(), split.qrels()
    topics = list(queries)
    others = [m for m in METHODS if m not in MEMBERS and m != "auto"]
    total = len(topics) * (1 + len(others))
    done = 0

    what = "ranking with auto's members"  # said with each count: (done, total, what)

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress((done, total, what))

    def doing(text: str) -> None:  # a long step between two counts, named as it begins
        nonlocal what
        what = text
        if progress is not None:
            progress((done, total, what))

    relevant = _relevant(fusion.person_ids, topics, qrels)
    zs, known = [], []
    for topic in topics:
        check_stop(should_stop)
        rankings, z = fusion.member_scores(queries[topic])
        zs.append(z)
        known.append([not r.no_known_words for r in rankings])
        step()
    doing("choosing auto's weights")
    grid = simplex_grid(len(MEMBERS))
    choice = choose_fusion(grid_average_precisions(grid, zs, relevant), grid, MEMBERS,
                           split.settings.seed)
    weights = np.asarray(choice["weights"])
    scores: dict[str, list] = {}  # method -> every candidate's score per query (None: no word)
    for k, method in enumerate(MEMBERS):
        scores[method] = [z[k] if ok[k] else None for z, ok in zip(zs, known, strict=True)]
    scores["auto"] = [weights @ z if z.any() else None for z in zs]
    rankings = {m: {t: _ranking(fusion.person_ids, s) for t, s in zip(topics, scores[m],
                                                                       strict=True)}
                for m in scores}
    fits = {m: fit_expert_probability(scores[m], relevant) for m in scores}
    for method in others:
        doing(f"indexing for {METHOD_LABELS[method]}")
        ranker = build(method)
        doing(f"ranking with {METHOD_LABELS[method]}")
        rel = _relevant(ranker.person_ids, topics, qrels)
        found, rankings[method] = [], {}
        for topic in topics:
            check_stop(should_stop)
            ranking = ranker.rank(queries[topic])
            rankings[method][topic] = ranking.cut(DEPTH)
            found.append(None if ranking.no_known_words else _by_person(ranking))
            step()
        fits[method] = fit_expert_probability(found, rel)
    doing("measuring every method")
    measures = {m: measure_run(qrels, run_from_rankings(rankings[m]), topics,
                               CALIBRATION_MEASURES).means()
                for m in METHODS if m in rankings}
    measures[CHANCE] = chance_measures([len(r) for r in relevant], len(fusion.person_ids))
    return {
        "held_out": {**split.settings.to_dict(), "documents": split.doc_ids},
        "fusion": choice,
        "measures": measures,
        "probability": {m: fit for m in METHODS if (fit := fits.get(m)) is not None},
    }


DEPTH = 1000  # people per held-out ranking measured, as trec_eval's usual run depth


def _relevant(person_ids, topics, qrels) -> list[np.ndarray]:
    """Each topic's relevant people as indices into `person_ids`."""
    index = {p: i for i, p in enumerate(person_ids)}
    return [np.array([index[p] for p in qrels[t]], dtype=np.int64) for t in topics]


def _by_person(ranking) -> np.ndarray:
    """A full ranking's scores indexed by person."""
    out = np.empty(len(ranking.person_ids))
    out[ranking.people] = ranking.scores
    return out


def _ranking(person_ids, scores: np.ndarray | None, depth: int = DEPTH):
    """The ranking `scores` give; nobody when the method knew no word of the query."""
    if scores is None:
        return ranked("", "", person_ids, np.zeros(0), (), (), 0)
    return ranked("", "", person_ids, scores, (), (), depth)


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
                      rankers: Mapping[str, Ranker] | None = None,
                      candidates: Iterable[str] | None = None) -> dict[str, PerTopic]:
    """Every method's measures on the model's held-out documents as queries (their people the
    answers): which method works best on this collection. `collection` is the whole one the model
    was trained from; the rankers index it without the held-out documents. `rankers` already
    built on that index (an experiment's: LSI alone takes seconds to build) are used as given.
    With `candidates` (person ids) only they are ranked and judged, and the documents none of
    whose people is among them are left out. A model trained again on every document has seen
    the held-out ones: the methods that use it (USES_THE_MODEL) are left out, their figures
    being the calibration's, of the model it measured."""
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.rankers.names import METHODS

    if not model.calibration:
        raise QueryError("this model was trained without held-out documents; train it again "
                         "with some (the default) to see which method works best")
    methods = METHODS if methods is None else methods
    if retrained(model):
        methods = [m for m in methods if m not in USES_THE_MODEL]
        rankers = None  # built on the whole collection, as the kept model's are
        if not methods:
            raise QueryError("this model was trained again on every document after its "
                             "calibration, the held-out ones included, so the methods that use "
                             "it cannot be measured on them again; the calibration's figures, "
                             "of the model measured before, are in its notes")
    split = held_out_again(collection, model.calibration)
    if len(split.documents) == 0:
        raise QueryError("none of the model's held-out documents is in this collection: give "
                         "the whole collection the model was trained from")
    queries, qrels = split.queries(), split.qrels()
    if candidates is not None:
        candidates = list(candidates)
        qrels, _ = restrict(qrels, candidates)
        queries = {t: q for t, q in queries.items() if t in qrels}
        if not queries:
            raise QueryError("none of the held-out documents has one of its people among the "
                             "candidates")
    topics = list(queries)
    out = {}
    for i, method in enumerate(methods):
        if rankers is not None and method in rankers:
            ranker = rankers[method]
        else:
            ranker = make_ranker(method, model=model, collection=split.training)
        if candidates is not None:
            ranker = Restricted(ranker, candidates)
        out[method], _ = evaluate(ranker, queries, qrels, topics, depth=depth,
                                  progress=part_progress(progress, i, len(methods)),
                                  should_stop=should_stop)
    return out


def trained_on(model: LogLinearModel, collection: Collection) -> bool:
    """Whether the model was trained on this collection (less its held-out documents unless it
    was trained again on every document), by fingerprint, without building anything."""
    if not (model.calibration and collection.fingerprint) or retrained(model):
        return model.collection_fingerprint == collection.fingerprint
    index = collection.doc_index
    held = sorted(index[d] for d in model.calibration["held_out"]["documents"] if d in index)
    expected = fingerprint_without(collection.fingerprint, [collection.doc_ids[d] for d in held])
    return model.collection_fingerprint == expected


def index_for(model: LogLinearModel, collection: Collection) -> Collection:
    """The collection as the model's rankers index it: without the documents held out of its
    training (the same ones again, by id), or whole for a model trained on all of it (without
    held-out documents, or again on every document after its calibration)."""
    if model.calibration and not retrained(model):
        return held_out_again(collection, model.calibration).training
    return collection
