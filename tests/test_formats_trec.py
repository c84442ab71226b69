"""TREC text files: several <DOC>s per file, gzip, HTML stripped, SERT associations."""

import gzip

import pytest

from expert_gui.core.data.formats.trec import strip_markup
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError


def words(c, doc_id):
    return [c.vocab.words[t] for t in c.doc_tokens(c.doc_index[doc_id])]


def test_folder_of_trec_files_plain_and_gzipped(fixtures):
    c = load_collection(fixtures / "collections/trec", use_cache=False)
    assert c.report.format == "trec"
    assert c.doc_ids == ["t1", "t2", "t3"]  # docs.trec, then more.trec.gz
    # HTML: tags and script gone, entities decoded, the title kept
    assert words(c, "t1") == ["mellanox", "driver", "mlx5", "ring", "queues"]
    assert c.text(0) .count("hidden") == 0 and "<queues>" in c.text(0)
    assert words(c, "t2") == ["crypto", "device", "offload"]
    assert words(c, "t3") == ["event", "device", "scheduling"]  # <DOCHDR> dropped
    assert c.person_ids == ["alice", "bob"]
    assert c.documents_of(0).tolist() == [0, 2]
    found = {(p.kind, p.file.rsplit("/", 1)[-1], p.line) for p in c.report.problems}
    assert found == {("malformed-record", "docs.trec", 9),  # no <DOCNO>
                     ("unknown-document", "associations.txt", 5),
                     ("malformed-record", "associations.txt", 6)}


def test_one_file_with_explicit_associations(tmp_path):
    docs = tmp_path / "run.txt.gz"
    with gzip.open(docs, "wt", encoding="utf-8") as f:
        f.write("<DOC><DOCNO>a</DOCNO>alpha words</DOC><doc><docno>b</docno>beta</doc>\n")
    links = tmp_path / "links.assoc"
    links.write_text("p1 a\np2 b 0.3\n", encoding="utf-8")
    c = load_collection(docs, associations=links, use_cache=False)
    assert c.report.format == "trec" and c.doc_ids == ["a", "b"]
    assert c.person_ids == ["p1", "p2"] and c.report.problems == []


def test_unterminated_and_nested_documents_are_reported(tmp_path):
    path = tmp_path / "docs.trec"
    path.write_text("<DOC><DOCNO>a</DOCNO>one\n<DOC><DOCNO>b</DOCNO>middle</DOC>\nstray\n"
                    "<DOC><DOCNO>c</DOCNO>three\n", encoding="utf-8")
    (tmp_path / "associations.txt").write_text("p b\n", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["b"]
    lines = sorted((p.line, p.kind) for p in c.report.problems)
    assert lines == [(1, "malformed-record"), (3, "malformed-record"), (4, "malformed-record")]


def test_file_without_documents_is_one_error(tmp_path):
    path = tmp_path / "docs.trec"
    path.write_text("\n\njust some text\n", encoding="utf-8")
    (tmp_path / "associations.txt").write_text("p b\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected TREC documents") as err:
        load_collection(path, format="trec", use_cache=False)
    assert err.value.line == 3


def test_trec_needs_associations(tmp_path):
    path = tmp_path / "docs.trec"
    path.write_text("<DOC><DOCNO>a</DOCNO>x</DOC>\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="associations"):
        load_collection(path, use_cache=False)


def test_strip_markup():
    assert strip_markup("<p>a&amp;b</p><style>p {}</style>c").split() == ["a&b", "c"]


def test_a_folder_skips_files_that_are_not_trec(tmp_path):
    (tmp_path / "a.trec").write_text("<DOC><DOCNO>a</DOCNO>alpha</DOC>\n", encoding="utf-8")
    (tmp_path / "README").write_text("about this corpus\n", encoding="utf-8")
    (tmp_path / "associations.txt").write_text("p a\n", encoding="utf-8")
    c = load_collection(tmp_path, format="trec", use_cache=False)
    assert c.doc_ids == ["a"]
    [p] = c.report.problems
    assert p.file.endswith("README") and p.line == 1 and "skipped" in p.message
