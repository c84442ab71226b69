"""Profile panel: it shows the core's profile, its words and topics query, its people open their
profiles, the map marks the person, and a double-click on a person in any panel opens theirs."""

from pathlib import Path

import numpy as np
import pytest
from gui_helpers import open_collection
from PySide6.QtCore import Qt
from rankers_helpers import random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.explore.profile import Profiler
from expert_gui.core.explore.timeline import documents_about
from expert_gui.gui.panels.profile import ProfilePanel
from expert_gui.gui.state import AppState

pytestmark = pytest.mark.gui

PROFILES = Path(__file__).parent.parent / "fixtures" / "profiles"


@pytest.fixture
def dated():
    return load_collection(PROFILES, use_cache=False)


@pytest.fixture
def dated_model(dated):
    model = random_model(dated, seed=2)
    model.collection_fingerprint = dated.fingerprint
    return model


@pytest.fixture
def panel(qtbot, dated, dated_model):
    state = AppState()
    panel = ProfilePanel(state)
    qtbot.addWidget(panel)
    panel.resize(1280, 760)
    panel.show()
    state.set_collection(dated, PROFILES)
    state.set_model(dated_model, None)
    state.set_topics({t.id: t.query for t in read_topics(PROFILES / "topics.tsv")}, None)
    qtbot.waitUntil(lambda: panel.topic_scores is not None and panel.people_map is not None,
                    timeout=30_000)
    yield panel
    state.runner.stop_all()


def open_profile(qtbot, panel, person_id):
    panel.state.profile_requested.emit(person_id)
    qtbot.waitUntil(lambda: panel.profile is not None and panel.profile.person_id == person_id,
                    timeout=30_000)


