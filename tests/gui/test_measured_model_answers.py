"""While a run trains its measured model again on every document (issue 29: minutes on a CPU,
as long as the first run), that model, saved and calibrated, is listed, open and answers,
labelled as the measured model; the run's end switches to the model trained on every document
and keeps the query and the person chosen; Stop keeps the measured model and says so."""

import csv
import threading
from pathlib import Path

import pytest
from gui_helpers import PLANTED, open_collection, planted_copy, set_training
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from expert_gui.core.durations import format_duration
from expert_gui.core.evaluation import calibration
from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.store.model_folders import COMPLETE, read_model_folder
from expert_gui.gui.panels.training.panel import step_text
from expert_gui.gui.prepared_rankers import FIRST_BASELINE

pytestmark = pytest.mark.gui

QUERY = "packet socket"  # words the measured model knows


@pytest.fixture
def second_run(monkeypatch):
    """The second run held at its first step until the test lets it go (`failure`: then it
    raises that): the window the tests look at, whatever the machine's speed."""
    real = calibration.train_on_every_document
    held, go = threading.Event(), threading.Event()
    failure = []

    def holding(measured, split, settings, *, progress=None, **kwargs):
        def tell(text, done=0, total=0, step=None):
            progress(text, done, total, step)
            if done and not held.is_set():
                held.step = step
                held.set()
                go.wait(300)
                if failure:
                    raise failure[0]

        return real(measured, split, settings, progress=tell, **kwargs)

    monkeypatch.setattr(calibration, "train_on_every_document", holding)
    yield held, go, failure
    go.set()  # never leave the worker waiting


def train_until_the_second_run(qtbot, window, tmp_path, held):
    """Train with the Train button until the second run is held and the measured model open;
    the state, the training and query panels, and the authors of the document with PLANTED."""
    folder, authors = planted_copy(tmp_path)
    open_collection(qtbot, window, folder)
    set_training(window, seed=0)
    window.training_panel.start_training()
    qtbot.waitUntil(held.is_set, timeout=180_000)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=60_000)
    return window.state, window.training_panel, window.query_panel, authors


def ranked_by_auto(qtbot, window, query: str) -> None:
    qp = window.query_panel
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("auto"))
    qp.set_query(query)
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranked_by == "auto"
                    and qp.ranking.query == query, timeout=60_000)


def choose_last_person(window) -> str:
    """Select the last listed person as a user does (the table's current cell)."""
    results = window.query_panel.results
    row = results.rowCount() - 1
    assert row > 0
    results.setCurrentCell(row, 1)
    return results.item(row, 1).text()


def selected_person(window) -> str:
    results = window.query_panel.results
    return results.item(results.currentRow(), 1).text()


def no_longer_said_measured(window) -> None:
    """The run has ended: nothing calls the open model the measured one being trained again."""
    state, tp = window.state, window.training_panel
    assert state.retraining is None and not state.measured_answers()
    assert "being trained again" not in window.model_label.text()
    assert "the measured model answers" not in window.query_panel.words_label.text()
    listed = [tp.models_list.item(i).text() for i in range(tp.models_list.count())]
    assert not any("being trained again" in text for text in listed)


def test_the_measured_model_is_listed_and_answers_while_it_is_trained_again(
        qtbot, window, tmp_path, second_run):
    held, go, _ = second_run
    state, tp, qp, authors = train_until_the_second_run(qtbot, window, tmp_path, held)
    run = tp._model_folder
    assert tp.is_training() and state.model_path == run
    model = state.model
    assert model.calibration and retrained(model) is None  # the measured model, calibrated
    assert state.measured_answers()
    # listed, selectable, openable (not continued: it is whole)
    items = [tp.models_list.item(i) for i in range(tp.models_list.count())]
    listed = [it for it in items if Path(it.data(Qt.ItemDataRole.UserRole)) == run]
    assert len(listed) == 1
    assert "held-out MAP" in listed[0].text()
    assert "the measured model, being trained again on every document" in listed[0].text()
    tp.models_list.setCurrentItem(listed[0])
    assert tp.open_button.isEnabled() and not tp.continue_button.isEnabled()
    assert read_model_folder(run).kind == COMPLETE
    # labelled as what it is, and the progress names the second run
    assert "(measured; being trained again on every document;" in window.model_label.text()
    assert "answers queries meanwhile" in tp.status_label.text()
    qtbot.waitUntil(lambda: "epoch 1 of 3" in window.training_label.text() and
                    window.training_label.text().endswith("· Training again on every document"),
                    timeout=30_000)
    # the numbers are the second run's (its first step, held), not the measured run's last
    step = held.step
    assert step.step == 1 and step.epoch == 1
    assert tp.step_label.text() == step_text(1, step.total_steps, 1, 3)
    assert tp.loss_label.text() == f"{step.train_loss:.3f} / " + (
        "–" if step.val_loss is None else f"{step.val_loss:.3f}")
    assert tp.eta_label.text() == format_duration(step.eta_s)
    assert "the numbers below are this run's" in tp.status_label.text()
    # answered by auto with the measured model's calibration
    ranked_by_auto(qtbot, window, QUERY)
    assert len(qp.ranking) > 0 and "the measured model answers" in qp.words_label.text()
    assert "has not seen the" in qp.words_label.text()
    # only what is chosen is built beside the run (LSI's SVD and the rest wait for its end)
    qtbot.waitUntil(lambda: not state.runner.running("rankers"), timeout=60_000)
    assert qp.rankers.get("lsi") is None and qp.rankers.get("auto") is not None
    qp.save_ranking(tmp_path / "ranking.csv", trec=False)  # says which model made it
    with open(tmp_path / "ranking.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["model"] == f"{run} (the measured model, before training again on every document)"
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("lsi"))  # built when chosen
    qtbot.waitUntil(lambda: qp.ranked_by == "lsi", timeout=60_000)
    # which has not seen the held-out documents: a word only they hold is answered by the
    # first baseline over every document, and the line under the query says so
    qp.set_query(PLANTED)
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranking.query == PLANTED
                    and qp.ranked_by == FIRST_BASELINE, timeout=60_000)
    assert not qp.ranking.no_known_words and qp.ranking.known_words == (PLANTED,)
    assert qp.results.item(0, 1).text() in authors
    said = qp.words_label.text()
    assert f"Model 1 (d) over every document: only the held-out documents hold “{PLANTED}”" \
        in said and "which LSI over the measured model’s documents does not know" in said
    assert "nobody can be ranked" not in said
    qp.set_query(QUERY)  # words the measured model knows: its LSI again
    assert qp.ranked_by == "lsi" and "over every document" not in qp.words_label.text()
    go.set()
    qtbot.waitUntil(lambda: not tp.is_training() and state.model is not None
                    and retrained(state.model) is not None, timeout=180_000)
    no_longer_said_measured(window)


