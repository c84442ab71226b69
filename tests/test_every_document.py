"""Every document counts (issue 29, part 1): after the calibration, the model kept is trained
again on every document and every method's rankers index all of them, so a word or a person
known only from held-out documents is found."""

import dataclasses
import json

import numpy as np
import pytest
from fixtures.training import _rows

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import TextSettings
from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.calibration import (
    TrainingStage,
    held_out_measures,
    index_for,
    train_with_held_out,
    trained_on,
)
from expert_gui.core.evaluation.every_document import (
    USES_THE_MODEL,
    retrained,
    retrained_note,
    train_on_every_document,
)
from expert_gui.core.evaluation.heldout import HeldOut, HeldOutSettings, hold_out, without_documents
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.store.storage import load_model
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

SETTINGS = TrainSettings(dim=16, batch_size=16, epochs=3, validation_fraction=0.1, seed=3,
                         checkpoint_every=0)
PLANTED = "zorblax"


def fixture_records():
    docs = {r["doc_id"]: r["text"] for r in _rows("documents.tsv")}
    assocs = [(r["doc_id"], r["person_id"]) for r in _rows("associations.tsv")]
    people = {r["person_id"]: r["name"] for r in _rows("people.tsv")}
    return docs, assocs, people


def collection_of(docs, assocs, people) -> Collection:
    c = Collection.from_records(list(docs.items()), assocs, people, settings=TextSettings(),
                                name="planted")
    c.fingerprint = "planted-" + str(len(docs))
    return c


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The fixture with a word planted in one document the app's split holds out (the split
    depends on who wrote what, not on the words), trained as the Train button trains it."""
    docs, assocs, people = fixture_records()
    split = hold_out(collection_of(docs, assocs, people), HeldOutSettings(seed=SETTINGS.seed))
    target = split.doc_ids[0]
    docs[target] += f" {PLANTED} {PLANTED} {PLANTED} {PLANTED} {PLANTED} {PLANTED} {PLANTED}"
    collection = collection_of(docs, assocs, people)
    out = tmp_path_factory.mktemp("model")
    model = train_with_held_out(collection, SETTINGS, out_dir=out)
    authors = {p for d, p in assocs if d == target}
    return collection, model, out, target, authors


def test_the_held_out_documents_are_the_ones_planted_and_the_measured_model_did_not_see_them(
        planted):
    collection, model, _, target, _ = planted
    assert target in model.calibration["held_out"]["documents"]
    measured_vocabulary = hold_out(collection, HeldOutSettings(seed=SETTINGS.seed)).training.vocab
    assert PLANTED not in measured_vocabulary.index  # only the held-out document holds it
    assert PLANTED in model.vocab.index  # the model kept has seen it


@pytest.mark.parametrize("method", METHODS)
def test_a_word_only_held_out_documents_hold_finds_its_author_with_every_method(planted, method):
    collection, model, _, _, authors = planted
    ranker = make_ranker(method, model=model, collection=index_for(model, collection))
    ranking = ranker.rank(f"{PLANTED} {PLANTED}")
    assert not ranking.unknown_words and not ranking.no_known_words
    top = ranking.top(len(authors))
    assert {person for person, _ in top} == authors, (method, ranking.top(4))


def test_the_kept_model_and_the_rankers_use_every_document_and_say_so(planted):
    collection, model, out, _, _ = planted
    saved = load_model(out)
    assert saved.calibration == model.calibration  # the kept model is the one saved
    record = retrained(saved)
    assert record["documents"] == collection.n_documents
    assert record["people"] == collection.n_people == saved.n_people
    assert record["epochs"] == SETTINGS.epochs and record["steps"] > 0
    assert saved.collection_fingerprint == collection.fingerprint
    assert trained_on(saved, collection)
    assert index_for(saved, collection) is collection
    n = len(saved.calibration["held_out"]["documents"])
    note = retrained_note(saved)
    assert f"measured on {n:,} documents it had not seen" in note
    assert f"on all {collection.n_documents:,} documents" in note
    # the measured run's history (its held-out MAP per epoch) is what the notes plot
    assert [h["epoch"] for h in saved.history] == [1, 2, 3]
    assert all("held_out_map" in h for h in saved.history)


def test_the_second_run_is_the_first_run_on_every_document(planted):
    """Same settings, seed and epochs as the measured run: trained the same way directly on the
    whole collection, the parameters are the same."""
    collection, model, _, _, _ = planted
    direct = train(collection, dataclasses.replace(SETTINGS, early_stopping=False))
    np.testing.assert_allclose(direct.word_embeddings, model.word_embeddings, atol=1e-6)
    np.testing.assert_allclose(direct.candidate_weights, model.candidate_weights, atol=1e-6)


def test_a_retrained_model_is_not_measured_again_on_documents_it_has_seen(planted):
    collection, model, _, _, _ = planted
    measured = held_out_measures(model, collection)
    assert set(measured) == set(METHODS) - set(USES_THE_MODEL)
    with pytest.raises(QueryError, match="trained again on every document"):
        held_out_measures(model, collection, ["loglinear", "auto"])


def test_without_retraining_the_model_kept_is_the_measured_one(planted):
    collection = planted[0]
    model = train_with_held_out(collection, dataclasses.replace(SETTINGS, retrain_on_all=False))
    assert retrained(model) is None and retrained_note(model) == ""
    assert PLANTED not in model.vocab.index
    assert index_for(model, collection) is not collection


def test_stopped_while_training_again_keeps_the_measured_model(planted, tmp_path):
    collection = planted[0]
    events = []

    def stop_in_second_run():  # the stage events of the second run come only after calibration
        return any("Training again" in getattr(e, "text", "") for e in events)

    model = train_with_held_out(collection, SETTINGS, out_dir=tmp_path / "m",
                                progress=events.append, should_stop=stop_in_second_run)
    assert model.calibration and retrained(model) is None
    assert not model.settings["stopped"]
    saved = load_model(tmp_path / "m")
    assert saved.calibration == model.calibration and PLANTED not in saved.vocab.index


def test_the_second_run_says_where_the_measured_model_answers_and_which_epoch_runs(planted,
                                                                                   tmp_path):
    """The app opens the measured model while the second run trains: its events name the folder,
    which holds the measured model whole and calibrated from the first of them on."""
    collection, out = planted[0], tmp_path / "m"
    events, opened = [], []

    def progress(event) -> None:
        if isinstance(event, TrainingStage) and event.measured_in and not opened:
            opened.append(load_model(event.measured_in))
        events.append(event)

    model = train_with_held_out(collection, SETTINGS, out_dir=out, progress=progress)
    stages = [e for e in events if isinstance(e, TrainingStage)]
    again = [e for e in stages if e.text.startswith("Training again on every document")]
    assert again and {e.measured_in for e in again} == {str(out)}
    assert not any(e.measured_in for e in stages if e not in again)
    measured = opened[0]
    assert measured.calibration == {k: v for k, v in model.calibration.items()
                                    if k != "retrained"}
    assert retrained(measured) is None and PLANTED not in measured.vocab.index
    n = len(model.calibration["held_out"]["documents"])
    assert again[0].text == (f"Training again on every document: all {collection.n_documents:,}"
                             f" (the {n:,} held out included), 3 epochs")
    assert again[-1].text.startswith("Training again on every document: epoch 3 of 3")
    assert again[-1].done == again[-1].total == retrained(model)["steps"]


def test_the_second_runs_steps_come_with_its_own_losses(planted, monkeypatch):
    """The window shows the second run's own numbers: each of its stages carries that run's
    step, with its losses as the run reported them (the same loss as the measured run's)."""
    from expert_gui.core.train import trainer

    collection, model = planted[0], planted[1]
    split = hold_out(collection, HeldOutSettings(seed=SETTINGS.seed))
    raw, told = [], []
    real = trainer.train

    def recording(*args, progress=None, **kwargs):
        def both(event):
            if isinstance(event, trainer.TrainProgress):
                raw.append(event)
            progress(event)
        return real(*args, progress=both, **kwargs)

    monkeypatch.setattr(trainer, "train", recording)
    train_on_every_document(model, split, SETTINGS,
                            progress=lambda text, done, total, step=None: told.append(
                                (done, total, step)))
    steps = [(done, total, step) for done, total, step in told if step is not None]
    assert len(steps) == len(raw) > 0
    for (done, total, step), event in zip(steps, raw, strict=True):
        assert (done, total) == (step.step, step.total_steps) == (event.step, event.total_steps)
        assert (step.train_loss, step.val_loss) == (event.train_loss, event.val_loss)
        assert (step.epoch, step.eta_s) == (event.epoch, event.eta_s)


def test_a_person_whose_only_documents_were_held_out_is_ranked():
    """The app's split never holds out a person's last document (heldout.sample_documents); a
    split that does (by hand here) still gives the model kept that person, found by the words
    of the held-out document."""
    docs, assocs, people = fixture_records()
    docs["eve1"] = " ".join([f"{PLANTED} quasar nebula pulsar"] * 10)
    assocs.append(("eve1", "eve"))
    people["eve"] = "Eve"
    collection = collection_of(docs, assocs, people)
    held = np.array([collection.doc_index["eve1"]])
    split = HeldOut(collection, without_documents(collection, held), held, HeldOutSettings())
    measured = train(split.training, SETTINGS)
    assert "eve" not in measured.person_ids
    measured.calibration = {"held_out": {**split.settings.to_dict(), "documents": ["eve1"]},
                            "fusion": {"members": ["loglinear"], "weights": [1.0],
                                       "normalisation": "z-score"}, "measures": {}}
    kept = train_on_every_document(measured, split, SETTINGS)
    assert "eve" in kept.person_ids
    for method in ("loglinear", "model1-d", "model2-jm", "tfidf"):
        ranking = make_ranker(method, model=kept, collection=index_for(kept, collection)).rank(
            f"{PLANTED} quasar")
        assert ranking.top(1)[0][0] == "eve", method


def test_the_second_run_has_the_epochs_early_stopping_kept(planted):
    collection = planted[0]
    settings = TrainSettings(dim=16, batch_size=16, epochs=30, optimizer="adam",
                             learning_rate=0.05, validation_fraction=0.1, early_stopping=True,
                             patience=2, seed=1, checkpoint_every=0)
    model = train_with_held_out(collection, settings)
    best = model.settings["best_epoch"]
    assert len(model.history) == best + 2 < 30  # the measured run stopped after its best
    assert retrained(model)["epochs"] == best


@pytest.fixture(scope="module")
def cli_trained(tmp_path_factory):
    """`expert-gui train` on a folder whose held-out documents alone hold the planted word."""
    from expert_gui.cli import main
    from expert_gui.core.data.loading import load_collection

    folder = tmp_path_factory.mktemp("collection")
    docs, assocs, people = fixture_records()

    def write() -> None:
        (folder / "documents.tsv").write_text(
            "doc_id\ttext\n" + "".join(f"{d}\t{t}\n" for d, t in docs.items()), encoding="utf-8")
        (folder / "associations.tsv").write_text(
            "doc_id\tperson_id\n" + "".join(f"{d}\t{p}\n" for d, p in assocs), encoding="utf-8")
        (folder / "people.tsv").write_text(
            "person_id\tname\n" + "".join(f"{p}\t{n}\n" for p, n in people.items()),
            encoding="utf-8")

    write()
    split = hold_out(load_collection(folder, use_cache=False), HeldOutSettings(seed=3))
    target = split.doc_ids[0]
    docs[target] += f" {PLANTED}" * 7
    write()
    out = tmp_path_factory.mktemp("cli") / "model"
    assert main(["train", str(folder), "--out", str(out), "--dim", "16", "--batch-size", "16",
                 "--epochs", "3", "--seed", "3", "--validation-fraction", "0.1",
                 "--checkpoint-every", "0"]) == 0
    return folder, out, target, {p for d, p in assocs if d == target}


def test_the_cli_trains_again_on_every_document_and_says_what_made_each_number(cli_trained,
                                                                               capsys):
    folder, out, target, _ = cli_trained
    model = load_model(out)
    assert target in model.calibration["held_out"]["documents"] and retrained(model)
    from expert_gui.cli import main

    assert main(["heldout", str(out)]) == 0
    said = capsys.readouterr().out
    measured = model.calibration["measures"]["loglinear"]["AP"]
    assert "TF-IDF" in said and "\n  Log-linear" not in said  # measured again: baselines only
    assert "trained again on every document" in said
    assert f"Log-linear MAP {measured:.3f}" in said  # the calibration's, of the model measured


@pytest.mark.parametrize("method", METHODS)
def test_the_cli_finds_the_author_of_a_word_only_held_out_documents_hold(cli_trained, capsys,
                                                                         method):
    from expert_gui.cli import main

    _, out, _, authors = cli_trained
    assert main(["query", str(out), f"{PLANTED} {PLANTED}", "--json", "--method", method,
                 "-k", str(len(authors))]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["unknown_words"] == [] and not said["no_known_words"]
    assert {r["person_id"] for r in said["results"]} == authors
    if method == "auto":  # part 2: what auto does for this kind of query
        assert said["auto"]["query_type"] == "short topic"


def test_the_cli_ranks_topics_with_the_held_out_word_and_says_what_auto_does(cli_trained,
                                                                              tmp_path, capsys):
    from expert_gui.cli import main

    _, out, _, authors = cli_trained
    topics = tmp_path / "topics.tsv"
    long = " ".join([PLANTED] + ["ring queue mempool lockless"] * 4)
    topics.write_text(f"topic_id\tquery\nT1\t{PLANTED}\nT2\t{long}\n", encoding="utf-8")
    assert main(["rank", str(out), "--topics", str(topics), "--run", str(tmp_path / "run")]) == 0
    said = capsys.readouterr()
    assert "no known words" not in said.err
    assert "1 short topics (up to 1 words)" in said.out and "1 whole documents" in said.out
    run = (tmp_path / "run").read_text().splitlines()
    assert run[0].split()[0] == "T1" and run[0].split()[2] in authors


def test_a_report_on_a_model_trained_again_measures_only_what_has_not_seen_the_held_out(
        tmp_path):
    """Save report (an experiment on a saved model): the topics are ranked over every document,
    and on the held-out documents only the methods that do not use the model are measured; the
    report says why. (An experiment that trains keeps the model it measured, whose held-out
    measures test_evaluation_experiment.py checks.)"""
    from pathlib import Path

    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.evaluation.experiment import run_experiment
    from expert_gui.core.evaluation.results import ExperimentSettings

    folder = Path(__file__).parent / "fixtures" / "evaluation"
    small = TrainSettings(dim=16, epochs=2, window=4, batch_size=64, validation_fraction=0.0,
                          checkpoint_every=0)
    settings = ExperimentSettings(train=small, n_permutations=50, expansion_ks=(),
                                  methods=("loglinear", "model2-jm", "auto"))
    model = train_with_held_out(load_collection(folder), small, out_dir=tmp_path / "m")
    assert retrained(model)
    result = run_experiment(folder, folder / "topics.tsv", folder / "qrels.txt",
                            tmp_path / "b", settings=settings, model_path=tmp_path / "m")
    assert set(result.held_out) == {"model2-jm"}
    assert any("trained again, with the same settings" in w for w in result.warnings)


def test_the_train_command_says_what_training_again_costs(capsys):
    from expert_gui.cli import main

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--no-retrain-on-all" in said and "(default: on)" in said
    assert "takes about as long as the first: on a shared two-core CPU, DPDK's" in said
