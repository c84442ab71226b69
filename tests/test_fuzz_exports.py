"""Generated and damaged exports into the readers of issue 20 (Web of Science, MEDLINE, PubMed
XML, EndNote XML, CSL-JSON, the export presets of tables, a folder of exports), under the fuzz
suite's deadlines: only a CollectionError naming the file may escape, every problem is of a
known kind, and the inputs built to be slow (huge author lists, one title a thousand times,
deep nesting) finish in time."""

import json

from hypothesis import example, given
from hypothesis import strategies as st
from test_fuzz_loaders import CONTENT, FUZZ, HANGS, MEGABYTE, check_files, repeated

from expert_gui.core.data.formats import latex
from expert_gui.core.data.formats.names import name_key, parse_name, split_names


def bits(units: list[bytes]):
    """Bytes built from a format's own pieces mixed with anything at all."""
    return st.lists(st.sampled_from(units) | st.binary(max_size=8), max_size=50).map(b"".join)


_WOS = [b"FN Clarivate Analytics Web of Science\n", b"VR 1.0\n", b"PT J\n", b"AU Tobler, W\n",
        b"AF Tobler, Waldo\n", b"   Yang, Qihe\n", b"TI Ring buffers\n", b"AB Lockless.\n",
        b"OI Tobler, Waldo/0000-0002-1825-0097;\n", b"RI Yang, Q/A-1-2010\n", b"DI 10.1/x\n",
        b"PY 2016\n", b"UT WOS:1\n", b"ER\n", b"EF\n", b"\n", b"   ", b"\xef\xbb\xbf", b"\xff\xfe"]
_MEDLINE = [b"PMID- 1\n", b"TI  - Ring buffers\n", b"AB  - Lockless.\n", b"FAU - Tobler, W\n",
            b"AU  - Tobler W\n", b"AUID- ORCID: 0000-0002-1825-0097\n", b"CN  - Group\n",
            b"LID - 10.1/x [doi]\n", b"DP  - 2018 Nov-Dec\n", b"      more\n", b"\n", b"-",
            b"PS  - Turing, Alan\n"]
_PUBMED_XML = [b"<?xml version='1.0'?>", b"<!DOCTYPE PubmedArticleSet>", b"<PubmedArticleSet>",
               b"</PubmedArticleSet>", b"<PubmedArticle>", b"</PubmedArticle>", b"<PMID>1</PMID>",
               b"<ArticleTitle>Ring <i>buffers</i></ArticleTitle>", b"<AuthorList>",
               b"</AuthorList>", b"<Author><LastName>Tobler</LastName><ForeName>W</ForeName>"
               b"</Author>", b"<CollectiveName>G</CollectiveName>", b"&amp;", b"&nbsp;", b"<",
               b"<PubDate><MedlineDate>2018 Nov</MedlineDate></PubDate>", b"]]>", b"<![CDATA["]
_ENDNOTE = [b'<?xml version="1.0" encoding="UTF-8" ?>', b"<xml>", b"<records>", b"<record>",
            b"</record>", b"</records></xml>", b"<rec-number>7</rec-number>",
            b"<contributors><authors><author><style>Guild, F.J., A.J. Kinloch, and A.C. "
            b"Taylor</style></author></authors></contributors>", b"<titles><title>",
            b"</title></titles>", b"&lt;x.pdf&gt;", b"&#xD;", b"<style face='normal'>"]
_CSL = [b"[", b"]", b"{", b"}", b",", b'"id":"k"', b'"type":"article"', b'"title":"Ring"',
        b'"author":[{"family":"Tobler","given":"W"}]', b'"author":[{"literal":"G"}]',
        b'"issued":{"date-parts":[["2003",1,24]]}', b'"issued":{"literal":"x"}', b"\n  ",
        b'"DOI":"10.1/x"', b"null", b"1e999", b'"\\ud800"']
_TABLE_HEADERS = [
    b"\xef\xbb\xbfPT\tAU\tAF\tTI\tAB\tOI\tRI\tUT\tDI\tPY\t\n",
    b'"Authors","Author full names","Author(s) ID","Title","Year","Abstract","EID"\n',
    b"Authors,Author(s) ID,Title,Year,Source title,EID\n",
    b"Lens ID,Title,Publication Year,Author/s,Abstract,DOI\n",
    b"Cites,Authors,Title,Year,Source,Publisher,ArticleURL,GSRank\n",
    b'"Document Title",Authors,"Author Affiliations","Abstract"\n',
    b"Title,URL,Description,Details,ShortDetails,EntrezUID\n"]
