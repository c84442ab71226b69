"""Names and vintages a third set of real exports got wrong: BibTeX values in double braces,
name suffixes, MEDLINE's transliterated initials, initials joined to a full name of a family
millions share, given names written as one word and in parts, and two people shown under one
name."""

import pytest

from expert_gui.core.data.formats.names import Name, name_key, parse_name, split_names
from expert_gui.core.data.formats.people import People
from expert_gui.core.data.formats.records import Author
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.report import LoadReport


def resolve(*papers: tuple[int | None, list[Author]]):
    """Each paper (its year, its authors) resolved: the person ids by paper, the names, and
    the report."""
    report = LoadReport()
    people = People(report)
    slots = [[people.add(a, "f", line, line, year) for a in authors]
             for line, (year, authors) in enumerate(papers, 1)]
    ids, names = people.resolve()
    return [[ids[k] for k in s] for s in slots], names, report


def author(written: str, *, at: str = "", ids: tuple[str, ...] = ()) -> Author:
    return Author(parse_name(written), ids, affiliations=(at,) if at else ())


def test_web_of_science_bibtex_values_in_double_braces(tmp_path):
    """WoS before about 2020: `Year = {{2018}}` was an invalid date, and an ORCID that ends its
    field kept the brace and became a ResearcherID ("rid:0000-0001-6360-5339}")."""
    (tmp_path / "savedrecs.bib").write_text(
        "@article{ ISI:000437,\n"
        "Author = {Zhang, Meng and Li, Wei},\n"
        "Title = {{Deep learning for river mapping}},\n"
        "Year = {{2018}},\n"
        "ORCID-Numbers = {{Zhang, Meng/0000-0001-6360-5339}},\n"
        "Unique-ID = {{ISI:000437}},\n}\n", encoding="utf-8")
    c = load_collection(tmp_path / "savedrecs.bib", use_cache=False)
    assert [p.kind for p in c.report.problems] == []  # no "invalid date {2018}"
    assert str(c.doc_dates[0]) == "2018-01-01"
    assert sorted(c.person_ids) == ["orcid:0000-0001-6360-5339", "wei-li"]
    assert c.text(0) == "Deep learning for river mapping"


@pytest.mark.parametrize("cell, style, names", [
    # Scopus: the suffix after the family name, the initials after the comma
    ("Castel, A.D., McCabe, D.P., Roediger III, H.L.", "comma",
     ["Castel, A.D.", "McCabe, D.P.", "Roediger III, H.L."]),
    ("Weaver III, J.B., Smith, A.", "comma", ["Weaver III, J.B.", "Smith, A."]),
    ("Gubzhabidze ShI, Ermishev IuV, Shi G", "comma",
     ["Gubzhabidze ShI", "Ermishev IuV", "Shi G"]),
])
def test_author_lists_with_suffixes_and_transliterated_initials(cell, style, names):
    assert split_names(cell, style) == names


@pytest.mark.parametrize("written, name", [
    ("Roediger III, H.L.", Name("Roediger", "H.L.", "III")),  # Scopus
    ("Roediger, Henry L., III", Name("Roediger", "Henry L.", "III")),  # Web of Science
    ("Roediger HL 3rd", Name("Roediger", "HL", "3rd")),  # MEDLINE
    ("Weaver III", Name("Weaver", "", "III")),  # never initials I. I. I.
    ("Ivanov II", Name("Ivanov", "II")),  # MEDLINE's Ivan Ivanovich
    ("Gubzhabidze ShI", Name("Gubzhabidze", "ShI")), ("Ermishev IuV", Name("Ermishev", "IuV")),
    ("Wu Ma", Name("Ma", "Wu")),  # two letters alone are a name, not initials
    ("R. Cullen, Kathryn", Name("Cullen", "Kathryn R.")),  # Dimensions
    ("Kathryn R. Cullen (Univ Minnesota)", Name("Cullen", "Kathryn R.")),  # a qualifier
])
def test_names_with_suffixes_initials_and_qualifiers(written, name):
    assert parse_name(written) == name


def test_one_suffix_and_one_person_however_written():
    keys = {name_key(parse_name(w)) for w in ("Roediger III, H.L.", "Roediger HL 3rd",
                                               "Roediger, H. L., III")}
    assert keys == {("roediger", ("h", "l"), "iii")}
    assert name_key(parse_name("Gubzhabidze ShI")) == ("gubzhabidze", ("s", "i"), "")
    assert name_key(parse_name("R. Cullen, Kathryn")) == \
        name_key(parse_name("Cullen, Kathryn R."))
    (a, b, c), names, _ = resolve((2010, [author("Roediger III, H.L.")]),
                                  (2011, [author("Roediger, Henry L., III")]),
                                  (2012, [author("Roediger HL 3rd")]))
    assert a == b == c and names[a[0]] == "Henry L. Roediger, III"


