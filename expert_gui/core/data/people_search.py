"""The people a partial or differently written name may mean ("W. Tobler" -> "Waldo R. Tobler",
"Tobler"; "muller" -> "Müller"), for the lists that find people by what a user types.

A name is read as the readers read authors (formats/names.py): the same family name with given
names that may abbreviate each other, in either direction ("W." and "Waldo R."; a bare family
name and any given names), the names written out first. Then the people whose name or id holds
the typed text, case and accents aside.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

from expert_gui.core.data.formats.names import compatible, fold, name_key, parse_name

# Suggestions listed after "did you mean": as many as a reader takes in at a glance.
MAX_SUGGESTIONS = 8
# What follows a display name to tell two namesakes apart ("Ann Lee (Univ Oslo)"): no part of it.
_TAG = re.compile(r"\s*\([^()]*\)\s*$")
_WORD = re.compile(r"\w+")
# Searches kept built: the open collection's and its model's, and the last ones before them.
SEARCHES_KEPT = 4
_searches: OrderedDict[int, tuple[Sequence[str], Sequence[str], PeopleSearch]] = OrderedDict()
_lock = threading.Lock()


def search_for(people) -> PeopleSearch:
    """The `PeopleSearch` of a collection or a model (anything with `person_ids` and
    `person_names`), built once for those lists: about a second for 40,000 people, so build it
    off the GUI thread first."""
    key = id(people.person_ids)
    with _lock:  # a worker builds it while the GUI thread may ask for it
        kept = _searches.get(key)
        if kept is not None and kept[0] is people.person_ids and \
                kept[1] is people.person_names:
            _searches.move_to_end(key)
            return kept[2]
    search = PeopleSearch(people.person_ids, people.person_names)
    with _lock:
        _searches[key] = (people.person_ids, people.person_names, search)
        while len(_searches) > SEARCHES_KEPT:
            _searches.popitem(last=False)
    return search


class PeopleSearch:
    """Finds people by a typed name among `person_ids` and their `person_names`; built once per
    collection (the names' words are indexed, a name parsed only when its family is asked for)."""

    def __init__(self, person_ids: Sequence[str], person_names: Sequence[str]):
        self.person_ids = person_ids
        self.person_names = person_names
        self._folded = [fold(f"{n}\x1f{p}") for p, n in zip(person_ids, person_names,
                                                            strict=True)]
        self._by_word: dict[str, list[int]] = {}
        for i, text in enumerate(self._folded):
            words = _WORD.findall(text.split("\x1f")[0])
            # each word, and the last words run together: a family name "de Rijke" is "derijke"
            for word in dict.fromkeys([*words, *("".join(words[k:]) for k in range(len(words)))]):
                self._by_word.setdefault(word, []).append(i)

    def matching(self, text: str) -> list[int]:
        """Every person `text` may name: by name first (same family, given names that may
        abbreviate each other), then by the text found in their name or id."""
        text = " ".join(text.split())
        if not text:
            return []
        found = dict.fromkeys(self._by_name(text))
        needle = fold(text)
        found.update(dict.fromkeys(i for i, f in enumerate(self._folded) if needle in f))
        return list(found)

    def suggest(self, text: str, limit: int = MAX_SUGGESTIONS) -> list[int]:
        """The first `limit` of `matching`."""
        return self.matching(text)[:limit]

    def describe(self, indices: Sequence[int]) -> str:
        """'«Waldo R. Tobler» (waldo-r-tobler), «Tobler» (tobler)'."""
        return ", ".join(f"«{self.person_names[i]}» ({self.person_ids[i]})" for i in indices)

    def _by_name(self, text: str) -> list[int]:
        name = parse_name(text)
        if name is None:
            return []
        family, given, suffix = name_key(name)
        if not family:
            return []
        found = []
        for i in self._by_word.get(family, ()):
            other = parse_name(_TAG.sub("", self.person_names[i]))
            if other is None:
                continue
            key = name_key(other)
            if key[0] == family and (compatible(given, key[1]) or compatible(key[1], given)):
                found.append((_closeness(given, suffix, key), i))
        return [i for _, i in sorted(found)]


def _closeness(given: tuple[str, ...], suffix: str, key: tuple) -> tuple[int, int]:
    """How a person's name key sorts among those a typed name may mean: the same suffix first;
    then given names written out that the typed ones abbreviate ("Waldo R." for "W."), then
    names the typed one extends (the bare family name "Tobler"), then other initials."""
    written_out = any(len(w) > 1 for w in key[1]) and compatible(given, key[1])
    shorter = compatible(key[1], given)
    return key[2] != suffix, 0 if written_out else 1 if shorter else 2
