"""The most a record may hold (issue 24 item 12): a line or a plain-text document over
MAX_RECORD is reported with its file and line and not read, and never held in memory; the
records after it keep their line numbers."""

import tracemalloc

import pytest

from expert_gui.core.data.formats import delimited, plaintext, reading
from expert_gui.core.data.formats.reading import MAX_RECORD
from expert_gui.core.data.loading import load_collection

SMALL = 60


@pytest.fixture
def small_records(monkeypatch):
    for module in (reading, delimited, plaintext):
        monkeypatch.setattr(module, "MAX_RECORD", SMALL)


def problems(c):
    return {(p.kind, p.file.rsplit("/", 1)[-1], p.line) for p in c.report.problems}


def folder(tmp_path, documents: str | bytes, name="documents.tsv"):
    data = documents.encode() if isinstance(documents, str) else documents
    (tmp_path / name).write_bytes(data)
    (tmp_path / "associations.tsv").write_text("d1\ta\nd2\ta\nd3\ta\n", encoding="utf-8")
    return load_collection(tmp_path, use_cache=False)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_a_line_over_the_limit_is_reported_and_the_next_lines_keep_their_numbers(
        tmp_path, small_records, end):
    long = "d2\t" + "ring " * 30
    c = folder(tmp_path, end.join(["d1\tshort text", long, "d3\tbad \xff byte"]).encode("latin-1")
               + end.encode())
    assert c.doc_ids == ["d1", "d3"]
    assert problems(c) == {("record-too-long", "documents.tsv", 2),
                           ("invalid-utf8", "documents.tsv", 3),
                           ("unknown-document", "associations.tsv", 2)}
    message = next(str(p) for p in c.report.problems if p.kind == "record-too-long")
    assert message.endswith(f"documents.tsv:2: a line of more than {SMALL} characters, the most "
                            "a record may hold; not read")


def test_a_line_exactly_at_the_limit_is_read(tmp_path, small_records):
    text = "x" * (SMALL - 3)
    c = folder(tmp_path, f"d1\t{text}\r\nd2\tsecond\r\n")
    assert c.doc_ids == ["d1", "d2"] and c.text(0) == text
    assert "record-too-long" not in {p.kind for p in c.report.problems}


def test_a_jsonl_line_over_the_limit(tmp_path, small_records):
    c = folder(tmp_path, '{"id": "d1", "text": "short", "people": ["a"]}\n'
                         f'{{"id": "d2", "text": "{"x " * 40}", "people": ["a"]}}\n'
                         '{"id": "d3", "text": "last", "people": ["a"]}\n', name="documents.jsonl")
    assert c.doc_ids == ["d1", "d3"]
    assert ("record-too-long", "documents.jsonl", 2) in problems(c)


def test_a_quoted_field_over_the_limit_is_one_record_too_long(tmp_path, small_records):
    # issue 32 item 4: a quoted field of 100 MB over 1,000 lines became 1,000 documents, reported
    # as quotes that are not CSV quoting
    lines = "\n".join(f"line {i} of a long, long abstract" for i in range(10))
    c = folder(tmp_path, f'id,title\nd1,"{lines}"\nd2,second\nd3,"short ""and"" quoted"\n',
               name="documents.csv")
    assert c.doc_ids == ["d2", "d3"] and c.text(1) == 'short "and" quoted'
    assert problems(c) == {("record-too-long", "documents.csv", 2),
                           ("unknown-document", "associations.tsv", 1)}
    message = next(str(p) for p in c.report.problems if p.kind == "record-too-long")
    assert message.endswith(f"documents.csv:2: a quoted field runs from line 2 to line 11 and "
                            f"holds more than {SMALL} characters, the most a record may hold; "
                            "not read (split the field, or check that its quotes close)")


def test_a_quoted_field_over_the_limit_that_never_closes(tmp_path, small_records):
    lines = "\n".join(f"line {i} of a long abstract" for i in range(10))
    c = folder(tmp_path, f'id,title\nd1,first\nd2,"{lines}\n', name="documents.csv")
    assert c.doc_ids == ["d1"]
    assert ("record-too-long", "documents.csv", 3) in problems(c)


def test_a_plain_text_document_over_the_limit(tmp_path, small_records):
    (tmp_path / "a.txt").write_text("ring buffers", encoding="utf-8")
    (tmp_path / "big.txt").write_text("word " * 20, encoding="utf-8")
    (tmp_path / "associations.tsv").write_text("a.txt\tp\nbig.txt\tp\n", encoding="utf-8")
    c = load_collection(tmp_path, format="text", use_cache=False)
    assert c.doc_ids == ["a.txt"]
    assert ("record-too-long", "big.txt", None) in problems(c)


@pytest.mark.slow
def test_a_line_over_the_limit_is_never_held(tmp_path):
    # issue 24: one 2 GB line took 4.2 GB of memory; here a line of 3 * MAX_RECORD characters
    # costs at most two MAX_RECORD (the part read before it is known to be too long, and its
    # copy as one string), whatever the line's length
    with open(tmp_path / "documents.tsv", "w", encoding="utf-8") as f:
        f.write("d1\tshort text\nd2\t")
        chunk = "ring " * (1 << 18)
        for _ in range(3 * MAX_RECORD // len(chunk)):
            f.write(chunk)
        f.write("\nd3\tlast\n")
    (tmp_path / "associations.tsv").write_text("d1\ta\nd3\ta\n", encoding="utf-8")
    tracemalloc.start()
    try:
        c = load_collection(tmp_path, use_cache=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert c.doc_ids == ["d1", "d3"]
    assert ("record-too-long", "documents.tsv", 2) in problems(c)
    assert peak < 2.5 * MAX_RECORD, f"peak {peak:,} bytes"
