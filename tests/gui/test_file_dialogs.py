"""Files and folders as a desktop app handles them (issue 31, item 10): Export, Save report and
Export embeddings start in the last folder used (they opened in the program's folder), a ranking
is offered a name from its query and method, a name typed without an extension gets the type's, a folder typed in Open and entered leaves no
completion list to eat the next click, and the document viewer names people, not ids, and
counts '1 document'."""

from pathlib import Path

import pytest
from gui_helpers import GUI_COLLECTION, open_collection, random_model, save_random_model
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLineEdit

from expert_gui.core.data.loading import load_collection

pytestmark = pytest.mark.gui


def test_exports_start_in_the_last_folder_used_and_get_their_extension(qtbot, window,
                                                                        tmp_path, monkeypatch):
    model_path = save_random_model(load_collection(GUI_COLLECTION), "gui-model")
    open_collection(qtbot, window)
    window.training_panel.open_model(model_path)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    asked = []
    chosen = tmp_path / "exports"
    chosen.mkdir()

    def save_as(parent, title, start, filters):
        asked.append(start)
        return str(chosen / "ranking"), filters.split(";;")[0]  # typed without ".csv"

    def folder(parent, title, start):
        asked.append(start)
        return str(chosen)

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", folder)
    qp = window.query_panel
    qp.set_query("disk cache")
    qtbot.waitUntil(lambda: qp.export_button.isEnabled(), timeout=30_000)
    qp.export_ranking()
    assert (chosen / "ranking.csv").is_file() and not (chosen / "ranking").exists()
    assert Path(asked[0]).parent != Path.cwd() or Path.cwd() == chosen  # not the program's
    # the next dialogs start where the last file went
    window.profile_panel.export_embeddings()
    assert asked[1] == str(chosen)
    qtbot.waitUntil(lambda: not window.state.runner.running("export"), timeout=30_000)
    panel = window.comparison_panel
    with qtbot.waitSignal(panel.report_written, timeout=300_000):
        panel.save_report()
    assert asked[2] == str(chosen)
    qp.export_ranking()
    # named by the query and the method that ranked it, not "ranking.csv" for every query
    assert Path(asked[3]) == chosen / "disk-cache-auto.csv" and qp.ranked_by == "auto"


def test_a_folder_typed_and_entered_leaves_no_completion_list(qtbot, tmp_path):
    from expert_gui.gui.open_dialog import CollectionDialog

    (tmp_path / "collection").mkdir()
    dialog = CollectionDialog(None, ["All files (*)"], str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.show()
    edit = dialog.findChild(QLineEdit, "fileNameEdit")
    edit.setFocus()
    qtbot.keyClicks(edit, str(tmp_path / "collection"))
    popup = edit.completer().popup()
    qtbot.waitUntil(popup.isVisible, timeout=5_000)
    qtbot.keyClick(popup, Qt.Key.Key_Return)  # the list has the keyboard while it is open
    qtbot.waitUntil(lambda: Path(dialog.directory().absolutePath()) == tmp_path / "collection",
                    timeout=5_000)  # not "/", where Qt went for a whole path typed
    assert not popup.isVisible()  # the next click reaches "Open folder"
    qtbot.mouseClick(dialog.folder_button, Qt.MouseButton.LeftButton)
    assert dialog.chosen() == tmp_path / "collection"


def test_the_document_viewer_names_people_and_counts_one_document(qtbot, window, tmp_path):
    folder = tmp_path / "one-paper"
    folder.mkdir()
    (folder / "documents.tsv").write_text(
        "doc_id\ttext\nd1\tring buffers and lockless queues\nd2\tcrypto offload in the pmd\n"
        "d3\tring and crypto together\n", encoding="utf-8")
    (folder / "associations.tsv").write_text(
        "doc_id\tperson_id\nd1\tann\nd2\tann\nd3\tann\nd3\tbob\n", encoding="utf-8")
    (folder / "people.tsv").write_text("person_id\tname\nann\tAnn Archer\nbob\tBob Baker\n",
                                       encoding="utf-8")
    open_collection(qtbot, window, folder)
    collection = window.state.collection
    panel = window.collection_panel
    panel.select_person("bob")
    panel.documents_list.setCurrentRow(0)
    first = panel.document_view.toPlainText().splitlines()[0]
    assert "(Ann Archer, Bob Baker)" in first  # the people of d3, by name
    window.state.set_model(random_model(collection), None)
    window.profile_panel.show_person("bob")
    qtbot.waitUntil(lambda: window.profile_panel.profile is not None, timeout=30_000)
    status = window.profile_panel.status.text()
    assert "1 document" in status and "1 documents" not in status


@pytest.mark.parametrize("text, stem", [
    ("neural network", "neural-network"), ("  C++ / CUDA: kernels ", "C-CUDA-kernels"),
    ("My Library.rdf", "My-Library-rdf"), ("???", "ranking"), ("x" * 60, "x" * 40)])
def test_file_stem(text, stem):
    from expert_gui.gui.save_dialogs import file_stem

    assert file_stem(text, "ranking") == stem
