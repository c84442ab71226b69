"""Generated records of the classes of issue 43 (items 5, 6, 9, 13), under the fuzz suite's
deadlines: bad values in JSON items cost only their own item, in minified files too; RefWorks
records start at `RT` in any case; fields continued over lines, JSON items and XML elements
past the record cap are reported and their neighbours read; any number of byte-order marks
before a file's first record changes nothing. Every item or record is read or reported: none
is lost in silence."""

import codecs
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_loaders import FUZZ

from expert_gui.core.data.formats import reading
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

_BAD = ['"volume": 1234567890123456789012345', '"volume": NaN', '"volume": -Infinity',
        '"DOI": "10.1234/a", "DOI": "10.1234/b"', '"title": ["x" "y"]', '"title": [1, }',
        '"author": [{"given": "A",, }]', '"volume": 1' + "0" * 5000]
SMALL = 300  # the record cap while these tests run (the real one is 16 MiB)
_FIXTURES = Path(__file__).parent / "fixtures" / "collections"
_EXPORTS = ["exports/citations.nbib", "exports/pubmed_result.xml", "exports/savedrecs.txt",
            "exports/My_Library.json", "more_exports/CNKI-refworks.txt",
            "more_exports/works.json", "more_exports/My Library.rdf", "refs.ris"]


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """One load of every kind first: the first one imports what loading needs, which is no
    part of a generated case's time."""
    for name in _EXPORTS:
        load_collection(_FIXTURES / name, use_cache=False)


def _load(name: str, data: bytes, **kwargs):
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / name).write_bytes(data)
        return load_collection(Path(d) / name, use_cache=False, **kwargs)


def _kinds(c) -> list[str]:
    return [p.kind for p in c.report.problems]


@FUZZ
@given(bad=st.lists(st.none() | st.sampled_from(_BAD), min_size=1, max_size=12),
       minified=st.booleans(), kind=st.sampled_from(["crossref", "openalex", "csl-json"]))
def test_a_bad_json_value_costs_only_its_item(bad, minified, kind):
    items = []
    for i, extra in enumerate(bad):
        if kind == "openalex":
            item = (f'{{"id": "https://openalex.org/W{i}", "title": "Work {i}", "authorships": '
                    f'[{{"author": {{"display_name": "Ann Archer{i}"}}}}]')
        else:
            item = (f'{{"DOI": "10.1234/w{i}", "title": ["Work {i}"], "type": "article", '
                    f'"author": [{{"given": "Ann", "family": "Archer{i}"}}]')
        items.append(item + (", " + extra if extra else "") + "}")
    sep = "," if minified else ",\n    "
    array = "[" + ("" if minified else "\n    ") + sep.join(items) + "]"
    text = {"crossref": '{"message-type": "work-list", "message": {"items": ' + array + "}}",
            "openalex": '{"meta": {}, "results": ' + array + "}", "csl-json": array}[kind]
    good = sum(extra is None for extra in bad)
    try:
        c = _load("works.json", text.encode(), format=kind)
    except Exception as exc:  # only when no item is left, naming the first problem
        assert good == 0, exc
        assert re.search(r"found none \(the first problem, line \d+: item 1: ", str(exc)), exc
        return
    assert c.n_documents == good
    assert _kinds(c).count("malformed-record") == len(bad) - good


@FUZZ
@given(starts=st.lists(st.sampled_from(["RT", "rt", "Rt", "rT"]), min_size=1, max_size=8),
       tags=st.sampled_from([str.upper, str.lower]))
def test_a_refworks_record_starts_at_rt_in_any_case(starts, tags):
    text = "".join(f"{rt} Journal Article\n{tags('A1')} Archer{i}, Ann\n{tags('T1')} Work {i}\n"
                   f"{tags('VO')} {i}\n\n" for i, rt in enumerate(starts))
    c = _load("refworks.txt", text.encode(), format="refworks")
    assert c.n_documents == len(starts) and not c.report.problems


