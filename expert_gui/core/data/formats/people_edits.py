"""People merged and spellings split off by hand: a librarian's corrections to who is who,
kept in a small text file beside the collection and applied on every load, after the names are
joined (people.py), so that no reader's guess has the last word.

The file is `people-edits.tsv` inside a collection folder, `<file>.people-edits.tsv` beside a
collection that is one file. One edit a line, tab-separated, applied in order; `#` starts a
comment:

    merge   <person id>   <into person id>    the first person's documents become the second's
    split   <spelling>    <person id>         the documents that write the person so become
                                              a person of their own

An edit that is malformed, or names a person (or a spelling of them) the collection does not
hold, is reported with its file and line and passed over; the others are applied. Undo removes
the last line. The file is rewritten whole under a temporary name and renamed, so a crash leaves
the old file or the new one. Its content is part of the collection's cache key (loading.py):
an edit reloads the collection, and a model trained before it no longer fits its people.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from expert_gui.core.data.formats.names import fold, id_of_display
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError, write_error

EDITS_FILE = "people-edits.tsv"
MERGE, SPLIT = "merge", "split"
HEADER = (
    "# People edits of expert-gui, applied in order on every load of the collection beside it.\n"
    "# merge<TAB>person id<TAB>into person id: the first person's documents become the second's\n"
    "# split<TAB>spelling<TAB>person id: the documents writing the person so become a person\n"
)


@dataclass(frozen=True)
class Edit:
    """One line of the edits file: `merge` (subject: the person id merged away, person: the one
    kept) or `split` (subject: the spelling, person: the person it leaves)."""

    kind: str
    subject: str
    person: str
    line: int | None = None  # where the file holds it (None: not written yet)

    def text(self) -> str:
        """What the user reads: 'merge «a» into «b»', 'split «Tobler, W.» off «b»'."""
        return (f"merge «{self.subject}» into «{self.person}»" if self.kind == MERGE else
                f"split «{self.subject}» off «{self.person}»")


def edits_path(collection: str | Path) -> Path:
    """Where a collection's edits are kept: inside its folder, else beside its one file."""
    collection = Path(collection)
    if collection.is_dir():
        return collection / EDITS_FILE
    return collection.with_name(f"{collection.name}.{EDITS_FILE}")


def read_edits(path: str | Path, report: LoadReport | None = None) -> list[Edit]:
    """The edits of a file (none when there is no file); each malformed line is reported in
    `report` with its file and line, and left out, and so is a file that cannot be read as
    text (then no edit is applied: the collection still opens). Without `report`, such a file
    raises CollectionError."""
    path = Path(path)
    edits = []
    try:
        lines = _lines(path)
    except CollectionError as exc:
        if report is None:
            raise
        report.add("people-edit-skipped", path, exc.line, f"{exc.message}; no edit of this "
                                                          "file is applied")
        return []
    for number, raw in enumerate(lines, start=1):
        edit = _parse(raw, number)
        if edit is not None:
            edits.append(edit)
        elif report is not None and raw.strip() and not raw.lstrip().startswith("#"):
            report.add("people-edit-skipped", path, number,
                       "expected 'merge<TAB>person id<TAB>into person id' or "
                       f"'split<TAB>spelling<TAB>person id', found {raw.strip()[:80]!r}; "
                       "this line is not applied")
    return edits


def add_edit(path: str | Path, edit: Edit) -> None:
    """Add one edit at the end of the file (created, with its header, when there is none)."""
    for field in (edit.subject, edit.person):
        if not field.strip() or any(c in field for c in "\t\r\n"):
            raise ValueError(f"an edit's fields are not empty and hold no tab or line break: "
                             f"{edit.text()}")
    lines = _lines(Path(path)) or HEADER.splitlines()
    _write(Path(path), [*lines, f"{edit.kind}\t{edit.subject}\t{edit.person}"])


def undo_last(path: str | Path) -> Edit | None:
    """Remove the last edit of the file, every other line kept as written; the edit removed
    (None when there was none). A file left with nothing but its header goes, so the
    collection is the one it was before any edit (its cache and models fit again)."""
    path = Path(path)
    lines = _lines(path)
    for number in range(len(lines), 0, -1):
        edit = _parse(lines[number - 1], number)
        if edit is not None:
            rest = lines[:number - 1] + lines[number:]
            if rest == HEADER.splitlines():
                try:
                    path.unlink()
                except OSError as exc:
                    raise write_error(path, exc) from exc
            else:
                _write(path, rest)
            return edit
    return None


