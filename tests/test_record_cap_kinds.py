"""The most a record may hold (reading.MAX_RECORD) for every kind of record, not only lines: a
tagged field continued over lines, a JSON item, an XML element, a BibTeX field. Each over the
cap is reported with its file and line and not held; the records around it are read."""

import json

import pytest
from hostile_files import header_and_rows, workbook

from expert_gui.core.data.formats import reading
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

SMALL = 200
ABSTRACT = [f"line {i:02} of a long abstract" for i in range(12)]  # 12 * 26 characters


@pytest.fixture
def small_records(monkeypatch):
    monkeypatch.setattr(reading, "MAX_RECORD", SMALL)


def too_long(c):
    return [(p.file.rsplit("/", 1)[-1], p.line, p.message) for p in c.report.problems
            if p.kind == "record-too-long"]


RIS = ("TY  - JOUR\nTI  - Ring buffers\nAU  - Archer, Ann\nAB  - {first}\n{more}\nER  - \n\n"
       "TY  - JOUR\nTI  - Lockless queues\nAU  - Baker, Bob\nAB  - {first}\n{more}\nER  - \n")
MEDLINE = ("PMID- 1\nTI  - Ring buffers\nAB  - {first}\n{more}\nFAU - Archer, Ann\n\n"
           "PMID- 2\nTI  - Lockless queues\nAB  - {first}\n{more}\nFAU - Baker, Bob\n")
REFWORKS = ("RT Journal Article\nT1 Ring buffers\nA1 Archer, Ann\nAB {first}\n{more}\n\n"
            "RT Journal Article\nT1 Lockless queues\nA1 Baker, Bob\nAB {first}\n{more}\n")


@pytest.mark.parametrize("name, layout, indent, fmt", [
    ("export.ris", RIS, "", "ris"), ("pubmed.nbib", MEDLINE, "      ", "medline"),
    ("refworks.txt", REFWORKS, "", "refworks")])
def test_a_field_continued_past_the_cap_keeps_its_first_line_and_is_reported(
        tmp_path, small_records, name, layout, indent, fmt):
    first, more = ABSTRACT[0], "\n".join(indent + a for a in ABSTRACT[1:])
    short = "\n".join(indent + a for a in ABSTRACT[1:3])
    text = layout.format(first=first, more=short)
    cut = text.rfind(short)
    (tmp_path / name).write_text(text[:cut] + more + text[cut + len(short):], encoding="utf-8")
    c = load_collection(tmp_path / name, format=fmt, use_cache=False)
    assert c.n_documents == 2
    texts = [c.text(i).split("\n") for i in range(2)]
    assert texts[0][1] == " ".join(ABSTRACT[:3])  # within the cap: joined whole
    assert texts[1][1] == ABSTRACT[0]  # past it: its first line
    [(file, line, message)] = too_long(c)
    start = text[:cut].count("\n")  # the line of the second abstract's tag, from 1
    assert (file, line) == (name, start)
    assert message.startswith(f"the AB field over lines {start}-{start + 11} of more than {SMALL}")


