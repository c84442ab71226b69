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


EXPORTS = "collections/exports"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def test_rayyan_authors_field_mended_and_placeholders(fixtures):
    # issue 20: Rayyan's `authors=` gave 0 people, and it cuts names at every "and"
    c = load_collection(fixtures / EXPORTS / "rayyan.bib", use_cache=False)
    assert people(c, "1") == ["marisa-narciso-fernandes", "raquel-aparecida-moreira",
                              "thandy-junio-da-silva-pinto"]
    assert c.text(1) == "Zebrafish behaviour under Müller's protocol"  # no "[No abstract...]"
    assert c.doc_dates[1] != c.doc_dates[1]  # year={NA}: undated, not an invalid date
    kinds = sorted(p.kind for p in c.report.problems)
    assert kinds == ["name-repaired", "no-people", "placeholder"]


def test_web_of_science_bibtex_capital_keys_and_author_ids(fixtures):
    # issue 20: `Author = {...}` gave 0 people
    c = load_collection(fixtures / EXPORTS / "WOS_2.bib", use_cache=False)
    assert people(c, "WOS:001206730500001") == ["jeanette-nunez", "orcid:0000-0001-9130-3047",
                                                "orcid:0000-0002-8129-5933"]
    assert people(c, "WOS:000770901500001") == ["orcid:0000-0003-3365-2067",
                                                "rid:HZJ-0280-2023"]
    assert c.text(0) == ("Multiple enchondromas and hobnail hemangiomas revealing a rare type "
                         "of Maffucci syndrome")  # its line break is a space


def test_scopus_bibtex_repeated_fields_and_preamble(fixtures):
    # issue 20: an entry with a field given twice was skipped whole
    c = load_collection(fixtures / EXPORTS / "scopus.bib", use_cache=False)
    assert c.doc_ids == ["Ilie2022"] and c.report.problems == []  # funding is not read
    assert c.text(0).split("\n") == [
        "Assessing Anti-Social Behavior in a Zebrafish Model of Parkinson’s Disease",
        "Rotenone is used to model Parkinson's disease.", "zebrafish; rotenone"]
    assert people(c, "Ilie2022") == ["a-ciobica", "b-doroftei", "o-d-ilie"]


def test_a_key_twice_an_entry_after_a_brace_and_one_paper_twice(fixtures):
    c = load_collection(fixtures / EXPORTS / "library.bib", use_cache=False)
    # Part II shares Part I's key and starts on its closing line: both kept
    assert c.doc_ids == ["Huang1992", "Huang1992#2", "Kinloch2010"]
    assert c.text(1).endswith("Part II")
    # Kinloch2010a is Kinloch2010 again (one DOI, in other case): merged and reported
    found = {(p.kind, p.line) for p in c.report.problems}
    assert {("shared-key", 8), ("merged-duplicate", 22)} <= found
    assert c.report.counts["records"] == 4 and c.report.counts["duplicates merged"] == 1


@pytest.mark.parametrize("latex", [
    r"M{\"u}ller", r"M\"uller", r"{\'E}cole", r"Fran\c{c}ois", r"Fran\c cois", r"\v{S}koda",
    r"Wei{\ss}", r"{\l}{\'o}d{\'z}", r"na\"{\i}ve", r"10\% of A \& B", r"pp. 1--10",
    r"{{Title In Braces}}", r"\textit{in vitro} effect", r"Jo\~{a}o", r"\emph{Danio rerio}",
    r"H$_2$O and $\alpha$", r"Erd\H{o}s", r"\r{A}ngstr\"om", r"C\^ot\'e", r"\unknownmacro{x} y",
])
def test_the_fast_latex_decoder_agrees_with_pylatexenc(latex):
    import unicodedata

    from expert_gui.core.data.formats import latex as fast

    reference = fast._pylatexenc().latex_to_text(latex)
    ours, decoded = fast.decode(latex)
    assert decoded
    assert unicodedata.normalize("NFC", ours) == unicodedata.normalize("NFC", reference)