def _lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    data = read_regular(path, CollectionError)
    try:
        return data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise CollectionError(path, data[:exc.start].count(b"\n") + 1,
                              f"not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
                              ) from exc


def _parse(raw: str, number: int) -> Edit | None:
    fields = [f.strip() for f in raw.split("\t")]
    if len(fields) != 3 or fields[0] not in (MERGE, SPLIT) or not all(fields[1:]):
        return None
    return Edit(fields[0], fields[1], fields[2], number)


def _write(path: Path, lines: list[str]) -> None:
    """The file's new lines, written under a temporary name and renamed over it."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise write_error(path, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write("".join(f"{line}\n" for line in lines))
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise write_error(path, exc) from exc


def spelling_key(spelling: str) -> str:
    """Spellings that differ only in case, accents or spacing are one ("TOBLER, W" is
    "Tobler, W")."""
    return " ".join(fold(spelling).split())


@dataclass
class PeopleEdits:
    """A file's edits, given to the `CollectionBuilder`: the reader that knows how each document
    writes its authors applies them, else the builder does (merges only)."""

    path: Path
    edits: list[Edit]
    taken: bool = False

    def apply(self, person_of: Sequence[str], names: dict[str, str], report: LoadReport,
              spelling_of: Sequence[str | None] | None = None) -> list[str]:
        """`apply_edits`, once: a later call (the builder's, after a reader's) changes nothing."""
        if self.taken:
            return list(person_of)
        self.taken = True
        return apply_edits(self.edits, self.path, person_of, names, report, spelling_of)


def apply_edits(edits: Sequence[Edit], path: str | Path, person_of: Sequence[str],
                names: dict[str, str], report: LoadReport,
                spelling_of: Sequence[str | None] | None = None) -> list[str]:
    """Each occurrence's person after the edits, in order. `person_of[i]` is occurrence i's person
    (an author of a document, or a person of the collection), `spelling_of[i]` how it was written
    (None: the collection names people by id, so no spelling can be split off); `names`, each
    person's display name, gains the people split off. An edit naming nobody is reported, and
    what was applied is reported once ("2 people merged by hand, ...")."""
    person = list(person_of)
    members: dict[str, list[int]] = {}  # each person's occurrences: an edit touches only theirs
    for i, p in enumerate(person):
        members.setdefault(p, []).append(i)
    merged = split = 0
    for edit in edits:
        if edit.kind == MERGE:
            missing = [p for p in (edit.subject, edit.person) if p not in members]
            if missing or edit.subject == edit.person:
                _skip(report, path, edit, ("names no person of this collection: "
                                           + ", ".join(f"«{p}»" for p in missing)) if missing
                      else "merges a person into themself")
                continue
            moved = members.pop(edit.subject)
            for i in moved:
                person[i] = edit.person
            members[edit.person] += moved
            merged += 1
            continue
        if spelling_of is None:
            _skip(report, path, edit, "this collection names its people by id, not by how each "
                                      "document writes them: no spelling to split off")
            continue
        key = spelling_key(edit.subject)
        own = members.get(edit.person, [])
        hits = [i for i in own
                if spelling_of[i] is not None and spelling_key(spelling_of[i]) == key]
        if not hits:
            _skip(report, path, edit, f"no document writes «{edit.person}» as «{edit.subject}»"
                  if own else f"«{edit.person}» is no person of this collection")
            continue
        if len(hits) == len(own):
            _skip(report, path, edit, f"every document writes «{edit.person}» so: nothing "
                                      "is left to split it from")
            continue
        new = _unused_id(id_of_display(edit.subject) or "person",
                         lambda p: p in members or p in names)
        taken = set(hits)
        members[edit.person] = [i for i in own if i not in taken]
        members[new] = hits
        for i in hits:
            person[i] = new
        names[new] = edit.subject
        split += 1
    if merged or split:
        said = [f"{merged} {'person' if merged == 1 else 'people'} merged by hand"] * bool(merged)
        said += [f"{split} spelling{'' if split == 1 else 's'} split off"] * bool(split)
        report.add("people-edited", path, None, ", ".join(said))
    return person


def _skip(report: LoadReport, path: str | Path, edit: Edit, why: str) -> None:
    report.add("people-edit-skipped", path, edit.line, f"{edit.text()}: {why}; not applied")


def _unused_id(base: str, taken: Callable[[str], bool]) -> str:
    """`base`, else `base-2`, `base-3`, ...: the first not taken."""
    pid, n = base, 1
    while taken(pid):
        n += 1
        pid = f"{base}-{n}"
    return pid
