"""Training with held-out documents, and what they decide: the weights of `auto`, every
method's held-out MAP and MRR, each method's fit of P(expert), and (with early stopping) the
epoch to keep.

`calibrate` ranks every held-out document with every method, chooses the weights of `auto`
(fusion_choice.py), fits P(expert) per method (probability_fit.py), and returns the
`calibration` record a model keeps in its manifest:

    {"held_out": {fraction, minimum, maximum, seed, documents: [ids]},
     "fusion": {"members": [...], "weights": [...], "normalisation": "z-score", "decision",
                "label", "anchor", "cv": {...}, "short_topics": {weights, label, ...}, ...},
     "measures": {method: {"AP": MAP, "RR": MRR}},   (over the held-out documents; the
                                                      method "chance": a random ranking's)
     "probability": {method: {"features": [...], "weights": [...], "queries": n}}}
"""

from __future__ import annotations

import math
import time
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
from expert_gui.core.evaluation.measures import PerTopic, scored_ap_rr
from expert_gui.core.evaluation.probability_fit import (
    SHORT_PER_DOCUMENT,
    calibration_error,
    fit_expert_probability,
    short_queries,
    top_pairs,
)
from expert_gui.core.evaluation.qrels import restrict
from expert_gui.core.evaluation.quality import CHANCE, chance_measures
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.batch import (
    BLOCK_BYTES,
    Scores,
    block_size,
    blocks,
    encode_queries,
)
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.fusion import FusionRanker, average_precisions, simplex_grid
from expert_gui.core.rankers.probability import expert_probabilities
from expert_gui.core.rankers.query_type import (
    ECE_LIMIT,
    P_EXPERT_KINDS,
    query_type,
    short_topic,
    words_in,
)
from expert_gui.core.store.manifest import MEMBERS
from expert_gui.core.train.settings import TrainSettings

if TYPE_CHECKING:
    from expert_gui.core.rankers.ranking import Ranker


@dataclass(frozen=True)
class TrainingStage:
    """What a run does besides its steps, as a progress event beside the trainer's: "Calibrating
    auto on 904 held-out documents", `done` of `total` (0 of 0: no count), so that the end of a
    run (seconds to minutes on a large collection) is never a silent "950 / 950"."""

    text: str
    done: int = 0
    total: int = 0
    phase: str = ""  # PHASES: what the time until the next event is spent on
    # On the second run's events (every_document.py): the folder that holds the measured model,
    # saved whole and calibrated, which the app opens meanwhile ('' when it was not saved), and
    # that run's own step (a TrainProgress, its losses per instance), for the numbers shown.
    measured_in: str = ""
    again_step: object | None = None


PHASES = ("steps", "held-out MAP", "calibration", "saving")
# What an index waits for where its count stands still: LSI's SVD is one call with no progress
# of its own (30-45 s behind "83%" on a loaded two-core machine).
INDEXING = {"lsi": " (an SVD fitting its latent topics, one step without a count)"}


class PhaseTimes:
    """Wall seconds per phase of a run, read from its progress events (each event's phase lasts
    until the next one): where the wait was spent, as `train` prints it. The steps include each
    epoch's validation loss."""

    def __init__(self):
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self._phase: str | None = None
        self._since = 0.0

    def __call__(self, event) -> None:
        phase = event.phase if isinstance(event, TrainingStage) else "steps"
        self.end()
        self._phase, self._since = phase, time.perf_counter()

    def end(self) -> None:
        """Close the current phase (at the end of the run)."""
        if self._phase is not None:
            self.seconds[self._phase] += time.perf_counter() - self._since
            self._phase = None


@dataclass(frozen=True)
class UniformGuess:
    """The first event of a run: its `n_people` candidates, whose uniform guess scores log |C|
    on the losses shown (`net.weighted_mean_loss`): the line the plot marks, and the loss a
    model must beat to have learned anything."""

    n_people: int

    @property
    def loss(self) -> float:
        return math.log(self.n_people) if self.n_people > 1 else 0.0


