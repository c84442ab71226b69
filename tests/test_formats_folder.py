"""The folder format: documents.tsv|csv|jsonl beside associations and people files."""

import pytest

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import NUMBER_TOKEN
from expert_gui.core.errors import CollectionError


def words(c, doc_id):
    return [c.vocab.words[t] for t in c.doc_tokens(c.doc_index[doc_id])]


def problems(c):
    return {(p.kind, p.file.rsplit("/", 1)[-1], p.line) for p in c.report.problems}


def test_tsv_header_quoting_and_embedded_newlines(fixtures):
    c = load_collection(fixtures / "collections/folder_tsv", use_cache=False)
    assert c.report.format == "folder"
    assert c.doc_ids == ["d1", "d2", "d3", "d4", "d5"]
    assert words(c, "d1") == ["ring", "buffer", "lockless", "ring", NUMBER_TOKEN, "queues"]
    # a quoted field keeps its tab and newline as text; the date column is not text
    assert c.text(1) == "Crypto device\twith a tab and\na second line"
    assert words(c, "d2") == ["crypto", "device", "tab", "second", "line"]
    assert c.person_ids == ["alice", "bob"] and c.person_names == ["Alice Archer", "Bob Baker"]
    assert c.people_of(c.doc_index["d2"]).tolist() == [0, 1]


def test_tsv_reports_every_problem_with_file_and_line(fixtures):
    c = load_collection(fixtures / "collections/folder_tsv", use_cache=False)
    assert problems(c) == {
        ("multi-line-record", "documents.tsv", 3),
        ("duplicate-id", "documents.tsv", 6),
        ("empty-document", "documents.tsv", 5),
        ("no-people", "documents.tsv", 7),
        ("invalid-utf8", "documents.tsv", 8),
        ("unknown-document", "associations.tsv", 6),
        ("duplicate-association", "associations.tsv", 7),
        ("unknown-person", "people.tsv", 4),
    }
    # the bad byte became U+FFFD and the rest of the line was kept
    assert c.text(c.doc_index["d5"]) == "caf\ufffd latin-1 bytes in a ring"


def test_csv_joins_text_columns_and_reads_headerless_associations(fixtures):
    c = load_collection(fixtures / "collections/folder_csv", use_cache=False)
    assert c.text(0) == "Expert finding, revisited\nLog-linear models\nof expertise"
    assert words(c, "p2") == ["ring", "buffers", "lockless", "fast", "rings"]
    assert c.person_ids == ["christophe", "maarten"]
    assert c.documents_of(c.person_index["maarten"]).tolist() == [0, 1]
    assert problems(c) == {("multi-line-record", "documents.csv", 2)}


def test_jsonl_people_inline(fixtures):
    c = load_collection(fixtures / "collections/folder_jsonl", use_cache=False)
    assert c.doc_ids == ["j1", "j2", "j3"]
    assert c.person_ids == ["ann", "ben"] and c.person_names == ["Ann Author", "ben"]
    assert c.people_of(0).tolist() == [0, 1] and c.people_of(1).tolist() == [0]
    assert problems(c) == {("malformed-record", "documents.jsonl", 3),
                           ("no-people", "documents.jsonl", 5)}


