"""A collection remembers the affiliations its sources give each person: every export that
names them (Web of Science's C1, Scopus's "Authors with affiliations", MEDLINE's AD, PubMed
XML's AffiliationInfo, CSL-JSON's and OpenAlex's), a people file's and a table's own column;
the union over the copies of one paper and the spellings of one person; bounded; kept by the
cache and by a collection without some documents; None where nothing names any."""

import json

import numpy as np
import pytest

from expert_gui.core.data import cache
from expert_gui.core.data.affiliations import MAX_AFFILIATION_CHARS, MAX_AFFILIATIONS
from expert_gui.core.data.collection import Collection, CollectionBuilder
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError
from expert_gui.core.evaluation.heldout import without_documents

MONTANA = "Univ Montana, Wildlife Biol Program, Missoula, MT 59812 USA"
DAVIS = "Univ Calif Davis, Dept Environm Sci & Policy, Davis, CA 95616 USA"

WOS = f"""FN Clarivate Analytics Web of Science
VR 1.0
PT J
AF Brodie, Jedediah F.
   Hastings, Alan
TI Seed dispersal by mammals
C1 [Brodie, Jedediah F.; Hastings, Alan] {MONTANA}.
   [Hastings, Alan] {DAVIS}.
UT WOS:000000000000001
ER

PT J
AF Brodie, Jedediah
TI Frugivores and forest structure
C1 [Brodie, Jedediah] Univ Montana,   Div Biol Sci,  Missoula, MT 59812 USA.
UT WOS:000000000000002
ER

EF
"""

MEDLINE = """PMID- 30000001
TI  - Spinal fusion outcomes.
DP  - 2018 Nov 25
FAU - Lai, Zhen
AU  - Lai Z
AD  - Department of Orthopaedics, Zhejiang Hospital, Hangzhou 310003, China;
      laizhen76@163.com.
FAU - Shi, Shi-Yuan
AU  - Shi SY
AD  - Department of Orthopaedics, Zhejiang Hospital, Hangzhou 310003, China.
AD  - Zhejiang University School of Medicine, Hangzhou, China.
FAU - Sun, Xiao-Lei
AU  - Sun XL

"""

PUBMED_XML = """<?xml version="1.0"?>
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">30000001</PMID>
<Article><Journal><JournalIssue><PubDate><Year>2018</Year></PubDate></JournalIssue></Journal>
<ArticleTitle>Spinal fusion outcomes.</ArticleTitle>
<AuthorList><Author><LastName>Lai</LastName><ForeName>Zhen</ForeName>
<AffiliationInfo><Affiliation>Spine Center, Zhejiang Hospital, Hangzhou, China.</Affiliation>
</AffiliationInfo></Author>
<Author><LastName>Sun</LastName><ForeName>Xiao-Lei</ForeName></Author></AuthorList>
</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>
"""


def places(c, name):
    """The affiliations of the person called `name`."""
    return c.affiliations_of(c.person_names.index(name))


def load(path):
    return load_collection(path, use_cache=False)


def test_web_of_science_addresses_and_two_spellings_joined(tmp_path):
    path = tmp_path / "savedrecs.txt"
    path.write_text(WOS, encoding="utf-8")
    c = load(path)
    assert places(c, "Alan Hastings") == (MONTANA, DAVIS)
    # "Jedediah Brodie" joins "Jedediah F. Brodie" on Univ Montana, with both addresses (runs
    # of spaces made one)
    assert places(c, "Jedediah F. Brodie") == (
        MONTANA, "Univ Montana, Div Biol Sci, Missoula, MT 59812 USA")
    assert c.n_people == 2
    assert "people with affiliations: 2" in c.report.summary()


@pytest.mark.parametrize("header, row", [
    # 2022 on: full names with their ids; the short name in front of each affiliation
    ("Authors,Author full names,Author(s) ID,Title,Year,Affiliations,Authors with affiliations,"
     "Abstract,EID",
     'Terra M.; Baklola M.; Ali S.,"Terra, Mohamed (58022815300); Baklola, Mohamed '
     '(57960795300); Ali, Shaimaa (58369499700)",58022815300; 57960795300; 58369499700,'
     'Medical students,2023,"Mansoura University, Egypt; Cairo University, Egypt",'
     '"Terra M., Faculty of Medicine, Mansoura University, Mansoura, Egypt; Baklola M., '
     'Cairo University, Giza, Egypt; Ali S.",Students.,2-s2.0-1'),
    # before 2022: "Tobler W." in Authors, "Tobler, W., ..." with affiliations
    ("Authors,Author(s) ID,Title,Year,Source title,Affiliations,Authors with affiliations,"
     "Abstract,EID",
     'Terra M.; Baklola M.; Ali S.,58022815300;57960795300;58369499700;,Medical students,2021,'
     'Medicine,"Mansoura University, Egypt; Cairo University, Egypt","Terra, M., Faculty of '
     'Medicine, Mansoura University, Mansoura, Egypt; Baklola, M., Cairo University, Giza, '
     'Egypt; Ali, S.",Students.,2-s2.0-1'),
])
def test_scopus_authors_with_affiliations(tmp_path, header, row):
    path = tmp_path / "scopus.csv"
    path.write_text(f"{header}\n{row}\n", encoding="utf-8")
    c = load(path)
    assert c.report.format == "table" and c.n_people == 3
    by_id = {c.person_ids[p]: c.affiliations_of(p) for p in range(c.n_people)}
    assert by_id == {
        "scopus:58022815300": ("Faculty of Medicine, Mansoura University, Mansoura, Egypt",),
        "scopus:57960795300": ("Cairo University, Giza, Egypt",),
        "scopus:58369499700": ()}  # not the record's "Affiliations": those are no one's


