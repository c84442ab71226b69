"""`expert-gui experiment` end to end on a small fixture: every promised file exists and parses."""

import csv
import dataclasses
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from expert_gui.cli import main
from expert_gui.core.errors import QueryError, TopicsError
from expert_gui.core.evaluation.experiment import run_experiment
from expert_gui.core.evaluation.measures import MEASURES
from expert_gui.core.evaluation.results import STAGES, ExperimentSettings
from expert_gui.core.evaluation.runs import read_run
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.train.settings import TrainSettings

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = TrainSettings(dim=16, epochs=4, window=4, overlapping=True, batch_size=64,
                      validation_fraction=0.0, checkpoint_every=0)
SETTINGS = ExperimentSettings(train=SMALL, n_permutations=500, expansion_ks=(0, 1, 2),
                              sweep_windows=(1, 2), sweep_epochs=1)
FIGURES = ("figure2_window_sweep", "figure3_entropy_ap", "figure4_query_expansion",
           "figure5_ap_difference")


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    folder = FIXTURES / "evaluation"
    out = tmp_path_factory.mktemp("experiment")
    events = []
    result = run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt", out,
                            settings=SETTINGS, sweep=True, progress=events.append)
    return folder, out, result, events


def test_every_promised_file_exists_and_parses(experiment):
    folder, out, result, events = experiment
    assert result.completed
    for method in METHODS:
        run = read_run(out / "runs" / f"{method}.run")
        assert "T1" in run and "T7" not in run  # T7's query has no known word: empty ranking
    for stem, methods, head in (("table2", 9, "| Method | MAP | NDCG@100 | MRR | P@5 | P@10 |"),
                                ("table4", 3, "| Method | MAP | NDCG@100 | MRR | P@5 | P@10 |"),
                                ("heldout", 10, "| Method | MAP | MRR |")):
        rows = list(csv.DictReader((out / f"{stem}.csv").open()))
        assert len(rows) == methods and all(0 <= float(r["AP"]) <= 1 for r in rows)
        md = (out / f"{stem}.md").read_text()
        assert md.startswith(head)
        assert len(md.strip().splitlines()) == methods + 2
        tex = (out / f"{stem}.tex").read_text()
        assert tex.startswith(r"\begin{tabular}") and tex.rstrip().endswith(r"\end{tabular}")
    per_topic = list(csv.DictReader((out / "per_topic.csv").open()))
    assert len(per_topic) == len(METHODS) * 8
    assert {r["topic_id"] for r in per_topic} == {f"T{i}" for i in range(1, 9)}
    for row in per_topic:
        if row["topic_id"] == "T7":
            assert all(float(row[m]) == 0 for m in MEASURES) and row["known_words"] == "0"
    for stem in FIGURES:
        assert (out / f"{stem}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert ET.parse(out / f"{stem}.svg").getroot().tag.endswith("svg")
    for stem, key, xs in (("figure2_window_sweep", "window", ["1", "2"]),
                          ("figure4_query_expansion", "k", ["0", "1", "2"])):
        assert [r[key] for r in csv.DictReader((out / f"{stem}.csv").open())] == xs
    report = (out / "report.md").read_text()
    for needle in ("## Table 2", "## Table 4", "figure3_entropy_ap.png", "figure5_ap_difference.png",
                   "figure2_window_sweep.png", "figure4_query_expansion.png", "## Versions",
                   "## Wall times", "## Findings", "## Held-out documents as queries, beside",
                   "| Auto (fusion) |", "Model 1 (d, doc. length)"):
        assert needle in report
    saved = json.loads((out / "settings.json").read_text())
    assert saved["completed"] and saved["settings"]["train"]["dim"] == 16
    assert list(saved["wall_times_s"]) == list(STAGES)
    assert {e.stage for e in events} == set(saved["wall_times_s"])


def test_measures_in_the_tables_match_the_per_topic_file(experiment):
    _, out, result, _ = experiment
    per_topic = [r for r in csv.DictReader((out / "per_topic.csv").open())
                 if r["method"] == "model2-jm"]
    table = {r["method"]: r for r in csv.DictReader((out / "table2.csv").open())}
    mean_ap = sum(float(r["AP"]) for r in per_topic) / len(per_topic)
    assert float(table["model2-jm"]["AP"]) == pytest.approx(mean_ap, abs=1e-5)
    assert result.entropy is not None and "T7" not in result.entropy.topics


def test_cli_reuses_a_model(experiment, tmp_path, capsys):
    folder, out, _, _ = experiment
    target = tmp_path / "again"
    code = main(["experiment", str(folder), "--topics", str(folder / "topics.tsv"),
                 "--qrels", str(folder / "qrels.txt"), "--out", str(target),
                 "--model", str(out / "model"), "--permutations", "200",
                 "--methods", "loglinear,model2-jm,model1-jm,ensemble"])
    assert code == 0
    assert not (target / "model").exists()
    assert sorted(p.name for p in (target / "runs").iterdir()) == [
        "ensemble.run", "loglinear.run", "model1-jm.run", "model2-jm.run"]
    # The same model ranks the same way: the log-linear run is identical.
    assert (target / "runs" / "loglinear.run").read_text() == \
        (out / "runs" / "loglinear.run").read_text()
    assert (target / "table4.md").exists() and (target / "report.md").exists()


def test_experiment_within_candidates_ranks_and_measures_only_them(experiment, tmp_path):
    folder, out, _, _ = experiment
    people = tmp_path / "pool.txt"
    people.write_text("alice\nbob\nfrank\n", encoding="utf-8")
    target = tmp_path / "within"
    assert main(["experiment", str(folder), "--topics", str(folder / "topics.tsv"),
                 "--qrels", str(folder / "qrels.txt"), "--out", str(target),
                 "--model", str(out / "model"), "--permutations", "200",
                 "--methods", "auto,loglinear,model2-jm,ensemble",
                 "--candidates", str(people)]) == 0
    for method in ("auto", "loglinear"):
        run = read_run(target / "runs" / f"{method}.run")
        assert all(set(ranked) <= {"alice", "bob", "frank"} for ranked in run.values())
    rows = list(csv.DictReader((target / "per_topic.csv").open()))
    # T3, T4, T5 judge only carol, dave, erin relevant: left out; T8 keeps bob
    assert {r["topic_id"] for r in rows} == {"T1", "T2", "T6", "T7", "T8"}
    report = (target / "report.md").read_text()
    assert "candidates: `" in report and "3 people; only they are ranked" in report
    assert "(3 topics left out" in report and "## Scores across topics" in report
    assert "- auto: " in report


def test_judgments_of_other_topics_or_people_are_refused(tmp_path, fixtures, capsys):
    folder = fixtures / "evaluation"
    other_topics = tmp_path / "other.txt"
    other_topics.write_text("q1 0 alice 1\nq2 0 bob 1\n")
    assert main(["experiment", str(folder), "--topics", str(folder / "topics.tsv"),
                 "--qrels", str(other_topics), "--out", str(tmp_path / "a")]) == 2
    assert "none of the 2 topic ids of the qrels is among the 8 topics" in \
        capsys.readouterr().err
    assert not (tmp_path / "a").exists()  # refused before anything was written
    strangers = tmp_path / "strangers.txt"
    strangers.write_text("T1 0 zed 1\nT2 0 yan 1\n")
    with pytest.raises(QueryError, match="none of the 2 people the qrels judge relevant"):
        run_experiment(folder, folder / "topics.tsv", strangers, tmp_path / "b",
                       settings=SETTINGS)


def test_stop_keeps_what_was_finished(tmp_path, fixtures):
    folder = fixtures / "evaluation"
    result = run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt", tmp_path,
                            settings=SETTINGS, should_stop=lambda: True)
    assert not result.completed
    assert "Stopped before the end" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "settings.json").read_text())["completed"] is False


