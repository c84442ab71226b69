"""Documents' dates, kept as days with the precision they were given: a year or a month alone
stands for its first day, and is shown again as that year or month ("2022", not "2022-01-01")."""

from __future__ import annotations

import re

import numpy as np

# An undated document, as days since 1970 (NaT in `Collection.doc_dates`).
NO_DAY = int(np.datetime64("NaT", "D").astype(np.int64))
# How precise a date was given (`Collection.doc_date_units`): to the day, the month or the year.
DAY, MONTH, YEAR = 0, 1, 2
# YYYY, YYYY-MM or YYYY-MM-DD, optionally followed by a time ("T12:00:00Z", " 12:00").
_DATE_RE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ][0-9:.+\-Z ]*)?")


def parse_dated(text: str) -> tuple[np.datetime64, int] | None:
    """A document's date as a day, and whether it was given to the DAY, MONTH or YEAR.

    None when the text is not such a date (or names no real day, like 2021-02-30).
    """
    m = _DATE_RE.fullmatch(text.strip())
    if m is None:
        return None
    year, month, day = m.group(1), m.group(2) or "1", m.group(3) or "1"
    unit = DAY if m.group(3) else MONTH if m.group(2) else YEAR
    try:
        return np.datetime64(f"{year}-{int(month):02d}-{int(day):02d}", "D"), unit
    except ValueError:
        return None


def parse_date(text: str) -> np.datetime64 | None:
    """A document's date as a day (see `parse_dated`); None when it is not a date."""
    parsed = parse_dated(text)
    return None if parsed is None else parsed[0]


def format_date(day: np.datetime64, unit: int = DAY) -> str:
    """'2022', '2022-03' or '2022-03-04', as precise as it was given; '' for NaT."""
    if np.isnat(day):
        return ""
    return str(day.astype(_UNIT_TYPES.get(unit, "datetime64[D]")))


_UNIT_TYPES = {YEAR: "datetime64[Y]", MONTH: "datetime64[M]"}


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WORDS = re.compile(r"[^\W\d_]+|\d+")


def loose_date(text: str) -> str:
    """A date as exports write it, in the form `parse_date` reads: "2018 Nov 25" -> 2018-11-25,
    "2018 Nov-Dec" and "OCT 2024" -> 2018-11 and 2024-10, "2019 Spring" -> 2019,
    "24 January 2003" -> 2003-01-24, "2003/1/24" -> 2003-01-24; "" without a year."""
    text = (text or "").strip()
    if not text or parse_date(text) is not None:
        return text
    words = _WORDS.findall(text)
    at = next((i for i, w in enumerate(words) if len(w) == 4 and w.isdecimal()), None)
    if at is None:
        return ""
    year = words[at]
    month = day = None
    named = next((i for i, w in enumerate(words) if w[:3].lower() in _MONTHS), None)
    if named is not None:
        month = _MONTHS.index(words[named][:3].lower()) + 1
        around = [words[k] for k in (named + 1, named - 1) if 0 <= k < len(words) and k != at]
        day = next((w for w in around if _small(w)), None)
    elif at + 1 < len(words) and _small(words[at + 1]) and 1 <= int(words[at + 1]) <= 12:
        month = int(words[at + 1])
        if at + 2 < len(words) and _small(words[at + 2]):
            day = words[at + 2]
    if month is None:
        return year
    if day is not None and parse_date(f"{year}-{month:02d}-{int(day):02d}") is not None:
        return f"{year}-{month:02d}-{int(day):02d}"
    return f"{year}-{month:02d}"


def _small(word: str) -> bool:
    """Whether a word is a month's or a day's number: one or two decimal digits (`isdigit`
    holds for "²", which `int` refuses, and `int` refuses 5,000 digits too)."""
    return len(word) <= 2 and word.isdecimal()
