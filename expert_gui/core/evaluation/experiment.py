"""The paper's whole evaluation in one call: train (or reuse) the log-linear model, rank every
topic with every method, and write run files, Tables 2 and 4, per-topic measures, Figures 2-5 and
a report.md tying them together with the settings, the versions and the wall times.

The model is trained as `expert-gui train` trains it: a sample of documents is held out, the
model is trained and the baselines index the rest, and `auto` is calibrated on the held-out
documents. Every method is also measured on those documents as queries, beside its measures on
the topics, so a reader sees whether the collection's own answer key picks the right method.
"""

from __future__ import annotations

import csv
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from expert_gui.core.data.candidates import read_candidates
from expert_gui.core.data.collection import Collection
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.errors import ModelFileError, QueryError
from expert_gui.core.evaluation import figures
from expert_gui.core.evaluation.analysis import (
    ap_difference,
    entropy_vs_ap,
)
from expert_gui.core.evaluation.calibration import (
    DEPTH,
    held_out_measures,
    index_for,
    train_and_calibrate,
)
from expert_gui.core.evaluation.evaluate import Stopped, check_stop, evaluate, part_progress
from expert_gui.core.evaluation.every_document import USES_THE_MODEL, retrained, retrained_note
from expert_gui.core.evaluation.heldout import hold_out, without_documents
from expert_gui.core.evaluation.measures import (
    ALL_MEASURES,
    MEASURES,
    MORE_MEASURES,
    PerTopic,
    evaluated_topics,
)
from expert_gui.core.evaluation.pairwise import ScoreSheet, judged_people, pairwise_error
from expert_gui.core.evaluation.qrels import coverage, read_qrels, restrict
from expert_gui.core.evaluation.report import write_report
from expert_gui.core.evaluation.results import (
    ExperimentProgress,
    ExperimentResult,
    ExperimentSettings,
)
from expert_gui.core.evaluation.runs import write_run
from expert_gui.core.evaluation.sweeps import Curve, query_expansion_curve, window_sweep
from expert_gui.core.evaluation.tables import (
    MORE_METHODS,
    TABLE2_METHODS,
    TABLE4_METHODS,
    build_table,
    write_table,
)
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.store.outputs import claim_output_folder, replacing
from expert_gui.core.store.storage import load_model, save_model
from expert_gui.core.train.settings import TrainSettings


