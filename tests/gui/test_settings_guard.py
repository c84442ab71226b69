"""The training form guards its settings: the mouse wheel changes a field only once it has the
focus, every number keeps to the range TrainSettings allows, and a value the trainer would
refuse is named, with the reason, and cannot be trained."""

import pytest
from gui_helpers import open_collection
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QSpinBox

from expert_gui.core.train.settings import RANGES

pytestmark = pytest.mark.gui


def wheel(widget, steps: int = -3) -> None:
    """Scroll the mouse wheel over the middle of `widget`."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    for _ in range(abs(steps)):
        event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                            QPoint(0, 120 if steps > 0 else -120), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(widget, event)


def test_the_wheel_does_not_change_a_field_without_the_focus(qtbot, window):
    window.show_panel("Training")
    form = window.training_panel.form
    eps, epochs, optimizer = (form.widgets[n] for n in ("eps", "epochs", "optimizer"))
    window.training_panel.train_button.setFocus()
    for widget in (eps, epochs, optimizer):
        wheel(widget)
    assert form.settings().eps == 1e-6 and form.settings().epochs == 5
    assert form.settings().optimizer == "adadelta"
    assert eps.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not focus it
    eps.setFocus()
    qtbot.waitUntil(eps.hasFocus, timeout=5000)
    wheel(eps, 1)
    assert form.settings().eps == pytest.approx(1e-5)  # focused: arrows step by tens


def test_the_fields_step_within_the_settings_ranges(window):
    form = window.training_panel.form
    for name, r in RANGES.items():
        w = form.widgets[name]
        assert isinstance(w, QSpinBox | QDoubleSpinBox)
        assert w.limits is r  # the arrows and the wheel keep to it; a typed value is named
        assert f"Must be {r.text()}" in w.toolTip()
    assert form.widgets["learning_rate"].text() == "optimizer's default"  # what 0 means


def test_a_value_the_trainer_refuses_is_named_and_cannot_train(qtbot, window):
    open_collection(qtbot, window)
    panel = window.training_panel
    assert panel.train_button.isEnabled() and not panel.problem_label.isVisible()
    panel.form.set_value("eps", 0.0)
    assert panel.form.widgets["eps"].text() == "0"
    assert not panel.train_button.isEnabled()
    assert panel.problem_label.isVisible()
    assert "eps must be in (0, 1)" in panel.problem_label.text()
    assert "never moves" in panel.problem_label.text()
    assert "c92a2a" in panel.form.labels["eps"].styleSheet()  # the field is marked
    assert "Settings: edited" in panel.defaults_label.text()
    panel.form.set_value("eps", 1e-7)
    assert panel.form.widgets["eps"].text() == "1e-07"
    assert panel.train_button.isEnabled() and not panel.problem_label.isVisible()
    assert panel.form.labels["eps"].styleSheet() == ""


def test_the_text_settings_line_is_wrapped_not_cut(qtbot, window):
    open_collection(qtbot, window)
    window.show_panel("Training")
    label = window.training_panel.text_label
    assert label.wordWrap()
    assert "vocabulary" in label.text()


def test_ctrl_t_with_a_refused_value_says_why_without_an_error_dialog(qtbot, window):
    """Item 6: Eps 0, then Ctrl+T gave an 'Unexpected error (ValueError)' dialog, and the
    toolbar's Train stayed enabled while the panel's was disabled."""
    from PySide6.QtWidgets import QMessageBox

    open_collection(qtbot, window)
    panel = window.training_panel
    assert window.train_action.isEnabled()
    panel.form.set_value("eps", 0.0)
    assert not panel.train_button.isEnabled() and not window.train_action.isEnabled()
    assert "Cannot train: eps must be in (0, 1)" in window.train_action.toolTip()
    window.train_when_ready()  # as the menu or a shortcut would, were it enabled
    assert not window.findChildren(QMessageBox, "error-dialog")
    assert not panel.is_training()
    assert "Cannot train: eps must be in (0, 1)" in window.statusBar().currentMessage()
    panel.form.set_value("eps", 1e-6)
    assert window.train_action.isEnabled() and panel.train_button.isEnabled()


def test_a_typed_value_out_of_range_is_kept_and_named_not_clamped(qtbot, window):
    """Item 6: 1.5 typed into a fraction was changed silently."""
    window.show_panel("Training")
    panel = window.training_panel
    w = panel.form.widgets["validation_fraction"]
    w.setFocus()
    qtbot.waitUntil(w.hasFocus, timeout=5000)
    w.lineEdit().selectAll()
    qtbot.keyClicks(w.lineEdit(), "1.5")
    qtbot.keyClick(w.lineEdit(), Qt.Key.Key_Tab)
    assert w.text() == "1.5" and panel.form.values()["validation_fraction"] == 1.5
    assert "validation fraction must be in [0, 1), not 1.5" in panel.problem_label.text()
    panel.form.set_value("validation_fraction", 0.99)
    w.stepBy(1)  # the arrows stop at the valid range: 1 is not a share to hold out
    assert w.value() == pytest.approx(0.99)
    window.training_panel.form.widgets["window"].stepBy(-10)  # 8 down to its least, 1
    assert window.training_panel.form.values()["window"] == 1


def test_ctrl_t_on_another_panel_with_a_refused_value_says_why_and_shows_the_field(qtbot,
                                                                                   window):
    """Ctrl+T pressed on another tab with a refused value did nothing and said nothing: the
    disabled Train action took no shortcut."""
    open_collection(qtbot, window)
    panel = window.training_panel
    panel.form.set_value("eps", 0.0)
    window.show_panel("Query")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    edit = window.query_panel.query_edit
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert "Cannot train: eps must be in (0, 1)" in window.statusBar().currentMessage()
    assert not panel.is_training() and not window.train_action.isEnabled()
    assert not window.docks["Training"].visibleRegion().isEmpty()  # raised, its field marked
    qtbot.waitUntil(panel.form.widgets["eps"].hasFocus, timeout=5000)
