"""Generated inputs of issue 43's classes (items 8, 11, 12, 13): long fields of names,
affiliations and identifiers built of the units that made readers quadratic, folders nested
deep with links that loop, dates with long runs of digits, text with combining marks, and
authors without a letter. Only a CollectionError naming the file may escape, and every case
finishes under the fuzz suite's deadline for inputs that used to hang."""

import json
import os
import tempfile
import unicodedata
from pathlib import Path

import hostile_text_files as hostile
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_loaders import FUZZ, HANGS, check

from expert_gui.core.data.dates import loose_date, parse_date
from expert_gui.core.data.text import TextSettings, Tokenizer

_SIZE = 200_000  # characters of a generated field: quadratic readers took minutes at this
_UNITS = ["aB", "AA(x, ", "AA(x), ", "1", "x", "A. ", "Smith, A. B.; ", "De", "Mc", ") ", ", ",
          "é", "\u0301", "?", " "]
_FIELD = st.builds(lambda unit, n, before, after: before + unit * n + after,
                   st.sampled_from(_UNITS), st.integers(1, _SIZE // 2),
                   st.text(max_size=20), st.text(max_size=20))


@HANGS
@given(field=_FIELD, tag=st.sampled_from(["A", "F", "D", "T"]), ads=st.booleans())
def test_long_fields_of_tagged_records(field, tag, ads):
    start = "%R 2019ApJ...875...75T" if ads else "%0 Journal Article"
    record = [start, "%T Ring buffers", "%A Archer, Ann", f"%{tag} {field}"]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "records.txt"
        path.write_text("\n".join(record).replace("\r", " ") + "\n", encoding="utf-8",
                        errors="surrogatepass")
        check(path, use_cache=False)


@HANGS
@given(pmid=_FIELD, authors=_FIELD)
def test_long_identifiers_and_run_together_names(pmid, authors):
    with tempfile.TemporaryDirectory() as d:
        work = {"id": "https://openalex.org/W1", "title": "Ring buffers", "ids": {"pmid": pmid},
                "authorships": [{"author": {"display_name": authors[:1000] or "Ann"}}]}
        (Path(d) / "works.json").write_text(json.dumps({"results": [work]}), encoding="utf-8")
        check(Path(d) / "works.json", use_cache=False)
        cell = authors.replace('"', "'").replace("\n", " ").replace("\r", " ")
        (Path(d) / "SearchResults.csv").write_text(
            '"Item Title","Item DOI","Authors","Content Type"\n'
            f'"Ring buffers","10.1/x","{cell}","Article"\n', encoding="utf-8",
            errors="surrogatepass")
        check(Path(d) / "SearchResults.csv", use_cache=False)


@HANGS
@given(depth=st.integers(0, 1_300), loops=st.integers(0, 3), dangling=st.booleans())
def test_folders_nested_deep_with_links_that_loop(depth, loops, dangling):
    with tempfile.TemporaryDirectory() as d:
        top = hostile.make_deep_folder(Path(d), depth)
        try:
            for k in range(loops):
                os.symlink(f"loop{k}", top / f"loop{k}")  # a link to itself
            if dangling:
                os.symlink("nowhere", top / "gone.txt")
            check(top, use_cache=False)
        finally:
            hostile.remove_deep(top)


@FUZZ
@given(year=st.integers(0, 9999), rest=st.text(alphabet="0123456789²³١٢/ -.Nov", max_size=30),
       digits=st.integers(0, 6_000))
def test_dates_with_long_runs_of_digits(year, rest, digits):
    text = f"{year:04d}{rest}{'7' * digits}"
    written = loose_date(text)
    assert written == "" or written == text.strip() or parse_date(written) is not None \
        or written[:4].isdecimal()


_MARKED = st.text(alphabet=st.sampled_from(
    list("abcdeinorsu AEIOU.,-") + [chr(c) for c in range(0x300, 0x370)]
    + [chr(c) for c in range(0x915, 0x94E)] + ["ﬁ", "ﬂ"]), max_size=40)


@FUZZ
@given(text=_MARKED)
def test_combining_marks_never_cut_a_word(text):
    tokenizer = Tokenizer(TextSettings(stopwords="none", numbers="any-digit"))
    composed = tokenizer.words(unicodedata.normalize("NFC", text))
    assert tokenizer.words(unicodedata.normalize("NFD", text)) == composed
    assert all(not unicodedata.combining(w[0]) for w in composed)


@FUZZ
@given(names=st.lists(st.text(alphabet="?*-_.,!/ ()[]'#", min_size=1, max_size=6), min_size=1,
                      max_size=4))
def test_authors_without_a_letter_are_never_one_person(names):
    with tempfile.TemporaryDirectory() as d:
        records = ["\n".join(["%0 Journal Article", f"%T Paper {k}", f"%A {name}",
                              "%A Ann Archer"]) for k, name in enumerate(names)]
        (Path(d) / "papers.enw").write_text("\n\n".join(records) + "\n", encoding="utf-8")
        collection = check(Path(d) / "papers.enw", use_cache=False)
        if collection is not None:
            assert "person" not in collection.person_ids
