"""Collection panel: loading in the background, Table 1, the report, people and documents; a bad
file gives a readable error dialog and a log line, never a crash."""

import logging

import pytest
from gui_helpers import GUI_COLLECTION, open_collection
from PySide6.QtWidgets import QMessageBox

from expert_gui.gui.panels.collection import STAT_LABELS

pytestmark = pytest.mark.gui


def test_open_shows_table1_report_people_and_companion_topics(qtbot, window, collection):
    open_collection(qtbot, window)
    panel = window.collection_panel
    stats = collection.stats().to_dict()
    for row, (key, label, fmt) in enumerate(STAT_LABELS):
        assert panel.stats_table.item(row, 0).text() == label
        assert panel.stats_table.item(row, 1).text() == fmt.format(stats[key])
    assert "documents: 60" in panel.report_view.toPlainText()
    assert panel.people_proxy.rowCount() == 6
    # Topics and qrels beside the collection open with it.
    assert len(window.state.topics) == 6 and len(window.state.qrels) == 6
    assert "6 topics" in panel.topics_label.text()


def test_people_search_and_document_viewer(qtbot, window, collection):
    open_collection(qtbot, window)
    panel = window.collection_panel
    panel.people_search.setText("carol")
    assert panel.people_proxy.rowCount() == 1
    panel.select_person("carol")
    carol = collection.person_index["carol"]
    listed = [panel.documents_list.item(i).text() for i in range(panel.documents_list.count())]
    assert listed == [collection.title(d) for d in collection.documents_of(carol)]  # undated
    assert panel.documents_list.item(0).toolTip() == \
        collection.doc_ids[collection.documents_of(carol)[0]]
    panel.documents_list.setCurrentRow(0)
    first = collection.documents_of(carol)[0]
    assert collection.text(first) in panel.document_view.toPlainText()


def test_a_bad_collection_shows_an_error_dialog_and_logs_it(qtbot, window, tmp_path, caplog):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "documents.tsv").write_bytes(b"no header here at all\n\x00\x01")
    caplog.set_level(logging.ERROR)
    window.collection_panel.open_collection(bad)
    qtbot.waitUntil(lambda: bool(window.findChildren(QMessageBox, "error-dialog")),
                    timeout=30_000)
    box = window.findChildren(QMessageBox, "error-dialog")[0]
    assert "bad" in box.text() or "documents.tsv" in box.text()
    assert window.state.collection is None
    assert any("Cannot open" in r.getMessage() for r in caplog.records)


def test_a_second_open_replaces_the_first(qtbot, window):
    window.collection_panel.open_collection(GUI_COLLECTION / "no-such-folder")
    open_collection(qtbot, window)
    assert window.state.collection.n_documents == 60


def test_bad_topics_and_qrels_files_give_error_dialogs_naming_the_line(qtbot, window, tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("topic_id\tquery\nt1\t\n", encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 alice 1\nt1 0 bob\n", encoding="utf-8")
    window.collection_panel.open_topics(topics)
    window.collection_panel.open_qrels(qrels)
    texts = [b.text() for b in window.findChildren(QMessageBox, "error-dialog")]
    assert any(f"{topics}:2" in t for t in texts)
    assert any(f"{qrels}:2" in t for t in texts)
    assert window.state.topics == {} and window.state.qrels == {}


def test_a_long_id_does_not_push_the_counts_off_the_people_table(qtbot, window, tmp_path):
    """A Rayyan export's people table showed only the Person column, as wide as its longest id,
    with Name and Documents off to the side behind a scroll bar."""
    consortium = "the-" + "-".join(["international-consortium-for-expertise"] * 8)
    (tmp_path / "documents.tsv").write_text(
        "doc_id\ttext\nd1\tcache disk write\nd2\tinode journal\n", encoding="utf-8")
    (tmp_path / "associations.tsv").write_text(
        f"doc_id\tperson_id\nd1\t{consortium}\nd2\talice\nd2\t{consortium}\n", encoding="utf-8")
    window.resize(900, 700)
    open_collection(qtbot, window, tmp_path)
    view = window.collection_panel.people_view
    widths = [view.columnWidth(c) for c in range(3)]
    assert sum(widths) <= view.viewport().width()
    assert not view.isColumnHidden(2) and widths[2] >= view.sizeHintForColumn(2)
    assert widths[0] < view.sizeHintForColumn(0)  # the id shortens ("the-intern…")


def test_the_name_column_is_left_out_where_names_only_repeat_the_ids(qtbot, window, tmp_path):
    (tmp_path / "documents.tsv").write_text(
        "doc_id\ttext\nd1\tcache disk write\nd2\tinode journal\n", encoding="utf-8")
    (tmp_path / "associations.tsv").write_text(
        "doc_id\tperson_id\nd1\tc0001\nd2\tc0002\n", encoding="utf-8")
    view = window.collection_panel.people_view
    open_collection(qtbot, window, tmp_path)
    assert view.isColumnHidden(1) and not view.isColumnHidden(0)
    assert view.columnWidth(0) + view.columnWidth(2) == view.viewport().width()
    # with room to spare, the counts' header is whole ("Docum…" beside one-digit counts before)
    assert view.columnWidth(2) >= view.horizontalHeader().sectionSizeHint(2)
    open_collection(qtbot, window)  # people with names
    assert not view.isColumnHidden(1)