def test_the_held_out_measures_are_the_calibrations_without_ranking_again(tmp_path,
                                                                           monkeypatch):
    """A model the experiment trains: its calibration ranked the held-out documents with every
    method, at the run's depth, and the held-out stage reuses those measures."""
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.evaluation import experiment as module
    from expert_gui.core.evaluation.calibration import held_out_measures
    from expert_gui.core.store.storage import load_model

    asked = []
    monkeypatch.setattr(module, "held_out_measures",
                        lambda *args, **kwargs: asked.append(args) or held_out_measures(
                            *args, **kwargs))
    folder = FIXTURES / "evaluation"
    settings = dataclasses.replace(SETTINGS, expansion_ks=())
    result = run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt", tmp_path,
                            settings=settings)
    assert asked == [] and list(result.held_out) == list(settings.methods)
    again = held_out_measures(load_model(tmp_path / "model"), load_collection(folder),
                              settings.methods)
    for method, per_topic in again.items():
        assert result.held_out[method].topics == per_topic.topics
        for measure in ("AP", "RR"):
            np.testing.assert_allclose(result.held_out[method].values[measure],
                                       per_topic.values[measure], rtol=1e-9, err_msg=method)


def test_the_held_out_measures_of_a_reused_model_reuse_the_rankers_of_the_topics(
        experiment, tmp_path, monkeypatch):
    from expert_gui.core.evaluation import experiment as module

    folder, out, _, _ = experiment
    seen = {}

    def spy(*args, rankers=None, **kwargs):
        seen.update(rankers)
        return measure(*args, rankers=rankers, **kwargs)

    measure = module.held_out_measures
    monkeypatch.setattr(module, "held_out_measures", spy)
    settings = dataclasses.replace(SETTINGS, expansion_ks=())
    result = run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt", tmp_path,
                            settings=settings, model_path=out / "model")
    assert set(seen) == set(settings.methods) and set(result.held_out) == set(settings.methods)


