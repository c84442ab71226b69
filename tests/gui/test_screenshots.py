"""`expert-gui --screenshot DIR` ends, with the reason, when a step it waits for fails (issue 32
item 9: with a home that cannot be written, its training failed with a typed error and the run
waited for ever)."""

import pytest
from gui_helpers import GUI_COLLECTION, TINY_TRAINING

from expert_gui.gui import screenshots

pytestmark = pytest.mark.gui


def test_a_training_that_cannot_save_ends_the_screenshots_with_its_error(qtbot, window,
                                                                         tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.write_text("a file where the home folder should be", encoding="utf-8")
    monkeypatch.setenv("EXPERT_GUI_HOME", str(home))
    with pytest.raises(screenshots.ScreenshotError) as caught:
        screenshots.prepare(window, GUI_COLLECTION, training=TINY_TRAINING, timeout_s=20)
    message = str(caught.value)
    assert message.startswith("training failed: ")
    assert f"{home} is not a folder" in message
    assert not window.state.runner.running("training")


def test_a_step_that_never_ends_is_named(qtbot, window, monkeypatch):
    monkeypatch.setattr(window.training_panel, "start_training", lambda: None)  # no model comes
    with pytest.raises(screenshots.ScreenshotError, match="training had not ended after 1 s"):
        screenshots.prepare(window, GUI_COLLECTION, training=TINY_TRAINING, timeout_s=1)
