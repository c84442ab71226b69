"""The exports issue 30 added, each from a small fixture written in its vendor's layout: EndNote
and NASA ADS tagged, RefWorks tagged, Zotero RDF, Embase.com CSV in both layouts, Ovid CSV,
SpringerLink CSV, ACM DL CSV, OpenAlex and Crossref JSON; and a folder of sub-folders of them.

No real NASA ADS export was at hand: ads_tagged.txt follows ADS's documented tagged format
(the export service's "ADS" fielded format: %R bibcode, %A "Surname, I.; ..." wrapped at 72
characters, %F "AA(...), AB(...)", %B abstract, %Y "DOI: ..."), with invented content."""

import shutil

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

MORE = "collections/more_exports"


@pytest.fixture
def more(fixtures):
    return fixtures / MORE


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def problems(c, kind=None):
    return [(p.kind, p.line) for p in c.report.problems if kind in (None, p.kind)]


@pytest.mark.parametrize("name, kind", [
    ("citations.enw", "refer"), ("ads_tagged.txt", "refer"), ("CNKI-refworks.txt", "refworks"),
    ("My Library.rdf", "zotero-rdf"), ("em_export.csv", "table"), ("em_rows.csv", "embase-rows"),
    ("citation.csv", "table"), ("SearchResults.csv", "table"), ("acm.csv", "table"),
    ("works.json", "openalex"), ("crossref.json", "crossref")])
def test_each_export_is_told_by_its_content(more, tmp_path, name, kind):
    assert export_kind(more / name) == kind
    renamed = tmp_path / "export.txt"  # a name that says nothing
    shutil.copy(more / name, renamed)
    assert export_kind(renamed) == (kind if kind not in ("table", "embase-rows") else None)


def test_endnote_tagged(more):
    c = load_collection(more / "citations.enw", use_cache=False)  # CRLF, blank lines between
    assert c.report.format == "refer" and c.doc_ids == ["citations:1", "citations:15",
                                                         "citations:25"]
    assert c.text(0) == ("Unsupervised, Efficient and Semantic Expertise Retrieval\nWe introduce "
                         "an unsupervised discriminative model for the task of retrieving "
                         "experts, a log-linear model of words and people.\nexpert finding; "
                         "log-linear models")  # %T, %X over two lines, %K
    assert people(c, "citations:1") == ["christophe-van-gysel", "maarten-de-rijke",
                                        "marcel-worring"]
    assert people(c, "citations:15") == ["王娜"]  # CNKI's thesis: %Y, the supervisor, is no author
    assert people(c, "citations:25") == ["christophe-van-gysel"]  # "Van Gysel, C." joined
    assert problems(c) == [("merged-names", 25)]  # %R, EndNote's DOI, starts no record


def test_nasa_ads_tagged(more):
    c = load_collection(more / "ads_tagged.txt", use_cache=False)
    assert c.report.format == "refer"
    assert c.doc_ids == ["2019ApJ...875...75T", "2017PhDT........14C", "2020ApJ...900....1T"]
    # %A wrapped over two lines, inside a name
    assert people(c, "2019ApJ...875...75T") == ["anna-k-van-der-vegt", "john-p-snyder",
                                                "qihe-yang", "waldo-r-tobler"]
    assert people(c, "2020ApJ...900....1T") == ["qihe-yang", "waldo-r-tobler"]
    assert "the gas-phase structure" in c.text(0)  # %B wrapped after a hyphen
    assert [str(d) for d in c.doc_dates] == ["2019-04-01", "2017-06-01", "2020-09-01"]


def test_refworks_tagged(more):
    c = load_collection(more / "CNKI-refworks.txt", use_cache=False)
    assert c.report.format == "refworks" and c.n_documents == 3
    assert people(c, "CNKI-refworks:1") == ["李明", "王娜", "袁进"]  # A1 joined by ";"
    assert c.text(0).split("\n") == ["基于深度学习的专家发现", "提出一种基于深度学习的专家发现方法。",
                                     "专家发现;深度学习"]
    assert people(c, "CNKI-refworks:18") == ["王娜"]
    assert c.report.problems == []


