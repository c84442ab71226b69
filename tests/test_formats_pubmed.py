"""PubMed exports (issue 20, item 2): MEDLINE (.nbib), PubMed XML, and the CSVs (the current
one, and the legacy one with the authors in `Description`)."""

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

EXPORTS = "collections/exports"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def test_medline(fixtures):
    path = fixtures / EXPORTS / "citations.nbib"
    assert detect_format(path) == "medline"
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["27000001", "27000002"]
    # FAU's full names, AUID's ORCID; PS/FPS (the person a paper is about) is no author
    assert people(c, "27000001") == ["maarten-de-rijke", "marcel-worring",
                                     "orcid:0000-0003-3433-7317"]
    # an AU without FAU, a collective name, and the ORCID person known by name
    assert people(c, "27000002") == ["e-kanoulas", "orcid:0000-0003-3433-7317",
                                     "session-search-consortium"]
    assert c.text(0).split("\n") == [
        "Unsupervised, efficient and semantic expertise retrieval.",
        "We introduce an unsupervised discriminative model for the task of retrieving experts "
        "in the form of enterprise workers.", "expert finding; log-linear models"]
    assert [str(d) for d in c.doc_dates] == ["2016-04-11", "2019-11-01"]
    assert c.report.problems == []


def test_medline_named_txt_and_a_damaged_line(tmp_path, fixtures):
    text = (fixtures / EXPORTS / "citations.nbib").read_text(encoding="utf-8")
    path = tmp_path / "pubmed-search.txt"
    path.write_text(text.replace("LA  - eng\nPT  -", "LA  - eng\n!! damaged\nPT  -"),
                    encoding="utf-8")
    assert detect_format(path) == "medline"
    c = load_collection(path, use_cache=False)
    assert c.n_documents == 2
    assert [(p.kind, p.line) for p in c.report.problems] == [("malformed-record", 21)]


def test_pubmed_xml(fixtures):
    path = fixtures / EXPORTS / "pubmed_result.xml"
    assert detect_format(path) == "pubmed-xml"
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["27000001", "27000003", "27000004"]
    assert people(c, "27000001") == ["maarten-de-rijke", "marcel-worring",
                                     "orcid:0000-0003-3433-7317"]
    assert c.text(0).split("\n") == [
        "Unsupervised, efficient and semantic expertise retrieval.",
        "OBJECTIVE: To retrieve experts without labels. METHODS: A log-linear model of words & "
        "people.", "expert finding; log-linear models"]
    assert people(c, "27000003") == ["ann-archer", "packet-processing-group"]
    assert people(c, "27000004") == ["krisztian-balog"]  # a book's authors, not its editors
    assert [str(d) for d in c.doc_dates] == ["2016-04-11", "2020-11-01", "2012-01-01"]


def test_pubmed_xml_doi_is_the_articles_not_a_references(tmp_path, fixtures):
    from expert_gui.core.data.collection import CollectionBuilder
    from expert_gui.core.data.formats import pubmed_xml
    from expert_gui.core.data.formats.bibliography import Bibliography
    from expert_gui.core.data.formats.reading import Progress

    bibliography = Bibliography(CollectionBuilder())
    pubmed_xml.read_records(fixtures / EXPORTS / "pubmed_result.xml", bibliography, Progress())
    assert [(r.line, r.doi) for r in bibliography.records] == [
        (4, "10.1145/2872427.2882974"), (36, "10.5555/rings.2020.1"), (50, "")]


def test_damaged_xml_keeps_the_records_before_it(tmp_path, fixtures):
    text = (fixtures / EXPORTS / "pubmed_result.xml").read_text(encoding="utf-8")
    cut = text.index("<PubmedBookArticle>")
    path = tmp_path / "pubmed.xml"
    path.write_text(text[:cut] + "<PubmedArticle><oops></PubmedArticle>", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["27000001", "27000003"]
    [problem] = c.report.problems
    assert problem.kind == "malformed-record" and problem.line == 50
    assert "the rest of the file was not read" in problem.message
    other = tmp_path / "other.xml"
    other.write_text("<?xml version='1.0'?><PubmedArticleSet><", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected well-formed XML"):
        load_collection(other, format="pubmed-xml", use_cache=False)
    svg = tmp_path / "picture.xml"
    svg.write_text("<svg></svg>", encoding="utf-8")
    with pytest.raises(CollectionError, match="cannot tell the collection format"):
        load_collection(svg, use_cache=False)


def test_pubmed_csvs(fixtures):
    c = load_collection(fixtures / EXPORTS / "pubmed.csv", use_cache=False)
    assert c.doc_ids == ["27000001", "27000005"]
    assert people(c, "27000005") == ["sy-shi", "xl-sun", "z-lai"]  # "Lai Z, Shi SY, Sun XL."
    legacy = load_collection(fixtures / EXPORTS / "pubmed_legacy.csv", use_cache=False)
    assert legacy.doc_ids == ["27000005"] and people(legacy, "27000005") == people(c, "27000005")
