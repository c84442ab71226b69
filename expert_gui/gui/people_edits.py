"""Merging two people, or splitting a spelling off one, by hand, from the collection panel and
the profile: each edit is a line of the collection's people edits file
(core/data/formats/people_edits.py), written at once, and the collection is read again in the
background, so every panel shows the people as edited. A model trained before an edit does not
fit the edited people: the app closes it and says to train again (AppState.set_collection)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from expert_gui.core.data.formats.people_edits import (
    MERGE,
    SPLIT,
    Edit,
    add_edit,
    edits_path,
    read_edits,
    undo_last,
)
from expert_gui.core.data.people_search import search_for
from expert_gui.core.errors import ExpertGuiError
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.state import AppState


class PeopleEditor:
    """The people edits of the open collection, for the panel `parent` (dialogs open over it)."""

    def __init__(self, state: AppState, parent: QWidget):
        self.state = state
        self.parent = parent

    @property
    def path(self) -> Path | None:
        """The open collection's edits file (None when no collection is open)."""
        source = self.state.collection_path
        return edits_path(source) if source is not None else None

    def last_edit(self) -> Edit | None:
        path = self.path
        if path is None:
            return None
        try:
            edits = read_edits(path)
        except ExpertGuiError:
            return None  # the load report says what is wrong with the file
        return edits[-1] if edits else None

    # -- the edits ------------------------------------------------------------------------------
    def merge(self, subject: str, into: str) -> bool:
        """`subject`'s documents become `into`'s; False when the edit could not be saved."""
        return self._add(Edit(MERGE, subject, into))

    def split(self, spelling: str, person: str) -> bool:
        """The documents writing `person` as `spelling` become a person of their own."""
        return self._add(Edit(SPLIT, spelling, person))

    def undo(self) -> Edit | None:
        """Remove the last edit and read the collection again; the edit undone."""
        path = self.path
        try:
            edit = undo_last(path) if path is not None else None
        except ExpertGuiError as exc:
            show_error(self.parent, "Cannot undo the people edit", exc)
            return None
        if edit is not None:
            self._reread(f"Undone: {edit.text()}")
        return edit

    def _add(self, edit: Edit) -> bool:
        path = self.path
        if path is None:
            return False
        try:
            add_edit(path, edit)
        except (ExpertGuiError, ValueError) as exc:
            show_error(self.parent, "Cannot save the people edit", exc)
            return False
        self._reread(f"{edit.text()[0].upper()}{edit.text()[1:]}: kept in {path.name}")
        return True

    def _reread(self, message: str) -> None:
        self.state.message.emit(f"{message}; reading {self.state.collection.name} again…")
        self.state.reread_requested.emit(self.state.collection.settings)

    # -- asking the user --------------------------------------------------------------------------
    def ask_merge(self, first: str, second: str) -> str | None:
        """Merge two people, asking which one stays; the person kept (None: cancelled)."""
        names = self._names()
        choices = [f"{names.get(p, p)} ({p})" for p in (first, second)]
        chosen, ok = QInputDialog.getItem(
            self.parent, "Merge two people", "Their documents become those of one person. "
            "Keep whose id and name?", choices, 0, False)
        if not ok:
            return None
        keep, other = (first, second) if chosen == choices[0] else (second, first)
        return keep if self.merge(other, keep) else None

    def ask_merge_into(self, person: str) -> bool:
        """Ask for another person (a name or id, partial or written otherwise) whose documents
        become `person`'s."""
        collection = self.state.collection
        if collection is None:
            return False
        typed, ok = QInputDialog.getText(
            self.parent, "Merge into this person",
            f"Whose documents become {self._names().get(person, person)}'s? A name or an id:")
        if not ok or not typed.strip():
            return False
        if typed.strip() in collection.person_index:
            found = [collection.person_index[typed.strip()]]
        else:
            search = search_for(collection)  # built after the load, in the background
            found = [i for i in search.suggest(typed) if collection.person_ids[i] != person]
        if not found:
            QMessageBox.information(self.parent, "Merge into this person",
                                    f"Nobody in this collection is called {typed.strip()!r}.")
            return False
        choices = [f"{collection.person_names[i]} ({collection.person_ids[i]})" for i in found]
        chosen, ok = QInputDialog.getItem(self.parent, "Merge into this person",
                                          "Which person is it?", choices, 0, False)
        if not ok:
            return False
        other = collection.person_ids[found[choices.index(chosen)]]
        return other != person and self.merge(other, person)

    def ask_split(self, person: str) -> bool:
        """Split one of the spellings the documents write `person` in off them."""
        collection = self.state.collection
        spellings = collection.person_spellings.get(person, []) if collection else []
        if len(spellings) < 2:
            QMessageBox.information(
                self.parent, "Split a spelling off", f"{self._names().get(person, person)} is "
                "written one way only in this collection: there is no spelling to split off.")
            return False
        chosen, ok = QInputDialog.getItem(
            self.parent, "Split a spelling off", "The documents that write them so become "
            "another person:", spellings, len(spellings) - 1, False)
        return ok and self.split(chosen, person)

    def _names(self) -> dict[str, str]:
        c = self.state.collection
        return dict(zip(c.person_ids, c.person_names, strict=True)) if c is not None else {}
