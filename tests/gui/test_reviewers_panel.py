"""The Reviewers panel: papers from outside read with their authors found among the people,
conflicts with their reasons, an assignment that keeps K per paper, M per person and every
conflict out, pins and forbidden pairs kept by a new solve, obstacles said in words, the CSV
export, the settings remembered, and nothing left from a collection closed."""

import csv

import pytest
from gui_helpers import OTHER_COLLECTION, random_model
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox, QPushButton

from expert_gui.core.data.loading import load_collection
from expert_gui.core.reviewers.files import ASSIGNMENT_COLUMNS
from expert_gui.gui.panels.reviewers import panel as panel_module
from expert_gui.gui.panels.reviewers.panel import RUN, ReviewersPanel
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui

# The GUI collection's people: alice, bob, carol, dave, erin, frank (filesystems, networks,
# graphics); s1 is Alice's, s2 Bob's by his initials, s4 names no author.
PAPERS = ("id\ttitle\tabstract\tauthors\n"
          "s1\tDisk caches\tA disk cache with journal writes and flush\tAlice Archer; Zed Zulu\n"
          "s2\tPacket sockets\tpacket socket network driver queue\tB. Baker\n"
          "s3\tShader work\tshader texture render pipeline\tQuinn Quill\n"
          "s4\tFilesystem inode\tfilesystem inode write refactor\t\n")


@pytest.fixture
def papers_file(tmp_path):
    path = tmp_path / "submissions.tsv"
    path.write_text(PAPERS, encoding="utf-8")
    return path


@pytest.fixture
def ready(qtbot, collection, model, collection_path, papers_file):
    """The panel with the collection, a model and the papers open."""
    state = AppState()
    panel = ReviewersPanel(state)
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    panel.show()
    state.set_collection(collection, collection_path)
    state.set_model(model, None)
    panel.open_papers(papers_file)
    qtbot.waitUntil(lambda: panel.submissions is not None, timeout=20_000)
    yield panel
    state.runner.stop_all()


def run(qtbot, panel, k=2, most=2, least=0):
    panel.form.per_paper.setValue(k)
    panel.form.max_per_person.setValue(most)
    panel.form.min_per_person.setValue(least)
    panel.run()
    qtbot.waitUntil(lambda: panel.state.runner.unhandled(RUN) is None and (
        panel.result is not None or bool(panel.obstacles)), timeout=30_000)


def solve(qtbot, panel):
    before = panel.result
    panel.solve_again()
    qtbot.waitUntil(lambda: panel.state.runner.unhandled(RUN) is None and (
        panel.result is not before or bool(panel.obstacles)), timeout=30_000)


def cells(table, columns) -> list[list[str]]:
    return [[table.item(r, c).text() for c in columns] for r in range(table.rowCount())]


def assigned(panel) -> dict[str, set[str]]:
    """Paper id -> the people the By paper tab lists as assigned (its ✓ rows)."""
    view, out = panel.by_paper, {}
    for row in range(view.papers.rowCount()):
        view.papers.selectRow(row)
        paper = view.papers.item(row, 0).text()
        out[paper] = {view.people.item(r, 1).text() for r in range(view.people.rowCount())
                      if view.people.item(r, 0).text() == "✓"}
    return out


def test_the_papers_show_their_authors_as_found_and_the_load_report(ready):
    table = ready.papers_view.table
    assert cells(table, (0, 1)) == [["s1", "Disk caches"], ["s2", "Packet sockets"],
                                    ["s3", "Shader work"], ["s4", "Filesystem inode"]]
    authors = cells(table, (2,))
    assert authors[0] == ["Alice Archer ✓, Zed Zulu"] and authors[1] == ["B. Baker ✓"]
    assert "Bob Baker (bob)" in table.item(1, 2).toolTip()  # who the initials are
    assert "not in the collection" in table.item(0, 2).toolTip()
    assert "1 of 4 papers name no authors" in ready.papers_view.report.toPlainText()
    assert "4 papers × 3 = 12 reviews; 6 people × at most 6 = 36" in \
        ready.capacity_label.text()
    assert ready.run_button.isEnabled() and not ready.solve_button.isEnabled()


