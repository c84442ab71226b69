"""`expert-gui train` end to end on the fixture collection."""

import re

import pytest
from fixtures import one_paper_authors
from fixtures.training import FOLDER

from expert_gui.cli import main
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.store.storage import load_model


def test_train_writes_a_model_and_resumes(tmp_path, capsys):
    out = tmp_path / "model"
    args = ["train", str(FOLDER), "--out", str(out), "--dim", "8", "--batch-size", "32",
            "--epochs", "2", "--numbers", "any-digit", "--seed", "5"]
    assert main(args) == 0
    model = load_model(out)
    assert model.dim == 8 and len(model.history) == 2
    assert model.text_settings.numbers == "any-digit" and model.settings["seed"] == 5
    assert model.calibration["held_out"]["documents"]  # some documents were held out
    assert "held-out documents as queries" in capsys.readouterr().out
    # Resuming takes the checkpoint's settings; only --epochs changes.
    assert main(["train", str(FOLDER), "--out", str(out), "--epochs", "3", "--resume"]) == 0
    resumed = load_model(out)
    assert len(resumed.history) == 3 and resumed.dim == 8
    assert "epoch 3" in capsys.readouterr().out


def test_the_bar_counts_the_stages_after_the_steps(tmp_path, capsys):
    """After the steps, the bar counts what each stage counts (documents ranked in the
    calibration, steps of the run on every document) instead of staying full for minutes."""
    out = tmp_path / "model"
    assert main(["train", str(FOLDER), "--out", str(out), "--dim", "8", "--batch-size", "32",
                 "--epochs", "2"]) == 0
    model = load_model(out)
    shown = {}  # a stage's text: the counts the bar showed with it
    for line in capsys.readouterr().err.split("\r"):
        bar = re.search(r"\| *(\d+)/(\d+) \[[^,\]]*, ([^\]]*?) *\]", line)
        if bar:
            shown.setdefault(bar[3], []).append((int(bar[1]), int(bar[2])))
    ranking = [c for text, counts in shown.items() if "ranking with" in text for c in counts]
    (total,) = {total for _, total in ranking}  # documents x the passes that rank them
    assert total % len(model.calibration["held_out"]["documents"]) == 0
    assert min(done for done, _ in ranking) < total  # not full while it ranks
    again = [c for text, counts in shown.items() if "every document: epoch" in text for c in counts]
    assert {total for _, total in again} == {model.calibration["retrained"]["steps"]}


