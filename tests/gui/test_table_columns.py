"""Opening a table of publications in the GUI (issue 12): its detected columns are shown with
its first rows, can be changed, and the load uses the choice."""

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from expert_gui.core.data.formats.presets import PRESETS
from expert_gui.core.data.formats.table import preview
from expert_gui.gui.table_columns import GENERATED, TableColumnsDialog

pytestmark = pytest.mark.gui

TABLES = Path(__file__).parent.parent / "fixtures" / "collections" / "tables"


def dialog_for(qtbot, name):
    dialog = TableColumnsDialog(name, preview(TABLES / name))
    qtbot.addWidget(dialog)
    return dialog


def checked(dialog):
    items = [dialog.text_columns.item(i) for i in range(dialog.text_columns.count())]
    return [it.text() for it in items if it.checkState() == Qt.CheckState.Checked]


def test_the_detected_columns_are_shown_and_can_be_changed(qtbot, tmp_path):
    dialog = dialog_for(qtbot, "publications.csv")
    dialog.resize(900, 560)
    dialog.grab().save(str(tmp_path / "table-columns.png"))
    assert dialog.table.rowCount() == 4 and dialog.table.columnCount() == 4
    assert dialog.table.item(0, 2).text().startswith("Van Gysel, Christophe")
    assert checked(dialog) == ["title", "abstract"]
    assert dialog.people_column.currentText() == "authors"
    assert dialog.id_column.currentText() == GENERATED
    dialog.text_columns.item(1).setCheckState(Qt.CheckState.Unchecked)
    dialog.id_column.setCurrentText("year")
    chosen = dialog.columns()
    assert chosen.text == ("title",) and chosen.id == "year" and chosen.people == "authors"
    dialog.text_columns.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert dialog.columns() is None
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


def test_a_preset_is_recognised_and_can_be_chosen(qtbot):
    dialog = dialog_for(qtbot, "scopus.csv")
    assert dialog.preset.currentText() == "scopus" and dialog.columns() == PRESETS["scopus"]
    dialog.preset.setCurrentText("zotero")  # not a Zotero export: said so, nothing breaks
    assert "not a zotero export" in dialog.status.text()
    dialog = dialog_for(qtbot, "zotero.csv")
    assert dialog.columns() == PRESETS["zotero"]
    dialog.people_column.setCurrentText("Editor")
    assert dialog.preset.currentText() == "Custom" and dialog.columns().people == "Editor"


def test_opening_a_table_asks_for_its_columns_then_loads(qtbot, window):
    panel = window.collection_panel
    panel.open_collection(TABLES / "publications.csv")

    def dialog():
        found = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, TableColumnsDialog) and w.isVisible()]
        assert found
        return found[0]

    qtbot.waitUntil(lambda: dialog() is not None, timeout=10_000)
    shown = dialog()
    shown.text_columns.item(1).setCheckState(Qt.CheckState.Unchecked)  # the title only
    shown.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: window.state.collection is not None, timeout=20_000)
    collection = window.state.collection
    assert collection.n_documents == 4 and collection.report.format == "table"
    assert collection.text(0) == "Unsupervised efficient and semantic expertise retrieval"


EXPORTS = TABLES.parent / "exports"


def test_an_export_preset_is_fitted_and_kept_whole(qtbot):
    # issue 20: a Scopus file without Abstract is still Scopus; Web of Science's Excel export
    # reads `Authors` where `Author Full Names` is empty, which the dialog does not show
    dialog = TableColumnsDialog("scopus.csv", preview(EXPORTS / "scopus_no_abstract.csv"))
    qtbot.addWidget(dialog)
    assert dialog.preset.currentText() == "scopus" and dialog.columns().preset == "scopus"
    assert checked(dialog) == ["Title", "Author Keywords"]
    dialog = TableColumnsDialog("wos.csv", preview(EXPORTS / "wos_excel.csv"))
    qtbot.addWidget(dialog)
    assert dialog.columns().people_fallback == "Authors"
    assert dialog.people_style.currentData() == "names"
    dialog = TableColumnsDialog("PoPCites.csv", preview(EXPORTS / "PoPCites.csv"))
    qtbot.addWidget(dialog)
    assert dialog.people_style.currentData() == "comma"


def test_the_open_dialog_lists_the_exports():
    from expert_gui.gui.panels.collection import COLLECTION_FILE_FILTERS

    offered = ";;".join(COLLECTION_FILE_FILTERS)
    for kind in ("Web of Science", "PubMed: MEDLINE, XML or CSV", "Scopus", "CSL-JSON",
                 "EndNote XML", "*.nbib", "*.json", "*.xml", "*.ciw"):
        assert kind in offered, kind
    assert all(p in COLLECTION_FILE_FILTERS[0] for p in ("*.nbib", "*.json", "*.txt", "*.xml"))
