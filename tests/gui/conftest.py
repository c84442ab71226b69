"""GUI fixtures: the tiny collection, a random model over it, and a main window whose background
work is always stopped at the end."""

from pathlib import Path

import pytest
from gui_helpers import GUI_COLLECTION, random_model

from expert_gui.core.data.loading import load_collection


@pytest.fixture
def collection_path() -> Path:
    return GUI_COLLECTION


@pytest.fixture
def collection():
    return load_collection(GUI_COLLECTION, use_cache=False)


@pytest.fixture
def model(collection):
    return random_model(collection)


@pytest.fixture
def window(qtbot):
    from expert_gui.gui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    # pytest-qt closes the window before this fixture's teardown: a test that fails while a
    # training runs must not leave "Stop training and quit?" waiting for an answer.
    win.confirm_stop_training = lambda: True
    win.show()
    yield win
    win.state.runner.stop_all()


@pytest.fixture(autouse=True, scope="session")
def _application(qapp):
    """The app as expert-gui sets it up (its garbage collected on the GUI thread only)."""
    from expert_gui.gui.app import create_application

    return create_application()