def test_zotero_rdf(more):
    c = load_collection(more / "My Library.rdf", use_cache=False)
    assert c.report.format == "zotero-rdf"
    # items of every type; the note, the attachment, the collection and the journal are none
    assert c.doc_ids == ["https://doi.org/10.1145/2872427.2882974", "My Library:item_4",
                         "My Library:item_5", "https://www.who.int/report", "My Library:item_7"]
    assert c.text(0).split("\n") == [
        "Unsupervised, Efficient and Semantic Expertise Retrieval",
        "We introduce an unsupervised discriminative model of words & people.",
        "expert finding; log-linear models"]
    assert people(c, "My Library:item_4") == ["elena-gapova", "magdalena-j-zaborowska",
                                              "sibelan-forrester"]  # one creator, three names
    assert people(c, "My Library:item_5") == ["krisztian-balog"]  # the editor is no author
    assert people(c, "https://www.who.int/report") == ["world-health-organization"]
    assert people(c, "My Library:item_7") == ["marcel-worring"]  # a presentation's presenter
    assert problems(c) == [("name-repaired", 55)]


def test_embase_csv_in_both_layouts(more):
    columns = load_collection(more / "em_export.csv", use_cache=False)
    assert columns.report.format == "table"
    assert columns.doc_ids == ["L2043043527", "L2043000001", "L2043192169"]
    assert people(columns, "L2043043527") == ["s-zhang", "w-li", "y-zhao"]
    assert people(columns, "L2043192169") == ["a-cases-sebastià", "s-zhang"]  # &#224; decoded
    assert problems(columns) == [("no-people", 3)]  # a trial registry entry names nobody
    rows = load_collection(more / "em_rows.csv", use_cache=False)
    assert rows.report.format == "embase-rows"
    assert rows.doc_ids == ["L2043043527", "L2043192169"] and rows.report.problems == []
    for doc_id in rows.doc_ids:
        k = columns.doc_index[doc_id]
        assert rows.text(rows.doc_index[doc_id]) == columns.text(k)
        assert people(rows, doc_id) == people(columns, doc_id)


def test_ovid_csv(more):
    c = load_collection(more / "citation.csv", use_cache=False)
    assert c.report.format == "table" and c.doc_ids == ["2012339999", "2007698813"]
    assert problems(c, "preamble") == [("preamble", 1)]  # the copyright line
    # names a line each, a blank line between; ORCIDs from AO
    assert people(c, "2012339999") == ["orcid:0000-0002-5946-2918", "orcid:0000-0002-8616-2670",
                                       "x-mao"]
    assert people(c, "2007698813") == ["n-chmielewska", "orcid:0000-0002-8616-2670"]


def test_springerlink_csv_splits_names_run_together(more):
    c = load_collection(more / "SearchResults.csv", use_cache=False)
    assert c.report.format == "table"
    assert people(c, "10.1186/s13677-016-0054-z") == ["feng-tian", "justice-opara-martins",
                                                      "reza-sahandi"]
    assert people(c, "10.1007/s00530-009-0175-z") == ["deren-li", "kevin-d-lepage",
                                                      "zhenfeng-wang"]
    assert people(c, "10.1186/s13677-022-00347-w") == ["jinyao-liu", "l-thorne-mccarty",
                                                       "xiaoqiang-di"]
    repaired = [p for p in c.report.problems if p.kind == "name-repaired"]
    assert [p.line for p in repaired] == [3, 4, None]  # a guess each, then how sure the split is
    assert repaired[-1].message.startswith("3 author lists written run together")
    assert "6 places" in repaired[-1].message and "2 of these cuts and joins are guesses" in \
        repaired[-1].message and "66.7% are certain" in repaired[-1].message


def test_acm_csv(more):
    c = load_collection(more / "acm.csv", use_cache=False)  # no final newline
    assert c.report.format == "table" and c.doc_ids == ["3018741", "2357633", "1559958"]
    assert people(c, "3018741") == ["bernhard-schölkopf", "rohit-babbar"]
    assert [c.person_names[c.person_ids.index(p)] for p in people(c, "2357633")] == [
        "David John Gagne, II", "M. Inés Torres", "Miguel Jimenez-Ganán"]
    assert c.report.problems == []  # the chairs in "note" are no authors


def test_openalex_json(more):
    c = load_collection(more / "works.json", use_cache=False)
    assert c.report.format == "openalex"
    assert c.doc_ids == ["W2145538332", "W2000000001", "W2000000002"]
    # the abstract rebuilt from its inverted index; the title's entity decoded
    assert c.text(0).split("\n") == ["Crystallography & NMR System",
                                     "A new software suite, called CNS, has been developed.",
                                     "NMR"]
    assert people(c, "W2145538332") == ["openalex:A5056911622", "orcid:0000-0001-9333-8219"]
    # ids beat names: two namesakes, and the user is shown them
    assert people(c, "W2000000002") == ["openalex:A5000000004", "openalex:A5000000005"]
    assert problems(c) == [("likely-duplicate", 120)]