def test_medline_addresses(tmp_path):
    path = tmp_path / "citations.nbib"
    path.write_text(MEDLINE, encoding="utf-8")
    c = load(path)
    assert places(c, "Zhen Lai") == ("Department of Orthopaedics, Zhejiang Hospital, Hangzhou "
                                     "310003, China; laizhen76@163.com.",)
    assert places(c, "Shi-Yuan Shi") == (
        "Department of Orthopaedics, Zhejiang Hospital, Hangzhou 310003, China.",
        "Zhejiang University School of Medicine, Hangzhou, China.")
    assert places(c, "Xiao-Lei Sun") == ()


def test_one_paper_in_two_exports_has_the_union(tmp_path):
    (tmp_path / "citations.nbib").write_text(MEDLINE, encoding="utf-8")
    (tmp_path / "pubmed_result.xml").write_text(PUBMED_XML, encoding="utf-8")
    c = load(tmp_path)
    assert c.report.format == "exports" and c.n_documents == 1
    assert c.report.counts["duplicates merged"] == 1
    assert set(places(c, "Zhen Lai")) == {
        "Department of Orthopaedics, Zhejiang Hospital, Hangzhou 310003, China; "
        "laizhen76@163.com.", "Spine Center, Zhejiang Hospital, Hangzhou, China."}


