"""Generated and damaged exports into the readers of issue 30 (EndNote and ADS tagged, RefWorks,
Zotero RDF, OpenAlex, Crossref, Embase's one-field-a-row CSV, the Embase, Ovid, SpringerLink and
ACM presets, folders of folders), under the fuzz suite's deadlines: only a CollectionError
naming the file may escape, every problem is of a known kind, and the inputs built to be slow
(huge author lists, wrapped values, abstracts at huge positions, thousands of spellings of one
family) finish in time."""

import json
import tempfile
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st
from test_fuzz_exports import bits
from test_fuzz_loaders import CONTENT, FUZZ, HANGS, check, check_files

from expert_gui.core.data.formats.names import split_run_together

_REFER = [b"%0 Journal Article\n", b"%R 2019ApJ...875...75T\n", b"%T Ring buffers\n",
          b"%A Tobler, Waldo\n", b"%A Tobler, W. R.; Yang, Q.;\n", b"Snyder, J.\n",
          b"%F AA(Univ), AB(-)\n", b"%B Lockless-\n", b"queues.\n", b"%X Abstract\n",
          b"%K a; b\n", b"%D 04/2019\n", b"%Y DOI: 10.1234/x\n", b"%+ Univ;\n", b"\r\n",
          b"\n\n", b"%", b"%M 7\n", b"\xe7\x8e\x8b\xe5\xa8\x9c"]
_REFWORKS = [b"RT Journal Article\n", b"A1 \xe8\xa2\x81\xe8\xbf\x9b;\xe7\x8e\x8b\n",
             b"A1 Tobler, W\n", b"T1 Ring buffers\n", b"AB Lockless.\n", b"YR 2024\n",
             b"vo \n", b"OP 72-74\n", b"K1 a;b\n", b"DO 10.1234/x\n", b"AD Univ;\n", b"ID 3\n",
             b"In this paper\n", b"\r\n", b"\n"]
_RDF = [b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        b'xmlns:z="http://www.zotero.org/namespaces/export#" '
        b'xmlns:bib="http://purl.org/net/biblio#" xmlns:foaf="http://xmlns.com/foaf/0.1/" '
        b'xmlns:dc="http://purl.org/dc/elements/1.1/">', b"</rdf:RDF>",
        b'<bib:Article rdf:about="#item_1">', b"</bib:Article>",
        b'<rdf:Description rdf:about="#item_2">', b"</rdf:Description>",
        b"<z:itemType>preprint</z:itemType>", b"<z:itemType>note</z:itemType>",
        b"<bib:authors><rdf:Seq><rdf:li><foaf:Person><foaf:surname>Tobler</foaf:surname>"
        b"<foaf:givenName>A, B, C</foaf:givenName></foaf:Person></rdf:li></rdf:Seq>"
        b"</bib:authors>", b"<dc:title>Ring &amp;amp; buffers</dc:title>",
        b'<dcterms:isPartOf rdf:resource="urn:issn:1"/>', b"<dc:identifier>DOI 10.1234/x"
        b"</dc:identifier>", b"<", b"&", b"<!DOCTYPE x [<!ENTITY e 'x'>]>"]
_OPENALEX = [b'{"meta": {"count": 1}, "results": [', b"]}", b"{", b"}", b",",
             b'"id": "https://openalex.org/W1"', b'"title": "Ring"',
             b'"authorships": [{"author": {"id": "https://openalex.org/A1", "display_name": '
             b'"Wei Wang", "orcid": "https://orcid.org/0000-0002-1825-0097"}, "institutions": '
             b'[{"display_name": "Yale"}]}]', b'"abstract_inverted_index": {"a": [0, 99999999]}',
             b'"abstract_inverted_index": {"a": ["x", -1, true]}', b'"biblio": null',
             b'"ids": {"pmid": 7}', b"null", b"1e999", b'"\\ud800"', b"\n  "]
_CROSSREF = [b'{"status": "ok", "message-type": "work-list", "message": {"items": [', b"]}}",
             b'{"message-type": "work", "message": ', b"{", b"}", b",", b'"DOI": "10.1234/x"',
             b'"title": ["Ring", 3]', b'"author": [{"given": "Ann", "family": "Archer", '
             b'"ORCID": "x", "affiliation": [{"name": 3}, "y"]}, {"name": "Group"}]',
             b'"issued": {"date-parts": [[2019, "x"]]}', b'"abstract": "<jats:p>x</jats:p>"',
             b"null", b"\n "]
_EMBASE_ROWS = [b'"TITLE","Ring buffers"\n', b'"AUTHOR NAMES","Zhang S., Zhao Y."\n',
                b'"AUTHOR NAMES","A","B","C"\n', b'"ABSTRACT","Lockless\nqueues."\n',
                b'"PUI","L1"\n', b'"AUTHOR ADDRESSES","(Zhang S.) Univ"\n', b"\n", b'"',
                b",", b'"TITLE",\n']
_PRESET_HEADERS = [
    b'"Title","Author Names","Author Addresses","Abstract","Publication Year","PUI"\n',
    b'\xef\xbb\xbf"Copyright (c) Ovid",,,,\nORN,VN,DB,UI,TI,AU,AO,IN,AB\n',
    b"Item Title,Publication Title,Item DOI,Authors,Publication Year,Content Type\n",
    b'"type","id","author","editor","advisor","title","keywords","article_no","num_pages",'
    b'"acronym","year"\n']
