"""Training with held-out documents: their MAP per epoch, early stopping on it, the calibration
of `auto`, and the index a model's rankers use."""

import numpy as np
import pytest
from fixtures.training import load_training_fixture
from rankers_helpers import TORCH_DEVICE

from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.calibration import (
    INDEXING,
    calibrate,
    held_out_map,
    held_out_measures,
    index_for,
    train_and_calibrate,
    train_with_held_out,
    trained_on,
)
from expert_gui.core.evaluation.evaluate import evaluate
from expert_gui.core.evaluation.fusion_choice import RULE
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
from expert_gui.core.evaluation.probability_fit import SHORT_PER_DOCUMENT
from expert_gui.core.rankers.fusion import describe_auto
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.rankers.probability import FEATURES, expert_probabilities
from expert_gui.core.rankers.query_type import NO_P_EXPERT_TOPIC, short_topic, words_in
from expert_gui.core.store.manifest import MEMBERS
from expert_gui.core.store.storage import load_model
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train

# The model measured (kept as it is): what these tests check is its calibration; the model
# trained again on every document after it: test_every_document.py.
SETTINGS = TrainSettings(dim=16, batch_size=16, epochs=3, validation_fraction=0.1, seed=3,
                         checkpoint_every=0, retrain_on_all=False)


@pytest.fixture(scope="module")
def split():
    return hold_out(load_training_fixture(), HeldOutSettings(fraction=0.2, minimum=1, seed=2))


@pytest.fixture(scope="module")
def trained(split, tmp_path_factory):
    out = tmp_path_factory.mktemp("model")
    return train_and_calibrate(split, SETTINGS, out_dir=out), out


def test_held_out_map_is_the_log_linear_rankers_map(split, trained):
    model, _ = trained
    params = {k: getattr(model, k) for k in ("word_embeddings", "candidate_weights",
                                             "candidate_bias")}
    per_topic, _ = evaluate(make_ranker("loglinear", model=model), split.queries(),
                            split.qrels(), split.doc_ids)
    assert held_out_map(split)(params) == pytest.approx(per_topic.mean("AP"), abs=1e-9)
    assert [h["held_out_map"] for h in model.history][-1] == pytest.approx(per_topic.mean("AP"))


def test_calibration_is_saved_with_its_decision_and_every_methods_measures(split, trained):
    model, out = trained
    saved = load_model(out).calibration
    assert saved == model.calibration
    assert saved["held_out"]["documents"] == split.doc_ids
    fusion = saved["fusion"]
    assert fusion["members"] == list(MEMBERS) and fusion["rule"] == RULE
    assert sum(fusion["weights"]) == pytest.approx(1.0)
    assert fusion["decision"] in ("anchor", "calibrated")
    if fusion["decision"] == "anchor":
        assert fusion["weights"] == fusion["anchor_weights"]
    assert fusion["label"] == describe_auto(fusion, len(split.doc_ids))
    measures = saved["measures"]
    assert list(measures) == [*METHODS, "chance"]  # chance: a random ranking's
    # the fixture's held-out documents are all short topics: they choose for short topics too
    assert all(short_topic(words_in(model.tokenizer, q)) for q in split.queries().values())
    short = fusion["short_topics"]
    assert short["short_share"] == 1.0
    assert {k: short[k] for k in ("anchor", "weights", "decision", "cv", "label")} == \
        {k: fusion[k] for k in ("anchor", "weights", "decision", "cv", "label")}
    if fusion["decision"] == "anchor":  # auto is its anchor, measured as the anchor was
        assert measures["auto"]["AP"] == pytest.approx(fusion["cv"]["anchor_map"])
    for method, per_topic in held_out_measures(model, split.collection, METHODS).items():
        assert per_topic.mean("AP") == pytest.approx(measures[method]["AP"]), method
        assert per_topic.mean("RR") == pytest.approx(measures[method]["RR"]), method


def test_every_method_has_a_fit_of_p_expert_and_its_rankings_carry_it(split, trained):
    model, _ = trained
    fits = model.calibration["probability"]
    assert list(fits) == list(METHODS)
    index = index_for(model, split.collection)
    for method in METHODS:
        ranker = make_ranker(method, model=model, collection=index)
        full = ranker.rank("ring queue")
        if full.no_known_words:
            continue
        assert fits[method]["features"] == list(FEATURES)
        assert set(fits[method]["kinds"]) <= {"whole document"}, method  # never a topic
        assert full.p_expert is None and full.extra["no_p_expert"] == NO_P_EXPERT_TOPIC
        scores = np.full(len(full.person_ids), -np.inf)
        scores[full.people] = full.scores
        p = expert_probabilities(scores, 2, fits[method]["weights"])[full.people]
        assert (np.diff(p) <= 1e-12).all(), method  # higher scores, likelier experts
    plain = make_ranker("loglinear", model=model, aggregation="mean")
    assert plain.rank("ring queue").p_expert is None  # fitted with the paper's sum only


