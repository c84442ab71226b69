"""The same paper exported twice becomes one document (issue 20, item 6): by DOI (titles alike),
else PMID, else title and year, unless DOIs, PMIDs, pages, volumes, full dates or journals
differ or the authors have no name in common (issue 30); each merge is reported, as are records
that share a DOI, or a title and year, but are different papers."""

from expert_gui.core.data.formats.duplicates import merge_duplicates, title_words
from expert_gui.core.data.formats.names import parse_name
from expert_gui.core.data.formats.records import Author, Record
from expert_gui.core.data.report import LoadReport


def rec(line, title, date="2016", doi="", pmid="", pages="", volume=""):
    return Record(file="f", line=line, id=f"r{line}", title=title, text=[title], date=date,
                  doi=doi, pmid=pmid, pages=pages, volume=volume)


def groups(*records):
    report = LoadReport()
    return merge_duplicates(list(records), report), [(p.kind, p.line) for p in report.problems]


def test_titles_fold_to_their_words():
    assert title_words("[Feasibility of <i>Drainage</i>: a Study]. ") == \
        "feasibility of i drainage i a study"
    assert title_words("Émile's Übersicht") == title_words("emile s ubersicht")


def test_doi_with_alike_titles_merges_and_different_titles_are_kept_apart():
    found, problems = groups(
        rec(1, "Unsupervised efficient and semantic expertise retrieval", doi="10.1/a"),
        rec(2, "Unsupervised, Efficient and Semantic Expertise Retrieval.", doi="10.1/a"),
        rec(3, "Abstracts of the annual meeting, part 2", doi="10.1/a"))
    assert found == [[0, 1], [2]]
    assert problems == [("merged-duplicate", 2), ("kept-apart", 3)]


def test_pmid_merges_unless_the_dois_differ():
    found, _ = groups(rec(1, "A", pmid="123"), rec(2, "B", pmid="123"),
                      rec(3, "C", pmid="123", doi="10.1/x"), rec(4, "D", pmid="123", doi="10.1/y"))
    assert found == [[0, 1, 2], [3]]


def test_title_and_year_merge_unless_a_fact_differs():
    title = "Einzelreferate und Buchbesprechungen"
    found, problems = groups(rec(1, title, doi="10.1/a"), rec(2, title, doi="10.1/b"),
                             rec(3, title), rec(4, title, date="1941"))
    assert found == [[0, 2], [1], [3]]  # different DOIs apart, another year apart
    assert problems == [("merged-duplicate", 3)]  # told apart by title: nothing to report
    for field, a, b in (("pages", "12", "13"), ("volume", "4", "5"),
                        ("date", "2016-01-02", "2016-03-04"), ("pmid", "1", "2")):
        found, _ = groups(rec(1, "Modelling of the toughening mechanisms", **{field: a}),
                          rec(2, "Modelling of the toughening mechanisms", **{field: b}))
        assert found == [[0], [1]], field
    found, _ = groups(rec(1, "Short title"), rec(2, "Short title"))
    assert found == [[0], [1]]  # under three words: too little to tell


def test_a_veto_holds_for_the_whole_group():
    # 1 and 2 share a DOI; 3 has 1's title and year but its own DOI: not merged with the group
    found, _ = groups(rec(1, "Ring buffers without locks", doi="10.1/a"),
                      rec(2, "Ring buffers without locks", doi="10.1/a"),
                      rec(3, "Ring buffers without locks", doi="10.1/b"),
                      rec(4, "Ring buffers without locks"))
    assert found == [[0, 1, 3], [2]]


def review(line, reviewer, journal, pages, doi=""):
    return Record(file="f", line=line, id=f"r{line}", title="Robot Ethics 2.0",
                  text=["Robot Ethics 2.0"], date="2018", pages=pages, journal=journal,
                  authors=[Author(parse_name(reviewer))], doi=doi)


def test_two_reviews_of_one_title_and_year_are_two_papers():
    # issue 30: two book reviews "Robot Ethics 2.0" (2018) by other reviewers in other journals
    # were one paper: only the first page was compared
    found, problems = groups(review(1, "Smith, Ann", "Philosophy & Technology", "1-3"),
                             review(2, "Lee, Bo", "Ethics and Information Technology", "1-4"))
    assert found == [[0], [1]] and problems == [("kept-apart", 2)]
    report = LoadReport()
    merge_duplicates([review(1, "Smith, Ann", "Minds and Machines", "1"),
                      review(2, "Lee, Bo", "Minds & Machines", "1")], report)
    assert "but no author in common" in report.problems[0].message  # nor any other fact
    found, _ = groups(review(1, "Smith, Ann", "Minds and Machines", "1-3"),
                      review(2, "Lee, Bo", "Minds and Machines", "1-4"))
    assert found == [[0], [1]]  # the last pages differ


def test_one_paper_in_two_exports_still_merges():
    # the same paper with its journal abbreviated (Web of Science) and in full (Scopus), its
    # authors written two ways, its last page in one export only
    found, problems = groups(review(1, "Brodie, J. F.", "J APPL ECOL", "295"),
                             review(2, "Jedediah F. Brodie", "Journal of Applied Ecology",
                                    "295-304"))
    assert found == [[0, 1]] and problems == [("merged-duplicate", 2)]
    # a journal renamed, one volume and page: one paper
    found, _ = groups(
        review(1, "Tobler, W.", "European Journal of Pediatrics", "354-360"),
        review(2, "Tobler, W.", "Zeitschrift für Kinderheilkunde", "354-360"))
    assert found == [[0], [1]]  # no volume: the journals tell them apart
    a, b = (review(k, "Tobler, W.", j, "354-360") for k, j in
            ((1, "European Journal of Pediatrics"), (2, "Zeitschrift für Kinderheilkunde")))
    a.volume = b.volume = "37"
    assert groups(a, b)[0] == [[0, 1]]