def double_click(qtbot, view, row, col=0):
    """A real double-click: Qt 6 item views want the press before the double-click event."""
    rect = view.visualRect(view.model().index(row, col))
    for act in (qtbot.mouseClick, qtbot.mouseDClick):
        act(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_panel_shows_the_core_profile(qtbot, panel, dated, dated_model):
    open_profile(qtbot, panel, "bob")
    expected = Profiler(dated_model, dated).profile("bob", 20, panel.topic_scores)
    words = panel.words_table
    assert words.rowCount() == len(expected.words)
    assert [words.item(r, 0).text() for r in range(words.rowCount())] == \
        [w.word for w in expected.words]
    assert [int(words.item(r, 2).text()) for r in range(words.rowCount())] == \
        [w.documents for w in expected.words]
    topics = panel.topics_table
    assert [int(topics.item(r, 0).text()) for r in range(topics.rowCount())] == \
        [t.rank for t in expected.topics]
    assert [panel.coauthors_table.item(r, 0).data(Qt.ItemDataRole.UserRole)
            for r in range(panel.coauthors_table.rowCount())] == ["ann", "dee"]
    assert panel.docs_table.rowCount() == 4 and panel.docs_table.item(0, 0).text() == "2022-07-04"
    assert "Bob Baker" in panel.status.text() and "2020 to 2022" in panel.status.text()
    heights = panel.all_bars.opts["height"]
    assert list(heights) == [2, 1, 1]


def test_words_and_topics_query_and_show_when(qtbot, panel, dated):
    open_profile(qtbot, panel, "ann")
    words = panel.words_table
    word = words.item(1, 0).text()
    words.setCurrentCell(1, 0)
    expected = documents_about(dated, panel.profile.documents, word)
    assert list(panel._about) == list(expected) and word in panel.timeline_label.text()
    panel.show_about("ring", "the word “ring”")
    assert list(panel._about) == [True, True, True, True]  # all of Ann's documents use "ring"
    assert list(panel.about_bars.opts["height"]) == [2, 0, 1, 0, 1]
    with qtbot.waitSignal(panel.state.query_requested) as sent:
        double_click(qtbot, words, 1)
    assert sent.args == [word]
    topics = panel.topics_table
    with qtbot.waitSignal(panel.state.query_requested) as sent:
        double_click(qtbot, topics, 0, 1)
    assert sent.args[0] in {"ring buffer", "crypto offload", "network flow rules", "eventdev"}


def test_similar_people_and_coauthors_open_their_profiles(qtbot, panel):
    open_profile(qtbot, panel, "bob")
    first = panel.similar_table.item(0, 0).data(Qt.ItemDataRole.UserRole)
    with qtbot.waitSignal(panel.state.profile_requested) as sent:
        double_click(qtbot, panel.similar_table, 0)
    assert sent.args == [first]
    qtbot.waitUntil(lambda: panel.profile.person_id == first, timeout=30_000)


def test_map_marks_the_person_and_their_nearest(qtbot, panel, dated_model):
    open_profile(qtbot, panel, "eve")
    spots = panel.marked.points()
    me = panel.profile.person
    assert [int(s.data()) for s in spots][-1] == me
    assert {int(s.data()) for s in spots[:-1]} == {s.person for s in panel.profile.similar}
    assert np.allclose(spots[-1].pos().x(), panel.people_map.xy[me, 0])
    assert panel.everyone.data.size == dated_model.n_people

    class DoubleClick:
        def double(self):
            return True

    point = panel.everyone.points()[dated_model.person_ids.index("cai")]
    with qtbot.waitSignal(panel.state.profile_requested) as sent:
        panel._map_clicked(panel.everyone, [point], DoubleClick())
    assert sent.args == ["cai"]


def test_unknown_person_typed_suggests_ids(qtbot, panel):
    panel.person_edit.setText("bobb")
    panel._typed()
    assert "closest: bob" in panel.status.text()
    panel.person_edit.setText("Eve Evans")  # a name works too
    panel._typed()
    qtbot.waitUntil(lambda: panel.profile is not None and panel.profile.person_id == "eve",
                    timeout=30_000)


def test_export_embeddings_from_the_panel(qtbot, panel, tmp_path, dated_model):
    panel.save_embeddings(str(tmp_path))
    qtbot.waitUntil(lambda: (tmp_path / "people" / "metadata.tsv").exists() and
                    not panel.state.runner.running("export"), timeout=30_000)
    rows = (tmp_path / "people" / "metadata.tsv").read_text().splitlines()
    assert rows[0] == "person_id\tname\tdocuments\tgroup"
    groups = [int(r.split("\t")[3]) for r in rows[1:]]
    assert groups == (panel.people_map.groups + 1).tolist()  # as the map's legend numbers them


def test_double_click_a_person_anywhere_opens_the_profile(qtbot, window, dated, dated_model):
    s = window.state
    open_collection(qtbot, window, PROFILES)
    s.set_model(dated_model, None)
    profile_dock = window.docks["Profile"]
    query = window.query_panel
    query.set_query("ring crypto")
    window.show_panel("Query")
    person = query.results.item(0, 1).text()
    double_click(qtbot, query.results, 0, 2)  # the name (a narrow window hides the id)
    qtbot.waitUntil(lambda: window.profile_panel.profile is not None and
                    window.profile_panel.profile.person_id == person, timeout=30_000)
    assert profile_dock.isVisible()

    window.show_panel("Collection")
    view = window.collection_panel.people_view
    qtbot.waitUntil(lambda: view.model().rowCount() == dated.n_people, timeout=10_000)
    row_id = view.model().index(0, 0).data()
    double_click(qtbot, view, 0, 1)
    qtbot.waitUntil(lambda: window.profile_panel.profile.person_id == row_id, timeout=30_000)

    comparison = window.comparison_panel
    qtbot.waitUntil(lambda: comparison.model2 is not None, timeout=30_000)
    query.set_query("flow driver")
    window.show_panel("Model 2 comparison")
    table = comparison.rank_tables["model2"]
    qtbot.waitUntil(lambda: table.rowCount() > 0, timeout=10_000)  # it catches up once shown
    wanted = table.item(0, 2).data(Qt.ItemDataRole.UserRole)
    double_click(qtbot, table, 0, 2)
    qtbot.waitUntil(lambda: window.profile_panel.profile.person_id == wanted, timeout=30_000)
    assert window.export_embeddings_action.isEnabled()
