"""Small modules: every module of the app's GUI stays at most 700 lines, and the panels split
into packages (training, reviewers) keep each of theirs under the ~600 lines past which a module
says why."""

from pathlib import Path

import pytest

import expert_gui.gui as gui
import expert_gui.gui.panels.reviewers as reviewers
import expert_gui.gui.panels.training as training

pytestmark = pytest.mark.gui


def sizes(folder: Path, pattern: str = "*.py") -> dict[str, int]:
    return {str(p.relative_to(folder)): len(p.read_text(encoding="utf-8").splitlines())
            for p in folder.glob(pattern)}


def test_every_gui_module_is_at_most_700_lines():
    found = sizes(Path(gui.__file__).parent, "**/*.py")
    assert "panels/query.py" in found and "main_window.py" in found
    assert max(found.values()) <= 700, {k: v for k, v in found.items() if v > 700}


def test_the_training_panels_modules_are_small():
    found = sizes(Path(training.__file__).parent)
    assert found["panel.py"] <= 600 and max(found.values()) <= 600, found
    assert "model_list.py" in found  # the saved models and their opening, apart from the run


def test_the_reviewers_panels_modules_are_small():
    found = sizes(Path(reviewers.__file__).parent)
    assert max(found.values()) <= 600, found
    assert {"panel.py", "form.py", "assignment_view.py", "work.py"} <= set(found)
