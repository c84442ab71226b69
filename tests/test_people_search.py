"""The people a partial or differently written name may mean (core/data/people_search.py), and
the people filter's suggestions when a line names nobody (core/data/candidates.py)."""

import pytest

from expert_gui.core.data.candidates import match_candidates
from expert_gui.core.data.people_search import PeopleSearch
from expert_gui.core.errors import InputFileError

IDS = ["waldo-r-tobler", "tobler", "a-tobler", "w-tobler-jr", "tobler-lommatzsch",
       "andre-muller", "scopus:1", "jane-smith"]
NAMES = ["Waldo R. Tobler", "Tobler", "A. Tobler", "W Tobler, Jr", "AW Tobler-Lommatzsch",
         "André Müller", "W.R. Tobler (Univ Calif Santa Barbara)", "Jane Smith"]


def names(indices) -> list[str]:
    return [NAMES[i] for i in indices]


@pytest.fixture
def search() -> PeopleSearch:
    return PeopleSearch(IDS, NAMES)


@pytest.mark.parametrize("typed", ["W. Tobler", "Tobler, W.", "TOBLER W", "w tobler"])
def test_initials_suggest_the_names_they_may_abbreviate_written_out_first(search, typed):
    found = names(search.suggest(typed))
    assert found[:2] == ["Waldo R. Tobler", "Tobler"]
    assert "W.R. Tobler (Univ Calif Santa Barbara)" in found  # the namesakes' tag aside
    assert "A. Tobler" not in found  # another first initial
    assert found.index("W Tobler, Jr") > found.index("W.R. Tobler (Univ Calif Santa Barbara)")


def test_a_family_name_alone_suggests_everyone_of_it(search):
    found = names(search.matching("tobler"))
    assert {"Waldo R. Tobler", "Tobler", "A. Tobler", "AW Tobler-Lommatzsch"} <= set(found)
    assert "Jane Smith" not in found


def test_case_and_accents_aside_and_a_part_of_a_name_or_id(search):
    assert names(search.matching("MULLER")) == ["André Müller"]
    assert names(search.matching("andre m")) == ["André Müller"]
    assert names(search.matching("lommatz")) == ["AW Tobler-Lommatzsch"]
    assert names(search.matching("scopus:1")) == ["W.R. Tobler (Univ Calif Santa Barbara)"]
    assert search.matching("   ") == []
    assert search.matching("Nobody Atall") == []


def test_the_people_filter_suggests_whom_a_line_may_mean():
    with pytest.raises(InputFileError) as caught:
        match_candidates("jane-smith\nW. Tobler\n", IDS, NAMES)
    assert caught.value.line == 2
    message = caught.value.message
    assert "did you mean «Waldo R. Tobler» (waldo-r-tobler), «Tobler» (tobler)" in message
    with pytest.raises(InputFileError, match="no person's id or name in this collection$"):
        match_candidates("Nobody Atall", IDS, NAMES)
