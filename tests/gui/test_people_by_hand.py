"""People by hand in the app: merge two people and split a spelling off one from the collection
panel and the profile, undo, the load report, a model trained before the edit, and the names
that "Search people" and the people filter suggest for a partial or differently written one."""

import shutil
from pathlib import Path

import pytest
from gui_helpers import open_collection, random_model
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QInputDialog

from expert_gui.core.data.formats.people_edits import edits_path

pytestmark = pytest.mark.gui

TOBLER = Path(__file__).parent.parent / "fixtures" / "people-edits" / "tobler.bib"


@pytest.fixture
def bib(tmp_path) -> Path:
    return Path(shutil.copy(TOBLER, tmp_path / "tobler.bib"))


def select(panel, *person_ids) -> None:
    view, selection = panel.people_view, panel.people_view.selectionModel()
    selection.clearSelection()
    for pid in person_ids:
        source = panel.people_model.findItems(pid)[0].index()
        selection.select(panel.people_proxy.mapFromSource(source),
                         QItemSelectionModel.SelectionFlag.Select
                         | QItemSelectionModel.SelectionFlag.Rows)
    view.setFocus()


def answer_item(monkeypatch, containing: str) -> list:
    """QInputDialog.getItem picks the choice holding `containing`; the choices offered are kept."""
    offered = []

    def get_item(_parent, _title, _label, choices, *_args):
        offered.append(list(choices))
        return next(c for c in choices if containing in c), True

    monkeypatch.setattr(QInputDialog, "getItem", get_item)
    return offered


def reloaded(qtbot, window, action) -> None:
    before = window.state.collection
    action()
    qtbot.waitUntil(lambda: window.state.collection is not before
                    and not window.state.runner.running("load"), timeout=30_000)


def test_merge_two_people_from_the_collection_panel_then_undo(qtbot, window, bib, monkeypatch):
    open_collection(qtbot, window, bib)
    panel = window.collection_panel
    assert not panel.merge_button.isEnabled() and not panel.undo_button.isEnabled()
    select(panel, "waldo-r-tobler", "tobler")
    assert panel.merge_button.isEnabled()
    offered = answer_item(monkeypatch, "(waldo-r-tobler)")
    reloaded(qtbot, window, panel.merge_button.click)
    assert offered == [["Waldo R. Tobler (waldo-r-tobler)", "Tobler (tobler)"]]
    c = window.state.collection
    assert "tobler" not in c.person_ids
    assert len(c.documents_of(c.person_index["waldo-r-tobler"])) == 4
    assert edits_path(bib).read_text().endswith("merge\ttobler\twaldo-r-tobler\n")
    report = panel.report_view.toPlainText().split("\n\n", 1)[1]  # the problems, one a line
    assert report.startswith(f"{edits_path(bib)}: 1 person merged by hand\n")
    assert panel.selected_people() == ["waldo-r-tobler"]  # the person kept, shown
    assert panel.undo_button.isEnabled()
    assert "merge «tobler» into «waldo-r-tobler»" in panel.undo_button.toolTip()

    reloaded(qtbot, window, panel.undo_button.click)
    assert "tobler" in window.state.collection.person_ids
    assert not edits_path(bib).exists()
    assert not panel.undo_button.isEnabled()


def test_split_a_spelling_off_from_the_collection_panel(qtbot, window, bib, monkeypatch):
    open_collection(qtbot, window, bib)
    panel = window.collection_panel
    select(panel, "tobler")
    assert not panel.split_button.isEnabled()  # written one way only
    select(panel, "waldo-r-tobler")
    assert panel.split_button.isEnabled()
    offered = answer_item(monkeypatch, "W. Tobler")
    reloaded(qtbot, window, panel.split_button.click)
    assert offered == [["Waldo R. Tobler", "W. Tobler"]]
    c = window.state.collection
    assert c.person_names[c.person_index["w-tobler"]] == "W. Tobler"
    assert "1 spelling split off" in panel.report_view.toPlainText()


def test_merge_from_the_profile_closes_a_model_trained_before(qtbot, window, bib, monkeypatch):
    open_collection(qtbot, window, bib)
    window.state.set_model(random_model(window.state.collection), None)
    profile = window.profile_panel
    profile.show_person("waldo-r-tobler")
    assert profile.merge_button.isEnabled()
    monkeypatch.setattr(QInputDialog, "getText", lambda *_a, **_k: ("Tobler", True))
    offered = answer_item(monkeypatch, "(w-e-tobler)")
    dropped = []
    window.state.model_dropped.connect(dropped.append)
    reloaded(qtbot, window, profile.merge_button.click)
    # "Tobler" may be any Tobler but the person shown; the bare family name among them
    assert "Tobler (tobler)" in offered[0] and "Waldo R. Tobler (waldo-r-tobler)" not in offered[0]
    assert "w-e-tobler" not in window.state.collection.person_ids
    assert window.state.model is None  # its people are those before the merge
    assert "train again" in dropped[0]


def test_search_people_finds_a_name_written_another_way(qtbot, window, bib):
    open_collection(qtbot, window, bib)
    panel = window.collection_panel
    qtbot.waitUntil(lambda: panel.search is not None, timeout=30_000)
    panel.people_search.setText("W. Tobler")
    shown = {panel.people_proxy.index(r, 0).data() for r in range(panel.people_proxy.rowCount())}
    assert {"waldo-r-tobler", "tobler", "w-e-tobler"} <= shown
    assert "jane-smith" not in shown
    panel.people_search.setText("SMITH")
    assert panel.people_proxy.rowCount() == 1


def test_the_people_filter_suggests_the_names_a_line_may_mean(qtbot, window, bib):
    from expert_gui.gui.people_filter import PeopleFilterDialog

    open_collection(qtbot, window, bib)
    c = window.state.collection
    dialog = PeopleFilterDialog(c.person_ids, c.person_names, [])
    qtbot.addWidget(dialog)
    dialog.text.setPlainText("W. Tobler\n")
    dialog.accept()
    assert dialog.result() == 0
    assert "did you mean «Waldo R. Tobler» (waldo-r-tobler), «Tobler» (tobler)" in \
        dialog.problem.text()


def test_the_profile_offers_the_people_a_typed_name_may_mean(qtbot, window, bib):
    open_collection(qtbot, window, bib)
    window.state.set_model(random_model(window.state.collection), None)
    profile = window.profile_panel
    profile.person_edit.setText("W. Tobler")
    profile._typed()
    assert 'href="waldo-r-tobler"' in profile.status.text()
    assert 'href="tobler"' in profile.status.text()