def test_train_errors_are_one_line_with_status_2(tmp_path, capsys):
    out = str(tmp_path / "model")
    assert main(["train", str(FOLDER), "--out", out, "--resume"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
    bad = tmp_path / "vectors.txt"
    bad.write_text("ring 1 2\nqueue 1\n")
    assert main(["train", str(FOLDER), "--out", out, "--embeddings", str(bad)]) == 2
    assert "vectors.txt:2" in capsys.readouterr().err
    assert main(["train", str(FOLDER), "--out", out, "--window", "0"]) == 2


def test_heldout_command_ranks_every_method_on_the_held_out_documents(tmp_path, capsys):
    import json

    out = tmp_path / "model"
    # the model measured, kept as it is (one trained again on every document has seen the
    # held-out documents: tests/test_every_document.py)
    assert main(["train", str(FOLDER), "--out", str(out), "--dim", "8", "--batch-size", "32",
                 "--epochs", "2", "--held-out", "0.1", "--no-retrain-on-all"]) == 0
    capsys.readouterr()
    assert main(["heldout", str(out), "--methods", "auto,loglinear,model2-jm,tfidf",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    calibration = load_model(out).calibration
    assert data["held_out_documents"] == len(calibration["held_out"]["documents"]) == 13
    assert set(data["methods"]) == {"auto", "loglinear", "model2-jm", "tfidf"}
    assert data["methods"]["auto"]["MAP"] == pytest.approx(calibration["measures"]["auto"]["AP"])
    assert main(["heldout", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "13 held-out documents as queries, their people as the answers:"
    maps = [float(line.split()[-2]) for line in lines[2:-1]]
    assert len(maps) == 10 and maps == sorted(maps, reverse=True)
    assert lines[-1] == f"auto: {auto_label(calibration)}"
    # the fixture's held-out documents are short notes: one set of weights for every query
    assert calibration["fusion"]["short_topics"]["short_share"] > 0.5
    assert lines[-1] == f"auto: {calibration['fusion']['label']}"
    assert data["auto"]["label"] == auto_label(calibration)
    assert data["auto"]["decision"] == calibration["fusion"]["decision"]
    assert data["auto"]["weights"] == calibration["fusion"]["weights"]
    assert data["auto"]["short_topic_weights"] == \
        calibration["fusion"]["short_topics"]["weights"]
    pool = tmp_path / "pool.txt"
    pool.write_text("ann\nbob\n", encoding="utf-8")
    assert main(["heldout", str(out), "--methods", "loglinear", "--json",
                 "--candidates", str(pool)]) == 0
    within = json.loads(capsys.readouterr().out)
    assert within["candidates"] == 2 and 0 < within["held_out_documents"] < 13


def test_heldout_needs_held_out_documents(tmp_path, capsys):
    out = tmp_path / "model"
    assert main(["train", str(FOLDER), "--out", str(out), "--dim", "8", "--epochs", "1",
                 "--held-out", "0"]) == 0
    capsys.readouterr()
    assert main(["heldout", str(out)]) == 2
    assert "trained without held-out documents" in capsys.readouterr().err
    assert main(["heldout", str(out), "--methods", "bm25"]) == 2


def test_train_applies_the_collections_suggested_settings_as_the_app_does(tmp_path, capsys):
    import shutil

    from expert_gui.core.train.settings import TrainSettings, suggested_settings

    folder = tmp_path / "collection"
    shutil.copytree(FOLDER, folder)
    (folder / "train_settings.json").write_text('{"dim": 6, "epochs": 2, "batch_size": 16}')
    assert main(["train", str(folder), "--out", str(tmp_path / "a"), "--epochs", "1"]) == 0
    model = load_model(tmp_path / "a")
    # the file's dim and batch size; --epochs given here wins
    assert (model.dim, model.settings["batch_size"], len(model.history)) == (6, 16, 1)
    err = capsys.readouterr().err
    assert "settings: suggested by train_settings.json (dim 6, epochs 2, batch_size 16)" in err
    suggested = suggested_settings(folder, TrainSettings()).settings
    assert {k: model.settings[k] for k in ("dim", "batch_size", "window", "l2")} == {
        k: getattr(suggested, k) for k in ("dim", "batch_size", "window", "l2")}
    assert main(["train", str(folder), "--out", str(tmp_path / "b"), "--epochs", "1",
                 "--no-suggested-settings"]) == 0
    assert load_model(tmp_path / "b").dim == TrainSettings().dim
    assert "settings: the paper's defaults" in capsys.readouterr().err


def test_train_sizes_a_small_collection_and_says_why(tmp_path, capsys):
    # the fixture's 85 windows make 5 steps in the paper's five epochs of 1,024
    out = tmp_path / "model"
    assert main(["train", str(FOLDER), "--out", str(out), "--dim", "8", "--epochs", "2"]) == 0
    model = load_model(out)
    assert model.settings["batch_size"] == 32 and len(model.history) == 2  # --epochs is kept
    err = capsys.readouterr().err
    assert "settings: suggested for this collection's size (batch size 32)" in err
    assert "  batch size: 85 training windows make 5 steps in 5 epochs" in err


def test_a_collection_too_small_for_held_out_documents_says_so(tmp_path, capsys):
    # PubMed-like: every paper by people who wrote nothing else in it
    assert main(["train", str(one_paper_authors.FOLDER), "--out", str(tmp_path / "m"), "--dim", "8",
                 "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert "held out of training, as queries: 0 documents" in err
    assert ("note: no document can be held out to measure the model: a held-out document's "
            "people must each keep another document, and 60 of the 60 people have only one") \
        in err
    assert load_model(tmp_path / "m").calibration is None


def test_option_errors_say_why_before_the_collection_loads(tmp_path, capsys, monkeypatch):
    """Issue 31, item 6: a negative validation fraction was told the reason for values of 1 or
    more; --held-out 1.5 was refused only after the collection had loaded."""
    import expert_gui.core.data.loading as loading

    def no_load(*args, **kwargs):
        raise AssertionError("the collection was loaded before the options were checked")

    monkeypatch.setattr(loading, "load_collection", no_load)
    out = str(tmp_path / "model")
    assert main(["train", str(FOLDER), "--out", out, "--validation-fraction", "-0.1"]) == 2
    err = capsys.readouterr().err
    assert "validation fraction must be in [0, 1), not -0.1" in err
    assert "none to train on" not in err and "negative" in err
    with pytest.raises(SystemExit) as exit_:
        main(["train", str(FOLDER), "--out", out, "--held-out", "1.5"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--held-out" in err and "1.5" in err and "in [0, 1)" in err


def test_train_help_explains_a_learning_rate_of_zero(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "0: the optimiser's own default (1.0 for adadelta, 0.001 for adam)" in help_text
