"""`expert-gui train` end to end on the fixture collection."""

from fixtures.training import FOLDER

from expert_gui.cli import main
from expert_gui.core.storage import load_model


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


def test_train_errors_are_one_line_with_status_2(tmp_path, capsys):
    out = str(tmp_path / "model")
    assert main(["train", str(FOLDER), "--out", out, "--resume"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
    bad = tmp_path / "vectors.txt"
    bad.write_text("ring 1 2\nqueue 1\n")
    assert main(["train", str(FOLDER), "--out", out, "--embeddings", str(bad)]) == 2
    assert "vectors.txt:2" in capsys.readouterr().err
    assert main(["train", str(FOLDER), "--out", out, "--window", "0"]) == 2
