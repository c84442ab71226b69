"""Web of Science exports (issue 20, item 1): plain text "Full Record", tab-delimited in UTF-8
and UTF-16 (every row ends in a tab), and the Excel export saved as CSV; full names before
short ones, ORCIDs and ResearcherIDs identify their authors."""

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

EXPORTS = "collections/exports"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def test_plain_text_full_record(fixtures):
    path = fixtures / EXPORTS / "savedrecs.txt"  # with a byte-order mark, as WoS writes it
    assert detect_format(path) == "wos"
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["WOS:000384583700096", "WOS:000240924300019", "WOS:A1970H136500006"]
    # AF's full names; OI's ORCIDs (one wrapped inside a name) identify their authors
    assert people(c, "WOS:000384583700096") == ["marcel-worring", "orcid:0000-0002-1086-0202",
                                                "orcid:0000-0003-3433-7317"]
    # de Rijke has no OI in the second record, but his ResearcherID joins him to the ORCID
    assert "orcid:0000-0002-1086-0202" in people(c, "WOS:000240924300019")
    names = dict(zip(c.person_ids, c.person_names, strict=True))
    assert names["orcid:0000-0003-3433-7317"] == "Christophe Van Gysel"
    text = c.text(0).split("\n")
    assert text == ["Unsupervised, Efficient and Semantic Expertise Retrieval",
                    "We introduce an unsupervised discriminative model for the task of "
                    "retrieving experts in the form of enterprise workers.",
                    "expert finding; log-linear models; unsupervised retrieval"]  # <i> removed
    assert str(c.doc_dates[2]) == "1970-01-01"
    [unmatched] = [p for p in c.report.problems]
    assert unmatched.kind == "id-unmatched" and unmatched.line == 3
    assert "0000-0001-5555-0001" in unmatched.message


def test_plain_text_without_bom_and_a_damaged_record(tmp_path, fixtures):
    text = (fixtures / EXPORTS / "savedrecs.txt").read_text(encoding="utf-8-sig")
    lines = text.splitlines()
    er = lines.index("ER")  # the first record loses its ER, and a stray line enters the second
    lines[er] = "?? not a tag"
    path = tmp_path / "download.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert detect_format(path) == "wos"
    c = load_collection(path, use_cache=False)
    assert c.n_documents == 3  # nothing lost
    found = {(p.kind, p.line) for p in c.report.problems}
    assert ("malformed-record", er + 1) in found  # the stray line
    assert ("malformed-record", 3) in found  # the record without ER, read as it stands


def test_a_file_without_records_is_one_error(tmp_path):
    path = tmp_path / "savedrecs.txt"
    path.write_text("FN Clarivate Analytics Web of Science\nVR 1.0\nEF\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected Web of Science records"):
        load_collection(path, format="wos", use_cache=False)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be"])
def test_tab_delimited_in_utf8_and_utf16(tmp_path, fixtures, encoding):
    text = (fixtures / EXPORTS / "wos_tab.txt").read_text(encoding="utf-8-sig")
    path = tmp_path / "savedrecs.txt"
    data = text.encode(encoding)
    path.write_bytes(data if encoding != "utf-16-be" else b"\xfe\xff" + data)
    assert detect_format(path) == "table"
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["WOS:A1979HJ24300001", "WOS:000086993600001"]
    # the tab ending each row is no extra field; the one problem is a hint (issue 30)
    [hint] = c.report.problems
    assert hint.kind == "likely-duplicate" and "«Waldo Tobler» and «Waldo R. Tobler»" in \
        hint.message
    assert people(c, "WOS:000086993600001") == ["john-snyder", "orcid:0000-0002-1825-0097",
                                                "qihe-yang"]
    assert '"geographical" regions' in c.text(0)  # a quote in a tab-delimited cell is text


def test_excel_export_saved_as_csv(fixtures):
    c = load_collection(fixtures / EXPORTS / "wos_excel.csv", use_cache=False)
    assert c.doc_ids == ["WOS:A1970H136500006", "WOS:000240924300019"]
    assert people(c, "WOS:A1970H136500006") == ["orcid:0000-0002-1825-0097"]
    # no full names in this row: the short ones, de Rijke by his ResearcherID
    assert people(c, "WOS:000240924300019") == ["k-balog", "rid:A-1234-2010"]
    assert c.text(0).split("\n")[0] == "A computer movie simulating urban growth in the " \
                                       "Detroit region"
