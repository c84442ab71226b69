"""Format detection by file names and content, and the explicit override."""

import gzip

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError


@pytest.mark.parametrize("name, expected", [
    ("folder_tsv", "folder"), ("folder_csv", "folder"), ("folder_jsonl", "folder"),
    ("trec", "trec"), ("trec/docs.trec", "trec"), ("trec/more.trec.gz", "trec"),
    ("plaintext", "text"), ("papers.bib", "bibtex"), ("folder_tsv/documents.tsv", "folder"),
])
def test_fixtures_are_recognised(fixtures, name, expected):
    assert detect_format(fixtures / "collections" / name) == expected


def test_content_decides_when_names_do_not(tmp_path):
    bib = tmp_path / "refs.txt"
    bib.write_text("\n  @article{k, title={T}, author={A B}}\n", encoding="utf-8")
    trec = tmp_path / "corpus.dat"
    trec.write_text("  <DOC>\n<DOCNO>x</DOCNO></DOC>\n", encoding="utf-8")
    packed = tmp_path / "corpus.z.gz"
    with gzip.open(packed, "wt") as f:
        f.write("<doc><docno>x</docno></doc>")
    assert detect_format(bib) == "bibtex"
    assert detect_format(trec) == "trec"
    assert detect_format(packed) == "trec"


def test_documents_file_stands_for_its_folder(fixtures):
    folder = fixtures / "collections/folder_tsv"
    a = load_collection(folder / "documents.tsv", use_cache=False)
    b = load_collection(folder, use_cache=False)
    assert a.doc_ids == b.doc_ids and a.person_names == b.person_names


def test_git_repository_is_recognised(tmp_path):
    (tmp_path / ".git").mkdir()
    assert detect_format(tmp_path) == "git"


def test_unknown_file_and_missing_path(tmp_path):
    other = tmp_path / "notes.md"
    other.write_text("# not a collection\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="cannot tell the collection format"):
        detect_format(other)
    with pytest.raises(CollectionError, match="no such file"):
        detect_format(tmp_path / "missing")


def test_explicit_format_overrides_detection(fixtures):
    # a folder that would be read as the folder format, read as plain-text files instead
    c = load_collection(fixtures / "collections/folder_csv", format="text",
                        associations=fixtures / "collections/folder_csv/associations.csv",
                        use_cache=False)
    assert c.report.format == "text" and c.doc_ids == ["documents.csv"]
    with pytest.raises(CollectionError, match="unknown format 'word'"):
        load_collection(fixtures / "collections/folder_csv", format="word")
