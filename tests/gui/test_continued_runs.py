"""A run continued after a kill reads as one run (issue 31, item 3): the epochs it names are the
run's, not counted again from the resume, and its loss plot keeps the epochs before the
checkpoint."""

import pytest
from gui_helpers import GUI_COLLECTION, TINY_TRAINING, open_collection

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import TrainingStage, train_with_held_out
from expert_gui.core.paths import models_dir
from expert_gui.core.store.model_folders import read_model_folder
from expert_gui.core.train.settings import TrainSettings

pytestmark = pytest.mark.gui


class Killed(Exception):
    pass


def killed_in_second_epoch(folder):
    """A run of the app's Train killed a few steps into its second epoch (a checkpoint at the
    first epoch's end and every 2 steps): only checkpoint/ is left."""
    settings = TrainSettings(**{**TINY_TRAINING, "checkpoint_every": 2, "epochs": 3})
    seen = {}

    def die(event):
        step = getattr(event, "step", None)
        if step is None:
            return
        seen.setdefault("per_epoch", event.total_steps // 3)
        if step == seen["per_epoch"] + 3:
            raise Killed

    with pytest.raises(Killed):
        train_with_held_out(load_collection(GUI_COLLECTION), settings, out_dir=folder,
                            progress=die)
    return seen["per_epoch"]


def test_a_continued_run_names_its_own_epochs_and_plots_the_earlier_ones(qtbot, window):
    folder = models_dir() / "gui-killed"
    per_epoch = killed_in_second_epoch(folder)
    info = read_model_folder(folder)
    assert [h["epoch"] for h in info.history] == [1]
    open_collection(qtbot, window)
    panel = window.training_panel
    stages, on_progress = [], panel._on_progress

    def seen(events):  # every event the panel is given, before the panel shows the last
        stages.extend(e.text for e in events if isinstance(e, TrainingStage))
        on_progress(events)

    panel._on_progress = seen
    panel.continue_run(info)
    qtbot.waitUntil(lambda: len(panel.plot.steps) > 0, timeout=60_000)
    # the first epoch, from the checkpoint, before the resumed steps
    assert panel.plot.epoch_steps == [per_epoch]
    assert panel.plot.steps[0] > per_epoch
    qtbot.waitUntil(lambda: window.state.model_path == folder and not panel.is_training(),
                    timeout=120_000)
    measuring = [s for s in stages if s.startswith("Measuring the held-out MAP")]
    assert [s.rsplit(" ", 2)[-2:] for s in measuring] == [["epoch", "2"], ["epoch", "3"]]