def test_header_without_text_column_is_one_error(tmp_path):
    (tmp_path / "documents.tsv").write_text("doc_id\tdate\nd1\t2020\n", encoding="utf-8")
    (tmp_path / "associations.tsv").write_text("doc_id\tperson_id\nd1\ta\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="expected a text column") as err:
        load_collection(tmp_path, use_cache=False)
    assert err.value.path.endswith("documents.tsv") and err.value.line == 1


def test_missing_associations_is_an_error(tmp_path):
    (tmp_path / "documents.tsv").write_text("doc_id\ttext\nd1\thello\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="associations"):
        load_collection(tmp_path, use_cache=False)


def test_headerless_documents_and_short_rows(tmp_path):
    (tmp_path / "documents.tsv").write_text("d1\tfirst text\nd2\nd3\t2021\tthird text\n",
                                            encoding="utf-8")
    (tmp_path / "associations.tsv").write_text("d1\ta\nd3\tb\n", encoding="utf-8")
    c = load_collection(tmp_path, use_cache=False)
    assert c.doc_ids == ["d1", "d3"] and c.text(1) == "third text"
    assert problems(c) == {("malformed-record", "documents.tsv", 2),
                           ("field-count", "documents.tsv", 3)}


def test_broken_gzip_names_the_file(tmp_path):
    (tmp_path / "documents.tsv.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (tmp_path / "associations.tsv").write_text("d1\ta\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="readable") as err:
        load_collection(tmp_path, use_cache=False)
    assert err.value.path.endswith("documents.tsv.gz") and err.value.line == 1


def _folder(tmp_path, documents: str, name: str = "documents.tsv"):
    """Load documents whose ids are d1..d4, each linked to one person."""
    (tmp_path / name).write_bytes(documents.encode())
    (tmp_path / "associations.tsv").write_text("d1\ta\nd2\ta\nd3\ta\n", encoding="utf-8")
    return load_collection(tmp_path, use_cache=False)


def test_a_field_opening_with_a_quote_swallows_no_document(tmp_path):
    # issue 11's reproducer: the csv module read d2 and d3 into d1's text, and said nothing
    c = _folder(tmp_path, 'doc_id\ttext\nd1\t"Fix the driver\nd2\tsecond doc\nd3\tthird doc\n')
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert [c.text(i) for i in range(3)] == ['"Fix the driver', "second doc", "third doc"]
    assert problems(c) == {("quotes-as-text", "documents.tsv", 2)}


def test_quotes_that_are_not_csv_quoting_stay_text(tmp_path):
    c = _folder(tmp_path, 'doc_id\ttext\nd1\t"Fix" the driver\nd2\tsay "hi"\nd3\t"ok"\n')
    assert [c.text(i) for i in range(3)] == ['"Fix" the driver', 'say "hi"', "ok"]
    assert problems(c) == {("quotes-as-text", "documents.tsv", 2)}


def test_a_quoted_field_over_several_lines_is_one_record_and_reported(tmp_path):
    # valid quoting that closes two lines later: one record, but the user is told where
    c = _folder(tmp_path, 'doc_id\ttext\nd1\t"Fix the driver\nsecond line\nthird"\nd2\tx\n')
    assert c.doc_ids == ["d1", "d2"]
    assert c.text(0) == "Fix the driver\nsecond line\nthird"
    assert problems(c) == {("multi-line-record", "documents.tsv", 2),
                           ("unknown-document", "associations.tsv", 3)}


def test_a_tsv_quoted_field_never_takes_in_a_line_holding_a_tab(tmp_path):
    # issue 24 item 4: d2's line ends with a quote, which closed d1's opening one: d2 was read
    # into d1's text, with one warning at d1's line
    c = _folder(tmp_path, 'd1\t"quoted start\nd2\t... ends with a quote "\nd3\tx\n')
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert [c.text(i) for i in range(3)] == ['"quoted start', '... ends with a quote "', "x"]
    assert problems(c) == {("quotes-as-text", "documents.tsv", 1)}
    # the same lines with a header
    c = _folder(tmp_path, 'doc_id\ttext\nd1\t"Fix the driver\nd2\tsecond doc\nthird"\nd3\tx\n')
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert problems(c) == {("quotes-as-text", "documents.tsv", 2),
                           ("malformed-record", "documents.tsv", 4)}


def test_a_csv_title_opening_with_a_quote_swallows_no_record(tmp_path):
    # issue 32 item 11: d1's quote, closed by d3's line, took d2 and d3 into d1's title, and the
    # report said only "multi-line-record"
    c = _folder(tmp_path, 'id,title\nd1,"Quoted title\nd2,second doc\nd3,ends with a quote"\n',
                name="documents.csv")
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert [c.text(i) for i in range(3)] == ['"Quoted title', "second doc",
                                             'ends with a quote"']
    assert problems(c) == {("quotes-as-text", "documents.csv", 2)}


def test_a_quoted_field_may_run_through_lines_that_look_like_records(tmp_path):
    # an abstract whose lines hold as many commas as a record: it closes where no record could
    abstract = "first line, with commas\nsecond, third, line\nthe last line."
    c = _folder(tmp_path, f'id,title,abstract\nd1,Title,"{abstract}"\nd2,T,A\n',
                name="documents.csv")
    assert c.doc_ids == ["d1", "d2"] and c.text(0) == f"Title\n{abstract}"
    assert ("multi-line-record", "documents.csv", 2) in problems(c)


def test_a_quoted_field_that_would_add_fields_is_not_spanned(tmp_path):
    # the closing quote four lines on is followed by a tab: that record would have 3 fields
    c = _folder(tmp_path, 'doc_id\ttext\nd1\t"Fix\nd2\tsecond\nd3\tzebra"\tx\n')
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert c.text(2) == 'zebra"'
    assert problems(c) == {("quotes-as-text", "documents.tsv", 2),
                           ("field-count", "documents.tsv", 4)}


def test_csv_quoting_rules(tmp_path):
    c = _folder(tmp_path, 'id,title\nd1,"a, b ""c"""\nd2,"unclosed, text\nd3,plain\n',
                name="documents.csv")
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert c.text(0) == 'a, b "c"' and c.text(1) == '"unclosed' and c.text(2) == "plain"
    assert problems(c) == {("quotes-as-text", "documents.csv", 3),
                           ("field-count", "documents.csv", 3)}


def test_crlf_and_cr_line_endings(tmp_path):
    c = _folder(tmp_path, 'doc_id\ttext\r\nd1\t"two\r\nlines"\r\nd2\tplain\rd3\tlast\r\n')
    assert c.doc_ids == ["d1", "d2", "d3"]
    assert c.text(0) == "two\r\nlines" and c.text(1) == "plain" and c.text(2) == "last"


def test_jsonl_lone_surrogates_become_replacement_characters(tmp_path):
    (tmp_path / "documents.jsonl").write_text(
        '{"id": "d\\udcff", "text": "ring buffers", "people": ["p\\ud800"]}\n'
        '{"id": "d2", "text": "smile \\ud83d\\ude00", "people": ["q"]}\n', encoding="utf-8")
    c = load_collection(tmp_path, use_cache=False)
    assert c.doc_ids == ["d\ufffd", "d2"] and c.person_ids == ["p\ufffd", "q"]
    assert c.text(1) == "smile \U0001f600"  # a valid pair is one character, kept
    assert problems(c) == {("invalid-utf8", "documents.jsonl", 1)}


@pytest.mark.parametrize("first", ["d1\ttitle", "title\tring buffers", "id\tring buffers",
                                   "d1\ttext"])
def test_a_headerless_first_line_naming_one_column_stays_a_document(tmp_path, first):
    # issue 24 item 5: a first text or id that is a column's name made line 1 a header, every
    # id `documents:N`, and no report said why
    c = _folder(tmp_path, f"{first}\nd2\tsecond doc\nd3\tthird doc\n")
    doc_id, text = first.split("\t")
    assert c.doc_ids == [doc_id, "d2", "d3"] and c.text(0) == text
    assert ("header-like-record", "documents.tsv", 1) in problems(c)
    assert "read as a document" in str(c.report.problems[0])


def test_a_header_without_ids_says_the_ids_come_from_the_lines(tmp_path):
    c = _folder(tmp_path, "title\tabstract\nRing buffers\tlockless\n")
    assert c.doc_ids == ["documents:2"]
    assert ("ids-from-lines", "documents.tsv", 1) in problems(c)


def test_a_documents_file_linking_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "elsewhere.tsv").write_text("doc_id\ttext\nd1\tring\n", encoding="utf-8")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "documents.tsv").symlink_to(tmp_path / "elsewhere.tsv")
    (tmp_path / "c" / "associations.tsv").write_text("d1\ta\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="outside the collection's folder"):
        load_collection(tmp_path / "c", use_cache=False)
