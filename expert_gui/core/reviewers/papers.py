"""The papers to assign, read as the app reads any collection: an export, a folder of them, or
a table with an id, the text and, optionally, authors and affiliations. A table of papers without
an authors column (manuscripts whose authors are kept from reviewers) is read too: its papers
then have no authors, and only the conflicts a list gives apply to them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.formats.presets import TableColumns, detect_columns
from expert_gui.core.data.loading import LoadProgress, load_collection
from expert_gui.core.data.text import TextSettings
from expert_gui.core.errors import CollectionError


def load_papers(path: str | Path, settings: TextSettings = TextSettings(), *,
                columns: TableColumns | None = None,
                progress: Callable[[LoadProgress], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> Collection | None:
    """The papers at `path` as a collection (their authors its people); None if stopped.
    `columns`: a table's columns as the user chose them (by default detected; a table whose
    header names no authors column is read without authors)."""
    if columns is not None:
        return load_collection(path, settings=settings, columns=columns, progress=progress,
                               should_stop=should_stop)
    try:
        return load_collection(path, settings=settings, progress=progress,
                               should_stop=should_stop)
    except CollectionError as exc:
        columns = _columns_without_authors(Path(path).expanduser())
        if columns is None:
            raise
        papers = load_collection(path, settings=settings, columns=columns, progress=progress,
                                 should_stop=should_stop)
        if papers is not None:
            papers.report.add("no-authors", path, exc.line,
                              "no authors column: the papers have no authors, so only the "
                              "conflicts listed by hand apply to them")
        return papers


def _columns_without_authors(path: Path) -> TableColumns | None:
    """A table's columns with no people column, where the header names text columns."""
    from expert_gui.core.data.formats.table import is_table_file, preview

    if not path.is_file() or not is_table_file(path):
        return None
    try:
        header = preview(path, rows=0).header
    except CollectionError:
        return None
    columns = detect_columns(header, need_people=False)
    return None if columns is None or columns.people else replace(columns, people="")
