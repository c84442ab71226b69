"""docs/collection-formats.md (issue 12's one-page guide): its examples load as it says."""

import re
from pathlib import Path

import pytest

from expert_gui.core.data.loading import load_collection

GUIDE = Path(__file__).parent.parent / "docs" / "collection-formats.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_every_format_has_a_ten_line_example():
    text = GUIDE.read_text(encoding="utf-8")
    sections = re.split(r"\n## ", text)[1:]
    assert len(sections) == 36
    for section in sections:
        example = re.search(r"```[\w-]*\n(.*?)```", section, re.S).group(1)
        assert len(example.splitlines()) == 10, section.splitlines()[0]


@pytest.mark.parametrize("language, name, format, documents, people", [
    ("csv", "publications.csv", "table", 9, 9), ("ris", "refs.ris", "ris", 1, 3),
    ("bibtex", "refs.bib", "bibtex", 2, 4), ("json", "documents.jsonl", "folder", 10, 4),
    # issue 20's exports, under the names they come with; each is told by its content
    ("scopus-csv", "scopus.csv", "table", 9, 13), ("wos", "savedrecs.txt", "wos", 1, 2),
    ("wos-tab", "savedrecs(1).txt", "table", 9, 10), ("wos-csv", "savedrecs.csv", "table", 9, 8),
    ("medline", "pubmed-export.txt", "medline", 1, 2),
    ("pubmed-xml", "pubmed_result.xml", "pubmed-xml", 1, 2),
    ("pubmed-csv", "csv-mysearch.csv", "table", 9, 11), ("lens-csv", "lens.csv", "table", 9, 13),
    ("pop-csv", "PoPCites.csv", "table", 9, 13), ("ieee-csv", "export.csv", "table", 9, 10),
    ("csl-json", "My Library.json", "csl-json", 2, 3),
    ("endnote-xml", "My EndNote Library.xml", "endnote-xml", 1, 4),
    # issue 30's exports
    ("enw", "citations.enw", "refer", 2, 3), ("ads", "export.txt", "refer", 1, 4),
    ("refworks", "CNKI.txt", "refworks", 1, 3),
    ("zotero-rdf", "My Library.rdf", "zotero-rdf", 1, 1),
    ("embase-csv", "records.csv", "table", 9, 8),
    ("embase-rows", "records.csv", "embase-rows", 2, 4),
    ("ovid-csv", "citation.csv", "table", 2, 4),
    ("springer-csv", "SearchResults.csv", "table", 9, 12),
    ("acm-csv", "acm.csv", "table", 9, 7), ("openalex", "works.json", "openalex", 2, 2),
    ("crossref", "crossref.json", "crossref", 2, 3),
    # issue 41's: CNKI's own text export and NoteExpress
    ("cnki", "CNKI-638000000000000000.txt", "cnki", 1, 3),
    ("noteexpress", "NoteExpress.net", "noteexpress", 1, 2)])
def test_the_examples_load(tmp_path, language, name, format, documents, people):
    example = blocks(language)[0]
    (tmp_path / name).write_text(example, encoding="utf-8")
    c = load_collection(tmp_path / name, use_cache=False)
    assert c.report.format == format
    assert (c.n_documents, c.n_people) == (documents, people)