def test_a_json_item_past_the_cap_is_reported_and_the_next_read(tmp_path, small_records):
    items = [{"DOI": f"10.1234/w{i}", "title": [f"Work {i}"], "abstract": "ring " * (60 if i == 1
             else 5), "author": [{"given": "Ann", "family": "Archer"}]} for i in range(3)]
    path = tmp_path / "works.json"
    path.write_text(json.dumps({"message-type": "work-list", "message": {"items": items}},
                               separators=(",", ":")), encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["10.1234/w0", "10.1234/w2"]
    assert too_long(c) == [("works.json", 1, f"item 2: an item of more than {SMALL} characters, "
                                             "the most a record may hold; not read")]


def test_one_json_work_past_the_cap_is_refused(tmp_path, small_records):
    path = tmp_path / "work.json"
    path.write_text(json.dumps({"message-type": "work", "message": {
        "DOI": "10.1234/w", "title": ["ring " * 60]}}), encoding="utf-8")
    with pytest.raises(CollectionError, match=f"Crossref works of more than {SMALL} characters"):
        load_collection(path, use_cache=False)


def pubmed(*articles: str, doctype: str = "") -> str:
    return (f'<?xml version="1.0"?>\n{doctype}<PubmedArticleSet>\n' + "".join(
        f"<PubmedArticle><MedlineCitation><PMID>{i + 1}</PMID><Article><ArticleTitle>{a}"
        "</ArticleTitle><AuthorList><Author><LastName>Archer</LastName><ForeName>Ann</ForeName>"
        "</Author></AuthorList></Article></MedlineCitation></PubmedArticle>\n"
        for i, a in enumerate(articles)) + "</PubmedArticleSet>\n")


def test_an_xml_record_past_the_cap_is_reported_and_the_next_read(tmp_path, small_records):
    path = tmp_path / "pubmed.xml"
    path.write_text(pubmed("Ring buffers", "ring " * 60, "Lockless queues"), encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["1", "3"]
    assert too_long(c) == [("pubmed.xml", 4, f"a record of more than {SMALL} characters (from "
                                             "column 1), the most a record may hold; not read")]


def test_xml_markup_past_the_cap_stops_the_file_with_the_records_before_kept(
        tmp_path, small_records):
    path = tmp_path / "pubmed.xml"
    text = pubmed("Ring buffers", "Lockless queues", "Mempool caches")
    long = text.replace("<PubmedArticle><MedlineCitation><PMID>3",
                        f'<PubmedArticle x="{"a" * 300_000}"><MedlineCitation><PMID>3')
    path.write_text(long, encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["1", "2"]
    [(file, line, message)] = too_long(c)
    assert message.startswith(f"markup (a tag, its attributes, a comment) of more than {SMALL} "
                              "bytes") and message.endswith("the rest of the file was not read")


@pytest.mark.parametrize("doctype, entity, why", [
    ('<!DOCTYPE PubmedArticleSet [<!ENTITY e SYSTEM "file:///etc/hostname">]>\n', "e",
     "its text is in file:///etc/hostname, outside the file"),
    ('<!DOCTYPE PubmedArticleSet SYSTEM "pubmed.dtd">\n', "eacute",
     "it is defined in a DTD outside the file, not read")])
def test_an_entity_whose_text_is_outside_the_file_is_reported(tmp_path, doctype, entity, why):
    path = tmp_path / "pubmed.xml"
    path.write_text(pubmed("Ring buffers", f"Caf&{entity}; queues", doctype=doctype),
                    encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["1", "2"] and c.text(1).startswith("Caf queues")
    assert [(p.kind, p.line, p.message) for p in c.report.problems] == [
        ("entity-left-out", 5, f"the entity &{entity}; is not read ({why}); its text is left "
                               "out")]


def test_a_bibtex_field_past_the_cap_is_left_out_and_reported(tmp_path, small_records):
    lines = "\n".join(ABSTRACT)
    path = tmp_path / "refs.bib"
    path.write_text("@article{a, title={Ring buffers}, author={Archer, Ann}, abstract={short}}\n"
                    f"@article{{b, title={{Lockless queues}}, author={{Baker, Bob}},\n"
                    f"abstract={{{lines}}}}}\n", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["a", "b"] and c.text(1) == "Lockless queues"
    assert too_long(c) == [("refs.bib", 2, f"b: the abstract field holds more than {SMALL} "
                                           "characters, the most a record may hold; left out")]


def test_a_web_of_science_field_continued_past_the_cap(tmp_path, small_records):
    more = "\n".join("   " + a for a in ABSTRACT[1:])
    path = tmp_path / "savedrecs.txt"
    path.write_text(f"FN Clarivate Analytics Web of Science\nVR 1.0\nPT J\nAU Archer, A\n"
                    f"TI Ring buffers\nAB {ABSTRACT[0]}\n{more}\nUT WOS:1\nER\n\nPT J\n"
                    "AU Baker, B\nTI Lockless queues\nUT WOS:2\nER\n\nEF\n", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["WOS:1", "WOS:2"]
    assert c.text(0).split("\n")[1] == ABSTRACT[0]
    assert [(f, line) for f, line, _ in too_long(c)] == [("savedrecs.txt", 6)]


def test_workbook_markup_past_the_cap_is_refused(tmp_path, small_records):
    path = workbook(tmp_path / "pubs.xlsx", [*header_and_rows(1), b'<row r="3" x="'
                                             + b"a" * 300_000 + b'"/>'])
    with pytest.raises(CollectionError, match="its part xl/worksheets/sheet1.xml holds markup "
                                              rf"\(a tag, its attributes\) of more than {SMALL}"):
        load_collection(path, use_cache=False)
