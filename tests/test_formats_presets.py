"""Tables that are known exports (issue 20, item 4): Scopus of every vintage, Lens, Publish or
Perish, IEEE Xplore; and a table whose columns are not recognised says what to do."""

from expert_gui.cli import main
from expert_gui.core.data.formats.presets import TableColumns, detect_columns
from expert_gui.core.data.formats.table import preview
from expert_gui.core.data.loading import load_collection

EXPORTS = "collections/exports"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def test_each_export_is_told_by_its_header(fixtures):
    expected = {"scopus_2021.csv": "scopus-authors", "scopus_2017.csv": "scopus-authors",
                "scopus_no_abstract.csv": "scopus", "lens-export.csv": "lens",
                "PoPCites.csv": "publish-or-perish", "ieee.csv": "ieee",
                "wos_excel.csv": "wos-excel", "wos_tab.txt": "wos", "pubmed.csv": "pubmed",
                "pubmed_legacy.csv": "pubmed-legacy"}
    for name, preset in expected.items():
        assert preview(fixtures / EXPORTS / name).columns.preset == preset, name


def test_scopus_2021_comma_separated_surname_first_with_positional_ids(fixtures):
    c = load_collection(fixtures / EXPORTS / "scopus_2021.csv", use_cache=False)
    # "Yang Q., Snyder J., Tobler W.R." with "12345678900;22345678900;7006438074;"
    assert people(c, "2-s2.0-0003456789") == ["scopus:12345678900", "scopus:22345678900",
                                              "scopus:7006438074"]
    assert dict(zip(c.person_ids, c.person_names, strict=True))["scopus:7006438074"] == \
        "W.R. Tobler"
    assert c.text(1) == "Map projection transformation: principles and applications"
    [problem] = c.report.problems  # "[No abstract available]" is not text
    assert problem.kind == "placeholder" and "[No abstract available]" in problem.message


def test_older_scopus_pairs_surnames_and_initials(fixtures):
    # "Rocle, N., Rey-Valette, H." was one person before issue 20
    c = load_collection(fixtures / EXPORTS / "scopus_2017.csv", use_cache=False)
    assert people(c, "2-s2.0-85019000001") == ["h-rey-valette", "n-rocle"]
    assert people(c, "2-s2.0-85019000002") == ["h-rey-valette", "n-rocle"]


def test_scopus_without_abstract_opens_with_the_columns_it_has(fixtures):
    path = fixtures / EXPORTS / "scopus_no_abstract.csv"
    columns = preview(path).columns
    assert columns.text == ("Title", "Author Keywords") and columns.people_style == "scopus"
    c = load_collection(path, use_cache=False)
    assert people(c, "2-s2.0-85164254290") == ["scopus:57960795300", "scopus:58022815300"]


def test_lens_publish_or_perish_and_ieee(fixtures):
    lens = load_collection(fixtures / EXPORTS / "lens-export.csv", use_cache=False)
    assert people(lens, "000-649-451-763-370") == ["ratkóczy", "tobler"]  # "null Tobler"
    assert lens.n_documents == 3  # one title and year, two DOIs: two papers
    pop = load_collection(fixtures / EXPORTS / "PoPCites.csv", use_cache=False)
    # "Q Yang, J Snyder, W Tobler, …": comma-separated initials first, "…" is nobody
    assert people(pop, "PoPCites:3") == ["j-snyder", "q-yang", "w-tobler"]
    ieee = load_collection(fixtures / EXPORTS / "ieee.csv", use_cache=False)
    assert ieee.text(0).startswith("Machine unlearning for credit scoring\n")  # the title
    assert [(p.kind, p.line) for p in ieee.report.problems] == [("duplicate-association", 2)]


def test_a_preset_is_fitted_to_the_header():
    assert detect_columns(["Authors", "Title", "Year", "Source title", "EID"]) == \
        TableColumns(text=("Title",), people="Authors", id="EID", people_style="comma",
                     preset="scopus-authors", date="Year")
    assert detect_columns(["Lens ID", "Author/s"]) is None  # no title: not Lens


def test_unrecognised_columns_say_which_were_found_and_how_to_name_them(tmp_path, capsys):
    path = tmp_path / "mine.csv"
    path.write_text("Name,Summary,Writers\nRing buffers,Lockless rings,\"Archer, Ann\"\n",
                    encoding="utf-8")
    assert main(["stats", str(path), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "'Name', 'Summary', 'Writers'" in err and "--text-columns A,B --people-column" in err
    assert main(["stats", str(path), "--no-cache", "--text-columns", "Name,Summary",
                 "--people-column", "Writers", "--json"]) == 0
    assert '"documents": 1' in capsys.readouterr().out
    half = tmp_path / "half.csv"
    half.write_text("Title,Abstract,Writers\nRing buffers,Lockless rings,\"Archer, Ann\"\n",
                    encoding="utf-8")
    assert main(["stats", str(half), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "beside the text columns Title, Abstract" in err and "--people-column NAME" in err
    # --people-column alone: the text columns are found by name
    assert main(["stats", str(half), "--no-cache", "--people-column", "Writers", "--json"]) == 0
    assert '"people_with_documents": 1' in capsys.readouterr().out
