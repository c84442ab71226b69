import pytest

from expert_gui.core.data.topics import Topic, read_topics
from expert_gui.core.errors import TopicsError


def test_tsv_with_header_and_extra_columns(fixtures):
    assert read_topics(fixtures / "topics" / "topics.tsv") == [
        Topic("Q001", "Logging"), Topic("Q002", "Trace - EXPERIMENTAL"), Topic("Q003", "Intel ice")]


def test_sert_form(fixtures):
    assert read_topics(fixtures / "topics" / "topics.sert") == [
        Topic("1", "ring buffer"), Topic("2", "intel ice driver"), Topic("3", "mempool cache")]


def test_trec_form(fixtures):
    assert read_topics(fixtures / "topics" / "topics.trec") == [
        Topic("EX1", "Semantic Web Coordination"), Topic("EX2", "Annotea server protocol")]


def test_columns_in_any_order(tmp_path):
    p = tmp_path / "t.tsv"
    p.write_text("query\ttopic_id\nring buffer\tT1\n", encoding="utf-8")
    assert read_topics(p) == [Topic("T1", "ring buffer")]


@pytest.mark.parametrize("content, line, message", [
    ("topic_id\tquery\nQ1\tring\nQ2\n", 3, "columns"),
    ("topic_id\tquery\nQ1\tring\nQ1\tice\n", 3, "already given on line 2"),
    ("topic_id\tquery\nQ1\t  \n", 2, "empty query"),
    ("1;ring\njust words\n", 2, "SERT"),
    (";ring\n", 1, "without an id"),
    ("<top>\n<num> 1\n<title> ring\n</top>\n<top>\n<title> ice\n</top>\n", 5, "without <num>"),
    ("<top>\n<num> 1\n</top>\n", 1, "without <title>"),
    ("<top>\n<num> 1\n<title> ring\n", 1, "closing"),
])
def test_bad_files_name_the_line(tmp_path, content, line, message):
    p = tmp_path / "bad.txt"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(TopicsError, match=message) as err:
        read_topics(p)
    assert err.value.line == line and err.value.path == str(p)


def test_invalid_utf8_missing_and_empty_files(tmp_path):
    p = tmp_path / "latin1.tsv"
    p.write_bytes(b"topic_id\tquery\nQ1\tcaf\xe9\n")
    with pytest.raises(TopicsError, match="UTF-8") as err:
        read_topics(p)
    assert err.value.line == 2
    with pytest.raises(TopicsError, match="no such file"):
        read_topics(tmp_path / "missing.tsv")
    (tmp_path / "empty.tsv").write_text("\n\n", encoding="utf-8")
    with pytest.raises(TopicsError, match="no topics"):
        read_topics(tmp_path / "empty.tsv")
