"""Issue 43 items 8, 11, 12 and 13: readers linear in a field's length, names bounded, folders
and links that raised tracebacks, dates past Python's int limit, combining marks, and authors
whose names hold no letter or digit.

The linear cases run each in a process of its own under a CPU-time and a memory limit many
times what the reading needs (seconds, a few hundred MB): before the fix each took minutes to
hours, or past 3 GB, so they fail by the limit, never by a measured time.
"""

import os
import resource
import subprocess
import sys
import unicodedata
from pathlib import Path

import hostile_text_files as hostile
import pytest

import expert_gui
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats import FORMATS
from expert_gui.core.data.formats import exports as exports_format
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import TextSettings, Tokenizer
from expert_gui.core.errors import CollectionError

# The code under test, for the processes a test starts (the tree expert_gui was imported from).
REPO = Path(expert_gui.__file__).resolve().parent.parent
CPU_SECONDS = 60
MEMORY = 2 << 30

_READ = """
import sys
from expert_gui.core.data.loading import load_collection
c = load_collection(sys.argv[1], use_cache=False)
print(c.n_documents, len(c.report.problems))
"""


def _limited():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.parametrize("make, documents", [
    (hostile.make_openalex_pmid, 1),  # re.search(r"\d+$"): hours
    (hostile.make_ads_affiliation, 1),  # a lazy match to every ")": hours
    (hostile.make_springer_authors, 2),  # a slice per cut, the cell copied into every guess
    (hostile.make_initials, 8192),  # every spelling of initials against every full one
    (hostile.make_long_family, 2),  # a variant per letter: past 3 GB
])
def test_a_hostile_field_is_read_within_bounds(tmp_path, make, documents):
    path = make(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, preexec_fn=_limited)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[0]) == documents


def test_names_run_together_list_a_bounded_number_of_guesses(tmp_path):
    collection = load_collection(hostile.make_springer_authors(tmp_path, 20_000), use_cache=False)
    guesses = [p for p in collection.report.problems if p.kind == "name-repaired"
               and p.line is not None]
    assert 0 < len(guesses) <= 11  # ten listed, and one line counting the rest
    assert "more guesses" in guesses[-1].message
    assert all(len(p.message) < 1_000 for p in guesses)


# -- item 11: tracebacks -----------------------------------------------------------------------
@pytest.fixture
def deep(tmp_path):
    """A folder for nesting deep, removed by the test (pytest's clean-up recurses per level)."""
    yield tmp_path
    hostile.remove_deep(tmp_path / "deep")


def test_a_folder_nested_a_thousand_deep_is_read(deep):
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000)  # Python's default: the app's workers run under it
    try:
        collection = load_collection(hostile.make_deep_folder(deep), use_cache=False)
    finally:
        sys.setrecursionlimit(before)
    assert collection.n_documents == 2


def test_a_folder_too_deep_to_name_is_reported(deep):
    collection = load_collection(hostile.make_deep_folder(deep, 3_000), use_cache=False)
    assert collection.n_documents == 1
    assert any(p.kind == "skipped-file" and "too long" in p.message
               for p in collection.report.problems)


def test_links_that_loop_are_reported_not_followed(tmp_path):
    collection = load_collection(hostile.make_link_loop(tmp_path), use_cache=False)
    assert collection.n_documents == 1
    skipped = [p for p in collection.report.problems if p.kind == "skipped-file"]
    assert sorted(Path(p.file).name for p in skipped) == ["a", "b"]
    assert all("cannot be followed" in p.message for p in skipped)


def test_a_collection_named_by_a_link_that_loops_is_a_collection_error(tmp_path):
    with pytest.raises(CollectionError, match="cannot be followed"):
        load_collection(hostile.make_loop_named(tmp_path), use_cache=False)


@pytest.mark.parametrize("module, listing", [
    (exports_format, "exports"), (FORMATS["text"], "present"), (FORMATS["folder"], "present")])
def test_a_file_deleted_while_its_folder_loads_is_reported(fixtures, tmp_path, monkeypatch,
                                                           module, listing):
    """The reader lists the folder's files, and one is deleted before it is read."""
    source = {"exports": "exports", "text": "plaintext", "folder": "folder_tsv"}[module.NAME]
    folder = tmp_path / "c"
    folder.mkdir()
    for f in (fixtures / "collections" / source).iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    real = getattr(module, listing)
    calls, gone = [], []

    def listed(*args, **kwargs):
        files = real(*args, **kwargs)
        calls.append(1)
        if len(calls) == (2 if listing == "exports" else 1):  # the reader's, not sources'
            gone.append(files[0][0] if listing == "exports" else files[-1])
            gone[0].unlink()
        return files

    monkeypatch.setattr(module, listing, listed)
    try:
        collection = load_collection(folder, use_cache=False)
    except CollectionError as exc:  # a file the collection cannot do without: named
        assert Path(exc.path) == gone[0] and "no such file" in str(exc).lower()
    else:
        assert any(Path(p.file) == gone[0] for p in collection.report.problems)


def test_a_date_of_five_thousand_digits_is_read_as_its_year():
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4_300)  # Python's default (a library may lift it)
    try:
        assert loose_date("2019/" + "1" * 5_000) == "2019"
        assert loose_date("2019 " + "1" * 5_000 + " 3") == "2019 " + "1" * 5_000 + " 3"
        assert loose_date("2019 ²") == "2019"  # isdigit, but not for int()
    finally:
        sys.set_int_max_str_digits(before)
    assert loose_date("2003/1/24") == "2003-01-24" and loose_date("OCT 2024") == "2024-10"


# -- item 12: combining marks -------------------------------------------------------------------
def test_combining_marks_stay_inside_their_words(tmp_path):
    collection = load_collection(hostile.make_nfd_text(tmp_path), use_cache=False,
                                 settings=TextSettings(stopwords="none"))
    words = set(collection.vocab.words)
    assert {"résumé", "naïve", "café", "हिन्दी", "भाषा", "ภาษาไทย", "finance"} <= words
    assert not words & {"re", "sume", "na", "ve", "caf"}
    tokenizer = Tokenizer(TextSettings(stopwords="none"))
    nfd = unicodedata.normalize("NFD", "résumé")
    assert tokenizer.words(nfd) == tokenizer.words("résumé") == ["résumé"]


# -- item 13: authors without a name -------------------------------------------------------------
def test_authors_whose_names_hold_no_letter_are_left_out_and_reported(tmp_path):
    collection = load_collection(hostile.make_nameless(tmp_path), use_cache=False)
    assert "person" not in collection.person_ids
    nameless = [p for p in collection.report.problems if p.kind == "nameless-author"]
    assert [p.line for p in nameless] == [1, 5, 9]
    assert "'?'" in nameless[0].message
