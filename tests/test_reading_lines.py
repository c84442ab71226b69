"""Lines of text files under hostile input (issue 32 item 3): a long run of empty lines is passed
over in bulk with its lines still counted, and a gzipped file may expand only so far. The bulk
path is tested against a straightforward reading of the same text."""

import gzip
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert_gui.core.data.formats import reading
from expert_gui.core.data.formats.reading import Progress, read_lines
from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError


def lines_of(text: str) -> list[tuple[int, str]]:
    """The straightforward reading: every line with its number and ending."""
    return list(enumerate(re.findall(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$", text), 1))


def bounded(text: str) -> list[tuple[int, str]]:
    return list(reading._bounded_lines(io.TextIOWrapper(io.BytesIO(text.encode()),
                                                        encoding="utf-8", newline="")))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(["\n", "\r\n", "\r", "x", "ab", "\t", " "]), max_size=60))
def test_bulk_runs_give_the_same_text_and_line_numbers(parts, monkeypatch):
    # runs passed over after 3 empty lines, 5 characters at a time: every boundary (a run cut
    # between "\r" and "\n", a run ending inside a chunk) is met
    monkeypatch.setattr(reading, "_BLANK_RUN", 3)
    monkeypatch.setattr(reading, "_SKIP", 5)
    text = "".join(parts)
    expected = dict(lines_of(text))
    got = bounded(text)
    assert "".join(t for _, t in got) == text
    for i, (number, line) in enumerate(got):
        after = got[i + 1][0] if i + 1 < len(got) else len(expected) + 1
        # an item is its line, or a run of empty lines: the lines up to the next item's
        assert line == "".join(expected[n] for n in range(number, after))
        assert after == number + 1 or not line.strip("\r\n")


def test_a_long_run_of_empty_lines_comes_in_a_few_items(tmp_path):
    path = tmp_path / "documents.tsv"
    path.write_bytes(b"d1\tfirst\n" + b"\n" * 3_000_000 + b"\r\n" * 10 + b"d2\tlast\n")
    items = list(read_lines(path, LoadReport(), Progress()))
    assert items[0] == (1, "d1\tfirst\n") and items[-1] == (3_000_012, "d2\tlast\n")
    assert len(items) < reading._BLANK_RUN + 10  # 1,024 one by one, then a megabyte at a time


def test_a_gzipped_file_of_a_billion_empty_lines_is_refused_early(tmp_path):
    # issue 32 item 3: 4.3 MB of gzip, 10^9 empty lines: stats had not finished after 400 s;
    # here 200 MB of them, refused after 100 MiB (MAX_INFLATION times the 1 MiB floor)
    with gzip.open(tmp_path / "documents.tsv.gz", "wb", compresslevel=9) as f:
        f.write(b"doc_id\ttext\nd1\tring\n")
        for _ in range(200):
            f.write(b"\n" * (1 << 20))
        f.write(b"d2\tlast\n")
    (tmp_path / "associations.tsv").write_text("d1\tp\nd2\tp\n", encoding="utf-8")
    with pytest.raises(CollectionError) as caught:
        load_collection(tmp_path, use_cache=False)
    assert caught.value.path.endswith("documents.tsv.gz") and caught.value.line > 3
    message = caught.value.message
    assert message.startswith("reading stopped here: expands to more than 100.0 MiB from ")
    assert f"over {reading.MAX_INFLATION} times its size" in message and "gunzip" in message


def test_a_gzipped_file_within_the_bound_is_read_as_text(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "_INFLATION_FLOOR", 0)
    text = "".join(f"d{i}\tring buffer {i} mempool cache\n" for i in range(2000))
    (tmp_path / "documents.tsv.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "associations.tsv").write_text("d1\tp\n", encoding="utf-8")
    c = load_collection(tmp_path, use_cache=False)
    assert c.n_documents == 2000  # about 6 times its size: text, read whole
