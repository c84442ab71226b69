"""RIS files (issue 12), read with rispy: records with their lines, authors as people with the
BibTeX reader's ids, ids made when absent, records cut short read and reported."""

import pytest

from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError


def test_ris_records(fixtures):
    c = load_collection(fixtures / "collections/refs.ris", use_cache=False)
    assert c.report.format == "ris"
    assert c.doc_ids == ["vangysel2016unsupervised", "refs:15"]
    assert [c.person_ids[p] for p in c.people_of(0)] == ["christophe-van-gysel",
                                                         "maarten-de-rijke", "marcel-worring"]
    assert c.text(0).split("\n") == [
        "Unsupervised, Efficient and Semantic Expertise Retrieval",
        "We introduce an unsupervised discriminative model for the task of retrieving experts.",
        "expert finding", "neural language models"]
    assert "Foundations" not in c.text(1)  # the journal (T2) is not the document's text
    assert c.report.problems == []


def test_a_record_cut_short_and_stray_text_are_reported(tmp_path):
    path = tmp_path / "cut.ris"
    path.write_text("Exported by a tool\nTY  - JOUR\nTI  - Ring buffers\nAU  - Archer, Ann\n"
                    "ER  - \n\nTY  - JOUR\nTI  - Crypto\nAU  - Baker, Bob\n", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["cut:2", "cut:7"] and c.person_ids == ["ann-archer", "bob-baker"]
    assert {(p.kind, p.line) for p in c.report.problems} == {("malformed-record", 1),
                                                              ("malformed-record", 7)}


def test_a_file_without_records_is_one_error(tmp_path):
    path = tmp_path / "x.ris"
    path.write_text("just text\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected RIS records") as err:
        load_collection(path, use_cache=False)
    assert err.value.line == 1