def test_bad_qrels_fail_before_any_work(tmp_path, fixtures):
    folder = fixtures / "evaluation"
    bad = tmp_path / "qrels.txt"
    bad.write_text("T1 0 alice 1\nT2 0 bob\n")
    with pytest.raises(TopicsError) as err:
        run_experiment(folder, folder / "topics.tsv", bad, tmp_path / "out", settings=SETTINGS)
    assert err.value.line == 2
    assert not (tmp_path / "out").exists()
    code = main(["experiment", str(folder), "--topics", str(folder / "topics.tsv"),
                 "--qrels", str(bad), "--out", str(tmp_path / "out")])
    assert code == 2


def test_first_ctrl_c_asks_to_stop_second_interrupts(capsys):
    import os
    import signal

    from expert_gui.cli.experiment import _StopOnInterrupt

    before = signal.getsignal(signal.SIGINT)
    stop = _StopOnInterrupt()
    try:
        assert not stop()
        os.kill(os.getpid(), signal.SIGINT)
        assert stop()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        stop.restore()
    assert signal.getsignal(signal.SIGINT) is before


def test_stop_during_the_sweep_keeps_the_finished_windows(tmp_path, fixtures):
    folder = fixtures / "evaluation"
    asked = []

    def progress(event):
        if event.stage == "sweep" and event.total and event.done > 1:
            asked.append(True)  # the second window has started

    result = run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt", tmp_path,
                            settings=SETTINGS, sweep=True, progress=progress,
                            should_stop=lambda: bool(asked))
    assert not result.completed
    assert list(result.sweep) == [2]  # largest window first
    rows = list(csv.DictReader((tmp_path / "figure2_window_sweep.csv").open()))
    assert [r["window"] for r in rows] == ["2"]
    assert (tmp_path / "table2.md").exists()


def test_reused_model_must_rank_the_collections_people(experiment, tmp_path, capsys):
    import shutil

    folder, out, _, _ = experiment
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    args = ["experiment", str(copy), "--topics", str(copy / "topics.tsv"), "--qrels",
            str(copy / "qrels.txt"), "--model", str(out / "model"), "--permutations", "100",
            "--methods", "loglinear"]
    # Same people, another path: allowed, with a warning in the report.
    assert main([*args, "--out", str(tmp_path / "same")]) == 0
    assert "**Warning:**" in (tmp_path / "same" / "report.md").read_text()
    # Another person: the model cannot rank this collection.
    assoc = copy / "associations.tsv"
    assoc.write_text(assoc.read_text().replace("frank", "zed"))
    assert main([*args, "--out", str(tmp_path / "other")]) == 2
    assert "ranks other people" in capsys.readouterr().err


def test_held_out_documents_are_measured_and_auto_is_calibrated(experiment):
    folder, out, result, _ = experiment
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.rankers.query_type import LONG_QUERY_WORDS
    from expert_gui.core.store.storage import load_model

    model = load_model(out / "model")
    calibration = model.calibration
    n = len(calibration["held_out"]["documents"])
    assert n == 7  # at least 50 asked, at most a fifth of the 36 documents with people
    assert all(len(p.topics) == n for p in result.held_out.values())
    members = calibration["measures"]
    # all short topics: they choose auto's weights for short topics as for whole documents
    collection = load_collection(folder)
    assert all(len(model.tokenizer.words(collection.text(collection.doc_ids.index(d))))
               <= LONG_QUERY_WORDS for d in calibration["held_out"]["documents"])
    assert calibration["fusion"]["short_topics"]["short_share"] == 1.0
    assert members["auto"]["AP"] >= max(members[m]["AP"] for m in ("loglinear", "model2-jm",
                                                                      "model1-d")) - 1e-12
    assert result.held_out["auto"].mean("AP") == pytest.approx(members["auto"]["AP"])


def test_query_documents_excluded_and_another_numbers_rule(tmp_path):
    folder = FIXTURES / "evaluation"
    first = (folder / "documents.tsv").read_text().splitlines()[1].split("\t")
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"topic_id\tquery\nT1\t{first[1]}\nT2\tlockless ring\n")
    settings = ExperimentSettings(train=SMALL, n_permutations=100, expansion_ks=(),
                                  methods=("loglinear", "model2-jm", "model1-d", "auto"),
                                  exclude_topic_documents=True, other_numbers="any-digit")
    result = run_experiment(folder, topics, folder / "qrels.txt", tmp_path / "out",
                            settings=settings)
    assert result.completed and result.excluded_documents == 1
    assert {"loglinear@any-digit", "auto@any-digit"} <= set(result.tables["table2"].methods)
    md = (tmp_path / "out" / "table2.md").read_text()
    assert "| Log-linear, numbers: any-digit |" in md.replace(" (reference)", "")
    report = (tmp_path / "out" / "report.md").read_text()
    assert "1 documents whose text is a query were removed" in report
