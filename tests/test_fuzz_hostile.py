"""Generated hostile inputs (issue 32): spreadsheets (parts past their bounds, rows and cells
anywhere, up to and past Excel's limits, long strings), compressed files (bombs of empty lines,
cut and concatenated streams) and paths whose bytes are not UTF-8. Only a CollectionError naming
the file may escape; a gzipped file reads as its text does; a row never holds more than a
record; and every case finishes under the fuzz suite's deadline."""

import gzip
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile_files import gzipped, repeated, row, string, workbook
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_loaders import CONTENT, FUZZ, HANGS, MEGABYTE, check, write

from expert_gui.core.data.formats import reading, xlsx
from expert_gui.core.data.formats.reading import Progress
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

SMALL_RECORD = 200  # characters: long cells and strings are long against it


@contextmanager
def bounds(**values):
    """Module bounds set small for the length of a generated case (hypothesis runs many cases
    in one test, where a fixture would not reset between them)."""
    saved = {name: getattr(xlsx, name) for name in values}
    for name, value in values.items():
        setattr(xlsx, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(xlsx, name, value)


# -- spreadsheets ----------------------------------------------------------------------------------
_TEXTS = st.text(alphabet="ab <&\"'é\t\n", max_size=12) | st.sampled_from(["x" * 300, ""])
_REFS = st.none() | st.sampled_from(["A", "B", "Z", "AA", "XFD", "XFE", "ZZZZ", "a", "1", ""]).map(
    lambda c: c + "1")
_CELL = st.builds(
    lambda kind, ref, value, style: (
        f'<c{f" r={chr(34)}{ref}{chr(34)}" if ref is not None else ""} t="{kind}" s="{style}">'
        + (f"<is><t>{value}</t><rPh><t>ruby</t></rPh></is>" if kind == "inlineStr"
           else f"<v>{value}</v>") + "</c>").encode(),
    st.sampled_from(["s", "n", "inlineStr", "b", "str", "e", "d", "x"]), _REFS,
    st.sampled_from(["0", "1", "2", "-1", "99", "1.5", "1e999", "9" * 30, "abc", "", "2020-01-01",
                     "<t>x</t>", "&amp;"]) | _TEXTS.map(
        lambda t: t.replace("&", "&amp;").replace("<", "&lt;")),
    st.sampled_from(["0", "1", "14", ""]))
_ROW = st.builds(lambda number, cells: (
    f'<row{f" r={chr(34)}{number}{chr(34)}" if number is not None else ""}>'.encode()
    + b"".join(cells) + b"</row>"),
    st.none() | st.sampled_from([1, 2, 3, 1_048_576, 1_048_577, 0, -1, 2_000_000_000]),
    st.lists(_CELL, max_size=6))
_SHEET_PIECES = _ROW | st.sampled_from([b"<row/>", b"<row>", b"</row>", b"<c>", b"<v>1</v>",
                                        b"<x/>", b"</c>", b"&amp;", b"<!-- -->", b"<row r='x'/>"])
_STRINGS = st.lists(_TEXTS.map(lambda t: string(t)) | st.sampled_from(
    [b"<si><r><t>a</t></r><r><t>b</t></r></si>", b"<si/>", b"<si><t>" + b"y" * 300 + b"</t></si>",
     b"<si>", b"</si>", b"<t>loose</t>"]), max_size=6)


def _read_sheet(path: Path) -> None:
    """Read a generated workbook: only a CollectionError naming it may escape; the header has
    only named cells, and each row given holds at most a record, no wider than the header."""
    report = LoadReport()
    try:
        rows = list(xlsx.sheet_rows(path, report, Progress()))
    except CollectionError as exc:
        assert exc.path == str(path)
        return
    if rows:
        assert all(rows[0][1])
    for number, cells in rows:
        assert 1 <= number <= xlsx.MAX_ROWS and len(cells) <= len(rows[0][1])
        assert sum(map(len, cells)) <= xlsx.MAX_RECORD and any(c.strip() for c in cells)
    assert all(p.kind == "record-too-long" for p in report.problems)


@FUZZ
@given(sheet=st.lists(_SHEET_PIECES, max_size=12), strings=_STRINGS,
       dimension=st.sampled_from(["", "A1:XFD1048576", "A1", "ZZZZ9", "bogus"]))
def test_generated_sheets(sheet, strings, dimension):
    with tempfile.TemporaryDirectory() as d, bounds(MAX_RECORD=SMALL_RECORD):
        _read_sheet(workbook(Path(d) / "t.xlsx", sheet, strings, dimension))


@HANGS
@given(unit=st.sampled_from([b"<row/>", b"<row></row>", b'<row r="1048576"/>', b"<c/>",
                             b"<x/>", b'<c r="XFD1" t="inlineStr"><is><t>w</t></is></c>']),
       size=st.sampled_from([MEGABYTE, 4 * MEGABYTE]), inside_row=st.booleans(),
       sheet_bound=st.sampled_from([MEGABYTE // 2, 8 * MEGABYTE]))
def test_sheets_of_repeated_pieces_past_and_within_their_bound(unit, size, inside_row,
                                                               sheet_bound):
    # zip members whose content repeats, the shape of a bomb: within the bound they stream a row
    # at a time; past it they are refused before they are read
    pieces = [b"<row>", *repeated(unit, size), b"</row>"] if inside_row else repeated(unit, size)
    with tempfile.TemporaryDirectory() as d, bounds(MAX_SHEET_BYTES=sheet_bound):
        _read_sheet(workbook(Path(d) / "t.xlsx", pieces))


@HANGS
@given(size=st.sampled_from([MEGABYTE, 3 * MEGABYTE]), rich=st.booleans(),
       strings_bound=st.sampled_from([MEGABYTE // 2, 8 * MEGABYTE]))
def test_huge_shared_strings(size, rich, strings_bound):
    open_t, close_t = (b"<r><t>", b"</t></r>") if rich else (b"<t>", b"</t>")
    with tempfile.TemporaryDirectory() as d, \
            bounds(MAX_STRINGS_BYTES=strings_bound, MAX_RECORD=MEGABYTE):
        path = workbook(Path(d) / "t.xlsx", [row(1, ("A1", "title"), ("B1", "authors")),
                                             b'<row r="2"><c r="A2" t="s"><v>1</v></c></row>'],
                        [string("x"), b"<si>" + open_t, *repeated(b"ab", size), close_t + b"</si>"])
        _read_sheet(path)


@FUZZ
@given(corners=st.lists(st.tuples(st.integers(1, 1_048_576), st.sampled_from(
    ["A", "B", "Z", "AA", "XFD", "XFC"])), min_size=1, max_size=5))
def test_sparse_cells_anywhere_within_excels_limits(corners):
    with tempfile.TemporaryDirectory() as d:
        path = workbook(Path(d) / "t.xlsx",
                        [row(n, (f"{c}{n}", f"v{n}")) for n, c in sorted(set(corners))],
                        dimension="A1:XFD1048576")
        rows = list(xlsx.sheet_rows(path, LoadReport(), Progress()))
    assert [n for n, _ in rows][:1] == [min(n for n, _ in corners)]
    assert len(rows) <= len(corners) and all(len(cells) <= len(rows[0][1]) for _, cells in rows)


# -- compressed files ------------------------------------------------------------------------------
_BLANKS = st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\r", b" \n"])


@FUZZ
@given(docs=CONTENT, runs=st.lists(st.tuples(_BLANKS, st.integers(0, 2000)), max_size=2),
       ext=st.sampled_from(["tsv", "csv", "jsonl"]))
def test_a_gzipped_file_reads_as_its_text(docs, runs, ext):
    # the same bytes, plain and gzipped, give the same collection and the same problems
    data = docs + b"".join(unit * n for unit, n in runs) + b"d9\tlast\n"
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        write(Path(a), {f"documents.{ext}": data, "associations.tsv": b"d9\tp\n"})
        write(Path(b), {f"documents.{ext}.gz": gzip.compress(data),
                        "associations.tsv": b"d9\tp\n"})
        plain, packed = _loaded(Path(a)), _loaded(Path(b))
    assert plain == packed


def _loaded(folder: Path):
    try:
        c = load_collection(folder, use_cache=False)
    except CollectionError as exc:
        return ("error", exc.line, exc.message)
    problems = sorted((p.kind, p.line, p.message) for p in c.report.problems if p.kind not in
                      ("changed-while-read",))
    return c.doc_ids, [c.text(i) for i in range(c.n_documents)], problems


@HANGS
@given(unit=st.sampled_from([b"\n", b"\r\n", b"\r", b" \n", b"d\tx\n", b"\t\n", b'"\n']),
       megabytes=st.sampled_from([1, 4]), cut=st.booleans(), twice=st.booleans())
def test_compressed_bombs_and_damaged_streams(unit, megabytes, cut, twice, monkeypatch):
    # up to 4 MB of one repeated line in 4 KB of gzip: past the bound (100 times the size or
    # 400 KB here), refused; within it, read (empty lines in bulk); a cut stream, or two end to
    # end
    monkeypatch.setattr(reading, "_INFLATION_FLOOR", 1 << 12)
    with tempfile.TemporaryDirectory() as d:
        path = gzipped(Path(d) / "documents.tsv.gz",
                       [b"doc_id\ttext\nd1\tring\n", *repeated(unit, megabytes * MEGABYTE)])
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2] if cut else data + data if twice else data)
        (Path(d) / "associations.tsv").write_bytes(b"d1\tp\n")
        c = check(Path(d), use_cache=False)
    if c is not None:
        assert c.doc_ids[:1] == ["d1"]


# -- paths whose bytes are not UTF-8 ---------------------------------------------------------------
_NAME_BYTES = st.binary(min_size=1, max_size=12).map(
    lambda b: b.replace(b"/", b"_").replace(b"\0", b"_").lstrip(b".") or b"x").filter(
    lambda b: b not in (b".", b".."))


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="names are Unicode there")
@FUZZ
@given(folder=_NAME_BYTES, names=st.lists(_NAME_BYTES, min_size=1, max_size=4, unique=True),
       fmt=st.sampled_from(["folder", "text"]))
def test_paths_with_undecodable_bytes(folder, names, fmt):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / os.fsdecode(folder)
        try:
            root.mkdir()
            for i, name in enumerate(names):
                (root / os.fsdecode(name)).write_bytes(b"ring buffer %d\n" % i)
        except OSError:
            return  # a name this file system refuses
        if fmt == "folder":
            write(root, {"documents.tsv": b"d1\tring\n", "associations.tsv": b"d1\tp\n"})
        else:
            write(root, {"associations.tsv": b"".join(n + b"\tp\n" for n in names)})
        first = check(root, format=fmt)
        again = check(root, format=fmt)  # from the cache, keyed by the path's bytes
        if first is not None:
            assert again is not None and again.fingerprint == first.fingerprint
            assert again.doc_ids == first.doc_ids
