"""A typed query does only the work that shows: panels behind a tab catch up when shown, the
first person is explained once, and a method chosen again reuses the ranker built for it
(benchmarks/bench_gui_latency.py measures the time these save)."""

import pytest
from gui_helpers import open_collection, random_model

pytestmark = pytest.mark.gui


@pytest.fixture
def ready(qtbot, window, collection):
    open_collection(qtbot, window)
    window.state.set_model(random_model(collection), None)
    window.show_panel("Query")
    qp = window.query_panel
    qtbot.waitUntil(lambda: qp.method_ranker is not None, timeout=30_000)
    return window


def test_panels_behind_a_tab_follow_the_query_when_shown(qtbot, ready):
    window = ready
    entropy, comparison = window.entropy_panel, window.comparison_panel
    qtbot.waitUntil(lambda: comparison.model2 is not None, timeout=30_000)
    window.query_panel.set_query("disk cache")
    qtbot.wait(100)
    assert "disk cache" not in entropy.query_label.text()  # behind its tab: nothing done
    assert "disk cache" not in comparison.query_label.text()
    window.show_panel("Entropy")
    qtbot.waitUntil(lambda: "disk cache" in entropy.query_label.text(), timeout=5000)
    window.query_panel.set_query("disk")  # a newer query replaces the one waiting
    window.show_panel("Model 2 comparison")
    qtbot.waitUntil(lambda: "“disk”" in comparison.query_label.text(), timeout=5000)
    assert "disk cache" not in comparison.query_label.text()


def test_the_first_person_is_explained_once(qtbot, ready):
    qp = ready.query_panel
    calls = []
    explain = qp.ranker.explain
    qp.ranker.explain = lambda *a, **k: calls.append(a) or explain(*a, **k)
    qp.set_query("disk cache")
    assert len(calls) == 1


def test_a_method_chosen_again_is_not_built_again(qtbot, ready):
    qp, runner = ready.query_panel, ready.state.runner
    qp.set_query("disk cache")
    for method in ("tfidf", "auto"):
        qp.method_combo.setCurrentIndex(qp.method_combo.findData(method))
        qtbot.waitUntil(lambda m=method: qp.ranking.method == m, timeout=30_000)
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("tfidf"))
    assert runner.running("query-ranker") is None  # reused, not built
    assert qp.ranking.method == "tfidf"  # ranked at once


def test_every_method_is_prepared_in_the_background_once_a_model_opens(qtbot, window,
                                                                        collection):
    """Issue 31: the first choice of LSI on DPDK waited about 30 s behind 'LSI is being
    prepared'; a first method change 0.25 s. Every method's ranker is built once a model opens,
    with progress in the status bar, and a method chosen later ranks at once."""
    open_collection(qtbot, window)
    said = []
    window.state.busy_detail.connect(lambda slot, text: said.append((slot, text)))
    window.state.set_model(random_model(collection), None)
    runner, qp = window.state.runner, window.query_panel
    qtbot.waitUntil(lambda: ("rankers", "") in said, timeout=60_000)  # it says it is done
    assert ("rankers", "preparing the methods: LSI (8 of 8)") in said
    qp.set_query("disk cache")
    for method in ("lsi", "tfidf", "model2-d", "ensemble"):
        qp.method_combo.setCurrentIndex(qp.method_combo.findData(method))
        assert qp.ranked_by == method  # ranked at once, by a ranker prepared before
        assert runner.running("query-ranker") is None
