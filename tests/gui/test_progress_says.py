"""Progress that says what runs (issue 31, item 5): the calibration names each long step
between its counts (it sat at 4,520 / 6,328 for 44 s and at 100% for 11 s with no word), the
end of a run says 'saved' once the model is written, and Save report shows one overall bar
that never restarts."""

import pytest
from gui_helpers import GUI_COLLECTION, open_collection, save_random_model, set_training

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import INDEXING, TrainingStage
from expert_gui.core.evaluation.every_document import retrained

pytestmark = pytest.mark.gui


def recording(panel, name: str) -> list:
    """Every batch of events a panel's progress handler is given, before it handles them."""
    seen, handler = [], getattr(panel, name)

    def record(events):
        seen.extend(events)
        handler(events)

    setattr(panel, name, record)
    return seen


def test_the_calibration_names_what_runs_between_its_counts(qtbot, window):
    open_collection(qtbot, window)
    set_training(window, epochs=1)
    panel = window.training_panel
    events = recording(panel, "_on_progress")
    at_opening = []
    window.state.model_changed.connect(lambda m: at_opening.append(
        (panel.status_label.text(), window.training_label.text()))
        if m is not None and retrained(m) is not None else None)  # the model it trained again
    panel.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    said = [e.text for e in events if isinstance(e, TrainingStage)]
    calibrating = [t.split(": ", 1)[1] for t in said if t.startswith("Calibrating") and ": " in t]
    for step in ("ranking with auto's members", "choosing auto's weights",
                 "measuring auto's members, auto and the ensemble", f"indexing for LSI{INDEXING['lsi']}",
                 "ranking with LSI", "measuring LSI"):
        assert step in calibrating, (step, calibrating)
    # Once the model is written, the run says so before it opens the model (which takes a
    # while on a large collection), not 'Saving the model…' over a model already saved.
    [(status, bar)] = at_opening
    assert "Trained; saved in" in status and "Saving" not in status
    assert "Saving" not in bar


def test_save_report_has_one_bar_that_never_goes_back(qtbot, window, tmp_path):
    model_path = save_random_model(load_collection(GUI_COLLECTION), "gui-model")
    open_collection(qtbot, window)
    window.training_panel.open_model(model_path)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    panel = window.comparison_panel
    shown = []
    handler = panel._report_progress

    def record(events):
        # one event at a time: the worker hands over a batch of events and the bar shows its
        # last, so which steps a batch ends on depends on the machine's speed (a fast stage,
        # such as ranking the topics in one batch, can start and end within one batch)
        for event in events:
            handler([event])
            shown.append((panel.progress.value(), panel.progress.maximum(),
                          panel.eval_label.text()))

    panel._report_progress = record
    with qtbot.waitSignal(panel.report_written, timeout=300_000):
        panel.write_report(tmp_path / "report")
    values = [v for v, top, _ in shown if top > 0]
    assert len(values) > 3 and values == sorted(values)  # one bar for the whole report
    assert values[-1] >= 0.8 * shown[-1][1]
    texts = [t for *_, t in shown]
    assert any(t.startswith("Writing the report, step 1 of ") for t in texts)
    assert any("step 3 of " in t and "ranking the topics" in t for t in texts)
