"""`expert-gui query`, `neighbours` and `rank` end to end on the tiny fixture."""

import json
import os
import re

import numpy as np
import pytest
from rankers_helpers import TINY, p_expert_fit, random_model, tiny_collection

from expert_gui.cli import main
from expert_gui.core.evaluation.runs import read_run
from expert_gui.core.model.neighbours import nearest_words
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.rankers.probability import expert_probabilities
from expert_gui.core.rankers.query_type import NO_P_EXPERT_FIT, NO_P_EXPERT_TOPIC
from expert_gui.core.store.storage import save_model


@pytest.fixture(scope="module")
def collection():
    return tiny_collection()


@pytest.fixture(scope="module")
def model(collection):
    m = random_model(collection, seed=1)
    m.collection_source = str(TINY)
    return m


@pytest.fixture
def model_dir(model, tmp_path):
    save_model(model, tmp_path / "model")
    return tmp_path / "model"


@pytest.fixture
def topics(tmp_path):
    p = tmp_path / "topics.tsv"
    p.write_text("topic_id\tquery\nT1\tring buffer\nT2\tice driver link\nT3\tzebra\n",
                 encoding="utf-8")
    return p


def test_query_json_matches_the_ranker(model, model_dir, capsys):
    assert main(["query", str(model_dir), "Ring buffer zebra", "-k", "3", "--json",
                 "--method", "loglinear"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = make_ranker("loglinear", model=model).rank("Ring buffer zebra", depth=3)
    assert [r["person_id"] for r in out["results"]] == [p for p, _ in expected.top()]
    assert out["known_words"] == ["ring", "buffer"] and out["unknown_words"] == ["zebra"]
    assert out["entropy"] == pytest.approx(expected.entropy)
    assert out["results"][0]["probability"] == pytest.approx(
        float(expected.probabilities[expected.people[0]]))


def test_query_without_known_words_says_so(model_dir, capsys):
    assert main(["query", str(model_dir), "zebra giraffe"]) == 0
    out = capsys.readouterr().out
    assert "no known words" in out and "zebra giraffe" in out


def test_query_answers_with_auto_by_default(model, collection, model_dir, capsys):
    assert main(["query", str(model_dir), "Ring buffer", "-k", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = make_ranker("auto", model=model, collection=collection).rank("Ring buffer", 3)
    assert out["method"] == "auto" and out["auto"]["decision"] == "uncalibrated"
    assert out["auto"]["label"] == expected.extra["label"] and out["auto"]["weights"] == [
        0.5, 0.5, 0.0]  # uncalibrated: the pair, for every query
    assert out["score"] == "weighted sum of z-scores" and out["p_expert"] is None
    assert [r["person_id"] for r in out["results"]] == [p for p, _ in expected.top()]
    assert main(["query", str(model_dir), "Ring buffer"]) == 0
    printed = capsys.readouterr().out
    assert ("auto: Log-linear + Model 2 (jm), equal weights — not calibrated (no held-out "
            "documents)") in printed
    assert "no P(expert)" in printed


def with_fits(model, tmp_path, kinds=("short topic", "whole document")):
    """The model with a calibration holding P(expert) fits for `kinds` of query (training on
    held-out documents gives whole documents only), saved."""
    from expert_gui.core.store.storage import save_model

    model.calibration = {
        "held_out": {"fraction": 0.02, "minimum": 1, "maximum": 10, "seed": 0,
                     "documents": []},
        "fusion": {"members": ["loglinear", "model2-jm", "model1-d"],
                   "weights": [0.5, 0.5, 0.0], "normalisation": "z-score"},
        "measures": {},
        "probability": {m: p_expert_fit(1.0 + i / 10, kinds=kinds)
                        for i, m in enumerate(METHODS)}}
    try:
        save_model(model, tmp_path / f"fitted-{len(kinds)}")
    finally:
        model.calibration = None
    return tmp_path / f"fitted-{len(kinds)}"


def test_query_gives_p_expert_and_names_each_number(model, tmp_path, capsys):
    folder = with_fits(model, tmp_path)
    assert main(["query", str(folder), "Ring buffer", "-k", "3", "--json",
                 "--method", "model2-jm"]) == 0
    out = json.loads(capsys.readouterr().out)
    fit = p_expert_fit(1.5)
    assert out["score"] == "log P(q|c)" and out["p_expert"]["weights"] == fit["weights"]
    full = make_ranker("model2-jm", collection=tiny_collection()).rank("Ring buffer")
    scores = np.empty(len(full.person_ids))
    scores[full.people] = full.scores
    want = expert_probabilities(scores, 2, fit["weights"])[full.people]
    assert [r["p_expert"] for r in out["results"]] == pytest.approx(want[:3].tolist())
    assert out["no_p_expert"] is None
    assert main(["query", str(folder), "Ring buffer", "--method", "model2-jm"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "log P(q|c)" in header and "P(expert)" in header


def test_query_and_rank_within_candidates(model, collection, model_dir, topics, tmp_path,
                                          capsys):
    people = tmp_path / "people.txt"
    chosen = collection.person_ids[1:4]
    people.write_text(f"{chosen[0]}\n# a comment\n\n{collection.person_names[2]}\n"
                      f"{chosen[2]}\n", encoding="utf-8")
    assert main(["query", str(model_dir), "Ring buffer", "--json", "--method", "loglinear",
                 "--candidates", str(people)]) == 0
    out = json.loads(capsys.readouterr().out)
    full = make_ranker("loglinear", model=model).rank("Ring buffer")
    assert [r["person_id"] for r in out["results"]] == [
        p for p, _ in full.top() if p in chosen]
    assert out["candidates"] == 3
    run = tmp_path / "within.run"
    assert main(["rank", str(model_dir), "--topics", str(topics), "--run", str(run),
                 "--candidates", str(people)]) == 0
    assert all(set(ranked) <= set(chosen) for ranked in read_run(run).values())
    people.write_text("nobody-at-all\n", encoding="utf-8")
    assert main(["query", str(model_dir), "ring", "--candidates", str(people)]) == 2
    assert f"{people}:1" in capsys.readouterr().err


def test_rank_writes_p_expert_as_a_seventh_column(model, topics, tmp_path, model_dir):
    folder = with_fits(model, tmp_path)
    run = tmp_path / "p.run"
    assert main(["rank", str(folder), "--topics", str(topics), "--run", str(run),
                 "--method", "tfidf", "--p-expert", "--depth", "2"]) == 0
    lines = run.read_text().splitlines()
    assert all(len(line.split()) == 7 for line in lines)
    assert 0 < float(lines[0].split()[6]) < 1
    assert list(read_run(run)) == ["T1", "T2"]
    assert main(["rank", str(model_dir), "--topics", str(topics), "--run", str(run),
                 "--p-expert"]) == 0  # a model without fits: the scores, and why
    assert all(len(line.split()) == 6 for line in run.read_text().splitlines())


def test_a_topic_gets_each_persons_score_and_why_not_p_expert(model, topics, tmp_path,
                                                              capsys):
    """A model's fit is calibrated for whole documents only (issue 42): for a topic, `query`
    and `rank --p-expert` give each person's own score and say why."""
    folder = with_fits(model, tmp_path, kinds=("whole document",))
    assert main(["query", str(folder), "Ring buffer", "--method", "model2-jm"]) == 0
    out = capsys.readouterr().out
    assert "P(expert)" not in out.splitlines()[0] and f"(no P(expert): {NO_P_EXPERT_TOPIC})" in out
    assert main(["query", str(folder), "Ring buffer", "--method", "model2-jm", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_expert"] is None and out["no_p_expert"] == NO_P_EXPERT_TOPIC
    assert all("p_expert" not in r for r in out["results"])
    run = tmp_path / "topics.run"
    assert main(["rank", str(folder), "--topics", str(topics), "--run", str(run),
                 "--method", "model2-jm", "--p-expert"]) == 0
    assert all(len(line.split()) == 6 for line in run.read_text().splitlines())
    err = capsys.readouterr().err
    assert "no P(expert) column: 2 of 3 topics have none" in err and NO_P_EXPERT_TOPIC in err


def test_query_table_with_explanations(model_dir, capsys):
    assert main(["query", str(model_dir), "lockless ring", "-k", "2", "--explain",
                 "--method", "loglinear"]) == 0
    out = capsys.readouterr().out
    assert "normalized entropy" in out and "log P(c|w): lockless" in out


def test_neighbours_json_and_tsv(model, model_dir, capsys):
    assert main(["neighbours", str(model_dir), "ring", "ice", "-k", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = nearest_words(model, [model.vocab.index["ring"], model.vocab.index["ice"]], 3)
    assert [n["word"] for n in out["neighbours"]] == [n.word for n in want]
    assert main(["neighbours", str(model_dir), "ring", "--metric", "cosine", "--tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "query\tmetric\trank\tword\tdistance" and len(lines) == 11
    assert main(["neighbours", str(model_dir), "zebra"]) == 2


@pytest.mark.parametrize("method", METHODS)
def test_rank_writes_a_trec_run(model, collection, model_dir, topics, tmp_path, method, capsys):
    out = tmp_path / f"{method}.run"
    code = main(["rank", str(model_dir), "--topics", str(topics), "--method", method,
                 "--run", str(out), "--depth", "3"])
    assert code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    topic, q0, person, rank, score, tag = lines[0].split()
    ranker = make_ranker(method, model=model, collection=collection)
    assert (topic, q0, rank, tag) == ("T1", "Q0", "1", ranker.name)
    run = read_run(out)
    assert set(run) == {"T1", "T2"}  # T3 has no known words: nobody ranked
    for t, q in (("T1", "ring buffer"), ("T2", "ice driver link")):
        expected = ranker.rank(q, depth=3)
        assert list(run[t]) == [p for p, _ in expected.top()]
    err = capsys.readouterr().err
    assert "no known words" in err
    # where the command's time went: the load, the method's index, the ranking
    assert re.search(rf"time: loading the model and collection [\d.]+ s, building {method}'s "
                     r"index [\d.]+ s, ranking the topics [\d.]+ s", err)


def test_rank_bad_topics_file_is_one_line_error(model_dir, tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("topic_id\tquery\nT1\n", encoding="utf-8")
    assert main(["rank", str(model_dir), "--topics", str(bad), "--run", str(tmp_path / "r")]) == 2
    assert f"{bad}:2" in capsys.readouterr().err


def test_rank_ensemble_with_reciprocal_rank_fusion(model, collection, model_dir, topics, tmp_path):
    out = tmp_path / "rrf.run"
    assert main(["rank", str(model_dir), "--topics", str(topics), "--method", "ensemble",
                 "--fusion", "rrf", "--run", str(out)]) == 0
    ranker = make_ranker("ensemble", model=model, collection=collection, fusion="rrf")
    assert list(read_run(out)["T1"]) == [p for p, _ in ranker.rank("ring buffer").top()]
    assert out.read_text(encoding="utf-8").split()[5] == ranker.name


def test_ids_that_a_strict_terminal_cannot_encode_are_printed_escaped(model, tmp_path):
    # issue 11: a surrogate in an id crashed `query` when stdout was strict UTF-8
    import dataclasses
    import os
    import subprocess
    import sys

    odd = dataclasses.replace(model, person_names=["\udcff odd"] + model.person_names[1:])
    save_model(odd, tmp_path / "odd")
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")
    done = subprocess.run([sys.executable, "-m", "expert_gui", "query", str(tmp_path / "odd"),
                           "ring buffer", "-k", "50"], capture_output=True, env=env)
    assert done.returncode == 0, done.stderr.decode()
    assert b"\\udcff odd" in done.stdout


def test_a_run_into_a_missing_folder_is_refused_before_the_work(model_dir, topics, tmp_path,
                                                               capsys, monkeypatch):
    # issue 32 item 10: the check before the work passed, and the write after it failed
    import expert_gui.cli.rank as rank

    def never(*args, **kwargs):
        raise AssertionError("ranked before the output was checked")

    monkeypatch.setattr(rank, "open_ranker", never)
    run = tmp_path / "missing" / "deeper" / "out.run"
    assert main(["rank", str(model_dir), "--topics", str(topics), "--run", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{run}: no folder {run.parent} to write it in; create the folder" in err
    assert not run.parent.exists()


def test_a_fifo_topics_file_is_refused(model_dir, tmp_path, capsys):
    os.mkfifo(tmp_path / "topics.tsv")
    code = main(["rank", str(model_dir), "--topics", str(tmp_path / "topics.tsv"),
                 "--run", str(tmp_path / "run")])
    assert code == 2 and "FIFO" in capsys.readouterr().err


@pytest.fixture
def trained_on_a_copy(tmp_path):
    """A model of a copy of the tiny folder, which also holds a topic file, as DPDK's does."""
    import shutil

    from expert_gui.core.data.loading import load_collection

    folder = tmp_path / "collection"
    shutil.copytree(TINY, folder)
    (folder / "topics.tsv").write_text("topic_id\tquery\nT1\tring\n", encoding="utf-8")
    collection = load_collection(folder)
    m = random_model(collection, seed=1)
    m.collection_source, m.collection_fingerprint = collection.source, collection.fingerprint
    m.collection_format = collection.report.format
    save_model(m, tmp_path / "model")
    return folder, tmp_path / "model"


@pytest.mark.parametrize("method", ["model2-jm", "auto"])
def test_a_documents_file_deleted_after_training_is_named(trained_on_a_copy, capsys, method):
    # issue 24 item 13: the folder was read again as plain text files; model2-jm ranked nobody
    # with exit 0 and auto said that model2-jm ranks different people than loglinear
    folder, model_dir = trained_on_a_copy
    assert main(["query", str(model_dir), "ring buffer", "--method", method]) == 0
    (folder / "documents.tsv").unlink()
    capsys.readouterr()
    assert main(["query", str(model_dir), "ring buffer", "--method", method]) == 2
    err = capsys.readouterr().err
    assert f"error: {folder}: expected a folder holding documents.tsv" in err
    assert "the model was trained on it as a folder collection (or --collection PATH)" in err


def test_a_model_that_does_not_record_its_format_is_refused_other_people(trained_on_a_copy,
                                                                          capsys):
    import json

    from expert_gui.core.store import manifest as schema

    folder, model_dir = trained_on_a_copy
    manifest = json.loads((model_dir / "manifest.json").read_text())
    del manifest["collection_format"]  # as models written before it was recorded
    manifest["sha256"] = schema.digest((model_dir / "model.safetensors").read_bytes(), manifest)
    (model_dir / "manifest.json").write_text(json.dumps(manifest))
    (folder / "documents.tsv").unlink()
    assert main(["query", str(model_dir), "ring buffer", "--method", "model2-jm"]) == 2
    assert "none of the model's people has a document here (read as a text collection)" in \
        capsys.readouterr().err


def test_training_records_how_the_collection_was_read(tmp_path):
    from fixtures.training import FOLDER

    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.store.storage import load_model
    from expert_gui.core.train.settings import TrainSettings
    from expert_gui.core.train.trainer import train

    train(load_collection(FOLDER), TrainSettings(dim=4, batch_size=64, epochs=1),
          out_dir=tmp_path / "m")
    assert load_model(tmp_path / "m").collection_format == "folder"


def test_a_fit_of_z_alone_from_before_issue_42_is_not_shown(model, tmp_path, capsys):
    """A model calibrated before issue 42 keeps sigmoid(a z + b), which made the top person of
    a near-uniform answer near-certain: it still opens and ranks, with each person's own score
    and why."""
    model.calibration = {
        "held_out": {"fraction": 0.02, "minimum": 1, "maximum": 10, "seed": 0,
                     "documents": []},
        "fusion": {"members": ["loglinear", "model2-jm", "model1-d"],
                   "weights": [0.5, 0.5, 0.0], "normalisation": "z-score"},
        "measures": {},
        "probability": {m: {"slope": 1.5, "intercept": -2.0, "queries": 5} for m in METHODS}}
    try:
        save_model(model, tmp_path / "old")
    finally:
        model.calibration = None
    assert main(["query", str(tmp_path / "old"), "Ring buffer", "--method", "model2-jm",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_expert"] is None and all("p_expert" not in r for r in out["results"])
    assert main(["query", str(tmp_path / "old"), "Ring buffer", "--method", "model2-jm"]) == 0
    assert f"(no P(expert): {NO_P_EXPERT_FIT})" in capsys.readouterr().out