def test_the_end_of_the_second_run_switches_to_the_final_model_keeping_query_and_person(
        qtbot, window, tmp_path, second_run):
    held, go, _ = second_run
    state, tp, qp, _ = train_until_the_second_run(qtbot, window, tmp_path, held)
    measured = state.model
    ranked_by_auto(qtbot, window, QUERY)
    chosen = choose_last_person(window)
    go.set()
    qtbot.waitUntil(lambda: state.model is not measured and state.model is not None
                    and qp.ranking is not None and qp.ranked_by == "auto", timeout=180_000)
    final = state.model
    assert retrained(final) is not None and state.model_path == tp._model_folder
    assert qp.query_edit.text() == QUERY and qp.ranking.query == QUERY
    assert selected_person(window) == chosen
    assert chosen in qp.why_label.text()  # the chosen person explained, not the first
    first = qp.results.item(0, 1).text()
    assert first != chosen  # the switch would have selected another person
    no_longer_said_measured(window)
    # the final model has seen the held-out documents
    qp.set_query(PLANTED)
    qtbot.waitUntil(lambda: qp.ranking is not None and qp.ranking.query == PLANTED,
                    timeout=60_000)
    assert not qp.ranking.no_known_words


def test_stopped_while_training_again_the_measured_model_stays_and_the_app_says_so(
        qtbot, window, tmp_path, second_run):
    held, go, _ = second_run
    state, tp, qp, _ = train_until_the_second_run(qtbot, window, tmp_path, held)
    run, measured = tp._model_folder, state.model
    ranked_by_auto(qtbot, window, QUERY)
    chosen = choose_last_person(window)
    ranking = qp.ranking
    tp.stop_training()
    assert "The measured model is kept." in tp.status_label.text()
    go.set()
    qtbot.waitUntil(lambda: not tp.is_training() and tp.status_label.text().startswith(
        "Stopped while training again"), timeout=180_000)
    said = tp.status_label.text()
    assert "Stopped while training again on every document: the measured model" in said
    assert f"is kept in {run}" in said
    assert state.model is measured and state.model_path == run  # kept open, not reopened
    # under the plot, the kept (measured) run's last numbers, not the stopped run's step
    last = measured.history[-1]
    assert tp.step_label.text().startswith(f"{last['step']:,} / ")
    assert tp.loss_label.text() == tp._loss_text(last["train_loss"], last["val_loss"],
                                                 epoch_mean=True)
    no_longer_said_measured(window)
    assert qp.ranking is ranking and selected_person(window) == chosen  # nothing lost
    saved = read_model_folder(run)
    assert saved.kind == COMPLETE and not saved.retrained_documents
    qtbot.waitUntil(lambda: qp.rankers.get("lsi") is not None, timeout=120_000)  # now prepared


def test_a_second_run_that_fails_leaves_the_measured_model_open_and_says_so(
        qtbot, window, tmp_path, second_run):
    held, go, failure = second_run
    state, tp, _, _ = train_until_the_second_run(qtbot, window, tmp_path, held)
    run, measured = tp._model_folder, state.model
    failure.append(RuntimeError("out of memory"))
    go.set()
    qtbot.waitUntil(lambda: bool(window.findChildren(QMessageBox, "error-dialog")),
                    timeout=180_000)
    qtbot.waitUntil(lambda: not tp.is_training(), timeout=60_000)
    said = tp.status_label.text()
    assert "Training failed: out of memory. The measured model is kept in" in said
    assert str(run) in said
    assert state.model is measured
    no_longer_said_measured(window)
    assert read_model_folder(run).kind == COMPLETE
