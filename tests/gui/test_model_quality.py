"""A model that learned little is shown as such, and every saved model says enough to tell a bad
run from a good one: its held-out MAP, what its settings change, and its date."""

import html
import time

import pytest
from fixtures import one_paper_authors
from gui_helpers import open_collection, random_model, set_training

from expert_gui.core.evaluation.quality import chance_measures
from expert_gui.core.paths import models_dir
from expert_gui.core.store.manifest import MEMBERS
from expert_gui.core.store.storage import save_model
from expert_gui.core.train.settings import TrainSettings

pytestmark = pytest.mark.gui


def saved(collection, name: str, loglinear: float, settings: dict, baselines: float = 0.5,
          auto: float | None = None):
    """A model of `collection` saved with a calibration whose held-out MAP is `loglinear` (and
    `auto`'s, by default the better of it and the baselines')."""
    model = random_model(collection)
    model.settings = {**TrainSettings().to_dict(), **settings}
    model.calibration = {
        "held_out": {"fraction": 0.02, "minimum": 1, "maximum": 1000, "seed": 0,
                     "documents": collection.doc_ids[:10]},  # enough to tell
        "fusion": {"members": list(MEMBERS), "weights": [1 / 3] * 3,
                   "normalisation": "z-score"},
        "measures": {"loglinear": {"AP": loglinear, "RR": loglinear},
                     "model2-jm": {"AP": baselines, "RR": baselines},
                     "model1-d": {"AP": baselines, "RR": baselines},
                     "auto": {"AP": max(loglinear, baselines) if auto is None else auto,
                              "RR": baselines},
                     "chance": chance_measures([1], collection.n_people)}}
    return save_model(model, models_dir() / name)


def listed(panel) -> dict[str, str]:
    items = (panel.models_list.item(i) for i in range(panel.models_list.count()))
    return {it.text().split(" · ")[0]: it for it in items}


def test_each_saved_model_says_its_map_its_changed_settings_and_its_date(qtbot, window,
                                                                         collection):
    saved(collection, "good", 0.9, {"dim": 128, "epochs": 10, "threads": 1})
    saved(collection, "bad", 0.064, {"eps": 0.0001, "epochs": 1}, auto=0.3)
    saved(collection, "plain", 0.8, {})
    # the log-linear model as bad, but auto holds up (as good as the baselines): no alarm
    saved(collection, "held", 0.064, {"eps": 0.0001, "epochs": 1})
    open_collection(qtbot, window)
    items = listed(window.training_panel)
    good, bad, plain, held = (items[n].text() for n in ("good", "bad", "plain", "held"))
    today = time.strftime("%Y-%m-%d")
    assert good.startswith(f"good · {today} ")
    assert "held-out MAP 0.900 (auto 0.900) · dim 128, epochs 10" in good
    assert "threads" not in good  # how it ran, not what it made
    assert "held-out MAP 0.800" in plain and "the paper's defaults" in plain
    assert "held-out MAP 0.064 (auto 0.300) · eps 0.0001, epochs 1" in bad
    assert "\n\u26a0 held-out MAP 0.064 is below chance (0.408" in bad  # 6 people
    assert "auto's 0.300 is below Model 2 (jm)'s too" in bad
    assert "held-out MAP 0.064 (auto 0.500)" in held and "\u26a0" not in held
    assert items["bad"].foreground().color().name() == "#c92a2a"
    assert "\u26a0" not in good and items["good"].foreground().color().name() != "#c92a2a"
    assert len({good.split("\n")[1], bad.split("\n")[1], plain.split("\n")[1]}) == 3


def test_a_weak_model_is_warned_of_on_the_model_and_in_the_status_bar(qtbot, window,
                                                                      collection):
    folder = saved(collection, "weak", 0.6, {}, auto=0.45)  # chance: 0.408
    open_collection(qtbot, window)
    window.training_panel.open_model(folder)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    assert "\u26a0 held-out MAP 0.600 is near chance" in window.model_label.text()
    assert "c92a2a" in window.model_label.styleSheet()
    assert "held-out MAP 0.600 is near chance" in window.training_panel.status_label.text()


def test_training_that_learned_nothing_ends_with_a_warning(qtbot, window):
    open_collection(qtbot, window)
    # Adadelta with a tiny eps takes steps of about sqrt(eps): the model stays where it began.
    set_training(window, eps=1e-14, epochs=1)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    said = panel.status_label.text()
    assert "Trained; saved in" in said
    # once: the run's end and the open model's line had each said it (16 lines of the panel)
    assert said.count("chance (") == 1 and said.count("learned little") == 1
    assert "\u26a0" in window.model_label.text()
    assert "\u26a0" in listed(panel)[window.state.model_path.name].text()


def test_a_collection_too_small_for_held_out_documents_says_so_when_trained(qtbot, window):
    # PubMed-like: every paper by people who wrote nothing else in it
    open_collection(qtbot, window, one_paper_authors.FOLDER)
    set_training(window, epochs=1)
    panel = window.training_panel
    panel.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and panel.run_settled(),
                    timeout=120_000)
    status = html.unescape(panel.status_label.text())
    assert "Trained; saved in" in status
    assert ("No document can be held out to measure the model: a held-out document's people "
            "must each keep another document, and 60 of the 60 people have only one") in status
    assert "\u26a0" not in window.model_label.text()  # a fact about the collection, not a fault
