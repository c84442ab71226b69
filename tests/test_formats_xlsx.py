"""Workbooks read within bounds (issue 32 items 1, 2 and 4): every part's inflated size is
checked before it is read, rows come as the file has them (none filled in, none padded past the
header), a row holds at most MAX_RECORD characters, and Excel's own limits hold. The streamed
reader is tested against openpyxl's own reading of the same workbooks."""

import datetime
import re
import zipfile

import pytest
from hostile_files import header_and_rows, repeated, row, string, workbook
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert_gui.core.data.formats import xlsx
from expert_gui.core.data.formats.reading import Progress
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

CELLS = (st.none() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False, allow_infinity=False)
         | st.booleans() | st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")),
                                   max_size=12)
         | st.datetimes(datetime.datetime(1901, 1, 1), datetime.datetime(2100, 1, 1)))


def rows_of(path, report=None):
    return list(xlsx.sheet_rows(path, report or LoadReport(), Progress()))


def openpyxl_rows(path):
    """The straightforward reading: openpyxl's rows as text, empty ones left out; the first is
    the header, its named cells only, and each later row takes its cells under those names."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    out, named = [], None
    for number, values in enumerate(book.worksheets[0].iter_rows(values_only=True), 1):
        cells = ["" if v is None else xlsx._text(v) for v in values]
        if named is None:
            named = [i for i, c in enumerate(cells) if c]
            cells = [cells[i] for i in named]
        else:
            cells = [cells[i] if i < len(cells) else "" for i in named]
            while cells and not cells[-1]:
                cells.pop()
        if any(c.strip() for c in cells):
            out.append((number, cells))
        elif not out:
            named = None  # no header yet
    book.close()
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.lists(st.lists(CELLS, max_size=6), max_size=8))
def test_the_streamed_sheet_reads_as_openpyxl_reads_it(table, tmp_path_factory):
    import openpyxl

    path = tmp_path_factory.mktemp("x") / "t.xlsx"
    book = openpyxl.Workbook()
    for values in table:
        book.active.append(values)
    book.save(path)
    assert rows_of(path) == openpyxl_rows(path)


def test_every_kind_of_value_reads_as_openpyxl_reads_it(tmp_path):
    path = workbook(tmp_path / "t.xlsx", [
        row(1, ("A1", "a"), ("B1", "b"), ("C1", "c"), ("D1", "d"), ("E1", "e")),
        b'<row r="2"><c r="A2" t="s"><v/></c><c r="B2" t="b"><v>1</v></c><c r="C2" t="e">'
        b'<v>#N/A</v></c><c r="D2" t="str"><v>x</v></c><c r="E2" t="s"><v>0</v></c></row>',
        b'<row r="3"><c r="A3" t="b"><v></v></c><c r="B3" t="n"><v>1.50</v></c><c r="C3" '
        b't="d"><v>2020-01-02T03:04:05</v></c><c r="D3"><v>12345678901234567890123</v></c>'
        b'<c r="E3" t="inlineStr"><is><r><t>ri</t></r><r><t>ch</t></r>'
        b'<rPh sb="0" eb="2"><t>x</t></rPh></is></c></row>'],
        [b'<si><t>sh</t><rPh sb="0" eb="2"><t>ruby</t></rPh></si>'])
    assert rows_of(path) == openpyxl_rows(path) == [
        (1, ["a", "b", "c", "d", "e"]), (2, ["", "True", "#N/A", "x", "sh"]),
        (3, ["", "1.5", "2020-01-02T03:04:05", "12345678901234567890123", "rich"])]


def test_a_table_of_publications_reads_from_a_workbook(tmp_path):
    path = workbook(tmp_path / "pubs.xlsx", header_and_rows(3))
    c = load_collection(path, format="table", use_cache=False)
    assert c.n_documents == 3 and c.text(0) == "ring buffer 0"


@pytest.mark.parametrize("part", ["sheet", "strings"])
def test_a_part_that_inflates_past_its_bound_is_refused_before_it_is_read(tmp_path, monkeypatch,
                                                                          part):
    # issue 32 item 1: 4 GB of empty rows in an 8 MB file took 23.7 GB of memory; one shared
    # string of 2 GB passed 4 GB in seconds. Here 2 MiB of each against a bound of 1 MiB.
    monkeypatch.setattr(xlsx, "MAX_SHEET_BYTES", 1 << 20)
    monkeypatch.setattr(xlsx, "MAX_STRINGS_BYTES", 1 << 20)
    if part == "sheet":
        path = workbook(tmp_path / "t.xlsx", repeated(b"<row/>", 2 << 20))
        name, what = "xl/worksheets/sheet1.xml", "a sheet"
    else:
        path = workbook(tmp_path / "t.xlsx", [row(1, ("A1", "x"))],
                        [b"<si><t>", *repeated(b"a", 2 << 20), b"</t></si>"])
        name, what = "xl/sharedStrings.xml", "the shared strings"
    assert path.stat().st_size < 64 << 10

    opened = []
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, info, *args, **kwargs: (
        opened.append(getattr(info, "filename", info)), real_open(self, info, *args, **kwargs))[1])
    with pytest.raises(CollectionError) as caught:
        rows_of(path)
    assert caught.value.message.startswith(f"its part {name} inflates to 2.0 MiB, more than "
                                           f"the 1.0 MiB {what} may; save the sheet as CSV")
    assert opened and name not in opened  # refused before a byte of it was inflated


def test_sparse_corners_give_two_rows_not_a_million(tmp_path):
    # issue 32 item 2: one cell in column XFD and one in row 1,048,576 (4.7 KB): every row was
    # padded to 16,384 cells and every missing row filled in; stats ran past 300 s
    path = workbook(tmp_path / "t.xlsx", [row(1, ("A1", "title"), ("XFD1", "far")),
                                          row(1_048_576, ("XFD1048576", "corner"))],
                    dimension="A1:XFD1048576")
    assert rows_of(path) == [(1, ["title", "far"]), (1_048_576, ["", "corner"])]


def test_rows_hold_the_cells_under_the_headers_names(tmp_path):
    path = workbook(tmp_path / "t.xlsx", [row(1, ("A1", "title"), ("C1", "authors")),
                                          row(2, ("A2", "ring"), ("B2", "no name"),
                                              ("XFD2", "far")),
                                          row(3, ("XFD3", "only far")),
                                          row(4, ("C4", "Ann"))])
    assert rows_of(path) == [(1, ["title", "authors"]), (2, ["ring"]), (4, ["", "Ann"])]


@pytest.mark.parametrize("rows, message", [
    ([row(2_000_000_000, ("A1", "x"))], "row 2,000,000,000 of the sheet lies past Excel's last"),
    ([row(1, ("XFE1", "x"))], "row 1 has a cell past Excel's last column, XFD (16,384)"),
    ([row(1, *[("", "x")] * 16_385)], "row 1 has a cell past Excel's last column"),
])
def test_what_excel_cannot_hold_is_refused(tmp_path, rows, message):
    path = workbook(tmp_path / "t.xlsx", rows)
    with pytest.raises(CollectionError, match=re.escape(message)) as caught:
        rows_of(path)
    assert caught.value.message.endswith("save the sheet as CSV (UTF-8), which is read a line "
                                         "at a time with no such bound, or split the workbook")


def test_a_row_over_the_record_limit_is_reported_and_not_read(tmp_path, monkeypatch):
    # issue 32 item 4: a 208 KB workbook with one 100 MB cell was read as one document (about
    # 1.2 GB of memory); here the limit is 60 characters
    monkeypatch.setattr(xlsx, "MAX_RECORD", 60)
    long = "ring buffer " * 10
    path = workbook(tmp_path / "pubs.xlsx",
                    [row(1, ("A1", "title"), ("B1", "authors")),
                     row(2, ("A2", "short title"), ("B2", "Ann Author")),
                     b'<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3" t="s"><v>1</v></c></row>',
                     row(4, ("A4", long), ("B4", "Ann Author")),
                     row(5, ("A5", "x" * 40), ("B5", "y" * 40)),
                     row(6, ("A6", "last title"), ("B6", "Bob Author"))],
                    [string("title"), string("authors"), string(long)])
    report = LoadReport()
    assert [n for n, _ in rows_of(path, report)] == [1, 2, 6]
    assert [(p.kind, p.line) for p in report.problems] == [("record-too-long", 3),
                                                           ("record-too-long", 4),
                                                           ("record-too-long", 5)]
    assert str(report.problems[0]).endswith("pubs.xlsx:3: a row of more than 60 characters, "
                                            "the most a record may hold; not read")


def test_a_part_with_a_document_type_is_refused(tmp_path):
    # entities declared in a DTD could expand without bound (a billion laughs)
    path = workbook(tmp_path / "t.xlsx", [])
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><sst '
              b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&lol;'
              b"</t></si></sst>")
    with zipfile.ZipFile(path) as old:
        parts = {i.filename: old.read(i) for i in old.infolist()}
    parts["xl/sharedStrings.xml"] = laughs
    with zipfile.ZipFile(path, "w") as new:
        for name, data in parts.items():
            new.writestr(name, data)
    with pytest.raises(CollectionError, match="a workbook part with a document type"):
        rows_of(path)