_LAYOUTS = {  # (file, a record given its number, its field's first line and the lines after)
    "ris": ("x.ris", lambda i, first, more: f"TY  - JOUR\nTI  - Work {i}\nAU  - Archer{i}, Ann\n"
            f"AB  - {first}\n" + "".join(m + "\n" for m in more) + "ER  - \n"),
    "medline": ("x.nbib", lambda i, first, more: f"PMID- {i + 1}\nTI  - Work {i}\nFAU - Archer{i}"
                f", Ann\nAB  - {first}\n" + "".join(f"      {m}\n" for m in more) + "\n"),
    "refworks": ("x.txt", lambda i, first, more: f"RT Journal\nT1 Work {i}\nA1 Archer{i}, Ann\n"
                 f"AB {first}\n" + "".join(m + "\n" for m in more) + "\n"),
    "refer": ("x.enw", lambda i, first, more: f"%0 Journal Article\n%T Work {i}\n%A Archer{i}, "
              f"Ann\n%X {first}\n" + "".join(m + "\n" for m in more)),
    "wos": ("savedrecs.txt", lambda i, first, more: f"PT J\nAU Archer{i}, A\nTI Work {i}\n"
            f"AB {first}\n" + "".join(f"   {m}\n" for m in more) + f"UT WOS:{i}\nER\n\n"),
}


@pytest.fixture
def small_records(monkeypatch):
    monkeypatch.setattr(reading, "MAX_RECORD", SMALL)


@FUZZ
@given(fmt=st.sampled_from(sorted(_LAYOUTS)),
       lines=st.lists(st.integers(0, 40), min_size=1, max_size=6),
       width=st.integers(1, 60))
def test_a_field_continued_past_the_cap_is_reported_never_lost(small_records, fmt, lines, width):
    name, record = _LAYOUTS[fmt]
    word = "ring buffer queue " * 4
    fields = [(word[:width], [word[:width]] * n) for n in lines]
    text = "".join(record(i, first, more) for i, (first, more) in enumerate(fields))
    c = _load(name, text.encode(), format=fmt)
    assert c.n_documents == len(lines)
    # a field's length as Continued counts it: its lines and a space between each two (RIS
    # keeps its tag, "AB  - ", on the first)
    tag = len("AB  - ") if fmt == "ris" else 0
    over = sum(tag + width * (n + 1) + n > SMALL for n in lines)
    assert _kinds(c).count("record-too-long") == over


@FUZZ
@given(sizes=st.lists(st.integers(0, 2 * SMALL), min_size=1, max_size=6),
       kind=st.sampled_from(["json", "xml"]))
def test_an_item_or_element_past_the_cap_is_reported_never_lost(small_records, sizes, kind):
    if kind == "json":
        items = [{"DOI": f"10.1234/w{i}", "title": [f"Work {i}"], "abstract": "r" * n,
                  "author": [{"given": "Ann", "family": f"Archer{i}"}]}
                 for i, n in enumerate(sizes)]
        data = json.dumps({"message-type": "work-list", "message": {"items": items}},
                          separators=(",", ":")).encode()
        lengths = [len(json.dumps(item, separators=(",", ":"))) for item in items]
        c = _loaded("works.json", data, lengths)
    else:
        articles = [f"<PubmedArticle><MedlineCitation><PMID>{i + 1}</PMID><Article><ArticleTitle"
                    f">Work {i} {'r' * n}</ArticleTitle><AuthorList><Author><LastName>Archer{i}"
                    "</LastName></Author></AuthorList></Article></MedlineCitation></PubmedArticle>"
                    for i, n in enumerate(sizes)]
        data = ("<PubmedArticleSet>\n" + "\n".join(articles) + "\n</PubmedArticleSet>").encode()
        lengths = [_characters(a) for a in articles]
        c = _loaded("pubmed.xml", data, lengths)
    over = sum(n > SMALL for n in lengths)
    if c is None:  # every one over the cap
        return
    assert c.n_documents == len(sizes) - over
    assert _kinds(c).count("record-too-long") == over


def _loaded(name: str, data: bytes, lengths: list[int]):
    """The collection; None when every record is over the cap, which the error must say."""
    if all(n > SMALL for n in lengths):
        with pytest.raises(CollectionError, match="found none .*the most a record may hold"):
            _load(name, data)
        return None
    return _load(name, data)


def _characters(element: str) -> int:
    """What the XML reader counts of an element: its start tags' names and its text."""
    return sum(map(len, re.findall(r"<(\w+)>", element))) + \
        sum(map(len, re.findall(r">([^<]+)<", element)))


@FUZZ
@given(name=st.sampled_from(_EXPORTS), marks=st.integers(0, 4))
def test_byte_order_marks_before_a_file_change_nothing(name, marks):
    source = _FIXTURES / name
    data = source.read_bytes().removeprefix(codecs.BOM_UTF8)
    expected = _load(source.name, data)
    c = _load(source.name, codecs.BOM_UTF8 * marks + data)
    assert c.doc_ids == expected.doc_ids
