"""Model files: round trip, and a clear ModelFileError for every kind of bad folder."""

import json

import numpy as np
import pytest
import torch
from test_model import tiny_model

from expert_gui.core.errors import ModelFileError
from expert_gui.core.storage import (
    FORMAT_VERSION,
    load_checkpoint,
    load_model,
    save_checkpoint,
    save_model,
)


@pytest.fixture
def saved(tmp_path):
    model = tiny_model()
    model.settings = {"dim": 3, "epochs": 2}
    model.history = [{"epoch": 1, "val_loss": 1.5}, {"epoch": 2, "val_loss": None}]
    model.collection_fingerprint = "abc123"
    save_model(model, tmp_path / "m")
    return model, tmp_path / "m"


def test_round_trip_keeps_everything(saved):
    model, folder = saved
    back = load_model(folder)
    for name in ("word_embeddings", "candidate_weights", "candidate_bias"):
        np.testing.assert_array_equal(getattr(back, name), getattr(model, name))
    assert back.vocab.words == model.vocab.words
    np.testing.assert_array_equal(back.vocab.counts, model.vocab.counts)
    assert back.text_settings == model.text_settings
    assert back.person_ids == model.person_ids and back.person_names == model.person_names
    assert back.settings == model.settings and back.history == model.history
    assert back.collection_fingerprint == "abc123"
    ids, _, _ = back.encode("wordab wordac")
    np.testing.assert_allclose(back.query_log_probs(ids), model.query_log_probs(ids))
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json", "model.safetensors"]


def test_truncated_tensor_file_is_refused(saved):
    _, folder = saved
    blob = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(ModelFileError, match="model.safetensors"):
        load_model(folder)


def test_tampered_tensor_file_is_refused(saved):
    _, folder = saved
    blob = bytearray((folder / "model.safetensors").read_bytes())
    blob[-3] ^= 0xFF
    (folder / "model.safetensors").write_bytes(bytes(blob))
    with pytest.raises(ModelFileError, match="does not match"):
        load_model(folder)


def test_truncated_manifest_is_refused_with_its_line(saved):
    _, folder = saved
    text = (folder / "manifest.json").read_text()
    (folder / "manifest.json").write_text(text[: len(text) // 2])
    with pytest.raises(ModelFileError, match=r"manifest.json:\d+"):
        load_model(folder)


def test_newer_format_is_refused(saved):
    _, folder = saved
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["format_version"] = FORMAT_VERSION + 1
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelFileError, match="newer"):
        load_model(folder)


def test_inconsistent_manifest_is_refused(saved):
    _, folder = saved
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["people"]["ids"].append("ghost")
    manifest["people"]["names"].append("Ghost")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelFileError, match="inconsistent"):
        load_model(folder)


def test_missing_folder_and_other_files_are_refused(tmp_path):
    with pytest.raises(ModelFileError, match="cannot read"):
        load_model(tmp_path / "nothing")
    (tmp_path / "manifest.json").write_text('{"format": "something-else"}')
    with pytest.raises(ModelFileError, match="not an expert-gui-model"):
        load_model(tmp_path)


def test_model_file_is_not_a_pickle(saved):
    _, folder = saved
    head = (folder / "model.safetensors").read_bytes()[:16]
    assert not head.startswith(b"\x80")  # pickle protocol marker
    header_len = int.from_bytes(head[:8], "little")
    assert json.loads((folder / "model.safetensors").read_bytes()[8:8 + header_len])


def test_checkpoint_round_trip_and_atomic_replace(tmp_path):
    folder = tmp_path / "checkpoint"
    save_checkpoint(folder, {"a": torch.arange(5.0), "s": torch.tensor(3.0)}, {"run": {"step": 1}})
    save_checkpoint(folder, {"a": torch.arange(6.0), "s": torch.tensor(4.0)}, {"run": {"step": 2}})
    tensors, meta = load_checkpoint(folder)
    assert tensors["a"].tolist() == list(range(6)) and float(tensors["s"]) == 4.0
    assert meta["run"] == {"step": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]
    (folder / "state.safetensors").write_bytes(b"\0" * 10)
    with pytest.raises(ModelFileError, match="state.safetensors"):
        load_checkpoint(folder)


def test_calibration_round_trips_and_is_optional(saved, tmp_path):
    model, folder = saved
    assert "calibration" not in json.loads((folder / "manifest.json").read_text())
    assert load_model(folder).calibration is None
    model.calibration = {"held_out": {"fraction": 0.02, "minimum": 50, "maximum": 1000,
                                      "seed": 0, "documents": ["d1", "d2"]},
                         "fusion": {"members": ["loglinear", "model2-jm", "model1-d"],
                                    "weights": [0.5, 0.25, 0.25], "normalisation": "z-score"},
                         "measures": {"auto": {"AP": 0.5, "RR": 0.6}}}
    save_model(model, tmp_path / "calibrated")
    assert load_model(tmp_path / "calibrated").calibration == model.calibration


def test_a_model_keeps_the_numbers_rule_it_was_trained_with(saved):
    """Models trained before the default became "numbers" name their rule, and keep it."""
    _, folder = saved
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["text_settings"]["numbers"] = "any-digit"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    back = load_model(folder)
    assert back.text_settings.numbers == "any-digit"
    assert back.tokenizer.words("mlx5 queue") == ["<num>", "queue"]
