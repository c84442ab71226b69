"""Hostile input files, written small (issue 32): a workbook is a zip and a .gz is compressed, so
a file of kilobytes or megabytes can hold gigabytes. Each writer streams its content through the
compressor, a piece at a time, so no size is ever held in memory. The tests and the fuzz suite
write them at a few megabytes; benchmarks/hostile_inputs.py at the sizes of the issue.
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from xml.sax.saxutils import escape

SHEET = "xl/worksheets/sheet1.xml"
STRINGS = "xl/sharedStrings.xml"
_MAIN = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_PIECE = 1 << 20


def workbook(path: Path, sheet_data: Iterable[bytes], strings: Iterable[bytes] = (),
             dimension: str = "") -> Path:
    """An .xlsx whose first sheet's <sheetData> holds `sheet_data` and whose shared strings are
    `strings` (each piece of XML written as it comes). The other parts are openpyxl's own, so
    openpyxl opens the file as it opens any workbook."""
    import openpyxl

    base = io.BytesIO()
    openpyxl.Workbook().save(base)
    with zipfile.ZipFile(base) as original, \
            zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as out:
        for info in original.infolist():
            data = original.read(info)
            if info.filename == SHEET:
                head = (b"<worksheet " + _MAIN + b">"
                        + (f'<dimension ref="{dimension}"/>'.encode() if dimension else b"")
                        + b"<sheetData>")
                _stream(out, SHEET, [head], sheet_data, [b"</sheetData></worksheet>"])
                continue
            if info.filename == "[Content_Types].xml":  # openpyxl writes inline strings only
                data = data.replace(b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" '
                                    b'ContentType="application/vnd.openxmlformats-officedocument'
                                    b'.spreadsheetml.sharedStrings+xml"/></Types>')
            elif info.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rIdStrings" '
                                    b'Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                                    b'relationships/sharedStrings" Target="sharedStrings.xml"/>'
                                    b"</Relationships>")
            out.writestr(info, data)
        _stream(out, STRINGS, [b"<sst " + _MAIN + b">"], strings, [b"</sst>"])
    return path


def _stream(out: zipfile.ZipFile, name: str, *parts: Iterable[bytes]) -> None:
    with out.open(name, "w", force_zip64=True) as f:
        for part in parts:
            for piece in part:
                f.write(piece)


def repeated(unit: bytes, size: int) -> Iterator[bytes]:
    """`unit` repeated to about `size` bytes, a megabyte at a time."""
    piece = unit * max(1, _PIECE // len(unit))
    for _ in range(size // len(piece)):
        yield piece
    yield unit * ((size % len(piece)) // len(unit))


def row(number: int | None, *cells: tuple[str, str]) -> bytes:
    """A row of cells given as (reference or "", text): inline strings, so they need no shared
    string."""
    r = f' r="{number}"' if number is not None else ""
    inner = "".join((f'<c r="{ref}" t="inlineStr">' if ref else '<c t="inlineStr">')
                    + f"<is><t>{escape(text)}</t></is></c>" for ref, text in cells)
    return f"<row{r}>{inner}</row>".encode()


def string(text: str) -> bytes:
    return f"<si><t>{escape(text)}</t></si>".encode()


def header_and_rows(n: int) -> list[bytes]:
    """A header (title, authors) and `n` rows of a table of publications."""
    return [row(1, ("A1", "title"), ("B1", "authors"))] + [
        row(i + 2, (f"A{i + 2}", f"ring buffer {i}"), (f"B{i + 2}", f"Author {i % 7}"))
        for i in range(n)]


def gzipped(path: Path, pieces: Iterable[bytes], level: int = 6) -> Path:
    with gzip.open(path, "wb", compresslevel=level) as f:
        for piece in pieces:
            f.write(piece)
    return path