def run_experiment(collection_path: str | Path, topics: str | Path, qrels: str | Path,
                   out_dir: str | Path, *, settings: ExperimentSettings = ExperimentSettings(),
                   model_path: str | Path | None = None, sweep: bool = False,
                   progress: Callable[[ExperimentProgress], None] | None = None,
                   should_stop: Callable[[], bool] | None = None) -> ExperimentResult:
    """Run the evaluation into `out_dir`. Bad files raise the typed errors of core/errors.py
    before any work; a stop keeps everything finished so far and returns `completed` False."""
    unknown = [m for m in settings.methods if m not in METHODS]
    if unknown:
        raise QueryError(f"unknown methods {', '.join(unknown)}; choose from {', '.join(METHODS)}")
    topic_list = read_topics(topics)
    judgments = read_qrels(qrels)
    queries = {t.id: t.query for t in topic_list}
    matched = coverage(judgments, queries, ())
    if not matched.matched:
        raise QueryError(f"{qrels}: {matched.problem()}")
    out = claim_output_folder(out_dir, "experiment", is_legacy=_is_experiment_folder)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    result = ExperimentResult(out, settings, n_topics=len(queries), sources={
        "collection": str(collection_path), "topics": str(topics), "qrels": str(qrels)})
    emit = progress or (lambda event: None)
    stage = _Stages(result, emit)
    try:
        with stage("load"):
            collection = load_collection(collection_path, settings=settings.text,
                                         progress=stage.forward, should_stop=should_stop)
            if collection is None:
                raise Stopped
            if settings.exclude_topic_documents:
                collection = _without_queries(collection, queries, result)
            people = _candidates(collection, settings, result)
            judgments = _judged_within(judgments, queries, people or collection.person_ids,
                                       bool(people), result, qrels)
            scored = evaluated_topics(judgments, list(queries))
        with stage("train"):
            calibrated: dict[str, PerTopic] = {}
            model, index = _model(collection, settings, model_path, result, stage.forward,
                                  should_stop, calibrated.update)
        result.auto = auto_label(model.calibration)
        with stage("rank"):
            rankings, rankers = _rank_all(index, model, queries, judgments, scored, result,
                                          stage.forward, should_stop, people)
        with stage("heldout"):
            again = retrained(model) is not None
            if again:  # a model trained again on every document has seen the held-out ones
                result.warnings.append(
                    f"{retrained_note(model)} On the held-out documents only the methods that "
                    "do not use it are measured again.")
            if model.calibration:
                # the calibration's own rankings answer it (all candidates, its depth)
                reused = {m: calibrated[m] for m in settings.methods if m in calibrated} \
                    if not people and settings.depth == DEPTH else {}
                rest = [m for m in settings.methods if m not in reused
                        and not (again and m in USES_THE_MODEL)]
                result.held_out = reused | (held_out_measures(
                    model, collection, rest, depth=settings.depth, progress=stage.forward,
                    should_stop=should_stop, rankers=rankers, candidates=people or None)
                    if rest else {})
                result.held_out = {m: result.held_out[m] for m in settings.methods
                                   if m in result.held_out}
            del rankers  # the later stages build their own
        with stage("numbers"):
            if settings.other_numbers:
                _other_numbers(collection_path, settings, queries, judgments, scored, result,
                               rankings, stage.forward, should_stop, people)
        with stage("analyse"):
            _tables_and_analyses(result, rankings, queries)
        if "model1-jm" in settings.methods and settings.expansion_ks:
            with stage("expansion"):
                result.expansion = query_expansion_curve(
                    index, model, queries, judgments, scored, settings.expansion_ks,
                    depth=settings.depth, progress=stage.forward, should_stop=should_stop)
                result.files += _write_curve(out, "figure4_query_expansion", "k", result.expansion)
                result.files += figures.query_expansion_figure(
                    result.expansion, out, title="Model 1 (jm) with query expansion")
        if sweep:
            with stage("sweep"):
                train_settings = settings.train
                if settings.sweep_epochs is not None:
                    train_settings = dataclasses.replace(train_settings, epochs=settings.sweep_epochs)
                try:
                    window_sweep(index, train_settings, settings.sweep_windows, queries,
                                 judgments, scored, depth=settings.depth, progress=stage.forward,
                                 should_stop=should_stop, curve=result.sweep)
                finally:
                    if result.sweep:
                        result.files += _write_curve(out, "figure2_window_sweep", "window",
                                                     result.sweep)
                        result.files += figures.window_sweep_figure(
                            result.sweep, out, title="Log-linear, window size")
        result.completed = True
    except Stopped:
        pass
    result.files += write_report(result)
    return result


def report_for_model(collection_path: str | Path, topics: str | Path, qrels: str | Path,
                     out_dir: str | Path, model_path: str | Path, *,
                     progress: Callable[[ExperimentProgress], None] | None = None,
                     should_stop: Callable[[], bool] | None = None) -> ExperimentResult:
    """What `expert-gui experiment COLLECTION --topics T --qrels Q --out DIR --model MODEL`
    writes, with the collection read as the model's text settings say: the app's Evaluate >
    Save report."""
    from expert_gui.core.data.text import TextSettings
    from expert_gui.core.store.storage import read_manifest

    text = TextSettings.from_dict(read_manifest(model_path)["text_settings"])
    return run_experiment(collection_path, topics, qrels, out_dir,
                          settings=ExperimentSettings(text=text), model_path=model_path,
                          progress=progress, should_stop=should_stop)


def _is_experiment_folder(folder: Path) -> bool:
    """A folder an experiment wrote before folders were marked: it has its report and settings."""
    return (folder / "report.md").is_file() and (folder / "settings.json").is_file()


class _Stages:
    """Times each stage and turns the progress of the functions it calls into ExperimentProgress."""

    def __init__(self, result: ExperimentResult, emit):
        self.result = result
        self.emit = emit
        self.current = ""

    def __call__(self, name: str):
        self.current = name
        return self

    def __enter__(self):
        self.start = time.perf_counter()
        self.emit(ExperimentProgress(self.current, 0, 0))

    def __exit__(self, *exc):
        took = time.perf_counter() - self.start
        self.result.wall_times[self.current] = took
        if exc[0] is None:
            self.emit(ExperimentProgress(self.current, 1, 1, f"{took:.1f} s"))
        return False

    def forward(self, event) -> None:
        """(done, total) from evaluation; load and train events by their done/total or step fields."""
        if isinstance(event, tuple) and len(event) == 2:
            done, total = event
        else:
            done = getattr(event, "done", getattr(event, "step", 0))
            total = getattr(event, "total", getattr(event, "total_steps", 0))
        self.emit(ExperimentProgress(self.current, float(done or 0), float(total or 0),
                                     "" if isinstance(event, tuple) else
                                     getattr(event, "text", str(event))))


