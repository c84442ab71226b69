"""Names as exports write them (issue 20, item 7): surname-first initials, one key for the
spellings of one person, initials joined to the one full name they abbreviate, author ids over
names."""

import pytest

from expert_gui.core.data.formats.names import Name, name_key, parse_name, split_names
from expert_gui.core.data.formats.people import People, named_ids
from expert_gui.core.data.formats.records import Author
from expert_gui.core.data.report import LoadReport


@pytest.mark.parametrize("written, family, given", [
    ("Tobler, W.", "Tobler", "W."), ("Tobler W.", "Tobler", "W."), ("Liu R.", "Liu", "R."),
    ("W. Tobler", "Tobler", "W."), ("WR Tobler", "Tobler", "WR"), ("Lai Z", "Lai", "Z"),
    ("Van Gysel C.", "Van Gysel", "C."), ("Thill J.-C.", "Thill", "J.-C."),
    ("Christophe Van Gysel", "Van Gysel", "Christophe"), ("Rijke, Maarten de", "de Rijke",
                                                          "Maarten"),
    ("A. K. van der Vegt", "van der Vegt", "A. K."), ("null Tobler", "Tobler", ""),
    ("KIM J", "KIM", "J"), ("F. S., Teo", "Teo", "F. S."), ("Barufi A.M.B.", "Barufi", "A.M.B."),
])
def test_family_and_given_names(written, family, given):
    name = parse_name(written)
    assert (name.family, name.given) == (family, given)


def test_suffixes_and_placeholders():
    assert parse_name("Smith, Jr., Sam") == Name("Smith", "Sam", "Jr.")
    assert parse_name("Smith, Jr., Sam").display() == "Sam Smith, Jr."
    for nobody in ("[No author name available]", "[Anonymous]", "…", "...", "et al.", "others",
                   "NA", ""):
        assert parse_name(nobody) is None, nobody


def test_spellings_of_one_person_have_one_key():
    keys = {name_key(parse_name(w)) for w in ("Tobler W.", "Tobler, W.", "W. Tobler",
                                                "Tobler, W", "TOBLER, W.")}
    assert keys == {("tobler", ("w",), "")}
    assert name_key(parse_name("Müller, Jörg")) == name_key(parse_name("Muller, Jorg"))
    assert name_key(parse_name("Bruna, EM")) == ("bruna", ("e", "m"), "")
    assert name_key(parse_name("Shi, Shi-Yuan"))[1] == ("shi", "yuan")
    assert name_key(parse_name("Tobler, Waldo")) != name_key(parse_name("Tobler, W."))


@pytest.mark.parametrize("cell, style, names", [
    ("Tobler W., Yoo E.-H.", "comma", ["Tobler W.", "Yoo E.-H."]),
    ("Rocle, N., Rey-Valette, H.", "comma", ["Rocle, N.", "Rey-Valette, H."]),
    ("Q Yang, J Snyder, W Tobler", "comma", ["Q Yang", "J Snyder", "W Tobler"]),
    ("Guild, F.J., A.J. Kinloch, and A.C. Taylor", "comma",
     ["Guild, F.J.", "A.J. Kinloch", "A.C. Taylor"]),
    ("Terra M.; Baklola M.", "comma", ["Terra M.", "Baklola M."]),
    ("Van Gysel, Christophe; de Rijke, Maarten", "names",
     ["Van Gysel, Christophe", "de Rijke, Maarten"]),
])
def test_author_lists(cell, style, names):
    assert split_names(cell, style) == names


def resolve(*lists: list[Author]):
    report = LoadReport()
    people = People(report)
    slots = [[people.add(a, "f", line) for a in authors] for line, authors in enumerate(lists, 1)]
    ids, names = people.resolve()
    return [[ids[k] for k in s] for s in slots], names, report


def authors(*written: str, ids: dict[str, tuple[str, ...]] | None = None) -> list[Author]:
    return [Author(parse_name(w), (ids or {}).get(w, ())) for w in written]


def test_initials_join_the_one_full_name_they_abbreviate():
    (a, b, c), names, report = resolve(authors("Tobler, Waldo R."), authors("Tobler W."),
                                       authors("Tobler, W.R."))
    assert a == b == c == ["waldo-r-tobler"] and names["waldo-r-tobler"] == "Waldo R. Tobler"
    assert [p.kind for p in report.problems] == ["merged-names", "merged-names"]


def test_two_full_names_of_a_family_keep_initials_apart():
    (a, b, c), _, report = resolve(authors("Tobler, Waldo"), authors("Tobler, Walter"),
                                   authors("Tobler, W."))
    assert len({a[0], b[0], c[0]}) == 3 and report.problems == []
    (a, b), _, _ = resolve(authors("Bruna, Emilio"), authors("Bruna, Emilio M."))
    assert a != b  # two full spellings never merge


def test_author_ids_beat_names():
    orcid = {"Wang, Wei": ("orcid:0000-0002-0000-0001",)}
    scopus = {"Wang, Wei": ("scopus:7409012345",)}
    (a, b, c), names, report = resolve(authors("Wang, Wei", ids=orcid),
                                       authors("Wang, Wei", ids=scopus), authors("Wang, Wei"))
    assert a == ["orcid:0000-0002-0000-0001"] and b == ["scopus:7409012345"]
    assert c == ["wei-wang"]  # two people with ids share the name: this one stays apart
    assert [p.kind for p in report.problems] == ["ambiguous-name"]
    (a, b), _, _ = resolve(authors("Wang, Wei", ids=orcid), authors("Wang W."))
    assert a == b == ["orcid:0000-0002-0000-0001"]  # one person with an id has the name
    both = {"Wang, Wei": ("orcid:0000-0002-0000-0001", "rid:A-1234-2010")}
    (a, b), _, _ = resolve(authors("Wang, Wei", ids=both),
                           authors("Wang, W.", ids={"Wang, W.": ("rid:A-1234-2010",)}))
    assert a == b == ["orcid:0000-0002-0000-0001"]


def test_web_of_science_id_lists():
    pairs = named_ids("Van Gysel, Christophe/0000-0003-3433-7317; de Rijke, Maarten/A-1234-2010")
    assert [(n.family, i) for n, i in pairs] == [("Van Gysel", "orcid:0000-0003-3433-7317"),
                                                 ("de Rijke", "rid:A-1234-2010")]
    lines = named_ids("Tzoumpa, Sofia/0000-0002-8129-5933\n   Bejar, Claudia/0000-0001-9130-3047")
    assert [n.family for n, _ in lines] == ["Tzoumpa", "Bejar"]