def train_and_calibrate(split: HeldOut, settings: TrainSettings = TrainSettings(), *,
                        out_dir=None, progress=None, should_stop=None, should_pause=None,
                        resume: bool = False, word_vectors=None,
                        measured: Callable[[dict[str, PerTopic]], None] | None = None
                        ) -> LogLinearModel:
    """Train on `split.training`, then calibrate `auto` on the held-out documents, train again on
    every document (`settings.retrain_on_all`, every_document.py; not under torchrun) and save.

    The log-linear model's held-out MAP is recorded after every epoch (about a second on DPDK);
    with `settings.early_stopping` training keeps the epoch where it was best (the validation loss
    kept falling after MAP peaked). The model is saved calibrated (the measured one first when it
    is trained again, so that a second run stopped or cut short keeps it); a run stopped before
    the calibration is saved as `train` saves it, uncalibrated. `measured` gets the calibration's
    per-document AP and RR of every method (`held_out_measures` at depth DEPTH, without ranking
    again): of the measured model.
    """
    from expert_gui.core.store.storage import save_model
    from expert_gui.core.train import distributed
    from expert_gui.core.train.net import ranking_device
    from expert_gui.core.train.trainer import train  # torch: only when training

    has_queries = len(split.documents) > 0
    n = len(split.documents)
    tell = progress or (lambda event: None)
    tell(UniformGuess(split.training.n_people))
    measure = held_out_map(split) if has_queries else None

    def score(params: dict, epoch: int) -> float:
        tell(TrainingStage(f"Measuring the held-out MAP on {n:,} documents after epoch "
                           f"{epoch}", phase="held-out MAP"))
        return measure(params)

    def calibrating(event: tuple) -> None:
        # each held-out document ranked by auto's members (for its weights), then by each other
        # method (for its P(expert) and held-out measures); what runs between two counts
        done, total, *what = event
        tell(TrainingStage(f"Calibrating auto and P(expert) on {n:,} held-out documents"
                           + (f": {what[0]}" if what else ""), done, total,
                           phase="calibration"))

    def finish(model: LogLinearModel) -> LogLinearModel:
        try:
            model.calibration = calibrate(model, split, should_stop=should_stop,
                                          progress=calibrating, measured=measured,
                                          device=ranking_device(settings.device))
        except Stopped:
            return model  # stopped while calibrating: saved uncalibrated, as a stopped run
        if settings.retrain_on_all and not distributed.context().active:
            if out_dir is not None:  # kept if the second run is stopped or cut short
                tell(TrainingStage(f"Saving the measured model to {out_dir}", phase="saving"))
                save_model(model, out_dir)
            try:
                saved = str(out_dir) if out_dir is not None else ""
                model = train_on_every_document(
                    model, split, settings,
                    progress=lambda text, done, total, step=None: tell(TrainingStage(
                        text, done, total, phase="steps", measured_in=saved, again_step=step)),
                    should_stop=should_stop, should_pause=should_pause)
            except Stopped:
                pass  # the measured model, calibrated, is the one kept
        if out_dir is not None:
            tell(TrainingStage(f"Saving the model to {out_dir}", phase="saving"))
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
              should_stop: Callable[[], bool] | None = None,
              device: str | None = None,
              measured: Callable[[dict[str, PerTopic]], None] | None = None) -> dict:
    """Rank the held-out documents with every method; choose the weights of `auto`, measure
    every method and fit its P(expert), and measure what a random ranking would score on them
    (quality.CHANCE).

    Each method is built once and ranks the documents in blocks (`rank_batch`, on `device`:
    rankers/arrays.py); auto's members rank them once for the weights, their own measures and
    fits, auto's, and the ensemble's (whose members they are). `measured` gets every method's
    AP and RR per held-out document."""
    from expert_gui.core.rankers.ensemble import EnsembleRanker
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.rankers.names import ENSEMBLE_MEMBERS, METHOD_LABELS, METHODS

    def build(method):
        return make_ranker(method, model=model, collection=split.training, p_expert=False,
                           device=device)

    members = [build(m) for m in MEMBERS]
    fusion = FusionRanker(members, np.full(len(members), 1.0 / len(members)))
    named = dict(zip(MEMBERS, members, strict=True))
    ensemble = EnsembleRanker([named[m] for m in ENSEMBLE_MEMBERS])
    queries, qrels = split.queries(), split.qrels()
    topics = list(queries)
    texts = [queries[t] for t in topics]
    others = [m for m in METHODS if m not in (*MEMBERS, "auto", "ensemble")]
    total = len(topics) * (1 + len(others)) + len(topics) * (1 + SHORT_PER_DOCUMENT) * len(METHODS)
    done = 0

    what = "ranking with auto's members"  # said with each count: (done, total, what)

    def step(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress((done, total, what))

    def doing(text: str) -> None:  # a long step between two counts, named as it begins
        nonlocal what
        what = text
        if progress is not None:
            progress((done, total, what))

    person_ids = fusion.person_ids
    n, n_people = len(topics), len(person_ids)
    relevant = {id(person_ids): _relevant(person_ids, topics, qrels)}
    per_topic: dict[str, PerTopic] = {}

    def measure(method: str, people, values: np.ndarray, knows: np.ndarray) -> None:
        """AP, RR and the fit of P(expert) of a method's scores (queries x its people)."""
        rel = relevant.setdefault(id(people), _relevant(people, topics, qrels))
        per_topic[method] = PerTopic(tuple(topics), scored_ap_rr(
            values, knows, rel, [len(r) for r in rel], people, DEPTH))

    # auto's members' z-scores (members x queries x people), and the ensemble of two of them
    zs = np.zeros((len(MEMBERS), n, n_people))
    known = np.zeros((len(MEMBERS), n), dtype=bool)
    fused, fused_knows = np.zeros((n, len(ensemble.person_ids))), np.zeros(n, dtype=bool)
    for start, part in _numbered(blocks(texts, block_size(fusion))):
        check_stop(should_stop)
        rows = slice(start, start + len(part))
        block, zs[:, rows] = fusion.member_batch(part)
        known[:, rows] = [_knows(s) for s in block]
        scores = ensemble.fuse([block[MEMBERS.index(m)] for m in ENSEMBLE_MEMBERS])
        fused[rows], fused_knows[rows] = scores.values, _knows(scores)
        step(len(part))
    doing("choosing auto's weights")
    grid = simplex_grid(len(MEMBERS))
    short = np.array([short_topic(words_in(model.tokenizer, t)) for t in texts], dtype=bool)
    choice = choose_fusion(grid_average_precisions(grid, zs.transpose(1, 0, 2),
                                                   relevant[id(person_ids)]),
                           grid, MEMBERS, split.settings.seed, short=short)
    doing("measuring auto's members, auto and the ensemble")
    for k, method in enumerate(MEMBERS):
        measure(method, person_ids, zs[k], known[k])
    weights = np.where(short[:, None], choice["short_topics"]["weights"], choice["weights"])
    auto = np.einsum("qm,mqc->qc", weights, zs)  # each document ranked as its type is
    measure("auto", person_ids, auto, zs.any(axis=(0, 2)))
    measure("ensemble", ensemble.person_ids, fused, fused_knows)
    del zs, auto, fused
    built = dict(named)  # each method's ranker, kept for the fits of P(expert)
    for method in others:
        doing(f"indexing for {METHOD_LABELS[method]}" + INDEXING.get(method, ""))
        ranker = built[method] = build(method)
        doing(f"ranking with {METHOD_LABELS[method]}")
        values, knows = np.zeros((n, len(ranker.person_ids))), np.zeros(n, dtype=bool)
        for start, part in _numbered(blocks(texts, block_size(ranker))):
            check_stop(should_stop)
            scores = ranker.score_batch(part)
            values[start:start + len(part)], knows[start:start + len(part)] = \
                scores.values, _knows(scores)
            step(len(part))
        doing(f"measuring {METHOD_LABELS[method]}")
        measure(method, ranker.person_ids, values, knows)
    per_topic = {m: per_topic[m] for m in METHODS if m in per_topic}
    if measured is not None:
        measured(per_topic)
    measures = {m: p.means() for m, p in per_topic.items()}
    measures[CHANCE] = chance_measures([len(r) for r in relevant[id(person_ids)]], n_people)
    record = {"held_out": {**split.settings.to_dict(), "documents": split.doc_ids},
              "fusion": choice, "measures": measures}
    record["probability"] = fit_p_expert(model, split, record, METHODS, device=device,
                                         should_stop=should_stop, step=step, doing=doing,
                                         rankers=built)
    return record


def fit_p_expert(model: LogLinearModel, split: HeldOut, calibration: dict,
                 methods: Sequence[str], *, device: str | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 step: Callable[[int], None] = lambda n: None,
                 doing: Callable[[str], None] = lambda text: None,
                 rankers: Mapping[str, Ranker] | None = None) -> dict[str, dict]:
    """Each method's fit of P(expert) (probability_fit.py) on the held-out documents and the
    short queries drawn from them, ranked as `calibration` (its `fusion`: auto's weights) has
    the model rank them: {method: fit}, without the methods that know no query's word.
    `rankers`: ones already built on `split.training` without P(expert) (LSI's takes seconds
    to build), used as given."""
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.rankers.names import METHOD_LABELS

    queries, qrels = split.queries(), split.qrels()
    topics = list(queries)
    texts = [queries[t] for t in topics]
    short, sources = short_queries([model.tokenizer.words(t) for t in texts],
                                   split.settings.seed)
    every = texts + short
    fits = {}
    kept = model.calibration
    model.calibration = calibration  # auto's weights, as the model will rank with them
    try:
        for method in methods:
            doing(f"fitting P(expert) of {METHOD_LABELS[method]}")
            ranker = (rankers or {}).get(method) or make_ranker(
                method, model=model, collection=split.training, p_expert=False, device=device)
            index = {p: i for i, p in enumerate(ranker.person_ids)}
            of_topic = [np.array([index[p] for p in qrels[t] if p in index], dtype=np.int64)
                        for t in topics]
            values = np.zeros((len(every), len(ranker.person_ids)))
            knows, n_words = np.zeros(len(every), dtype=bool), np.zeros(len(every))
            for start, part in _numbered(blocks(every, block_size(ranker))):
                check_stop(should_stop)
                scores = ranker.score_batch(part)
                rows = slice(start, start + len(part))
                values[rows], knows[rows] = scores.values, _knows(scores)
                n_words[rows] = [len(k) for k in scores.known]
                step(len(part))
            relevant = of_topic + [of_topic[s] for s in sources]
            fit = fit_expert_probability(values, knows, n_words, relevant)
            if fit is not None:
                fits[method] = {**fit, **checked_kinds(
                    values, knows, n_words, relevant,
                    np.concatenate([np.arange(len(texts)), sources]) % 2)}
    finally:
        model.calibration = kept
    return fits


def checked_kinds(values: np.ndarray, knows: np.ndarray, n_words: np.ndarray,
                  relevant: Sequence[np.ndarray], fold: np.ndarray) -> dict:
    """The expected calibration error of a fit over each query type's TOP people, cross-fitted
    (each of two folds judged by the fit of the other: `fold` of each query, a document's short
    queries in its own fold), and the types of P_EXPERT_KINDS whose error is within ECE_LIMIT:
    {"ece": {type: error}, "kinds": [type, ...]}."""
    p = np.zeros_like(values)
    for f in (0, 1):
        train = knows & (fold != f)
        fit = fit_expert_probability(values[train], np.ones(int(train.sum()), dtype=bool),
                                     n_words[train], [relevant[q] for q in np.flatnonzero(train)])
        if fit is None:
            return {"ece": {}, "kinds": []}
        rows = fold == f
        p[rows] = expert_probabilities(values[rows], n_words[rows], fit["weights"])
    types = np.array([query_type(int(n)) for n in n_words])
    ece = {}
    for kind in sorted(set(types[knows])):
        ece[kind] = calibration_error(*top_pairs(values, p, relevant,
                                                 np.flatnonzero(knows & (types == kind))))[0]
    return {"ece": ece, "kinds": [k for k in P_EXPERT_KINDS if ece.get(k, 1.0) <= ECE_LIMIT]}


def _numbered(parts: Iterable[Sequence]) -> Iterable[tuple[int, Sequence]]:
    """Each block of queries with the index of its first query."""
    start = 0
    for part in parts:
        yield start, part
        start += len(part)


def _knows(scores: Scores) -> np.ndarray:
    """Which queries of a block the method knows a word of."""
    return np.array([scores.knows(i) for i in range(len(scores))], dtype=bool)


DEPTH = 1000  # people per held-out ranking measured, as trec_eval's usual run depth


def _relevant(person_ids, topics, qrels) -> list[np.ndarray]:
    """Each topic's relevant people as indices into `person_ids`."""
    index = {p: i for i, p in enumerate(person_ids)}
    return [np.array([index[p] for p in qrels[t]], dtype=np.int64) for t in topics]


def held_out_map(split: HeldOut) -> Callable[[dict], float]:
    """MAP of the log-linear model (Eq. 2) on the held-out documents, from raw parameters
    (word_embeddings, candidate_weights, candidate_bias): what early stopping watches at the end
    of every epoch. The queries are encoded once, as a query x word matrix; each block of them
    costs two matrix products."""
    training = split.training
    queries, qrels = split.queries(), split.qrels()
    encoded = encode_queries(list(queries.values()), Tokenizer(training.settings),
                             training.vocab)
    counts = encoded.matrix()
    index = training.person_index
    relevant = [np.array([index[p] for p in qrels[t]], dtype=np.int64) for t in queries]
    size = max(1, BLOCK_BYTES // (8 * max(training.n_people, 1)))

    def score(params: dict) -> float:
        wp, wc, b = (np.asarray(params[k], dtype=np.float64) for k in
                     ("word_embeddings", "candidate_weights", "candidate_bias"))
        total = 0.0
        for start in range(0, len(relevant), size):
            block = counts[start:start + size]
            logits = (block @ wp) @ wc.T + np.asarray(block.sum(axis=1)) * b[None, :]
            for row, ids, rel in zip(logits, encoded.ids[start:start + size],
                                     relevant[start:start + size], strict=True):
                if len(ids):
                    total += float(average_precisions(row[None, :], rel)[0])
        return total / max(len(relevant), 1)

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
