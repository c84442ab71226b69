"""A paper's authors found among the collection's people, joined as the loader joins names and
ids (core/data/formats/people.py): the same author id; else the same name (names.py's key:
"Tobler, W." = "W. Tobler"); else a name of initials that abbreviates exactly one full name of
its family, every initial used ("W. R. Tobler" is "Waldo R. Tobler"), unless the family is one
millions share (name_evidence.COMMON_FAMILIES: "M. Zhang" may be anyone).

The loader joins a full name to a fuller one ("Jedediah Brodie", "Jedediah F. Brodie") only on
evidence, and keeps a name that fits several people apart. For a conflict of interest that is
not enough: a reviewer who may be the author must not review the paper. So those are kept as
possible matches, each with the reason, and the caller counts them as conflicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from expert_gui.core.data.formats.name_evidence import COMMON_FAMILIES
from expert_gui.core.data.formats.names import compatible, name_key, parse_name


@dataclass(frozen=True)
class AuthorMatch:
    """One author of a paper as written (`author`, with their id in the paper's source), the
    collection person they are (`person`, an index; None if nobody for sure), how they were
    joined, and the people they may be (`possible`, indices) when no one is sure."""

    author: str
    author_id: str
    person: int | None
    how: str
    possible: tuple[int, ...] = ()


class PeopleIndex:
    """The collection's people by id, by name key and by family name."""

    def __init__(self, person_ids: Sequence[str], person_names: Sequence[str]):
        self.person_ids = list(person_ids)
        self.names = list(person_names)
        self._ids = {p: i for i, p in enumerate(self.person_ids)}
        self._keys: dict[tuple, list[int]] = {}
        self._families: dict[str, list[int]] = {}
        for i, written in enumerate(self.names):
            name = parse_name(written) if written else None
            if name is None:
                continue
            key = name_key(name)
            self._keys.setdefault(key, []).append(i)
            self._families.setdefault(key[0], []).append(i)
        self._key_of = {i: k for k, people in self._keys.items() for i in people}

    def match(self, author: str, author_id: str = "") -> AuthorMatch:
        """Who of the collection the author is, or may be."""
        if author_id and author_id in self._ids:
            return AuthorMatch(author, author_id, self._ids[author_id], "the same id")
        name = parse_name(author) if author else None
        if name is None:
            return AuthorMatch(author, author_id, None, "no name to look for")
        key = name_key(name)
        same = self._keys.get(key, [])
        if len(same) == 1:
            return AuthorMatch(author, author_id, same[0], "the same name")
        if same:
            return AuthorMatch(author, author_id, None, f"the name of {len(same)} people",
                               tuple(same))
        family = [i for i in self._families.get(key[0], []) if self._key_of[i][2] == key[2]]
        if key[1] and all(len(w) == 1 for w in key[1]):  # initials only
            fits = [i for i in family if compatible(key[1], self._key_of[i][1])]
            if len(fits) == 1 and key[0] in COMMON_FAMILIES:  # as the loader: no evidence here
                return AuthorMatch(author, author_id, None, f"initials that fit «"
                                   f"{self.names[fits[0]]}», of a family millions share",
                                   tuple(fits))
            if len(fits) == 1:
                return AuthorMatch(author, author_id, fits[0],
                                   f"initials of «{self.names[fits[0]]}»")
            if fits:
                return AuthorMatch(author, author_id, None,
                                   f"initials that fit {len(fits)} people", tuple(fits))
            return AuthorMatch(author, author_id, None, "nobody of that name")
        near = [i for i in family if self._key_of[i][1] and (
            compatible(key[1], self._key_of[i][1]) or compatible(self._key_of[i][1], key[1]))]
        if near:
            return AuthorMatch(author, author_id, None, "a name that may be "
                               + " or ".join(f"«{self.names[i]}»" for i in near[:3])
                               + (f" or {len(near) - 3} more" if len(near) > 3 else ""),
                               tuple(near))
        return AuthorMatch(author, author_id, None, "nobody of that name")
