"""Small modules (issue 31, item 11): the training panel, 701 lines in one module, is split as
the other panels were, each of its modules under the ~600 lines past which a module says why."""

from pathlib import Path

import pytest

import expert_gui.gui.panels.training as training

pytestmark = pytest.mark.gui


def test_the_training_panels_modules_are_small():
    folder = Path(training.__file__).parent
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines())
             for p in folder.glob("*.py")}
    assert sizes["panel.py"] <= 600 and max(sizes.values()) <= 600, sizes
    assert "model_list.py" in sizes  # the saved models and their opening, apart from the run