def test_crossref_json(more):
    c = load_collection(more / "crossref.json", use_cache=False)
    assert c.report.format == "crossref"
    assert c.doc_ids == ["10.1155/ijrm/8567148", "10.12783/shm2019/32300"]
    assert c.text(0).split("\n")[1] == ("Abstract Vibration signals are the most widely used "
                                        "condition monitoring data.")  # JATS tags removed
    assert people(c, "10.1155/ijrm/8567148") == ["dereje-engida-woldemichael",
                                                 "orcid:0000-0002-1832-1764"]
    assert people(c, "10.12783/shm2019/32300") == ["meng-ma",
                                                   "structural-health-monitoring-group"]
    assert str(c.doc_dates[1]) == "2019-11-15"


def test_one_work_and_damaged_json(tmp_path):
    one = tmp_path / "work.json"
    one.write_text('{"status": "ok", "message-type": "work", "message": {"DOI": "10.1234/a", '
                   '"title": ["One work"], "author": [{"given": "Ann", "family": "Archer"}]}}',
                   encoding="utf-8")
    c = load_collection(one, use_cache=False)
    assert (c.report.format, c.doc_ids, c.person_ids) == ("crossref", ["10.1234/a"],
                                                          ["ann-archer"])
    damaged = tmp_path / "page.json"
    damaged.write_text('{"meta": {"count": 2},\n "results": [\n  {"id": "https://openalex.org/W1"'
                       ', "title": "Fine", "authorships": []},\n  {"id": "https://openalex.org/'
                       'W2", "title": broken},\n  {"id": "https://openalex.org/W3", "title": '
                       '"Also fine"}\n ]}', encoding="utf-8")
    c = load_collection(damaged, use_cache=False)
    assert c.doc_ids == ["W1", "W3"] and problems(c, "malformed-record") == [
        ("malformed-record", 4)]
    bad = tmp_path / "bad.json"
    bad.write_text('{"meta": {"count": 1}\n "results": []}', encoding="utf-8")  # no comma
    with pytest.raises(CollectionError, match="expected a JSON object") as err:
        load_collection(bad, format="openalex", use_cache=False)
    assert err.value.line == 2


def test_a_folder_of_folders_one_per_vendor(more, tmp_path):
    # issue 30: one sub-folder per download or vendor was refused for want of associations.tsv
    for name in ("citations.enw", "CNKI-refworks.txt", "My Library.rdf", "em_rows.csv",
                 "em_export.csv", "works.json"):
        vendor = tmp_path / name.split(".")[0].split("_")[0] / "downloads"
        vendor.mkdir(parents=True, exist_ok=True)
        shutil.copy(more / name, vendor / name)
    assert detect_format(tmp_path) == "exports"
    c = load_collection(tmp_path, use_cache=False)
    assert len(c.report.files) == 6 and c.report.counts["records"] == 19
    merged = [p for p in c.report.problems if p.kind == "merged-duplicate"]
    # the WWW 2016 paper in EndNote, RefWorks and Zotero; two Embase records in both layouts
    assert len(merged) == c.report.counts["duplicates merged"] == 4
    assert c.n_documents == 15


def test_a_folder_without_exports_names_what_it_lacks(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("just a note", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected exports .* found none of these"):
        load_collection(tmp_path, use_cache=False)


@pytest.mark.parametrize("start", ["rt", "Rt", "RT"])
def test_a_refworks_record_starting_in_lower_case_is_a_record_of_its_own(tmp_path, start):
    path = tmp_path / "CNKI.txt"
    path.write_text("RT Journal Article\nA1 Archer, Ann\nT1 Ring buffers\n\n"
                    f"{start} Journal Article\nA1 Baker, Bob\nt1 Lockless queues\nvo 7\n",
                    encoding="utf-8")
    c = load_collection(path, use_cache=False, format="refworks")
    assert c.doc_ids == ["CNKI:1", "CNKI:5"]
    assert c.text(1).split("\n")[0] == "Lockless queues"
    assert people(c, "CNKI:1") == ["ann-archer"] and people(c, "CNKI:5") == ["bob-baker"]