def test_transliterated_initials_are_not_a_family_name():
    """«Shi G» (2014) was joined to «ShI Gubzhabidze» (1970), read with "ShI" as family."""
    (old, new, ermishev), names, _ = resolve(
        (1970, [author("Gubzhabidze ShI"), author("Ermishev IuV")]), (2014, [author("Shi G")]),
        (1971, [author("Ermishev, Iurii V")]))
    assert new[0] not in old
    assert names[old[0]] == "ShI Gubzhabidze"
    assert old[1] == ermishev[0]  # IuV abbreviates Iurii V


def test_initials_join_a_common_family_name_only_on_evidence():
    """WoS "Zhang, M" (2005, Huazhong) was taken as "Meng Zhang" (2018, Xi'an)."""
    huazhong, xian = "Huazhong Univ Sci & Technol, Wuhan", "Xi An Jiao Tong Univ, Xian"
    (a, b), _, report = resolve((2005, [author("Zhang, M", at=huazhong)]),
                                (2018, [author("Zhang, Meng", at=xian)]))
    assert a != b
    [hint] = report.problems
    assert hint.kind == "likely-duplicate" and hint.line == 1
    assert "millions share the family name Zhang" in hint.message
    # an affiliation, a co-author, an id or overlapping years are evidence
    for first, second in [((2005, [author("Zhang, M", at=xian)]),
                           (2018, [author("Zhang, Meng", at=xian)])),
                          ((2005, [author("Zhang, M"), author("Tobler, W")]),
                           (2018, [author("Zhang, Meng"), author("Tobler, W")])),
                          ((2017, [author("Zhang, M")]), (2018, [author("Zhang, Meng")]))]:
        (a, b), _, report = resolve(first, second)
        assert a == b and [p.kind for p in report.problems] == ["merged-names"]
    assert "years of work: 2017 and 2018" in report.problems[0].message
    # a family name few share is joined as before
    (a, b), _, _ = resolve((2005, [author("Tobler, W")]), (2018, [author("Tobler, Waldo")]))
    assert a == b


def test_given_names_in_one_word_and_in_parts_join_on_evidence():
    """"Zhao, Jianxin" and "Zhao, Jian-xin" of one lab, with shared co-authors, stayed two."""
    lab = [author("Wang, Qiang"), author("Tobler, W")]
    (a, b, c), names, report = resolve((2019, [author("Zhao, Jianxin"), *lab]),
                                       (2020, [author("Zhao, Jian-xin"), *lab]),
                                       (2020, [author("Zhao, J.-X.")]))
    assert a[0] == b[0] == c[0] and names[a[0]] == "Jian-xin Zhao"
    assert [p.kind for p in report.problems] == ["merged-names", "merged-names"]
    assert "the co-author" in report.problems[0].message
    (a, b), _, report = resolve((2019, [author("Zhao, Jianxin")]),
                                (2020, [author("Zhao, Jian-xin")]))
    assert a != b and [p.kind for p in report.problems] == ["likely-duplicate"]


def test_two_people_are_never_shown_under_one_name_without_what_tells_them_apart():
    (a, b, c), names, _ = resolve(
        (2019, [author("Wang, Wei", at="Tsinghua Univ, Beijing", ids=("orcid:0000-0002-0000-0001",))]),
        (2019, [author("Wang, Wei", at="Peking Univ, Beijing", ids=("orcid:0000-0002-0000-0002",))]),
        (2019, [author("Cullen, Kathryn R.")]))
    assert names[a[0]] == "Wei Wang (Tsinghua Univ)" and names[b[0]] == "Wei Wang (Peking Univ)"
    assert names[c[0]] == "Kathryn R. Cullen"
    (a, b), names, _ = resolve(
        (2019, [author("Wang, Wei", ids=("orcid:0000-0002-0000-0001",))]),
        (2019, [author("Wang, Wei", ids=("orcid:0000-0002-0000-0002",))]))
    assert names[a[0]] == "Wei Wang (orcid:0000-0002-0000-0001)"
    # the name shown still reads as the person's name
    assert name_key(parse_name(names[a[0]])) == ("wang", ("wei",), "")
