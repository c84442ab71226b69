"""Evaluate's "Save report…" writes what `expert-gui experiment --model` writes: the same files,
with the same tables."""

import pytest
from gui_helpers import GUI_COLLECTION, open_collection, save_random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.experiment import report_for_model, run_experiment

pytestmark = pytest.mark.gui


def written(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and p.name != ".expert-gui")


def test_save_report_writes_what_experiment_writes(qtbot, window, tmp_path):
    model_path = save_random_model(load_collection(GUI_COLLECTION), "gui-model")
    open_collection(qtbot, window)  # its topics and qrels open with it
    window.training_panel.open_model(model_path)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    panel = window.comparison_panel
    assert panel.report_button.isEnabled()
    out = tmp_path / "gui-report"
    out.mkdir()
    with qtbot.waitSignal(panel.report_written, timeout=300_000) as saved:
        panel.write_report(out)
    assert saved.args[0] == out
    cli = run_experiment(GUI_COLLECTION, GUI_COLLECTION / "topics.tsv",
                         GUI_COLLECTION / "qrels.txt", tmp_path / "cli", model_path=model_path)
    assert written(out) == written(cli.out_dir)
    for table in ("table2.md", "table4.md", "per_topic.csv"):
        assert (out / table).read_text() == (cli.out_dir / table).read_text()
    assert "report.md" in written(out) and any(f.startswith("runs/") for f in written(out))
    assert str(out / "report.md") in panel.eval_label.text()


def test_a_folder_holding_files_gets_a_new_report_folder(qtbot, window, tmp_path):
    model_path = save_random_model(load_collection(GUI_COLLECTION), "gui-model")
    open_collection(qtbot, window)
    window.training_panel.open_model(model_path)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    (tmp_path / "notes.txt").write_text("mine")
    panel = window.comparison_panel
    with qtbot.waitSignal(panel.report_written, timeout=300_000) as saved:
        panel.write_report(tmp_path)
    assert saved.args[0].parent == tmp_path and saved.args[0].name.startswith("report-")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_the_report_is_experiments(tmp_path):
    model_path = save_random_model(load_collection(GUI_COLLECTION), "m")
    result = report_for_model(GUI_COLLECTION, GUI_COLLECTION / "topics.tsv",
                              GUI_COLLECTION / "qrels.txt", tmp_path / "r", model_path)
    assert result.completed and result.model_path == model_path