def test_a_run_keeps_k_per_paper_m_per_person_and_every_conflict_out(qtbot, ready):
    run(qtbot, ready, k=2, most=2)
    # the conflicts, with their reasons
    conflicts = cells(ready.conflicts_view.table, (0, 1, 3))
    assert ["s1", "alice", "an author of the paper (Alice Archer: the same name)"] in conflicts
    assert ["s2", "bob", "an author of the paper (B. Baker: initials of «Bob Baker»)"] in \
        conflicts
    assert ready.conflicts_view.summary.text().startswith("2 pairs in conflict, on 2 of 4 "
                                                          "papers: 2 authors")
    assert cells(ready.papers_view.table, (3,)) == [["1"], ["1"], ["0"], ["0"]]
    # the assignment, as the tables show it
    shown = assigned(ready)
    assert all(len(people) == 2 for people in shown.values()) and len(shown) == 4
    assert "alice" not in shown["s1"] and "bob" not in shown["s2"]
    loads = {ready.by_person.people.item(r, 0).text(): int(ready.by_person.people.item(r, 2)
                                                           .text())
             for r in range(ready.by_person.people.rowCount())}
    assert max(loads.values()) <= 2 and sum(loads.values()) == 8
    for person, load in loads.items():  # both ways read the same assignment
        assert load == sum(person in people for people in shown.values())
    # every number says what made it
    label = ready.result.prepared.label
    assert label in ready.summary.text() and "Log-linear (prior once) 0.33" in label
    assert label in ready.by_paper.people.horizontalHeaderItem(3).toolTip()
    # the conflicted pair is listed for its paper, with why, and not assigned
    ready.by_paper.papers.selectRow(0)
    statuses = dict(cells(ready.by_paper.people, (1, 5)))
    assert statuses["alice"].startswith("conflict: an author of the paper")
    assert "Closest documents" in ready.by_paper.evidence.toPlainText()  # the first, assigned


def test_pinned_and_forbidden_pairs_hold_when_solved_again(qtbot, ready):
    run(qtbot, ready, k=2, most=2)
    view = ready.by_paper
    view.papers.selectRow(0)  # s1
    before = assigned(ready)["s1"]
    view.papers.selectRow(0)
    rows = [view.people.item(r, 1).text() for r in range(view.people.rowCount())]
    pin = next(p for p in rows if p not in before and p != "alice")  # not assigned, allowed
    forbid = next(iter(sorted(before)))
    ready.tabs.setCurrentWidget(view)
    ready.activateWindow()
    view.people.setFocus()
    qtbot.waitUntil(view.people.hasFocus, timeout=5_000)
    view.people.selectRow(rows.index(pin))
    qtbot.keyClick(view.people, Qt.Key.Key_P)  # the keyboard
    rows = [view.people.item(r, 1).text() for r in range(view.people.rowCount())]
    view.people.selectRow(rows.index(forbid))
    view.findChild(QPushButton, "forbid-button").click()  # a button
    assert ready.marks == {("s1", pin): "pin", ("s1", forbid): "forbid"}
    assert "Solve again" in ready.notice.text()
    assert cells(ready.pins_view.table, (0, 1, 3)) == [["pinned", "s1", pin],
                                                       ["forbidden", "s1", forbid]]
    solve(qtbot, ready)
    now = assigned(ready)
    assert pin in now["s1"] and forbid not in now["s1"] and len(now["s1"]) == 2
    assert all(len(people) == 2 for people in now.values())
    view.papers.selectRow(0)
    statuses = dict(cells(view.people, (1, 5)))
    assert statuses[pin] == "assigned, pinned" and statuses[forbid] == "forbidden"
    # a conflict cannot be pinned: said, not kept
    rows = [view.people.item(r, 1).text() for r in range(view.people.rowCount())]
    view.people.selectRow(rows.index("alice"))
    view.actions.trigger("pin")
    assert ("s1", "alice") not in ready.marks and "may not review s1" in ready.notice.text()
    # released from the list
    ready.pins_view.table.selectRow(0)
    ready.pins_view.remove_button.click()
    assert ready.marks == {("s1", forbid): "forbid"}


