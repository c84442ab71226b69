"""BibTeX: entries are documents, authors are people, one id per person however written."""

import pytest

from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError


def test_names_written_two_ways_are_one_person(fixtures):
    c = load_collection(fixtures / "collections/papers.bib", use_cache=False)
    assert c.report.format == "bibtex"
    assert c.doc_ids == ["vangysel2016unsupervised", "balog2012expertise", "mueller2020",
                         "balog2012expertise#2"]
    rijke = c.person_index["maarten-de-rijke"]  # "Rijke, Maarten de" and "Maarten de Rijke"
    assert c.person_names[rijke] == "Maarten de Rijke"
    assert c.documents_of(rijke).tolist() == [0, 1]
    assert "christophe-van-gysel" in c.person_index
    assert c.person_names[c.person_index["jörg-müller"]] == "Jörg Müller"  # LaTeX decoded
    assert c.n_people == 9


def test_text_is_title_abstract_keywords(fixtures):
    c = load_collection(fixtures / "collections/papers.bib", use_cache=False)
    assert c.text(0) == ("Unsupervised, Efficient and Semantic Expertise Retrieval\n"
                         "We introduce an unsupervised discriminative model for expert retrieval.\n"
                         "expert finding, log-linear model")
    assert c.text(2) == "Schöne neue Welt of rankers"


def test_a_key_used_twice_and_broken_entries_are_reported(fixtures):
    # issue 20: two different papers under one key are both kept, the later with its own id
    c = load_collection(fixtures / "collections/papers.bib", use_cache=False)
    found = sorted((p.kind, p.line) for p in c.report.problems)
    assert found == [("malformed-record", 28), ("shared-key", 23)]
    assert c.text(c.doc_index["balog2012expertise#2"]) == "A duplicate key"


def test_file_without_entries_is_one_error(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{a\n  title = {x}\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected BibTeX entries") as err:
        load_collection(path, use_cache=False)
    assert err.value.line == 1


@pytest.mark.parametrize("written", ["Rijke, Maarten de", "Maarten de Rijke", "de Rijke, Maarten",
                                     "{Maarten} de {Rijke}"])
def test_every_way_of_writing_a_name_gives_one_id(tmp_path, written):
    path = tmp_path / "one.bib"
    path.write_text(f"@misc{{k, author = {{{written} and Smith, Jr., Sam}}, title = {{T}}}}\n",
                    encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.person_ids == ["maarten-de-rijke", "sam-smith-jr"]
    assert c.person_names == ["Maarten de Rijke", "Sam Smith, Jr."]
