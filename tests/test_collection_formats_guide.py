"""docs/collection-formats.md (issue 12's one-page guide): its examples load as it says."""

import re
from pathlib import Path

import pytest

from expert_gui.core.data.loading import load_collection

GUIDE = Path(__file__).parent.parent / "docs" / "collection-formats.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_every_format_has_a_ten_line_example():
    text = GUIDE.read_text(encoding="utf-8")
    sections = re.split(r"\n## ", text)[1:]
    assert len(sections) == 10
    for section in sections:
        example = re.search(r"```\w*\n(.*?)```", section, re.S).group(1)
        assert len(example.splitlines()) == 10, section.splitlines()[0]


@pytest.mark.parametrize("language, name, documents, people", [
    ("csv", "publications.csv", 9, 9), ("ris", "refs.ris", 1, 3), ("bibtex", "refs.bib", 2, 4),
    ("json", "documents.jsonl", 10, 4)])
def test_the_examples_load(tmp_path, language, name, documents, people):
    example = blocks(language)[0]
    (tmp_path / name).write_text(example, encoding="utf-8")
    c = load_collection(tmp_path / name, use_cache=False)
    assert (c.n_documents, c.n_people) == (documents, people)