def test_an_impossible_setting_says_why_in_words_not_a_traceback(qtbot, ready):
    ready.form.per_paper.setValue(3)
    ready.form.max_per_person.setValue(1)
    assert "too few" in ready.capacity_label.text()  # said before any run
    run(qtbot, ready, k=3, most=1)  # 12 reviews, 6 people give at most 6
    text = ready.notice.text()
    assert "No assignment exists with these settings" in text
    assert "the papers need 12 reviews but the people can give at most 6, 6 short" in text
    assert "raise the maximum per person" in text and "Traceback" not in text
    assert ready.result is None and not ready.export_button.isEnabled()
    assert not [b for b in ready.findChildren(QMessageBox) if b.isVisible()]
    assert ready.solve_button.isEnabled()  # the quotas need no new Run
    ready.form.max_per_person.setValue(3)
    solve(qtbot, ready)
    assert ready.result is not None and not ready.obstacles
    assert "No assignment" not in ready.notice.text()


def test_the_exported_csv_reads_back_with_its_columns(qtbot, ready, tmp_path, monkeypatch):
    run(qtbot, ready, k=2, most=3)
    out = tmp_path / "assignment.csv"
    monkeypatch.setattr(panel_module, "save_file", lambda *a, **k: (out, "CSV (*.csv)"))
    ready.export_files(affinities=False)
    qtbot.waitUntil(lambda: out.exists() and not ready.state.runner.running(
        "reviewers-export"), timeout=20_000)
    with open(out, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:len(ASSIGNMENT_COLUMNS)] == list(ASSIGNMENT_COLUMNS)
    assert {"affinity_by", "model", "collection", "papers", "settings"} <= set(rows[0])
    assert len(rows) == 8 and {r["paper_id"] for r in rows} == {"s1", "s2", "s3", "s4"}
    assert ("s1", "alice") not in {(r["paper_id"], r["person_id"]) for r in rows}
    tsv = tmp_path / "affinities.tsv"
    monkeypatch.setattr(panel_module, "save_file", lambda *a, **k: (tsv, "TSV (*.tsv)"))
    ready.export_files(affinities=True)
    qtbot.waitUntil(lambda: tsv.exists(), timeout=20_000)
    lines = tsv.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["paper_id", "person_id", "affinity", "conflict"]
    assert len(lines) == 1 + 4 * 6


def test_a_collection_change_clears_what_belonged_to_the_old_one(qtbot, ready):
    run(qtbot, ready)
    ready.by_paper.papers.selectRow(1)
    ready.by_paper.actions.trigger("forbid")
    assert ready.marks
    other = load_collection(OTHER_COLLECTION, use_cache=False)
    ready.state.set_collection(other, OTHER_COLLECTION)  # closes the model: other people
    assert ready.state.model is None
    assert ready.result is None and ready.prepared is None and not ready.marks
    assert ready.by_paper.papers.rowCount() == 0 and ready.by_person.people.rowCount() == 0
    assert ready.conflicts_view.table.rowCount() == 0
    assert ready.papers_view.table.rowCount() == 4  # the papers stay, matched anew
    assert "✓" not in ready.papers_view.table.item(0, 2).text()
    qtbot.waitUntil(lambda: ready.submissions.collection is other, timeout=10_000)
    assert "not in the collection" in ready.papers_view.table.item(1, 2).toolTip()
    assert "needs a trained model" in ready.notice.text()
    assert not ready.run_button.isEnabled() and not ready.export_button.isEnabled()
    ready.state.set_model(random_model(other), None)
    assert ready.run_button.isEnabled()


