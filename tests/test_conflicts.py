"""Conflicts of interest: a paper's authors found among the collection's people (as the loader
joins names and ids), their co-authors within a window of years, shared affiliations, and a
list given by hand, each kept with its reason."""

import pytest

from expert_gui.core.data.collection import Collection
from expert_gui.core.errors import InputFileError
from expert_gui.core.reviewers.authors import PeopleIndex
from expert_gui.core.reviewers.conflicts import find_conflicts, read_manual

PEOPLE = {"orcid:0000-0001": "Waldo R. Tobler", "jf-brodie": "Jedediah F. Brodie",
          "m-zhang-1": "Meng Zhang", "m-zhang-2": "Min Zhang", "ann": "Ann Lindqvist",
          "bo": "Bo Chen", "cy": "Cy Young", "dee": "Dee Park"}


def index():
    return PeopleIndex(list(PEOPLE), list(PEOPLE.values()))


@pytest.mark.parametrize(("author", "author_id", "person", "how"), [
    ("Someone Else", "orcid:0000-0001", "orcid:0000-0001", "the same id"),
    ("Tobler, Waldo R.", "", "orcid:0000-0001", "the same name"),
    ("W. R. Tobler", "", "orcid:0000-0001", "initials of «Waldo R. Tobler»"),
    ("Tobler W", "", "orcid:0000-0001", "initials of «Waldo R. Tobler»"),
    ("Lindqvist, Ann", "", "ann", "the same name"),
])
def test_an_author_joins_the_one_person_they_are(author, author_id, person, how):
    match = index().match(author, author_id)
    assert PEOPLE and list(PEOPLE)[match.person] == person
    assert match.how == how and match.possible == ()


@pytest.mark.parametrize(("author", "possible", "how"), [
    ("M. Zhang", {"m-zhang-1", "m-zhang-2"}, "initials that fit 2 people"),
    ("Zhang, Me", set(), ""),
    ("Chen B", {"bo"}, "initials that fit «Bo Chen», of a family millions share"),
    ("Jedediah Brodie", {"jf-brodie"}, "a name that may be «Jedediah F. Brodie»"),
    ("Tobler", {"orcid:0000-0001"}, "a name that may be «Waldo R. Tobler»"),
])
def test_an_author_who_may_be_someone_is_kept_as_possible(author, possible, how):
    match = index().match(author)
    assert match.person is None and (match.how == how or not possible)
    assert {list(PEOPLE)[i] for i in match.possible} == possible


def test_an_author_of_nobody_here_is_nobody():
    match = index().match("Zed Quux")
    assert match.person is None and match.possible == () and match.how == "nobody of that name"


@pytest.fixture
def collection():
    docs = [("c1", "ring buffer", "2024-01-01"), ("c2", "ice driver", "2015-01-01"),
            ("c3", "flow rules", ""), ("c4", "memory pool", "2023-06-01")]
    links = [("c1", "ann"), ("c1", "bo"), ("c2", "ann"), ("c2", "cy"), ("c3", "ann"),
             ("c3", "dee"), ("c4", "cy")]
    return Collection.from_records(
        docs, links, people={"ann": "Ann Lindqvist", "bo": "Bo Chen", "cy": "Cy Young",
                             "dee": "Dee Park"},
        affiliations={"ann": ["Univ Montana, Missoula"], "cy": ["University of Oslo"],
                      "dee": ["Univ Montana, Dept Biology"]})


@pytest.fixture
def papers():
    return Collection.from_records([("p1", "a paper on rings"), ("p2", "a paper on flows")],
                                   [("p1", "lindqvist-a"), ("p2", "x-y")],
                                   people={"lindqvist-a": "Lindqvist, A.", "x-y": "Xu Yi"},
                                   affiliations={"x-y": ["University of Oslo, Blindern"]})


def reasons(found, collection, paper):
    return {collection.person_ids[person]: why for (p, person), why in found.reasons.items()
            if p == paper}


def test_authors_co_authors_and_affiliations_with_their_reasons(collection, papers):
    found = find_conflicts(papers, collection)
    first = reasons(found, collection, 0)
    assert first["ann"] == ["an author of the paper (Lindqvist, A.: initials of «Ann Lindqvist»)"]
    assert first["bo"] == ["co-author of the paper's author Ann Lindqvist on «ring buffer» (2024-01-01)"]
    assert first["cy"] == ["co-author of the paper's author Ann Lindqvist on «ice driver» (2015-01-01)"]
    assert first["dee"][0] == ("co-author of the paper's author Ann Lindqvist on «flow rules» "
                               "(undated)")
    assert "shares the affiliation «Univ Montana, Dept Biology»" not in " ".join(first["dee"])
    second = reasons(found, collection, 1)
    assert second == {"cy": ["shares the affiliation «University of Oslo» with the paper's "
                             "author Xu Yi («University of Oslo, Blindern»)"]}
    assert found.counts == {"author": 1, "co-author": 3, "affiliation": 1}
    assert [m.how for m in found.authors[1]] == ["nobody of that name"]


def test_co_authors_only_within_the_years_given(collection, papers):
    found = find_conflicts(papers, collection, coauthor_years=3)
    first = reasons(found, collection, 0)
    assert "bo" in first and "dee" in first  # 2024, and undated: its age is unknown
    assert "cy" not in first  # their one shared document is from 2015


def test_a_list_given_by_hand(collection, papers, tmp_path):
    listed = tmp_path / "conflicts.csv"
    listed.write_text("paper_id,person_id\n# the chair's own list\np2,Bo Chen\ndee\n\n",
                      encoding="utf-8")
    manual = read_manual(listed, papers.doc_ids, collection.person_ids,
                         collection.person_names)
    found = find_conflicts(papers, collection, manual=manual)
    assert reasons(found, collection, 1)["bo"] == ["listed in conflicts.csv line 3"]
    assert reasons(found, collection, 0)["dee"][-1] == "listed in conflicts.csv line 4"
    assert reasons(found, collection, 1)["dee"] == ["listed in conflicts.csv line 4"]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("p9\tann\n", 1, "'p9' is not the id of a paper"),
    ("p1,nobody\n", 1, "'nobody' is no person's id or name"),
    ("p1,ann\np1,ann,bo\n", 2, "expected 'paper_id, person_id'"),
])
def test_a_bad_row_is_named_with_its_line(collection, papers, tmp_path, text, line, message):
    listed = tmp_path / "c.tsv"
    listed.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=message) as err:
        read_manual(listed, papers.doc_ids, collection.person_ids, collection.person_names)
    assert err.value.line == line
