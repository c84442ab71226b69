"""Documents' dates, kept as days: a year or a month alone stands for its first day."""

from __future__ import annotations

import re

import numpy as np

# An undated document, as days since 1970 (NaT in `Collection.doc_dates`).
NO_DAY = int(np.datetime64("NaT", "D").astype(np.int64))
# YYYY, YYYY-MM or YYYY-MM-DD, optionally followed by a time ("T12:00:00Z", " 12:00").
_DATE_RE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ][0-9:.+\-Z ]*)?")


def parse_date(text: str) -> np.datetime64 | None:
    """A document's date as a day; a year or a month alone stands for its first day.

    None when the text is not such a date (or names no real day, like 2021-02-30).
    """
    m = _DATE_RE.fullmatch(text.strip())
    if m is None:
        return None
    year, month, day = m.group(1), m.group(2) or "1", m.group(3) or "1"
    try:
        return np.datetime64(f"{year}-{int(month):02d}-{int(day):02d}", "D")
    except ValueError:
        return None
