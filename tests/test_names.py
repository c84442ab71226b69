"""Names as exports write them (issue 20, item 7): surname-first initials, one key for the
spellings of one person, initials joined to the one full name they abbreviate, author ids over
names."""

import pytest

from expert_gui.core.data.formats.names import (
    Name,
    name_key,
    parse_name,
    split_and,
    split_names,
    split_run_together,
)
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
    ("Shan W.\n\nMao X.\r\n\r\nWang Q.", "names", ["Shan W.", "Mao X.", "Wang Q."]),  # Ovid
    ("Rocle, N., Rey-Valette, H.\nTobler W.", "comma", ["Rocle, N.", "Rey-Valette, H.",
                                                        "Tobler W."]),
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
    assert len({a[0], b[0], c[0]}) == 3
    [hint] = report.problems  # shown, not joined (issue 30)
    assert hint.kind == "likely-duplicate" and hint.line == 3
    assert hint.message.startswith("«W. Tobler» may be any of «Waldo Tobler», «Walter Tobler»")


def test_every_initial_is_used():
    # issue 30: "J. F. Wenger" was joined to "Jun Wenger", whose given names have no second
    # initial
    (a, b, c), _, report = resolve(authors("Wenger, Jun"), authors("Wenger, J. F."),
                                   authors("Wenger, J."))
    assert a == c != b
    hint, joined = sorted(report.problems, key=lambda p: p.kind)
    assert (hint.kind, joined.kind) == ("likely-duplicate", "merged-names")
    assert "«J. F. Wenger» has an initial that «Jun Wenger» lacks" in hint.message
    (a, b), _, report = resolve(authors("Wenger, Jun Feng"), authors("Wenger, J. F."))
    assert a == b and report.problems[0].kind == "merged-names"


def brodie(given: str, *others: str, at: str = "") -> list[Author]:
    places = (at,) if at else ()
    return [Author(parse_name(f"Brodie, {given}"), affiliations=places),
            *(Author(parse_name(o)) for o in others)]


def test_a_fuller_name_joins_on_a_shared_affiliation_or_co_author():
    # issue 30: "Jedediah Brodie" and "Jedediah F. Brodie" of one export stayed two people
    montana = "Univ Montana, Wildlife Biol Program, 32 Campus Dr, Missoula, MT 59812 USA"
    (a, b), names, report = resolve(
        brodie("Jedediah", at=montana),
        brodie("Jedediah F.", at="Univ Montana, Div Biol Sci, Missoula, MT 59802 USA"))
    assert a == b == ["jedediah-f-brodie"] and names[a[0]] == "Jedediah F. Brodie"
    [joined] = report.problems
    assert joined.kind == "merged-names" and "the affiliation «univ montana»" in joined.message
    (a, b), _, report = resolve(brodie("Jedediah", "Hastings, Alan"),
                                brodie("Jedediah F.", "Hastings, Alan"))
    assert a[0] == b[0] and "the co-author «Alan Hastings»" in report.problems[0].message
    # nothing in common: two people, shown as likely one
    (a, b), _, report = resolve(brodie("Jedediah", at=montana),
                                brodie("Jedediah F.", at="Univ Calif Davis, Davis, CA USA"))
    assert a != b and [p.kind for p in report.problems] == ["likely-duplicate"]
    # two fuller names: which one is not known
    (a, b, c), _, report = resolve(brodie("Jedediah", at=montana),
                                   brodie("Jedediah F.", at=montana),
                                   brodie("Jedediah K.", at=montana))
    assert len({a[0], b[0], c[0]}) == 3
    assert "may be any of" in report.problems[0].message


def test_likely_duplicates_are_shown():
    scopus = {"Tobler W.R.": ("scopus:7006438074",)}
    (a, b), _, report = resolve(authors("Tobler W.R.", ids=scopus),
                                authors("Tobler W.R.", ids={"Tobler W.R.": ("scopus:2",)}))
    assert a != b  # ids beat names ...
    [hint] = report.problems  # ... and the user sees the two ids of one name
    assert hint.kind == "likely-duplicate" and "is 2 people by their author ids" in hint.message
    (a, b), _, report = resolve(authors("Sarbunan, Thobias"), authors("Sarbuan, Thobias"))
    assert a != b and "differ by one letter of the family name" in report.problems[0].message
    (a, b), _, report = resolve(authors("Wang, Thobias"), authors("Wan, Thobias"))
    assert report.problems == []  # short family names differ by a letter too often


def test_author_ids_beat_names():
    orcid = {"Wang, Wei": ("orcid:0000-0002-0000-0001",)}
    scopus = {"Wang, Wei": ("scopus:7409012345",)}
    (a, b, c), names, report = resolve(authors("Wang, Wei", ids=orcid),
                                       authors("Wang, Wei", ids=scopus), authors("Wang, Wei"))
    assert a == ["orcid:0000-0002-0000-0001"] and b == ["scopus:7409012345"]
    assert c == ["wei-wang"]  # two people with ids share the name: this one stays apart
    assert [p.kind for p in report.problems] == ["ambiguous-name", "likely-duplicate"]
    tobler = {"Tobler, Waldo": ("orcid:0000-0002-0000-0001",)}
    (a, b), _, _ = resolve(authors("Tobler, Waldo", ids=tobler), authors("Tobler W."))
    assert a == b == ["orcid:0000-0002-0000-0001"]  # one person with an id has the name
    # millions are called Wang: "Wang W." is not taken for the one Wei Wang without more
    (a, b), _, _ = resolve(authors("Wang, Wei", ids=orcid), authors("Wang W."))
    assert a != b
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


@pytest.mark.parametrize("cell, names, guesses", [
    ("Justice Opara-MartinsReza SahandiFeng Tian",
     ["Justice Opara-Martins", "Reza Sahandi", "Feng Tian"], 0),
    ("Hassan B. HassanSaman A. BarakatQusay I. Sarhan",
     ["Hassan B. Hassan", "Saman A. Barakat", "Qusay I. Sarhan"], 0),
    ("John McCartyJane DoeKenneth MacKenzie", ["John McCarty", "Jane Doe", "Kenneth MacKenzie"],
     0),
    ("Roberto Di PietroEduard Marin", ["Roberto Di Pietro", "Eduard Marin"], 0),
    ("Al HughesKevin D. LePage", ["Al Hughes", "Kevin D. LePage"], 0),  # one word at the end
    ("DeRen LiZhenFeng Wang", ["DeRen Li", "ZhenFeng Wang"], 1),  # "Zhen": next name's start
    ("Xiaoqiang DiJinyao Liu", ["Xiaoqiang Di", "Jinyao Liu"], 1),  # or "DiJinyao"?
    ("Kevin D. LePageJohn Smith", ["Kevin D. LePage", "John Smith"], 1),
    ("Sophia B. Liu", ["Sophia B. Liu"], 0), ("", [], 0),
])
def test_names_run_together(cell, names, guesses):
    # issue 30: SpringerLink writes its authors with no separator
    run = split_run_together(cell)
    assert run.names == names and len(run.guesses) == guesses
    assert run.splits == max(len(names) - 1, 0)


def test_names_joined_by_and_and_suffixes_after_a_comma():
    assert split_and("Cynthia R. Farina and Mary J. Newhart and Josiah  Heidt") == \
        ["Cynthia R. Farina", "Mary J. Newhart", "Josiah  Heidt"]
    assert parse_name("David John Gagne,II") == Name("Gagne", "David John", "II")
    assert parse_name("Smith, Jr.") == Name("Smith", "", "Jr.")
