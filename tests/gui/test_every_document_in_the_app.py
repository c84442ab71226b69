"""Every document counts in the app (issue 29, part 1): trained with the Train button, a word
only held-out documents hold is known to every method and finds its author, and the panels say
that the held-out figures are of the model measured and the model kept saw every document."""

import html

import pytest
from gui_helpers import PLANTED, open_collection, planted_copy, set_training

from expert_gui.core.rankers.names import METHODS
from expert_gui.core.rankers.query_type import auto_reason

pytestmark = pytest.mark.gui


def test_trained_in_the_app_a_word_only_held_out_documents_hold_is_found_by_every_method(
        qtbot, window, tmp_path):
    folder, authors = planted_copy(tmp_path)
    open_collection(qtbot, window, folder)
    set_training(window, seed=0)
    tp, qp = window.training_panel, window.query_panel
    assert tp.form.widgets["retrain_on_all"].isChecked()  # the default: every document
    assert "as long as the first" in tp.form.widgets["retrain_on_all"].toolTip()
    stages = []
    handler = tp._on_progress
    tp._on_progress = lambda events: stages.extend(events) or handler(events)
    tp.start_training()
    qtbot.waitUntil(lambda: window.state.model is not None and tp.run_settled(),
                    timeout=180_000)
    model = window.state.model
    total = window.state.collection.n_documents
    again = [e for e in stages if getattr(e, "text", "").startswith("Training again on every "
                                                                     "document")]
    assert f"all {total:,}" in again[0].text  # then its epochs, its steps counted
    assert again[-1].text.startswith("Training again on every document: epoch 3 of 3")
    assert again[-1].done == again[-1].total > 0
    n = len(model.calibration["held_out"]["documents"])
    said = tp.status_label.text()
    assert f"measured on {n:,} documents it had not seen" in said
    assert f"on all {total:,} documents" in said and said.count("trained again") == 1
    assert "then trained on all" in tp.models_list.item(0).text()  # the saved models list
    qp.set_query(PLANTED)
    for method in METHODS:
        qp.method_combo.setCurrentIndex(qp.method_combo.findData(method))
        qtbot.waitUntil(lambda m=method: qp.ranking is not None and qp.ranked_by == m and
                        qp.ranking.method.split("(")[0] == m, timeout=60_000)
        words = qp.words_label.text()
        assert "Unknown words" not in words and "knows none" not in words, method
        top = {qp.results.item(row, 1).text() for row in range(len(authors))}
        assert top == authors, method
        if method == "auto":  # part 2: which weights, for which kind of query, and why
            said = html.unescape(words)  # the GUI collection's documents are short notes
            assert "For this short topic (1 word): " in said
            assert auto_reason(model.calibration, 1) in said
