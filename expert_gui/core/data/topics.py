"""Topic files: the queries an evaluation or a batch ranking runs.

Three forms are read, told apart by their first line:
- TSV with a header naming `topic_id` and `query` (other columns, such as DPDK's `group`, are
  ignored);
- the SERT form, one `id;query` a line;
- TREC topic files, `<top> <num> Number: id <title> query ... </top>`.
A file that is none of these, or a topic without an id or a query, raises `TopicsError` with the
file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import TopicsError


@dataclass(frozen=True)
class Topic:
    id: str
    query: str


def read_topics(path: str | Path) -> list[Topic]:
    """The topics of a file, in file order."""
    path = Path(path)
    text = _read_text(path)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if first.lstrip().lower().startswith("<top>"):
        topics = _read_trec(path, text)
    elif {"topic_id", "query"} <= {c.strip() for c in first.split("\t")}:
        topics = _read_tsv(path, text)
    else:
        topics = _read_sert(path, text)
    if not topics:
        raise TopicsError(path, None, "no topics in the file")
    return topics


def _read_text(path: Path) -> str:
    raw = read_regular(path, TopicsError)
    for number, line in enumerate(raw.splitlines(), 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TopicsError(path, number, f"not valid UTF-8 ({exc.reason})") from exc
    return raw.decode("utf-8").lstrip("\ufeff")


def _add(topics: list[Topic], seen: dict[str, int], path: Path, line: int, topic_id: str,
         query: str) -> None:
    if not topic_id:
        raise TopicsError(path, line, "a topic without an id")
    if not query:
        raise TopicsError(path, line, f"topic {topic_id!r} has an empty query")
    if topic_id in seen:
        raise TopicsError(path, line, f"topic id {topic_id!r} already given on line "
                          f"{seen[topic_id]}")
    seen[topic_id] = line
    topics.append(Topic(topic_id, query))


def _read_tsv(path: Path, text: str) -> list[Topic]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip())
    header = [c.strip() for c in lines[start].split("\t")]
    id_col, query_col = header.index("topic_id"), header.index("query")
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines[start + 1:], start + 2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) <= max(id_col, query_col):
            raise TopicsError(path, number, f"expected {len(header)} tab-separated columns "
                              f"({', '.join(header)}), found {len(cells)}")
        _add(topics, seen, path, number, cells[id_col].strip(), cells[query_col].strip())
    return topics


def _read_sert(path: Path, text: str) -> list[Topic]:
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if ";" not in line:
            raise TopicsError(path, number, "expected 'id;query' (SERT form), a TSV header with "
                              "topic_id and query, or a TREC <top> topic")
        topic_id, query = line.split(";", 1)
        _add(topics, seen, path, number, topic_id.strip(), query.strip())
    return topics


_TOP = re.compile(r"<top>(.*?)(</top>|<top>|\Z)", re.IGNORECASE | re.DOTALL)
_NUM = re.compile(r"<num>\s*(?:number\s*:)?\s*([^\s<]+)", re.IGNORECASE)
_TITLE = re.compile(r"<title>\s*(?:topic\s*:)?(.*?)(?=<|\Z)", re.IGNORECASE | re.DOTALL)


def _read_trec(path: Path, text: str) -> list[Topic]:
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    line, counted = 1, 0  # lines counted up to `counted`, so the whole count is one pass
    for m in _TOP.finditer(text):
        line += text.count("\n", counted, m.start())
        counted = m.start()
        if m.group(2).lower() != "</top>":
            raise TopicsError(path, line, "<top> without a closing </top>")
        body = m.group(1)
        num, title = _NUM.search(body), _TITLE.search(body)
        if num is None:
            raise TopicsError(path, line, "topic without <num>")
        if title is None:
            raise TopicsError(path, line, f"topic {num.group(1)!r} without <title>")
        _add(topics, seen, path, line, num.group(1), " ".join(title.group(1).split()))
    return topics
