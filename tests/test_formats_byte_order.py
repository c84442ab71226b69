"""A file as an export's reader opens it whatever stands before its first record: any number of
UTF-8 byte-order marks (a file saved twice by editors that each add one), and a file that
cannot be read at all is named as such, not as a kind of file this program does not read."""

import codecs
import os

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.formats.exports import exports
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

EXPORTS = ["exports/My_EndNote_Library.xml", "exports/My_Library.json", "exports/citations.nbib",
           "exports/library.bib", "exports/pubmed_result.xml", "exports/savedrecs.txt",
           "exports/scopus_2021.csv", "exports/wos_tab.txt", "more_exports/CNKI-refworks.txt",
           "more_exports/My Library.rdf", "more_exports/citations.enw",
           "more_exports/crossref.json", "more_exports/works.json", "refs.ris"]


@pytest.mark.parametrize("name", EXPORTS)
def test_two_byte_order_marks_read_as_one(fixtures, tmp_path, name):
    source = fixtures / "collections" / name
    data = source.read_bytes().removeprefix(codecs.BOM_UTF8)
    once, twice = tmp_path / "once", tmp_path / "twice"
    for folder, marks in ((once, 1), (twice, 2)):
        folder.mkdir()
        (folder / source.name).write_bytes(codecs.BOM_UTF8 * marks + data)
    expected = load_collection(once / source.name, use_cache=False)
    c = load_collection(twice / source.name, use_cache=False)
    assert c.report.format == expected.report.format
    assert c.doc_ids == expected.doc_ids
    assert [c.text(i) for i in range(c.n_documents)] == \
        [expected.text(i) for i in range(expected.n_documents)]


def test_an_unreadable_file_is_named_as_such(tmp_path, monkeypatch):
    # the tests may run as root, whom permissions do not stop: opening is refused here instead
    (tmp_path / "savedrecs.txt").write_text("PT J\nAU Archer, A\nTI Ring\nER\n", encoding="utf-8")
    (tmp_path / "refs.ris").write_text("TY  - JOUR\nTI  - Ring\nAU  - Archer, Ann\nER  - \n",
                                       encoding="utf-8")
    real = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.fspath(path).endswith("savedrecs.txt"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(CollectionError, match="savedrecs.txt could not be read "
                                              r"\(cannot open: Permission denied\)"):
        detect_format(tmp_path / "savedrecs.txt")
    skipped: list = []
    exports(tmp_path, skipped)
    assert [(p.name, why) for p, why in skipped] == [
        ("savedrecs.txt", "not read: savedrecs.txt could not be read (cannot open: Permission "
                          "denied)")]