@pytest.mark.parametrize("name, text", [
    ("My Library.json", json.dumps([{
        "id": "w1", "type": "article-journal", "title": "Bearing faults",
        "author": [{"family": "Woldemichael", "given": "Dereje",
                    "affiliation": [{"name": "Adama Science and Technology University"}]},
                   {"family": "Archer", "given": "Ann", "affiliation": []}]}])),
    ("works.json", json.dumps({"meta": {"count": 1}, "results": [{
        "id": "https://openalex.org/W1", "title": "Bearing faults",
        "authorships": [
            {"author": {"id": "https://openalex.org/A1", "display_name": "Dereje Woldemichael"},
             "institutions": [{"display_name": "Adama Science and Technology University"}]},
            {"author": {"id": "https://openalex.org/A2", "display_name": "Ann Archer"},
             "institutions": []}]}]})),
])
def test_csl_json_and_openalex(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    c = load(path)
    assert places(c, "Dereje Woldemichael") == ("Adama Science and Technology University",)
    assert places(c, "Ann Archer") == ()


def write_folder(folder, people):
    folder.mkdir()
    (folder / "documents.tsv").write_text("doc_id\ttext\nd1\tring buffers\nd2\tcrypto offload\n"
                                          "d3\tflow rules\n", encoding="utf-8")
    (folder / "associations.tsv").write_text("doc_id\tperson_id\nd1\tann\nd2\tbob\nd3\tcid\n"
                                             "d3\tann\n", encoding="utf-8")
    if people is not None:
        (folder / "people.tsv").write_text(people, encoding="utf-8")
    return folder


@pytest.mark.parametrize("column", ["affiliation", "Affiliations"])
def test_a_people_file_with_an_affiliation_column(tmp_path, column):
    folder = write_folder(tmp_path / "c", f"person_id\tname\t{column}\n"
                                          "ann\tAnn Archer\tPackets Inc.;  Univ   Montana ;\n"
                                          "bob\tBob Baker\t\n"
                                          "ann\tAnn Archer\tUniv Montana; Univ Florida\n")
    c = load(folder)
    assert c.affiliations_of(c.person_index["ann"]) == ("Packets Inc.", "Univ Montana",
                                                        "Univ Florida")
    assert c.affiliations_of(c.person_index["bob"]) == ()
    assert c.affiliations_of(c.person_index["cid"]) == ()  # not in the people file


def test_a_table_with_an_affiliations_column(tmp_path):
    path = tmp_path / "publications.csv"
    path.write_text(
        "title,authors,affiliations\n"
        'Ring buffers,"Archer, Ann; Baker, Bob","Packets Inc.; Univ Montana"\n'  # in order
        'Crypto offload,"Baker, Bob; Chen, Cid",Univ Florida\n'  # one for all
        'Flow rules,"Chen, Cid; Dahl, Dan",NA; Univ Davis\n'  # a placeholder is nobody's
        'Tracing,"Archer, Ann; Dahl, Dan",A; B; C\n', encoding="utf-8")  # three for two
    c = load(path)
    assert places(c, "Ann Archer") == ("Packets Inc.",)
    assert places(c, "Bob Baker") == ("Univ Montana", "Univ Florida")
    assert places(c, "Cid Chen") == ("Univ Florida",)
    assert places(c, "Dan Dahl") == ("Univ Davis",)
    [unmatched] = [p for p in c.report.problems if p.kind == "affiliation-unmatched"]
    assert (unmatched.file, unmatched.line) == (str(path), 5)
    assert unmatched.message.startswith("3 affiliations for 2 authors")


def test_none_where_no_source_names_one(tmp_path):
    assert load(write_folder(tmp_path / "plain", None)).person_affiliations is None
    c = load(write_folder(tmp_path / "named", "person_id\tname\nann\tAnn Archer\n"))
    assert c.person_affiliations is None and c.affiliations_of(0) == ()
    assert "people with affiliations" not in c.report.summary()
    table = tmp_path / "publications.csv"
    table.write_text('title,authors\nRing buffers,"Archer, Ann"\n', encoding="utf-8")
    assert load(table).person_affiliations is None


def small(**affiliations):
    return Collection.from_records(
        [("d1", "ring buffers"), ("d2", "crypto offload"), ("d3", "flow rules")],
        [("d1", "ann"), ("d2", "bob"), ("d3", "cid"), ("d3", "ann")],
        people={"ann": "Ann Archer"}, affiliations=affiliations or None)


def test_from_records_keeps_names_and_aligns_with_the_people():
    c = small(bob=["Univ Florida"], ann=["Packets Inc.", " Packets  Inc. "])
    assert c.person_ids == ["ann", "bob", "cid"]
    assert c.person_names == ["Ann Archer", "bob", "cid"]
    assert c.person_affiliations == [("Packets Inc.",), ("Univ Florida",), ()]
    assert small().person_affiliations is None


def test_a_collection_without_documents_keeps_them():
    c = small(ann=["Packets Inc."], bob=["Univ Florida"])
    rest = without_documents(c, np.array([1]))  # bob's only document
    assert rest.person_ids == ["ann", "cid"]
    assert rest.person_affiliations == [("Packets Inc.",), ()]
    only_bob = without_documents(small(ann=["Packets Inc."]), np.array([0, 2]))
    assert only_bob.person_ids == ["bob"] and only_bob.person_affiliations is None


def test_the_cache_round_trip(tmp_path):
    path = tmp_path / "savedrecs.txt"
    path.write_text(WOS, encoding="utf-8")
    first = load_collection(path)
    again = load_collection(path)
    assert isinstance(again.tokens, np.memmap)  # from the cache
    assert again.person_affiliations == first.person_affiliations
    assert first.person_affiliations is not None
    plain = write_folder(tmp_path / "plain", None)
    load_collection(plain)
    assert load_collection(plain).person_affiliations is None  # no key in the cache: None


def test_a_damaged_cache_table_is_refused(tmp_path):
    small(ann=["Packets Inc."]).save(tmp_path / "c")
    assert Collection.load(tmp_path / "c").person_affiliations == [("Packets Inc.",), (), ()]
    meta_file = tmp_path / "c" / "collection.json"
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    assert meta["person_affiliations"] == {"places": ["Packets Inc."], "people": [[0], [], []]}
    many = [f"Institute {i}" for i in range(MAX_AFFILIATIONS + 1)]
    for table, found in (({"places": ["Packets Inc."], "people": [[1], [], []]}, "below 1"),
                         ({"places": ["Packets Inc."], "people": [[0], []]}, "differ in number"),
                         ({"places": many, "people": [list(range(len(many))), [], []]},
                          f"at most {MAX_AFFILIATIONS} indices"),
                         ({"places": ["Packets Inc."], "people": [[0, 0], [], []]}, "already")):
        meta["person_affiliations"] = table
        meta_file.write_text(json.dumps(meta), encoding="utf-8")
        (tmp_path / "c" / "xxh3").write_text(cache.digest(tmp_path / "c"), encoding="ascii")
        with pytest.raises(CollectionError, match=found):
            Collection.load(tmp_path / "c")


def test_the_bounds_are_kept_and_reported_once():
    b = CollectionBuilder()
    b.add_document("d1", "ring buffers", "people.tsv", 1, people=["ann"])
    b.add_person("ann", "Ann", "people.tsv", 2,
                 affiliations=[f"Institute {i}" for i in range(MAX_AFFILIATIONS + 10)])
    b.add_person("ann", "Ann", "people.tsv", 3, affiliations=["Univ " + "x" * 2000])
    c = b.build()
    kept = c.affiliations_of(0)
    assert kept == tuple(f"Institute {i}" for i in range(MAX_AFFILIATIONS))
    [cut] = [p for p in c.report.problems if p.kind == "affiliations-cut"]
    assert (cut.file, cut.line) == ("people.tsv", 2) and "'ann'" in cut.message
    b = CollectionBuilder()
    b.add_document("d1", "ring buffers", "<memory>", None, people=["ann"])
    b.add_person("ann", "Ann", "<memory>", None, affiliations=["Univ " + "x" * 2000])
    [long] = b.build().affiliations_of(0)
    assert len(long) == MAX_AFFILIATION_CHARS
