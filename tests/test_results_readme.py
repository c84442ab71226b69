"""Every figure of the results tables names the settings that made it: each column cites its
folder of docs/results/, its header says what that run changed from the defaults (overlapping
n-grams, the query papers removed) exactly when the run's settings.json did, and its figures are
the folder's own. (The README once gave AMiner's log-linear 0.121 "with the defaults", from a run
with overlapping n-grams; the app's defaults give 0.218.)"""

import csv
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
FOLDER = re.compile(r"\(`([\w-]+)/`\)")
METHODS = {"auto": "auto", "auto (fusion)": "auto", "log-linear": "loglinear",
           "ensemble (eq. 5)": "ensemble", "model 1 (d)": "model1-d",
           "model 1 (d), beta = mean profile length": "model1-d",
           "model 1 (d, doc. length)": "model1-d-doc",
           "model 1 (d), beta = mean document length": "model1-d-doc",
           "model 1 (jm)": "model1-jm", "model 2 (jm)": "model2-jm", "model 2 (d)": "model2-d",
           "tf-idf": "tfidf", "lsi": "lsi"}


def tables(path: Path) -> list[list[list[str]]]:
    """The Markdown tables of a file, as rows of cells (the separator row left out)."""
    found, current = [], []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def map_tables(path: Path):
    return [t for t in tables(path) if any(FOLDER.search(h) for h in t[0])]


def measures(folder: str, held_out: bool) -> dict[str, float]:
    out = {}
    for name in (("heldout",) if held_out else ("table2", "table4")):
        with open(RESULTS / folder / f"{name}.csv", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                method = row.get("Method") or row.get("method")
                out.setdefault(method, round(float(row["AP"]), 3))
    return out


def number(cell: str) -> float | None:
    text = cell.replace("*", "").replace("\\", "").strip()
    return float(text) if text else None


@pytest.mark.parametrize("readme", [ROOT / "README.md", RESULTS / "README.md"],
                         ids=["README", "results-README"])
def test_every_figure_names_its_folder_and_the_settings_that_made_it(readme):
    [table] = map_tables(readme)  # the MAP of every method, per collection and topic set
    header, rows = table[0], table[1:]
    assert all(FOLDER.search(h) for h in header[1:]), "a column that names no run"
    checked = 0
    for column, title in enumerate(header[1:], start=1):
        folder = FOLDER.search(title).group(1)
        settings = json.loads((RESULTS / folder / "settings.json").read_text())["settings"]
        assert ("overlapping" in title) == settings["train"]["overlapping"], title
        assert ("query papers removed" in title) == settings["exclude_topic_documents"], title
        if not (settings["train"]["overlapping"] or settings["exclude_topic_documents"]):
            assert "the defaults" in title, title
        assert settings["train"]["epochs"] == 5 and settings["train"]["window"] == 8
        values = measures(folder, "held-out" in title)
        for row in rows:
            method = METHODS.get(row[0].strip("*` ").lower())
            value = number(row[column])
            if method is not None and value is not None:
                assert value == values[method], (title, row[0])
                checked += 1
    assert checked >= 6 * (len(header) - 1)