def test_held_out_measures_use_rankers_already_built_instead_of_building_them(
        split, trained, monkeypatch):
    model, _ = trained
    methods = ("loglinear", "model2-jm", "tfidf")
    built = held_out_measures(model, split.collection, methods)
    index = index_for(model, split.collection)
    rankers = {m: make_ranker(m, model=model, collection=index) for m in methods}

    def no_building(*args, **kwargs):
        raise AssertionError("a ranker was built again")

    monkeypatch.setattr("expert_gui.core.rankers.methods.make_ranker", no_building)
    given = held_out_measures(model, split.collection, methods, rankers=rankers)
    for method in methods:
        assert given[method].mean("AP") == built[method].mean("AP")


def test_the_models_rankers_index_the_collection_without_its_held_out_documents(split, trained):
    model, _ = trained
    index = index_for(model, split.collection)
    assert index.fingerprint == model.collection_fingerprint == split.training.fingerprint
    assert trained_on(model, split.collection) and not trained_on(model, split.training)
    assert index.doc_ids == split.training.doc_ids
    auto = make_ranker("auto", model=model, collection=index)
    assert auto.calibrated and auto.weights.tolist() == model.calibration["fusion"]["weights"]
    uncalibrated = train(split.collection, SETTINGS)
    assert index_for(uncalibrated, split.collection) is split.collection
    assert trained_on(uncalibrated, split.collection)
    with pytest.raises(QueryError, match="without held-out documents"):
        held_out_measures(uncalibrated, split.collection)
    with pytest.raises(QueryError, match="none of the model's held-out documents"):
        held_out_measures(model, split.training)


def test_early_stopping_keeps_the_epoch_with_the_best_held_out_map(split):
    settings = TrainSettings(dim=16, batch_size=16, epochs=30, optimizer="adam",
                             learning_rate=0.05, validation_fraction=0.1, early_stopping=True,
                             patience=2, seed=1, checkpoint_every=0, retrain_on_all=False)
    model = train_and_calibrate(split, settings)
    maps = [h["held_out_map"] for h in model.history]
    best = model.settings["best_epoch"]
    assert maps[best - 1] == max(maps)
    assert len(maps) == best + 2 < 30  # stopped two epochs after the best
    params = {k: getattr(model, k) for k in ("word_embeddings", "candidate_weights",
                                             "candidate_bias")}
    assert held_out_map(split)(params) == pytest.approx(max(maps))  # the best epoch's model


def test_a_stopped_run_is_not_calibrated(split):
    model = train_and_calibrate(split, SETTINGS, should_stop=lambda: True)
    assert model.calibration is None


def test_calibrate_reports_progress(split, trained):
    model, _ = trained
    events = []
    calibrate(model, split, progress=events.append)
    # auto's members rank once (for themselves, auto and the ensemble); the others once each;
    # then every method ranks the documents and their short queries for its P(expert)
    n_others = len(METHODS) - len(MEMBERS) - 2
    total = len(split.documents) * (1 + n_others + (1 + SHORT_PER_DOCUMENT) * len(METHODS))
    assert events[-1] == (total, total, "fitting P(expert) of Ensemble")
    done = [e[0] for e in events]
    assert np.diff(done).min() == 0  # a block of documents a count, the long steps between named
    assert done == sorted(done)
    assert {e[2] for e in events} >= {"ranking with auto's members", "choosing auto's weights",
                                      "measuring auto's members, auto and the ensemble",
                                      f"indexing for LSI{INDEXING['lsi']}",
                                      "ranking with LSI", "fitting P(expert) of Auto (fusion)"}


def test_the_apps_training_holds_out_documents_by_the_training_seed(split):
    model = train_with_held_out(split.collection, SETTINGS)
    assert model.calibration["held_out"]["seed"] == SETTINGS.seed
    assert trained_on(model, split.collection)


def test_calibration_on_a_torch_device_chooses_and_measures_as_on_the_host(split, trained):
    """The training GPU's path, run here on the CPU through torch (on the GPU where
    EXPERT_GUI_TEST_TORCH_DEVICE=cuda)."""
    model, _ = trained
    host, device = calibrate(model, split), calibrate(model, split, device=TORCH_DEVICE)
    assert device["fusion"]["decision"] == host["fusion"]["decision"]
    np.testing.assert_allclose(device["fusion"]["weights"], host["fusion"]["weights"])
    for method, measures in host["measures"].items():
        for name, value in measures.items():
            assert device["measures"][method][name] == pytest.approx(value, abs=1e-9), method
    for method, fit in host["probability"].items():
        # float32 scores on the device: the fit of a few hundred examples moves a little
        np.testing.assert_allclose(device["probability"][method]["weights"], fit["weights"],
                                   rtol=0.02, atol=0.01)
        assert device["probability"][method]["kinds"] == fit["kinds"], method
