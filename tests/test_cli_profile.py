"""`expert-gui profile` and `expert-gui export-embeddings` end to end on the dated fixture."""

import json

import numpy as np
import pytest
from rankers_helpers import random_model

from expert_gui.cli import main
from expert_gui.core.data.loading import load_collection
from expert_gui.core.explore.profile import Profiler
from expert_gui.core.store.storage import save_model


@pytest.fixture
def source(fixtures):
    return fixtures / "profiles"


@pytest.fixture
def model_dir(source, tmp_path):
    collection = load_collection(source)
    model = random_model(collection, seed=3)
    model.collection_source = str(collection.source)
    model.collection_fingerprint = collection.fingerprint
    save_model(model, tmp_path / "model")
    return tmp_path / "model"


def test_profile_json_has_exactly_the_issue_keys(model_dir, source, capsys):
    assert main(["profile", str(model_dir), "bob", "--topics", str(source / "topics.tsv"),
                 "-k", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert list(d) == ["person", "name", "words", "topics", "similar", "coauthors", "timeline"]
    assert d["person"] == "bob" and d["name"] == "Bob Baker"
    assert len(d["words"]) == 3 and all(isinstance(w["score"], float) for w in d["words"])
    assert [t["topic_id"] for t in d["topics"]] and len(d["topics"]) == 3
    assert [s["person"] for s in d["similar"]] and len(d["similar"]) == 3
    assert [(a["person"], a["documents"]) for a in d["coauthors"]] == [("ann", 1), ("dee", 1)]
    assert d["timeline"] == [{"period": "2020", "documents": 2}, {"period": "2021", "documents": 1},
                             {"period": "2022", "documents": 1}]


def test_profile_json_equals_the_core_profile(model_dir, capsys):
    from expert_gui.core.store.storage import load_model

    model = load_model(model_dir)
    expected = Profiler(model, load_collection(model.collection_source)).profile("eve", k=4)
    assert main(["profile", str(model_dir), "eve", "-k", "4", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "topics" not in d
    assert [w["word"] for w in d["words"]] == [w.word for w in expected.words]
    assert np.allclose([w["score"] for w in d["words"]], [w.score for w in expected.words])


def test_profile_text(model_dir, capsys):
    assert main(["profile", str(model_dir), "ann", "--period", "month", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ann Archer (ann): 4 documents, 2019-03 to 2023-05")
    assert "co-authors (documents shared):" in out and "documents per month:" in out


def test_unknown_person_is_status_2_with_the_closest_ids(model_dir, capsys):
    assert main(["profile", str(model_dir), "evee"]) == 2
    err = capsys.readouterr().err
    assert "no person with id 'evee'" in err and "closest: eve" in err


def test_about_a_word_per_period(model_dir, capsys):
    assert main(["profile", str(model_dir), "ann", "--about", "crypto", "--json"]) == 0
    timeline = json.loads(capsys.readouterr().out)["timeline"]
    assert [(t["period"], t["documents"], t["about"]) for t in timeline] == [
        ("2019", 2, 0), ("2020", 0, 0), ("2021", 1, 1), ("2022", 0, 0), ("2023", 1, 0)]
    assert main(["profile", str(model_dir), "ann", "--about", "crypto"]) == 0
    assert "  2021          1      1  " in capsys.readouterr().out


def test_k_must_be_positive(model_dir, capsys):
    assert main(["profile", str(model_dir), "eve", "-k", "0"]) == 2
    assert "-k must be at least 1" in capsys.readouterr().err


def test_export_embeddings_for_the_projector(model_dir, tmp_path, capsys):
    out = tmp_path / "projector"
    assert main(["export-embeddings", str(model_dir), "--out", str(out)]) == 0
    from expert_gui.core.store.storage import load_model

    model = load_model(model_dir)
    words = np.loadtxt(out / "words" / "vectors.tsv", delimiter="\t")
    assert np.allclose(words, model.word_embeddings[1:], atol=1e-5)  # no padding row
    meta = (out / "words" / "metadata.tsv").read_text().splitlines()
    assert meta[0] == "word\tcount" and len(meta) == len(words) + 1
    assert meta[1].split("\t")[0] == model.vocab.words[1]
    people = np.loadtxt(out / "people" / "vectors.tsv", delimiter="\t")
    assert np.allclose(people, model.candidate_weights, atol=1e-5)
    rows = [r.split("\t") for r in (out / "people" / "metadata.tsv").read_text().splitlines()]
    assert rows[0] == ["person_id", "name", "documents", "group"]
    assert rows[1][:3] == ["ann", "Ann Archer", "4"] and len(rows) == model.n_people + 1
    assert main(["export-embeddings", str(model_dir), "--out", str(tmp_path / "w"),
                 "--what", "words"]) == 0
    assert not (tmp_path / "w" / "people").exists()
