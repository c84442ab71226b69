"""Embase.com's CSV with one field a row ("CSV - Fields by row"): each row a field's label and
its value (`"TITLE","..."`, `"AUTHOR NAMES","Zhang S., Zhao Y."`; a list may also take a cell a
value), a record from its `TITLE` row to the next, blank lines between records. The CSV is read
as every CSV is (delimited.py); each record is then read as a row of Embase's other layout, one
column a field (presets.py's "embase"): the same text, people, ids and dates.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.delimited import read_rows
from expert_gui.core.data.formats.presets import PRESETS, RowReader
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.sniff import EMBASE_LABELS, export_kind
from expert_gui.core.errors import CollectionError

NAME = "embase-rows"
_HEADER = sorted(EMBASE_LABELS)
_EMBASE = PRESETS["embase"]
_COLUMNS = replace(_EMBASE, text=tuple(c.upper() for c in _EMBASE.text),
                   people=_EMBASE.people.upper(), id=_EMBASE.id.upper(),
                   date=_EMBASE.date.upper())


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "Embase", "Embase CSV")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "Embase")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    report = bibliography.report
    rows = RowReader(_HEADER, _COLUMNS, str(path), bibliography.cleaner(path), report)
    record: dict[str, str] | None = None
    start = 0
    for line, cells in read_rows(path, report, progress):
        label = cells[0].strip().upper()
        value = "; ".join(c.strip() for c in cells[1:] if c.strip())
        if label == "TITLE" or (record is not None and label in record):
            if record is not None:
                bibliography.add(rows.record(start, [record.get(h, "") for h in _HEADER]))
            record, start = {}, line
        if record is None:
            raise CollectionError(path, line, "expected Embase's fields, a row each, from "
                                              f"'TITLE'; found {cells[0][:40]!r}")
        record[label] = value
    if record is not None:
        bibliography.add(rows.record(start, [record.get(h, "") for h in _HEADER]))
    rows.finish()
