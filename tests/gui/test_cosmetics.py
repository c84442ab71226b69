"""What a user saw cut, hidden or off by one, each checked: the welcome at 1024 px, names on the
people map, the uniform line's label behind the bars, the profile's columns, the vocabulary's
size on two screens, and a pasted abstract as the comparison's header."""

from pathlib import Path

import numpy as np
import pytest
from gui_helpers import open_collection, random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.core.explore.people_map import GroupLabel, PeopleMap
from expert_gui.gui.panels.profile import ProfilePanel
from expert_gui.gui.state import AppState
from expert_gui.gui.welcome import WelcomeBanner

pytestmark = pytest.mark.gui

PROFILES = Path(__file__).parent.parent / "fixtures" / "profiles"
ABSTRACT = ("We present a lockless ring buffer for multi-producer multi-consumer queues in "
            "user space packet processing, and show that its enqueue and dequeue scale to "
            "many cores while keeping the cache footprint small; we then compare it with "
            "spin-locked queues on three architectures and discuss memory ordering.")


def test_the_welcome_wraps_at_1024_pixels_instead_of_being_cut(qtbot, window):
    window.show_welcome()
    window.resize(1024, 700)
    banner = window.findChild(WelcomeBanner)
    qtbot.waitUntil(lambda: banner.width() <= 1024 and banner.text.width() > 0, timeout=5000)
    text = banner.text
    assert text.wordWrap()
    qtbot.waitUntil(lambda: text.heightForWidth(text.width()) <= text.height(), timeout=5000)
    assert banner.geometry().right() <= window.width()
    narrow = banner.height()
    window.resize(1600, 700)  # wider: fewer lines, and the banner gives back the room
    qtbot.waitUntil(lambda: banner.height() < narrow, timeout=5000)


@pytest.fixture
def profile_panel(qtbot):
    state = AppState()
    panel = ProfilePanel(state)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    collection = load_collection(PROFILES, use_cache=False)
    model = random_model(collection, seed=2)
    state.set_collection(collection, PROFILES)
    state.set_model(model, None)
    yield panel
    state.runner.stop_all()


def test_names_on_the_map_never_overlap(qtbot, profile_panel):
    panel = profile_panel
    qtbot.waitUntil(lambda: panel.people_map is not None, timeout=30_000)
    crowded = np.array([[0.0, 0.0], [0.001, 0.0], [0.0, 0.001], [0.001, 0.001], [1.0, 1.0]])
    panel._show_map(PeopleMap("PCA", crowded, np.zeros(5, dtype=np.int64),
                              (GroupLabel(("ring",), (1.0,), ("Ann",), 5),), 0.0))
    panel.state.profile_requested.emit("ann")
    qtbot.waitUntil(lambda: panel.profile is not None, timeout=30_000)
    shown = [label for label in panel.map_labels if label.isVisible()]
    assert len(shown) >= 2
    rects = [label.mapRectToScene(label.boundingRect()) for label in shown]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)
    assert panel.map_labels[0].isVisible()  # the person's own name always shows


def test_the_profiles_numbers_are_never_cut(qtbot, profile_panel):
    panel = profile_panel
    panel.state.profile_requested.emit("bob")
    qtbot.waitUntil(lambda: panel.profile is not None, timeout=30_000)
    panel.resize(800, 500)
    panel.tabs.setCurrentIndex(2)  # the documents
    qtbot.wait(50)
    for table, numbers in ((panel.words_table, (1, 2)), (panel.similar_table, (1,)),
                           (panel.coauthors_table, (1,)), (panel.docs_table, (0,))):
        header = table.horizontalHeader()
        for column in numbers:
            if table.rowCount():
                assert header.sectionSize(column) >= table.sizeHintForColumn(column)
        right = max(header.sectionViewportPosition(c) + header.sectionSize(c)
                    for c in range(table.columnCount()))
        assert right <= table.viewport().width()  # nothing beyond the edge


def test_the_uniform_label_is_in_front_of_the_bars(window):
    panel = window.entropy_panel
    assert panel.uniform_line.zValue() > panel.bars.zValue()
    assert panel.uniform_line.label.fill.color().alpha() > 0


def test_the_vocabulary_has_one_size_everywhere(qtbot, window, collection):
    open_collection(qtbot, window)
    model = random_model(collection)
    window.state.set_model(model, None)
    words = f"{len(model.vocab) - 1:,} words"  # the padding token is no word
    assert words in window.query_panel.words_label.text()
    assert words in window.model_label.text()
    assert f"{len(model.vocab):,} words" not in window.model_label.text()


def test_a_pasted_abstract_is_one_short_line_of_the_comparison(qtbot, window, collection):
    open_collection(qtbot, window)
    window.state.set_model(random_model(collection), None)
    panel = window.comparison_panel
    qtbot.waitUntil(lambda: panel.model2 is not None, timeout=30_000)
    window.query_panel.set_query(ABSTRACT)
    window.show_panel("Model 2 comparison")
    qtbot.waitUntil(lambda: "the top" in panel.query_label.text(), timeout=30_000)
    label = panel.query_label
    assert label.toolTip() == ABSTRACT
    assert "lockless ring buffer" in label.text() and "memory ordering" not in label.text()
    assert label.heightForWidth(600) <= 3 * label.fontMetrics().lineSpacing()
    window.show_panel("Entropy")  # its header too
    entropy = window.entropy_panel.query_label
    qtbot.waitUntil(lambda: "normalized entropy" in entropy.text(), timeout=5000)
    assert entropy.toolTip() == ABSTRACT and "memory ordering" not in entropy.text()
