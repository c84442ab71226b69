"""JSON exports read item by item (jsonitems.py): one bad value (an integer of too many digits,
NaN, a key given twice, broken JSON) costs its own item, reported with its reason and place,
never the items after it, in a minified file of one line as in a pretty-printed one."""

import json

import pytest

from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

BAD = {"digits": '"volume": 1234567890123456789012345', "nan": '"volume": NaN',
       "repeated": '"DOI": "10.1/a", "DOI": "10.1/b"', "broken": '"title": ["x" "y"]'}
REASONS = {"digits": "an integer of 25 digits", "nan": "NaN is not a number JSON allows",
           "repeated": "the key 'DOI' is given twice", "broken": "Expecting ','"}


def crossref_work(i: int, extra: str = "") -> str:
    return (f'{{"DOI": "10.1234/w{i}", "title": ["Work {i}"], "author": [{{"given": "Ann", '
            f'"family": "Archer{i}"}}]' + (", " + extra if extra else "") + "}")


def crossref(items: list[str], indent: bool) -> str:
    sep = ",\n      " if indent else ","
    return ('{"status": "ok", "message-type": "work-list", "message": {"items": ['
            + ("\n      " if indent else "") + sep.join(items) + "]}}")


@pytest.mark.parametrize("indent", [False, True], ids=["minified", "indented"])
@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("at", [0, 2])
def test_a_bad_item_costs_only_itself(tmp_path, bad, at, indent):
    items = [crossref_work(i, BAD[bad] if i == at else "") for i in range(4)]
    path = tmp_path / "works.json"
    path.write_text(crossref(items, indent), encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.report.format == "crossref"
    assert sorted(c.doc_ids) == [f"10.1234/w{i}" for i in range(4) if i != at]
    [problem] = [p for p in c.report.problems if p.kind == "malformed-record"]
    assert problem.line == (at + 2 if indent else 1)
    assert problem.message.startswith(f"item {at + 1}: expected a JSON object (")
    assert REASONS[bad] in problem.message and problem.message.endswith("; skipped")


def test_openalex_minified_with_a_bad_value(tmp_path):
    works = [{"id": f"https://openalex.org/W{i}", "title": f"Work {i}",
              "authorships": [{"author": {"display_name": f"Ann Archer{i}"}}]} for i in range(3)]
    text = json.dumps({"meta": {"count": 3}, "results": works}, separators=(",", ":"))
    path = tmp_path / "openalex.json"
    path.write_text(text.replace('"title":"Work 1"', '"title":"Work 1","x":NaN'), encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["W0", "W2"]
    assert [p.kind for p in c.report.problems] == ["malformed-record"]


def test_the_reason_is_shown_when_no_item_is_left(tmp_path):
    path = tmp_path / "works.json"
    path.write_text(crossref([crossref_work(0, BAD["digits"])], False), encoding="utf-8")
    with pytest.raises(CollectionError, match="found none .*item 1: expected a JSON object "
                                              r"\(an integer of 25 digits"):
        load_collection(path, use_cache=False)
