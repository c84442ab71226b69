"""Web of Science plain text ("Full Record", `savedrecs.txt`), and the indexes that share its
tags (SciELO Citation Index): `FN`/`VR` header, records from `PT` to `ER`, `EF` at the end.

A line is a two-character tag, a space and a value; a line starting with three spaces goes on
with the tag before it. Author tags (`AU`, `AF`, ...) and addresses give one value a line; the
others wrap one value over lines (an `OI` entry may wrap inside a name), joined with spaces. A
record is then read as a row of the tab-delimited export (presets.py's "wos"): text `TI`, `AB`,
`DE`; people `AF` (`AU` where missing), identified by `OI` (ORCID) and `RI` (ResearcherID), with
their addresses `C1`; id `UT`. No parser fit: the libraries that read this format are GPL, unmaintained or cannot be
installed, and none gives line numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.presets import PRESETS, RowReader, fit
from expert_gui.core.data.formats.reading import (
    Continued,
    Progress,
    file_state,
    own_authors_file,
    read_lines,
)
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.errors import CollectionError

NAME = "wos"
# Tags that give one value per line (authors, addresses, cited references).
_ONE_A_LINE = frozenset({"AU", "AF", "BA", "BF", "CA", "GP", "BE", "C1", "C3", "CR"})
_TAG = re.compile(r"([A-Z][A-Z0-9])(?: (.*))?$")
# The tags a record's row holds, in the order of the tab-delimited export.
_HEADER = ["PT", "AU", "AF", "TI", "DE", "AB", "RI", "OI", "PY", "VL", "BP", "EP", "DI", "UT",
           "PM", "SO", "C1"]
_COLUMNS = fit(PRESETS["wos"], _HEADER)
_READ = frozenset(_HEADER)


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "Web of Science", "Web of Science export")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "Web of Science")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    report = bibliography.report
    rows = RowReader(_HEADER, _COLUMNS, str(path), bibliography.cleaner(path), report)
    record: dict[str, Continued] | None = None
    start = 0
    tag = ""
    stray = None
    found = False

    def close(line: int) -> None:
        nonlocal record
        for t, v in record.items():
            v.report_cut(report, path, t)
        values = {t: ("; " if t in _ONE_A_LINE else " ").join(v.lines)
                  for t, v in record.items()}
        bibliography.add(rows.record(line, [values.get(t, "") for t in _HEADER]))
        record = None

    for line, text in read_lines(path, report, progress):
        if text.startswith("   ") and record is not None:
            if tag in _READ:  # most lines go on with a tag not read (cited references)
                record[tag].add(text.strip(), line)
            continue
        text = text.rstrip("\r\n")
        if not text.strip():
            continue
        m = _TAG.match(text)
        if m is None:
            if record is not None:
                report.add("malformed-record", path, line, "expected a two-letter tag or a line "
                           "starting with three spaces; this line was left out")
            elif stray is None:
                stray = line
            continue
        tag, value = m.group(1), (m.group(2) or "").strip()
        if tag == "PT":
            if record is not None:
                report.add("malformed-record", path, start, "expected 'ER' before the next "
                           f"record (line {line}); the record was read as it stands")
                close(start)
            record, start, found = {"PT": Continued(value, line)}, line, True
        elif tag == "ER" and record is not None:
            close(start)
            tag = ""
        elif record is not None:
            if tag in record:
                record[tag].add(value, line)
            elif tag in _READ:
                record[tag] = Continued(value, line)
        elif tag not in ("FN", "VR", "EF", "ER") and stray is None:
            stray = line
    if record is not None:
        report.add("malformed-record", path, start, "expected 'ER' before the end of the file; "
                   "the record was read as it stands")
        close(start)
    if not found:
        raise CollectionError(path, stray or 1, "expected Web of Science records ('PT J' ... "
                                                "'ER')")
    if stray is not None:
        report.add("malformed-record", path, stray, "text outside the records left out (from "
                   "this line)")