def _model(collection: Collection, settings: ExperimentSettings, model_path, result, forward,
           should_stop, measured) -> tuple[LogLinearModel, Collection]:
    """Reuse the model at `model_path` (it must be of this collection) or train, calibrate and
    save one (`measured` gets its calibration's measures); with the collection its rankers
    index (without its held-out documents)."""
    if model_path is not None:
        model = load_model(model_path)
        index = index_for(model, collection)
        if sorted(model.person_ids) != sorted(index.person_ids):
            raise ModelFileError(model_path, None, "this model ranks other people than the "
                                                   "collection holds: it was trained on another one")
        if model.collection_fingerprint != index.fingerprint:
            result.warnings.append(
                "The model's collection fingerprint differs from this load's (the files, the text "
                "settings or the loader changed since training); its people are the same.")
        result.model_path = Path(model_path)
        return model, index
    split = hold_out(collection, settings.held_out)
    model = train_and_calibrate(split, kept_as_measured(settings.train), progress=forward,
                                should_stop=should_stop, measured=measured)
    check_stop(should_stop)
    result.model_path = save_model(model, result.out_dir / "model")
    return model, split.training


def kept_as_measured(train: TrainSettings) -> TrainSettings:
    """An experiment keeps the model its held-out documents measure, not one trained again on
    every document (every_document.py), so that its held-out figures and its topics' rankings
    are of the same model."""
    return dataclasses.replace(train, retrain_on_all=False)


def _candidates(collection: Collection, settings: ExperimentSettings, result) -> list[str]:
    """The person ids of `settings.candidates` ([] without a file)."""
    if not settings.candidates:
        return []
    chosen = read_candidates(settings.candidates, collection.person_ids, collection.person_names)
    result.candidates = len(chosen)
    return [collection.person_ids[i] for i in chosen]


def _judged_within(judgments, queries, people, restricted: bool, result, path):
    """The judgments of the candidates (all of them when not `restricted`), the coverage in the
    report, and an error when no measure could be computed."""
    if restricted:
        judgments, dropped = restrict(judgments, people)
        result.dropped_topics = [t for t in dropped if t in queries]
    found = coverage(judgments, queries, people)
    result.coverage = found.text()
    if found.problem():
        raise QueryError(f"{path}: {found.problem()}")
    return judgments


def _without_queries(collection: Collection, queries: dict[str, str], result) -> Collection:
    """The collection without the documents whose text is one of the queries."""
    texts = {q.strip() for q in queries.values()}
    drop = np.array([d for d in range(collection.n_documents)
                     if collection.text(d).strip() in texts], dtype=np.int64)
    result.excluded_documents = len(drop)
    return without_documents(collection, drop)


def _other_numbers(collection_path, settings: ExperimentSettings, queries, judgments, scored,
                   result, rankings, forward, should_stop, people) -> None:
    """Train again with the other numbers rule; its log-linear and auto rankings join Table 2 as
    "loglinear@RULE" and "auto@RULE"."""
    text = dataclasses.replace(settings.text, numbers=settings.other_numbers)
    collection = load_collection(collection_path, settings=text, should_stop=should_stop)
    if collection is None:
        raise Stopped
    if settings.exclude_topic_documents:
        collection = _without_queries(collection, queries, result)
    split = hold_out(collection, settings.held_out)
    model = train_and_calibrate(split, kept_as_measured(settings.train), progress=forward,
                                should_stop=should_stop)
    check_stop(should_stop)
    for method in ("loglinear", "auto"):
        name = f"{method}@{settings.other_numbers}"
        ranker = make_ranker(method, model=model, collection=split.training)
        if people:
            ranker = Restricted(ranker, people)
        result.per_topic[name], rankings[name] = evaluate(
            ranker, queries, judgments, scored, depth=settings.depth, should_stop=should_stop)


