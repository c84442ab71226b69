"""A list of the people to rank (current staff, a reviewer pool): one person id or name a line,
from a file or pasted text. Published protocols rank within such a set and measure within it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from expert_gui.core.data.inputs import read_regular
from expert_gui.core.data.people_search import PeopleSearch
from expert_gui.core.errors import InputFileError


def read_candidates(path: str | Path, person_ids: Sequence[str],
                    person_names: Sequence[str]) -> list[int]:
    """The people a candidates file names (`match_candidates`)."""
    try:
        text = read_regular(path, InputFileError).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(path, None, f"cannot read as UTF-8: {exc}") from exc
    return match_candidates(text, person_ids, person_names, path)


def match_candidates(text: str, person_ids: Sequence[str], person_names: Sequence[str],
                     where: str | Path = "the list of people") -> list[int]:
    """Indices of the people the lines of `text` name, in the order first named: each line a
    person id, else a name (case and spacing aside). Blank lines and lines starting with '#'
    are skipped. A line that names nobody (with the people it may mean), or a name several
    people share, is an `InputFileError` naming the line; nothing is dropped silently."""
    lookup = PersonLookup(person_ids, person_names)
    chosen: dict[int, None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.strip()
        if entry and not entry.startswith("#"):
            chosen[lookup.find(entry, where, number)] = None
    if not chosen:
        raise InputFileError(where, None, "names nobody: give one person id or name a line")
    return list(chosen)


class PersonLookup:
    """A person by id, else by name (case and spacing aside), as lists of people name them."""

    def __init__(self, person_ids: Sequence[str], person_names: Sequence[str]):
        self.person_ids, self.person_names = person_ids, person_names
        self._search: PeopleSearch | None = None
        self._ids = {p: i for i, p in enumerate(person_ids)}
        self._names: dict[str, list[int]] = {}
        for i, name in enumerate(person_names):
            self._names.setdefault(_key(name), []).append(i)

    def find(self, entry: str, where: str | Path, line: int | None) -> int:
        """The index of the one person `entry` names; an `InputFileError` at `where`:`line`
        when it names nobody or several people."""
        if entry in self._ids:
            return self._ids[entry]
        found = self._names.get(_key(entry), [])
        if len(found) > 1:
            raise InputFileError(where, line, f"{entry!r} is the name of {len(found)} people "
                                              f"({', '.join(self.person_ids[i] for i in found)}): "
                                              "give their id")
        if not found:
            near = self.search.suggest(entry)
            raise InputFileError(where, line, f"{entry!r} is no person's id or name in this "
                                              "collection" + (
                                                  f"; did you mean {self.search.describe(near)}?"
                                                  if near else ""))
        return found[0]

    @property
    def search(self) -> PeopleSearch:
        """The people a name may mean (built when a line names nobody)."""
        if self._search is None:
            self._search = PeopleSearch(self.person_ids, self.person_names)
        return self._search


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()