_CELLS = [b",", b"\n", b'"', b"Shan W.\n\nMao X.", b"Shan, Wei; ORCID: http://orcid.org/0000-"
          b"0002-8616-2670", b"(Shan, Wang) Dept", b"Justice Opara-MartinsReza Sahandi",
          b"DeRen LiZhenFeng", b"Ann  Archer and Bo  Li", b"Sch&#246;lkopf", b"&#", b"L1", b"2016"]


@FUZZ
@given(body=bits(_REFER) | CONTENT)
def test_endnote_and_ads_tagged(body):
    check_files({"citations.enw": body}, "citations.enw", format="refer", use_cache=False)


@FUZZ
@given(body=bits(_REFWORKS) | CONTENT)
def test_refworks_tagged(body):
    check_files({"CNKI.txt": body}, "CNKI.txt", format="refworks", use_cache=False)


@FUZZ
@given(body=bits(_RDF) | CONTENT)
def test_zotero_rdf(body):
    check_files({"library.rdf": body}, "library.rdf", format="zotero-rdf", use_cache=False)


@FUZZ
@given(body=bits(_OPENALEX) | CONTENT, format=st.sampled_from(["openalex", "crossref"]))
def test_openalex_and_crossref(body, format):
    check_files({"works.json": body}, "works.json", format=format, use_cache=False)


@FUZZ
@given(body=bits(_CROSSREF) | CONTENT)
def test_crossref(body):
    check_files({"crossref.json": body}, "crossref.json", format="crossref", use_cache=False)


@FUZZ
@given(body=bits(_EMBASE_ROWS) | CONTENT)
def test_embase_one_field_a_row(body):
    check_files({"records.csv": body}, "records.csv", format="embase-rows", use_cache=False)


@FUZZ
@given(header=st.sampled_from(_PRESET_HEADERS), body=bits(_CELLS))
def test_embase_ovid_springer_acm_tables(header, body):
    check_files({"export.csv": header + body}, "export.csv", format="table", use_cache=False)


@FUZZ
@given(files=st.lists(st.tuples(st.sampled_from(["a/x.enw", "a/b/y.rdf", "c/works.json",
                                                 "c/d/e/CNKI.txt", "f.csv", "g/README"]),
                                bits(_REFER + _REFWORKS + _OPENALEX + _EMBASE_ROWS)),
                      min_size=1, max_size=4, unique_by=lambda f: f[0]))
def test_a_folder_of_folders(files):
    with tempfile.TemporaryDirectory() as d:
        for name, data in files:
            (Path(d) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(d) / name).write_bytes(data)
        check(Path(d), format="exports", use_cache=False)


@FUZZ
@given(text=st.text(max_size=80))
@example(text="0 aAaA")  # the last piece was added to the name before the pending one: "0 aA" + "Aa"
def test_names_run_together_lose_no_letter(text):
    run = split_run_together(text)
    assert "".join(run.names).replace(" ", "") == "".join(text.split())
    assert run.splits == max(len(run.names) - 1, 0)


# -- the inputs built to be slow -------------------------------------------------------------
@HANGS
@given(n=st.sampled_from([100_000, 20_000]) | st.integers(1, 100_000))
def test_ads_huge_wrapped_author_list(n):
    names = b"; ".join(b"Smith, J%d" % i for i in range(n))
    wrapped = b"\n".join(names[k:k + 72] for k in range(0, len(names), 72))
    c = check_files({"ads.txt": b"%R 2019ApJ\n%T Ring\n%A " + wrapped + b"\n%B Lock-\nless\n"},
                    "ads.txt", format="refer", use_cache=False)
    assert c is not None and c.n_documents == 1


@HANGS
@given(n=st.sampled_from([20_000, 5_000]) | st.integers(2, 20_000))
def test_thousands_of_spellings_of_one_family(n):
    # every spelling extends the one before or is one letter from another: the likely
    # duplicates are looked for among a few of each shape, not every pair
    rows = b"".join(b"Paper %d,2020,\"Smith, John A%d; Smitha%d, John\"\n" % (i, i, i)
                    for i in range(n))
    c = check_files({"pubs.csv": b"Title,Year,Authors\n" + rows}, "pubs.csv", use_cache=False)
    assert c is not None and c.n_documents == n


@HANGS
@given(n=st.sampled_from([100_000, 10_000]) | st.integers(1, 100_000))
def test_openalex_abstract_far_and_wide(n):
    index = {f"w{i}": [i, 10 ** 12 + i] for i in range(n)}
    work = {"id": "https://openalex.org/W1", "title": "Ring",
            "abstract_inverted_index": index}
    c = check_files({"works.json": json.dumps({"meta": {}, "results": [work]}).encode()},
                    "works.json", format="openalex", use_cache=False)
    assert c is not None and c.n_documents == 1


@HANGS
@given(depth=st.sampled_from([100_000, 10_000]) | st.integers(1, 100_000))
def test_openalex_and_crossref_deep(depth):
    for body in (b'{"meta": ' + b"[" * depth + b"]" * depth + b', "results": []}',
                 b'{"message-type": "work-list", "message": {"items": [' + b"[" * depth
                 + b"]}}"):
        check_files({"works.json": body}, "works.json", use_cache=False)


@HANGS
@given(n=st.sampled_from([1 << 20, 1 << 16]) | st.integers(1, 1 << 20))
def test_springer_one_huge_run_together_cell(n):
    cell = b"Ann SmithBo Li" * (n // 14 + 1)
    c = check_files({"SearchResults.csv": b"Item Title,Item DOI,Authors,Publication Year,"
                     b"Content Type\nRing,10.1/x,\"" + cell + b"\",2020,Article\n"},
                    "SearchResults.csv", use_cache=False)
    assert c is not None
