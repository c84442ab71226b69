"""Dates shown at the precision they were given ("2022", not "2022-01-01"), kept by the cache,
and documents named by their first line rather than by their id."""

import shutil

import numpy as np
import pytest

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.dates import DAY, MONTH, YEAR, format_date, parse_dated
from expert_gui.core.data.loading import collection_cache, load_collection


@pytest.mark.parametrize("text,unit,shown", [
    ("2021", YEAR, "2021"), ("2021-3", MONTH, "2021-03"), ("2021-03-04", DAY, "2021-03-04"),
    ("2021-03-04T10:00:00Z", DAY, "2021-03-04")])
def test_a_date_keeps_its_precision(text, unit, shown):
    day, got = parse_dated(text)
    assert got == unit and format_date(day, got) == shown
    assert format_date(np.datetime64("NaT", "D"), YEAR) == ""


def test_the_collection_and_its_cache_show_dates_as_given(fixtures, tmp_path):
    source = shutil.copytree(fixtures / "profiles", tmp_path / "profiles")
    first = load_collection(source)
    shown = {d: first.date_text(i) for i, d in enumerate(first.doc_ids)}
    assert (shown["p06"], shown["p10"], shown["p01"]) == ("2021", "2022-09", "2019-03-02")
    assert shown["p08"] == "" and shown["p07"] == "2022-07-04"
    again = load_collection(source)  # from the cache
    assert [again.date_text(i) for i in range(again.n_documents)] == list(shown.values())
    # A cache written before the precision was kept is read again, under the same key.
    folder = collection_cache(first.fingerprint)
    (folder / "doc_date_units.npy").unlink()
    rebuilt = load_collection(source)
    assert rebuilt.fingerprint == first.fingerprint and rebuilt.date_text(5) == "2021"
    assert (folder / "doc_date_units.npy").is_file()


def test_documents_are_named_by_their_first_line():
    c = Collection.from_records(
        [("zotero:X7K2", "\n  Deep caches for flash\nWe study caches.", "2022"),
         ("b", "   "), ("c", "x" * 300)], [("zotero:X7K2", "p"), ("b", "p"), ("c", "p")])
    assert c.title(0) == "Deep caches for flash"
    assert c.title(1) == "b"  # no text: its id
    assert len(c.title(2, width=50)) == 50 and c.title(2, width=50).endswith("…")
    assert c.date_text(0) == "2022" and c.date_text(1) == ""
