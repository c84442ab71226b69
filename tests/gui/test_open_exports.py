"""Issue 30's exports from the app's Open (Ctrl+O): the dialog's first filter, the one it shows,
lists each file, and the collection panel opens it; a table first shows its columns, with its
export's preset found. The real files (../shared/realfiles) where they are at hand; small
fixtures of each kind always."""

import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QDir

from expert_gui.core.data.loading import load_collection
from expert_gui.gui.panels.collection import COLLECTION_FILE_FILTERS
from expert_gui.gui.table_columns import TableColumnsDialog

MORE = Path(__file__).parent.parent / "fixtures" / "collections" / "more_exports"
REALFILES = Path(os.environ.get("EXPERT_GUI_REALFILES",
                                Path(__file__).resolve().parents[3] / "shared" / "realfiles"))
# file, the preset its columns dialog shows ("": no dialog, not a table)
FIXTURES = [("citations.enw", ""), ("ads_tagged.txt", ""), ("CNKI-refworks.txt", ""),
            ("My Library.rdf", ""), ("em_export.csv", "embase"), ("em_rows.csv", ""),
            ("citation.csv", "ovid"), ("SearchResults.csv", "springer"), ("acm.csv", "acm"),
            ("works.json", ""), ("crossref.json", "")]
REAL = [("enw-cnki/demo.txt", ""), ("enw-googlescholar/citations.enw", ""),
        ("zotero-rdf/My Library.rdf", ""), ("zotero-rdf-webpages/zotero.rdf", ""),
        ("zotero-rdf-jstor/My Library.rdf", ""), ("embase-csv/em_qt.csv", "embase"),
        ("ovid-csv/citation.csv", "ovid"), ("springer-csv-2023/SearchResults.csv", "springer"),
        ("springer-csv-2016/SearchResults.csv", "springer"),
        ("springer-csv-chapters/springer.csv", "springer"), ("acm-csv/acm.csv", "acm"),
        ("acm-csv/ACMDL201801283245326.csv", "acm"), ("acm-csv-2019/acm.csv", "acm"),
        ("refworks-cnki/CNKI.txt", ""), ("openalex-json/works.json", ""),
        ("crossref-json/crossref.json", "")]


def listed(path: Path) -> bool:
    """Whether the Open dialog's first filter shows the file (Qt's own wildcard matching)."""
    patterns = re.search(r"\((.*)\)", COLLECTION_FILE_FILTERS[0]).group(1).split()
    return path.name in QDir(str(path.parent)).entryList(patterns, QDir.Filter.Files)


def open_in_app(qtbot, window, path: Path, preset: str):
    window.collection_panel.open_collection(path)
    if preset:
        qtbot.waitUntil(lambda: bool(window.findChildren(TableColumnsDialog)), timeout=30_000)
        [dialog] = window.findChildren(TableColumnsDialog)
        assert dialog.preset.currentText() == preset
        dialog.accept()
    qtbot.waitUntil(lambda: window.state.collection is not None, timeout=120_000)
    return window.state.collection


@pytest.mark.parametrize("name, preset", FIXTURES, ids=[f for f, _ in FIXTURES])
def test_the_app_opens_each_kind(qtbot, window, name, preset):
    path = MORE / name
    assert listed(path)
    c = open_in_app(qtbot, window, path, preset)
    expected = load_collection(path, use_cache=False)
    assert (c.report.format, c.doc_ids, c.person_ids) == (
        expected.report.format, expected.doc_ids, expected.person_ids)


@pytest.mark.skipif(not REALFILES.is_dir(), reason="needs ../shared/realfiles")
@pytest.mark.parametrize("name, preset", REAL, ids=[f.split("/")[0] for f, _ in REAL])
def test_the_app_opens_each_real_file(qtbot, window, name, preset):
    path = REALFILES / name
    assert listed(path)
    c = open_in_app(qtbot, window, path, preset)
    expected = load_collection(path, use_cache=False)
    assert (c.n_documents, c.n_people) == (expected.n_documents, expected.n_people)