_CELLS = [b"\t", b",", b"\n", b'"', b"Tobler W., Yoo E.-H.", b"Rocle, N., Rey-Valette, H.",
          b"null Tobler", b"Q Yang, J Snyder, \xe2\x80\xa6", b"Wang, Wei (57201234567)",
          b"7006438074;", b"Tobler, Waldo/0000-0002-1825-0097", b"[No abstract available]",
          b"2016", b"10.1/x"]


@FUZZ
@given(body=bits(_WOS), name=st.sampled_from(["savedrecs.txt", "savedrecs(1).txt"]))
def test_web_of_science_plain_text(body, name):
    check_files({name: body}, name, format="wos", use_cache=False)


@FUZZ
@given(body=bits(_MEDLINE))
def test_medline(body):
    check_files({"citations.nbib": body}, "citations.nbib", format="medline", use_cache=False)


@FUZZ
@given(body=bits(_PUBMED_XML) | CONTENT)
def test_pubmed_xml(body):
    check_files({"pubmed.xml": body}, "pubmed.xml", format="pubmed-xml", use_cache=False)


@FUZZ
@given(body=bits(_ENDNOTE) | CONTENT)
def test_endnote_xml(body):
    check_files({"library.xml": body}, "library.xml", format="endnote-xml", use_cache=False)


@FUZZ
@given(body=bits(_CSL) | CONTENT)
def test_csl_json(body):
    check_files({"library.json": body}, "library.json", format="csl-json", use_cache=False)


@FUZZ
@given(header=st.sampled_from(_TABLE_HEADERS), body=bits(_CELLS),
       ext=st.sampled_from(["csv", "txt"]))
def test_export_tables(header, body, ext):
    check_files({f"export.{ext}": header + body}, f"export.{ext}", format="table",
                use_cache=False)


@FUZZ
@given(files=st.lists(st.tuples(st.sampled_from(["a.txt", "b.nbib", "c.xml", "d.json", "e.csv",
                                                 "f.bib", "g.ris", "README"]),
                                bits(_WOS + _MEDLINE + _CSL + _PUBMED_XML)),
                      min_size=1, max_size=4, unique_by=lambda f: f[0]))
@example(files=[("a.txt", b"\x00\r\t")])  # a first line ending in a lone \r (a csv.Error once)
def test_a_folder_of_exports(files):
    check_files(dict(files), format="exports", use_cache=False)


@FUZZ
@given(text=st.text(max_size=60))
def test_any_text_as_a_name_list_or_latex(text):
    for style in ("names", "comma"):
        for written in split_names(text, style):
            name = parse_name(written)
            if name is not None:
                name_key(name)
    decoded, _ = latex.decode(text)
    assert isinstance(decoded, str)


# -- the inputs built to be slow -------------------------------------------------------------
@HANGS
@given(n=st.sampled_from([100_000, 20_000]) | st.integers(1, 100_000))
def test_web_of_science_huge_author_and_id_lists(n):
    authors = b"".join(b"   Smith, J%d\n" % i for i in range(n))
    ids = b"; ".join(b"Smith, J%d/0000-0002-%04d-0097" % (i, i % 10_000) for i in range(n))
    c = check_files({"savedrecs.txt": b"FN x\nPT J\nAF Smith, Anna\n" + authors
                     + b"TI Ring buffers\nOI " + ids + b"\nER\n"}, "savedrecs.txt",
                    use_cache=False)
    assert c is not None and c.n_documents == 1


@HANGS
@given(n=st.sampled_from([20_000, 5_000]) | st.integers(1, 20_000))
def test_one_title_and_year_many_times(n):
    rows = b"".join(b"Einzelreferate und Buchbesprechungen,1941,Author%d,10.1000/%d\n" % (i, i % 7)
                    for i in range(n))
    c = check_files({"pubs.csv": b"Title,Year,Authors,DOI\n" + rows}, "pubs.csv",
                    use_cache=False)
    assert c is not None and c.n_documents == min(n, 7)


@HANGS
@given(body=repeated([b"<i>", b"<b>x", b"<AbstractText>", b"&amp;", b"<"], size=MEGABYTE))
def test_pubmed_xml_deep_or_long(body):
    check_files({"pubmed.xml": b"<PubmedArticleSet><PubmedArticle><PMID>1</PMID><ArticleTitle>"
                 + body + b"</ArticleTitle></PubmedArticle></PubmedArticleSet>"}, "pubmed.xml",
                format="pubmed-xml", use_cache=False)


@HANGS
@given(depth=st.sampled_from([100_000, 10_000]) | st.integers(1, 100_000))
def test_csl_json_deep(depth):
    item = json.dumps({"id": "k", "type": "article", "title": "Ring"}).encode()
    check_files({"library.json": b"[\n  " + item + b",\n  " + b"[" * depth + b"\n]"},
                "library.json", format="csl-json", use_cache=False)

