"""A list of the people to rank (current staff, a reviewer pool): one person id or name a line,
from a file or pasted text. Published protocols rank within such a set and measure within it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from expert_gui.core.data.inputs import read_regular
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
    are skipped. A line that names nobody, or a name several people share, is an
    `InputFileError` naming the line; nothing is dropped silently."""
    ids = {p: i for i, p in enumerate(person_ids)}
    names: dict[str, list[int]] = {}
    for i, name in enumerate(person_names):
        names.setdefault(_key(name), []).append(i)
    chosen: dict[int, None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if entry in ids:
            chosen[ids[entry]] = None
            continue
        found = names.get(_key(entry), [])
        if len(found) > 1:
            raise InputFileError(where, number, f"{entry!r} is the name of {len(found)} people "
                                                f"({', '.join(person_ids[i] for i in found)}): "
                                                "give their id")
        if not found:
            raise InputFileError(where, number, f"{entry!r} is no person's id or name in this "
                                                "collection")
        chosen[found[0]] = None
    if not chosen:
        raise InputFileError(where, None, "names nobody: give one person id or name a line")
    return list(chosen)


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()
