"""Document dates: read from every format that has them, kept by the cache, reported when bad."""

import json
import shutil
import subprocess

import numpy as np
import pytest

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.dates import parse_date
from expert_gui.core.data.loading import collection_cache, load_collection


@pytest.mark.parametrize("text,day", [
    ("2021-03-04", "2021-03-04"), ("2021-3-4", "2021-03-04"), ("2021-03", "2021-03-01"),
    ("2021", "2021-01-01"), ("2021-03-04T10:00:00+02:00", "2021-03-04"),
    (" 2021-03-04 10:00 ", "2021-03-04"), ("2021-02-30", None), ("someday", None),
    ("20210304", None), ("", None)])
def test_parse_date(text, day):
    assert parse_date(text) == (None if day is None else np.datetime64(day))


def test_folder_dates_and_the_bad_one_reported(fixtures):
    c = load_collection(fixtures / "profiles", use_cache=False)
    dates = dict(zip(c.doc_ids, c.doc_dates.astype(str), strict=True))
    assert dates["p01"] == "2019-03-02" and dates["p06"] == "2021-01-01"
    assert dates["p07"] == "2022-07-04" and dates["p10"] == "2022-09-01"
    assert dates["p08"] == "NaT" and dates["p09"] == "NaT"
    [bad] = [p for p in c.report.problems if p.kind == "invalid-date"]
    assert bad.line == 10 and "p09" in bad.message and "someday" in bad.message
    assert c.n_documents == 12  # kept, undated


def test_collections_without_dates_have_none(fixtures):
    c = load_collection(fixtures / "collections" / "folder_csv", use_cache=False)
    assert not c.has_dates and c.doc_dates is None
    trec = load_collection(fixtures / "collections" / "trec", use_cache=False)
    assert trec.doc_dates is None


def test_cache_keeps_dates_and_rebuilds_an_old_cache(fixtures, tmp_path):
    source = tmp_path / "profiles"
    shutil.copytree(fixtures / "profiles", source)
    first = load_collection(source)
    folder = collection_cache(first.fingerprint)
    again = load_collection(source)
    assert np.array_equal(again.doc_dates, first.doc_dates, equal_nan=True)
    # A cache written before dates existed has no "dates" key: it is read again, same key.
    meta = json.loads((folder / "collection.json").read_text())
    del meta["dates"]
    (folder / "collection.json").write_text(json.dumps(meta))
    (folder / "doc_dates.npy").unlink()
    rebuilt = load_collection(source)
    assert rebuilt.fingerprint == first.fingerprint and rebuilt.has_dates
    assert json.loads((folder / "collection.json").read_text())["dates"] is True


def test_in_memory_records_and_save_round_trip(tmp_path):
    c = Collection.from_records([("a", "ring fix", "2020-05-01"), ("b", "crypto add")],
                                [("a", "x"), ("b", "x")])
    assert list(c.doc_dates.astype(str)) == ["2020-05-01", "NaT"]
    c.save(tmp_path / "c")
    assert list(Collection.load(tmp_path / "c").doc_dates.astype(str)) == ["2020-05-01", "NaT"]
    undated = Collection.from_records([("a", "ring fix")], [("a", "x")])
    undated.save(tmp_path / "u")
    assert Collection.load(tmp_path / "u").doc_dates is None


def test_jsonl_date_and_year_fields(tmp_path):
    folder = tmp_path / "j"
    folder.mkdir()
    rows = [{"id": "a", "text": "ring", "date": "2020-01-02", "people": ["x"]},
            {"id": "b", "text": "ring", "year": 2019, "people": ["x"]},
            {"id": "c", "text": "ring", "people": ["x"]}]
    (folder / "documents.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    c = load_collection(folder, use_cache=False)
    assert list(c.doc_dates.astype(str)) == ["2020-01-02", "2019-01-01", "NaT"]


def test_bibtex_year_is_the_date(fixtures):
    c = load_collection(fixtures / "collections" / "papers.bib", use_cache=False)
    dates = dict(zip(c.doc_ids, c.doc_dates.astype(str), strict=True))
    assert dates["vangysel2016unsupervised"] == "2016-01-01"
    assert dates["balog2012expertise"] == "2012-01-01"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_author_date(tmp_path):
    import os

    repo = tmp_path / "r"
    repo.mkdir()
    env = dict(os.environ, GIT_AUTHOR_NAME="Ann", GIT_AUTHOR_EMAIL="ann@example.org",
               GIT_COMMITTER_NAME="CI", GIT_COMMITTER_EMAIL="ci@example.org",
               GIT_AUTHOR_DATE="2018-04-05T06:07:08+00:00", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_CONFIG_NOSYSTEM="1")
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "ring: fix"]):
        subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)
    c = load_collection(repo, use_cache=False)
    assert list(c.doc_dates.astype(str)) == ["2018-04-05"]
