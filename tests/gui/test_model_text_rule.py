"""A model keeps the text rule it was trained with: one trained before Chinese, Japanese and
Korean were cut into words opens on its collection, read again as it was trained."""

import pytest
from gui_helpers import open_collection, random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import TextSettings
from expert_gui.core.store.storage import save_model

pytestmark = pytest.mark.gui


def test_a_model_of_the_earlier_rule_reads_its_collection_again_as_it_was_trained(
        qtbot, window, tmp_path):
    folder = tmp_path / "cnki"
    folder.mkdir()
    (folder / "documents.tsv").write_text(
        "doc_id\ttext\nd1\t人工智能在图书馆中的应用\nd2\t数据库与引文分析\nd3\t人工智能与数据库\n",
        encoding="utf-8")
    (folder / "associations.tsv").write_text(
        "doc_id\tperson_id\nd1\twang\nd2\tli\nd3\twang\nd3\tli\n", encoding="utf-8")
    earlier = TextSettings(segmentation="runs")
    trained_on = load_collection(folder, settings=earlier, use_cache=False)
    model = random_model(trained_on)
    saved = save_model(model, tmp_path / "model")
    open_collection(qtbot, window, folder)
    assert window.state.collection.settings.segmentation == "cjk-bigrams"
    assert not window.state.fits(model)  # its words are whole clauses, not pairs
    window.training_panel.open_model(saved)
    qtbot.waitUntil(lambda: window.state.model is not None, timeout=30_000)
    assert window.state.collection.settings == earlier
    assert window.state.model_path == saved
    assert "earlier text rule" in window.query_panel.words_label.text()
