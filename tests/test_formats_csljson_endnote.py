"""CSL-JSON and EndNote XML (issue 20, item 3), told by content whatever their names."""

import json

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

EXPORTS = "collections/exports"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def test_csl_json(fixtures):
    path = fixtures / EXPORTS / "My_Library.json"
    assert detect_format(path) == "csl-json"
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["vangysel2016", "balog2012", "wasden2018"]
    # a particle (non-dropping "de") in the family name; an ORCID identifies its author
    assert people(c, "vangysel2016") == ["christophe-van-gysel", "maarten-de-rijke",
                                         "orcid:0000-0003-4097-4136"]
    assert people(c, "balog2012") == ["expert-search-group", "krisztian-balog"]  # a literal
    assert c.text(0).endswith("model & rank experts.")  # &amp; decoded
    assert c.text(1) == "Expertise retrieval\nexpert finding, survey"  # <i> removed
    assert [str(d) for d in c.doc_dates] == ["2016-04-11", "2012-01-01", "2018-01-04"]
    assert [(p.kind, p.line) for p in c.report.problems] == [("no-people", 4)]  # a court case


def test_a_damaged_csl_item_is_reported_and_the_rest_loads(tmp_path, fixtures):
    lines = (fixtures / EXPORTS / "My_Library.json").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"title":"Expertise', '"title" "Expertise')
    path = tmp_path / "export.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["vangysel2016", "wasden2018"]
    damaged = [p for p in c.report.problems if p.kind == "malformed-record"]
    assert [p.line for p in damaged] == [3] and "line 3, column" in damaged[0].message
    one_line = tmp_path / "one-line.json"
    items = json.loads((fixtures / EXPORTS / "My_Library.json").read_text(encoding="utf-8"))
    one_line.write_text(json.dumps(items)[:-40], encoding="utf-8")  # cut short
    c = load_collection(one_line, format="csl-json", use_cache=False)
    assert c.doc_ids == ["vangysel2016", "balog2012"]
    assert "the rest of the file was not read" in c.report.problems[0].message


def test_json_that_is_no_csl_is_not_taken_for_it(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}', encoding="utf-8")
    with pytest.raises(CollectionError, match="cannot tell the collection format"):
        load_collection(path, use_cache=False)
    with pytest.raises(CollectionError, match="expected a JSON array of CSL items") as err:
        load_collection(path, format="csl-json", use_cache=False)
    assert err.value.line == 1


def test_endnote_xml(fixtures):
    path = fixtures / EXPORTS / "My_EndNote_Library.xml"
    assert detect_format(path) == "endnote-xml"
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["My_EndNote_Library:327", "My_EndNote_Library:328",
                         "My_EndNote_Library:329"]
    assert people(c, "My_EndNote_Library:327") == ["christophe-van-gysel", "m-de-rijke"]
    # three names typed into one author field are three authors (reported); "A.J. Kinloch"
    # there is "Kinloch, Anthony J." of the next field
    assert people(c, "My_EndNote_Library:328") == ["a-c-taylor", "anthony-j-kinloch",
                                                   "f-j-guild"]
    assert c.text(0) == ("Unsupervised, efficient and semantic expertise retrieval\nWe "
                         "introduce an unsupervised discriminative model.\nIt ranks experts.\n"
                         "expert finding")
    assert c.text(2) == "<Creep Crack Initiation and Growth.pdf>"  # a title, not markup
    kinds = sorted(p.kind for p in c.report.problems)
    assert kinds == ["duplicate-association", "merged-names", "name-repaired", "no-people"]
