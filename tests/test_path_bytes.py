"""Paths whose bytes are not UTF-8 (a Latin-1 folder name, as an old archive or a USB stick
formatted elsewhere has them) are read, written and named like any other (issue 32 item 6: a
UnicodeEncodeError traceback, exit 1). Python holds such a byte as a lone surrogate (\\udce9),
which the CLI prints escaped."""

import os
import shutil
import sys
from pathlib import Path

import pytest

from expert_gui.cli import main
from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.runs import read_run

FIXTURE = Path(__file__).parent / "fixtures" / "evaluation"
LATIN_1 = os.fsdecode(b"caf\xe9")  # 'caf\udce9'

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"),
                                reason="their file systems keep names in Unicode")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("bytes")
    try:
        shutil.copytree(FIXTURE, root / LATIN_1)
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    return root / LATIN_1


def test_a_collection_in_such_a_folder_loads_and_is_cached(folder):
    first = load_collection(folder)
    again = load_collection(folder)
    assert again.fingerprint == first.fingerprint and first.n_documents > 0
    assert first.source == str(folder)


def test_train_query_rank_and_experiment_name_it_escaped(folder, capsys):
    model = folder / os.fsdecode(b"mod\xe8le")
    assert main(["train", str(folder), "--out", str(model), "--dim", "8", "--epochs", "1",
                 "--batch-size", "64", "--threads", "1", "--no-suggested-settings"]) == 0
    assert main(["query", str(model), "ring buffer"]) == 0
    run = folder / os.fsdecode(b"r\xe9sultat.run")
    assert main(["rank", str(model), "--topics", str(folder / "topics.tsv"),
                 "--run", str(run)]) == 0
    assert read_run(run)
    out = folder / os.fsdecode(b"exp\xe9rience")
    assert main(["experiment", str(folder), "--topics", str(folder / "topics.tsv"),
                 "--qrels", str(folder / "qrels.txt"), "--out", str(out), "--model", str(model),
                 "--permutations", "50", "--methods", "loglinear,model2-jm"]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "caf\\udce9" in (out / "report.md").read_text(encoding="utf-8")
