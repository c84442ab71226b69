"""The whole flow a new user follows: open the demo (or the tiny fixture when the demo is not
installed), train a few hundred steps, query, and see the comparison table; then screenshots."""

import pytest
from gui_helpers import GUI_COLLECTION
from PySide6.QtGui import QImage

from expert_gui.assets import demo_collection_path
from expert_gui.gui.screenshots import FILES, prepare, save_panels

pytestmark = pytest.mark.gui

# A few hundred steps on either collection, in seconds on two CPU cores.
FLOW_TRAINING = {"dim": 32, "window": 4, "batch_size": 32, "epochs": 1, "checkpoint_every": 0}


def test_open_train_query_compare_and_screenshot(qtbot, window, tmp_path):
    collection = demo_collection_path() or GUI_COLLECTION
    training = dict(FLOW_TRAINING)
    if collection == GUI_COLLECTION:
        training.update(batch_size=1, epochs=4)  # ~90 instances: 4 epochs of one each
    prepare(window, collection, training=training, timeout_s=240)
    s = window.state
    assert s.model is not None and len(window.training_panel.plot.steps) >= 300
    ranking = s.ranking
    assert ranking is not None and len(ranking) == s.model.n_people
    assert window.query_panel.results.rowCount() > 0
    table2 = window.comparison_panel.table2
    assert table2.rowCount() == 9 and table2.item(7, 0).text().startswith("Log-linear")
    assert window.comparison_panel.table4.rowCount() == 3
    paths = save_panels(window, tmp_path)
    assert [p.name for p in paths] == list(FILES.values())
    # Behind its tab while the query ran, the comparison ranked it once shown.
    sides = window.comparison_panel.rank_tables
    assert all(t.rowCount() > 0 for t in sides.values())
    for p in paths:
        image = QImage(str(p))
        assert (image.width(), image.height()) == (1280, 800)