def _rank_all(collection, model, queries, qrels, scored, result, forward, should_stop, people):
    """Every method over every topic (within `people` when given): a run file each, their
    per-topic measures, and how their scores and P(expert) order each person's topics (the
    pairwise measure). Returns the rankings and the rankers, which the held-out measures use
    again."""
    rankings, rankers = {}, {}
    methods = result.settings.methods
    judged = judged_people(qrels, scored)
    for i, method in enumerate(methods):
        ranker = rankers[method] = make_ranker(method, model=model, collection=collection)
        sheet = ScoreSheet(judged)
        per_topic, rankings[method] = evaluate(
            Restricted(ranker, people) if people else ranker, queries, qrels, scored,
            depth=result.settings.depth, progress=part_progress(forward, i, len(methods)),
            should_stop=should_stop, on_ranking=sheet.add)
        result.per_topic[method] = per_topic
        result.pairwise[method] = (pairwise_error(sheet.scores, qrels, scored),
                                   pairwise_error(sheet.p_expert, qrels, scored))
        path = result.out_dir / "runs" / f"{method}.run"
        write_run(path, rankings[method], tag=method)
        result.files.append(path)
    return rankings, rankers


def _tables_and_analyses(result: ExperimentResult, rankings, queries) -> None:
    out = result.out_dir
    options = dict(n_permutations=result.settings.n_permutations, seed=result.settings.seed)
    if "loglinear" in result.per_topic:
        rule = result.settings.other_numbers
        other = (f"loglinear@{rule}", f"auto@{rule}") if rule else ()
        result.tables["table2"] = build_table(
            "Table 2: every method; marks: differs from Log-linear", result.per_topic,
            (*TABLE2_METHODS, *other), "loglinear", **options)
    if "auto" in result.held_out:
        result.tables["heldout"] = build_table(
            "Held-out documents as queries: every method; marks: differs from Auto",
            result.held_out, (*TABLE2_METHODS, "ensemble"), "auto",
            measures=("AP", "RR"), **options)
    if {"ensemble", "loglinear", "model2-jm"} <= set(result.per_topic):
        result.tables["table4"] = build_table(
            "Table 4: Model 2, Log-linear and their ensemble; marks: differs from Ensemble",
            result.per_topic, TABLE4_METHODS, "ensemble", **options)
    if "loglinear" in result.per_topic:
        result.tables["measures"] = build_table(
            "More measures: ROC AUC, precision deeper down, the first relevant person's rank; "
            "marks: differs from Log-linear", result.per_topic, MORE_METHODS, "loglinear",
            measures=MORE_MEASURES, **options)
    for stem, table in result.tables.items():
        result.files += write_table(table, out, stem)
    result.files.append(_write_per_topic(out / "per_topic.csv", result.per_topic, rankings, queries))

    if "loglinear" in result.per_topic:
        ll = result.per_topic["loglinear"]
        entropies = [rankings["loglinear"][t].entropy for t in ll.topics]
        result.entropy = entropy_vs_ap(ll.topics, entropies, ll.values["AP"], **options)
        result.files += figures.entropy_figure(result.entropy, out,
                                               title="Log-linear: entropy vs AP")
        if "model2-jm" in result.per_topic:
            result.difference = ap_difference(ll.topics, ll.values["AP"],
                                              result.per_topic["model2-jm"].values["AP"])
            result.files += figures.ap_difference_figure(result.difference, out,
                                                         title="Per-topic AP difference")


def _write_per_topic(path: Path, per_topic: dict[str, PerTopic], rankings, queries) -> Path:
    """One row per (topic, method): every measure, the entropy (log-linear) and the known words."""
    with replacing(path) as f:
        writer = csv.writer(f)
        writer.writerow(["topic_id", "method", *ALL_MEASURES, "entropy", "known_words",
                         "query"])
        for method, scores in per_topic.items():
            for i, topic in enumerate(scores.topics):
                ranking = rankings[method][topic]
                entropy = "" if ranking.entropy is None else f"{ranking.entropy:.6f}"
                writer.writerow([topic, method,
                                 *(f"{scores.values[m][i]:.6f}" for m in ALL_MEASURES),
                                 entropy, len(ranking.known_words), queries[topic]])
    return path


def _write_curve(out: Path, stem: str, key: str, curve: Curve) -> list[Path]:
    path = out / f"{stem}.csv"
    with replacing(path) as f:
        writer = csv.writer(f)
        writer.writerow([key, *MEASURES])
        for x in sorted(curve):
            writer.writerow([x, *(f"{curve[x][m]:.6f}" for m in MEASURES)])
    return [path]
