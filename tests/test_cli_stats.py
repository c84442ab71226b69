"""`expert-gui stats`: Table 1 and the load report, as text and as JSON."""

import json
import re
from pathlib import Path

import pytest

from expert_gui.cli import main

DPDK = Path(__file__).resolve().parents[2] / "shared/data/dpdk-maintainers"


def test_table1_as_text(fixtures, capsys):
    assert main(["stats", str(fixtures / "collections/folder_tsv")]) == 0
    out = capsys.readouterr().out
    rows = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in out.splitlines()
                if re.match(r"  \S.*\s{2,}\S", line))
    assert rows["Documents"] == "5" and rows["People with at least one document"] == "2"
    assert rows["Average document length (tokens)"] == f"{(6 + 5 + 0 + 2 + 5) / 5:.2f}"
    assert rows["Associations per document (with people)"] == "1.25 ± 0.43"  # 1, 2, 1, 1
    assert rows["Associations per person"] == "2.50 ± 0.50"  # alice 3, bob 2
    assert "documents.tsv:6: document id 'd1' already seen" in out


def test_table1_as_json(fixtures, capsys):
    assert main(["stats", str(fixtures / "collections/papers.bib"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["report"]["format"] == "bibtex"
    assert data["stats"]["documents"] == 4 and data["stats"]["people_with_documents"] == 9
    assert data["stats"]["associations"] == 3 + 5 + 1 + 1
    assert {p["kind"] for p in data["report"]["problems"]} == {"shared-key", "malformed-record"}


def test_format_and_associations_options(fixtures, capsys):
    trec = fixtures / "collections/trec"
    args = ["stats", str(trec / "docs.trec"), "--format", "trec",
            "--associations", str(trec / "associations.txt"), "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["documents"] == 2


def test_bad_input_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["stats", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("expert-gui stats: error: ") and "no such file" in err
    assert err.count("\n") == 1


def test_the_cli_names_the_option_that_fixes_a_missing_file(tmp_path, capsys):
    (tmp_path / "documents.tsv").write_text("d1\tsome text\n", encoding="utf-8")
    assert main(["stats", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "expected associations.tsv or associations.csv" in err
    assert err.rstrip().endswith("(or --associations FILE)")


@pytest.mark.skipif(not DPDK.is_dir(), reason="needs ../shared/data")
def test_dpdk_counts(capsys):
    assert main(["stats", str(DPDK), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)["stats"]
    assert stats["documents"] == 45_205 and stats["people_with_documents"] == 1_473


def test_stats_show_the_numbers_rule(tmp_path, capsys):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "documents.tsv").write_text("doc_id\ttext\nd1\tmlx5 port 42 at 0x10\n")
    (folder / "associations.tsv").write_text("doc_id\tperson_id\nd1\tann\n")
    assert main(["stats", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["text_settings"]["numbers"] == "numbers"
    assert data["stats"]["average_document_length"] == 4  # mlx5 port <num> <num>
    assert main(["stats", str(folder), "--numbers", "any-digit"]) == 0
    out = capsys.readouterr().out
    assert "number rule 'any-digit' (every token holding a digit folded)" in out
    # Each rule has its own cache: reading with one never returns the other's words.
    for rule, words in (("any-digit", 3), ("numbers", 4), ("any-digit", 3)):  # with <pad>
        assert main(["stats", str(folder), "--numbers", rule, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["text_settings"]["numbers"] == rule
        assert data["report"]["counts"]["vocabulary"] == words


def test_a_path_instead_of_a_command_opens_the_app_on_it(fixtures, monkeypatch):
    import expert_gui.gui.app as app

    opened = []
    monkeypatch.setattr(app, "run_gui", lambda **kwargs: opened.append(kwargs) or 0)
    assert main([str(fixtures)]) == 0
    assert opened == [{"screenshot_dir": None, "fast_exit": True, "collection": fixtures}]
    assert main([]) == 0 and opened[-1]["collection"] is None


def test_a_word_that_is_neither_a_command_nor_a_path_is_one_line_and_status_2(capsys):
    assert main(["trian"]) == 2
    err = capsys.readouterr().err
    assert err == ("expert-gui: error: 'trian' is neither a command (stats, train, query, "
                   "neighbours, rank, heldout, experiment, assign, profile, export-embeddings) nor a file"
                   " or folder to open\n")
