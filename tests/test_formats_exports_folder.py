"""A folder of exports (issue 20, item 6): several downloads of one search, or Web of Science,
Scopus and PubMed exports of one topic, open as one collection; the same paper exported twice
is one document, and the load report says how many were merged and names them."""

import shutil

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.loading import load_collection

EXPORTS = "collections/exports"
P1_DOI = "10.1145/2872427.2882974"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def test_every_kind_of_export_in_one_folder(fixtures):
    folder = fixtures / EXPORTS
    assert detect_format(folder) == "exports"
    c = load_collection(folder, use_cache=False)
    report = c.report
    assert report.format == "exports" and len(report.files) == 19
    assert report.counts["records"] == 41 and report.counts["duplicates merged"] == 14
    assert c.n_documents == 41 - 14
    merged = [p for p in report.problems if p.kind == "merged-duplicate"]
    assert len(merged) == 14
    # the WWW 2016 paper is in six of the files: one document, named by its first record
    same = [p for p in merged if P1_DOI in p.message]
    assert sorted(p.file.rsplit("/", 1)[1] for p in same) == [
        "My_Library.json", "citations.nbib", "pubmed.csv", "pubmed_result.xml", "savedrecs.txt"]
    first = "My_EndNote_Library:327"
    assert all(f"'{first}'" in p.message for p in same)
    # its authors: the ids of every copy meet (EndNote has none, CSL and WoS give ORCIDs)
    assert people(c, first) == ["orcid:0000-0002-1086-0202", "orcid:0000-0003-3433-7317",
                                "orcid:0000-0003-4097-4136"]
    # its text is the copy with the most (WoS's: title, abstract and keywords)
    assert c.text(c.doc_index[first]).split("\n")[::2] == [
        "Unsupervised, Efficient and Semantic Expertise Retrieval",
        "expert finding; log-linear models; unsupervised retrieval"]
    # Tobler in Lens, Publish or Perish, WoS and Scopus: one person, by his ORCID
    tobler = [p for p, n in zip(c.person_ids, c.person_names, strict=True) if "Tobler" in n]
    assert tobler == ["orcid:0000-0002-1825-0097", "tobler"]  # and Lens's bare "null Tobler"


def test_two_downloads_of_one_search_and_files_that_are_no_exports(fixtures, tmp_path):
    text = (fixtures / EXPORTS / "savedrecs.txt").read_text(encoding="utf-8-sig")
    head, *records = text.split("\nPT ")
    (tmp_path / "savedrecs.txt").write_text(head + "\nPT " + records[0] + "\nEF\n",
                                            encoding="utf-8")
    (tmp_path / "savedrecs(1).txt").write_text(head + "".join("\nPT " + r for r in records[1:]),
                                               encoding="utf-8")
    (tmp_path / "README.md").write_text("# my search\n", encoding="utf-8")
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.4 binary")
    assert detect_format(tmp_path) == "exports"
    c = load_collection(tmp_path, use_cache=False)
    assert c.n_documents == 3 and c.report.counts["duplicates merged"] == 0
    skipped = sorted(p.file.rsplit("/", 1)[1] for p in c.report.problems
                     if p.kind == "skipped-file")
    assert skipped == ["README.md", "paper.pdf"]


def test_a_file_that_cannot_be_read_is_reported_and_the_rest_loads(fixtures, tmp_path):
    shutil.copy(fixtures / EXPORTS / "citations.nbib", tmp_path)
    (tmp_path / "broken.ris").write_text("not a record\n", encoding="utf-8")
    c = load_collection(tmp_path, use_cache=False)
    assert c.doc_ids == ["27000001", "27000002"]
    [skipped] = [p for p in c.report.problems if p.kind == "skipped-file"]
    assert skipped.file.endswith("broken.ris") and "expected RIS records" in skipped.message


def test_which_folders_are_folders_of_exports(fixtures, tmp_path):
    one_bib = tmp_path / "bib"
    one_bib.mkdir()
    shutil.copy(fixtures / EXPORTS / "library.bib", one_bib)
    assert detect_format(one_bib) == "exports"
    one_table = tmp_path / "table"
    one_table.mkdir()
    shutil.copy(fixtures / EXPORTS / "lens-export.csv", one_table)
    assert detect_format(one_table) == "table"  # as before: one table is the table format
    texts = tmp_path / "texts"
    texts.mkdir()
    shutil.copy(fixtures / EXPORTS / "savedrecs.txt", texts)
    (texts / "associations.tsv").write_text("savedrecs.txt\tann\n", encoding="utf-8")
    assert detect_format(texts) == "text"  # an associations file: text files, not exports