def test_co_authors_conflict_within_the_window_and_the_settings_come_back(qtbot, tmp_path):
    folder = tmp_path / "dated"
    folder.mkdir()
    (folder / "documents.tsv").write_text(
        "doc_id\tdate\ttext\n"
        "a1\t2010-01-01\tdisk cache journal flush\n"
        "a2\t2020-01-01\tdisk cache write inode\n"
        "b1\t2019-06-01\tpacket socket driver\n"
        "c1\t2020-03-01\tshader texture render\n", encoding="utf-8")
    (folder / "associations.tsv").write_text(
        "doc_id\tperson_id\na1\tann\na1\tben\na2\tann\na2\tcat\nb1\tben\nc1\tcat\n",
        encoding="utf-8")
    (folder / "people.tsv").write_text("person_id\tname\nann\tAnn Archer\nben\tBen Baker\n"
                                       "cat\tCat Cole\n", encoding="utf-8")
    papers = tmp_path / "p.tsv"
    papers.write_text("id\ttitle\tabstract\tauthors\np1\tCaches\tdisk cache\tAnn Archer\n"
                      "p2\tSockets\tpacket socket\t\n", encoding="utf-8")
    collection = load_collection(folder, use_cache=False)
    state = AppState()
    panel = ReviewersPanel(state)
    qtbot.addWidget(panel)
    state.set_collection(collection, folder)
    state.set_model(random_model(collection), None)
    panel.open_papers(papers)
    qtbot.waitUntil(lambda: panel.submissions is not None, timeout=20_000)
    panel.form.coauthor_years.setText("5")  # Ben wrote with Ann in 2010 only
    panel.form.coauthor_years.editingFinished.emit()
    run(qtbot, panel, k=1, most=1)
    reasons = {(p, who): why for p, who, why in cells(panel.conflicts_view.table, (0, 1, 3))}
    assert set(reasons) == {("p1", "ann"), ("p1", "cat")}
    assert "co-author of the paper's author Ann Archer" in reasons[("p1", "cat")]
    panel.form.coauthor_years.setText("")  # every document: Ben too (applied when cleared)
    assert not panel.solve_button.isEnabled()  # the conflicts changed: Run, not Solve again
    run(qtbot, panel, k=1, most=1)
    assert ("p1", "ben") in {(p, who) for p, who in cells(panel.conflicts_view.table, (0, 1))}
    assert panel.result is None  # nobody left for p1: said so
    assert "paper p1 «Caches» needs 1 reviewers but only 0 people may review it" in \
        panel.notice.text()
    # remembered for the next session
    panel.form.coauthor_years.setText("7.5")
    panel.form.coauthor_years.editingFinished.emit()
    panel.form.since.setText("2015")
    panel.form.since.editingFinished.emit()
    state.runner.stop_all()
    again = ReviewersPanel(AppState())
    qtbot.addWidget(again)
    form = again.form
    assert (form.quotas(), form.coauthor_years.text(), form.since.text()) == \
        ((1, 1, 0), "7.5", "2015")


def test_without_a_model_the_panel_says_how_to_get_one(qtbot, collection, collection_path):
    state = AppState()
    panel = ReviewersPanel(state)
    qtbot.addWidget(panel)
    assert "Open a collection" in panel.notice.text()
    state.set_collection(collection, collection_path)
    assert "needs a trained model" in panel.notice.text() and "Ctrl+T" in panel.notice.text()
    assert not panel.run_button.isEnabled()


def test_the_pool_can_be_the_people_chosen_in_the_query_panel(qtbot, ready):
    combo = ready.form.pool_combo
    assert not combo.model().item(1).isEnabled()  # nobody chosen yet
    ready.state.set_people(["carol", "dave", "erin"])
    assert combo.model().item(1).isEnabled() and combo.itemText(1) == "The 3 people chosen"
    combo.setCurrentIndex(1)
    assert "3 people × at most" in ready.capacity_label.text()
    run(qtbot, ready, k=1, most=2)
    people = set().union(*assigned(ready).values())
    assert people <= {"carol", "dave", "erin"}
    assert ready.by_person.people.rowCount() == 3
    ready.state.set_people([])  # the filter cleared: everybody again, and a Run is needed
    assert combo.currentIndex() == 0 and not ready.solve_button.isEnabled()


def test_papers_dropped_on_the_panel_open_there(qtbot, ready, tmp_path):
    other = tmp_path / "more.tsv"
    other.write_text("id\ttitle\tabstract\nx1\tRouting\tpacket route queue\n", encoding="utf-8")
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(other))])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    ready.dropEvent(drop)
    qtbot.waitUntil(lambda: ready.submissions.papers.doc_ids == ["x1"], timeout=20_000)
    assert ready.path_label.text() == str(other)
    assert "no authors" in ready.papers_view.report.toPlainText()
