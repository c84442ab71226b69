"""A collection's form offers the settings it was last trained with, in this session and the
next; Reset gives its defaults, and only the edits are kept."""

import pytest
from gui_helpers import GUI_COLLECTION, OTHER_COLLECTION, open_collection

from expert_gui.gui.app_settings import notices, settings
from expert_gui.gui.main_window import MainWindow
from expert_gui.gui.panels.training.remembered import _key

pytestmark = pytest.mark.gui


def train_and_stop(qtbot, window, **values):
    panel = window.training_panel
    for name, value in values.items():
        panel.form.set_value(name, value)
    panel.start_training()
    panel.stop_training()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=60_000)


def test_the_last_training_settings_come_back_with_their_collection(qtbot, window):
    open_collection(qtbot, window)
    panel = window.training_panel
    defaults = panel.form.values()
    train_and_stop(qtbot, window, epochs=3, dim=24)
    open_collection(qtbot, window, OTHER_COLLECTION)
    assert panel.form.values()["epochs"] != 3  # another collection: its own defaults
    open_collection(qtbot, window)
    values = panel.form.values()
    assert (values["epochs"], values["dim"]) == (3, 24)
    assert {k: v for k, v in values.items() if k not in ("epochs", "dim")} == \
        {k: v for k, v in defaults.items() if k not in ("epochs", "dim")}
    caption = panel.defaults_label.text()
    assert caption.startswith("Settings: as gui_collection was last trained (dim 24, epochs 3);")
    assert "Reset gives" in caption and panel.reset_button.isEnabled()
    panel.form.set_value("epochs", 4)  # edited again: no longer as last trained
    assert panel.defaults_label.text().startswith("Settings: edited;")
    panel.reset_form()
    assert panel.form.values() == defaults

    # the next session: a new window on the same settings file
    second = MainWindow()
    qtbot.addWidget(second)
    open_collection(qtbot, second)
    assert (second.training_panel.form.values()["epochs"],
            second.training_panel.form.values()["dim"]) == (3, 24)


def test_training_with_the_defaults_forgets_the_edits(qtbot, window):
    open_collection(qtbot, window)
    panel = window.training_panel
    train_and_stop(qtbot, window, epochs=3)
    panel.reset_form()
    train_and_stop(qtbot, window)
    open_collection(qtbot, window, OTHER_COLLECTION)
    open_collection(qtbot, window)
    assert panel.form.values()["epochs"] != 3
    assert not panel.reset_button.isEnabled()


def test_a_damaged_entry_is_ignored_and_said(qtbot, window):
    from expert_gui.core.data.loading import load_collection

    key = _key(load_collection(GUI_COLLECTION))
    settings().setValue(key, '{"epochs": -5, "dim": 24, "colour": 1}')
    notices()
    open_collection(qtbot, window)
    values = window.training_panel.form.values()
    assert values["dim"] == 24 and values["epochs"] != -5
    said = " ".join(notices())
    assert "epochs = -5" in said and "colour" in said
    settings().setValue(key, "not json")
    open_collection(qtbot, window, OTHER_COLLECTION)
    open_collection(qtbot, window)
    assert "was ignored" in " ".join(notices()) and settings().value(key) is None
