"""Documents are listed by their title (the first line of their text), not their id, with their
date as precise as it was given: "2021", not "2021-01-01"."""

import pytest
from gui_helpers import open_collection, random_model

from expert_gui.core.data.loading import load_collection

pytestmark = pytest.mark.gui


def test_documents_are_listed_by_title_and_date_as_given(qtbot, window, fixtures):
    folder = fixtures / "profiles"
    open_collection(qtbot, window, folder)
    panel = window.collection_panel
    panel.select_person("cai")
    listed = [panel.documents_list.item(i).text() for i in range(panel.documents_list.count())]
    assert "2021 · mempool cache flush on lcore exit" in listed
    assert not any(text.startswith("p0") for text in listed)  # not by id
    eve = [panel.documents_list.item(i) for i in range(panel.documents_list.count())]
    assert all(it.toolTip().startswith("p") for it in eve)  # the id is one hover away
    panel.select_person("eve")
    listed = [panel.documents_list.item(i).text() for i in range(panel.documents_list.count())]
    assert "2022-09 · flow rule validation in the network driver" in listed


def test_supporting_and_profile_documents_show_titles_and_dates(qtbot, window, fixtures):
    folder = fixtures / "profiles"
    open_collection(qtbot, window, folder)
    window.state.set_model(random_model(load_collection(folder)), None)
    qp = window.query_panel
    qp.set_query("mempool cache")
    rows = {qp.results.item(r, 1).text(): r for r in range(qp.results.rowCount())}
    qp.results.setCurrentCell(rows["cai"], 0)
    docs = {qp.docs_table.item(r, 0).text(): qp.docs_table.item(r, 1).text()
            for r in range(qp.docs_table.rowCount())}
    assert docs["mempool cache flush on lcore exit"] == "2021"
    window.state.profile_requested.emit("cai")
    pp = window.profile_panel
    qtbot.waitUntil(lambda: pp.profile is not None, timeout=30_000)
    dates = {pp.docs_table.item(r, 1).text(): pp.docs_table.item(r, 0).text()
             for r in range(pp.docs_table.rowCount())}
    assert dates["mempool cache flush on lcore exit"] == "2021"
