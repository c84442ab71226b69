"""`expert-gui assign` end to end on a small collection: every paper gets exactly K people,
nobody more than M, no pair in conflict, the best total (checked by brute force), the files as
documented, and a clear error where no assignment exists."""

import csv
import itertools

import numpy as np
import pytest
from rankers_helpers import random_model

from expert_gui.cli import main
from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import index_for
from expert_gui.core.reviewers.assignment import AssignSettings, assign, obstacles, prepare
from expert_gui.core.reviewers.papers import load_papers
from expert_gui.core.store.storage import save_model

DOCS = [("d1", "2024-01-01", "ring buffer lockless enqueue dequeue"),
        ("d2", "2023-01-01", "ring buffer memory pool mempool"),
        ("d3", "2022-01-01", "ice driver link status for the ice PMD"),
        ("d4", "2021-01-01", "ice driver queue setup and link speed"),
        ("d5", "2020-01-01", "mlx5 driver flow steering rules"),
        ("d6", "2019-01-01", "flow rules for the ring PMD and the mempool"),
        ("d7", "2024-06-01", "memory pool cache for lockless dequeue"),
        ("d8", "2016-01-01", "crypto device session setup")]
LINKS = [("d1", "ann"), ("d2", "ann"), ("d7", "ann"), ("d3", "bo"), ("d4", "bo"), ("d5", "cy"),
         ("d6", "cy"), ("d6", "ann"), ("d4", "dee"), ("d8", "eve")]
NAMES = {"ann": "Ann Lindqvist", "bo": "Bo Chen", "cy": "Cy Young", "dee": "Dee Park",
         "eve": "Eve Stone"}
PAPERS = [("P1", "Lockless rings", "a lockless ring buffer with enqueue and dequeue",
           "Lindqvist, A."),
          ("P2", "Ice link", "link speed of the ice driver queue", ""),
          ("P3", "Flow steering", "flow steering rules in the mlx5 driver", "Tom Thumb"),
          ("P4", "Pools", "a mempool cache for memory pool", "")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("assign")
    coll = root / "collection"
    coll.mkdir()
    (coll / "documents.tsv").write_text("doc_id\tdate\ttext\n" + "".join(
        f"{d}\t{day}\t{t}\n" for d, day, t in DOCS), encoding="utf-8")
    (coll / "associations.tsv").write_text("doc_id\tperson_id\n" + "".join(
        f"{d}\t{p}\n" for d, p in LINKS), encoding="utf-8")
    (coll / "people.tsv").write_text("person_id\tname\n" + "".join(
        f"{p}\t{n}\n" for p, n in NAMES.items()), encoding="utf-8")
    collection = load_collection(coll, use_cache=False)
    model = random_model(collection, dim=8, seed=5)
    model.collection_source = str(coll)
    model.collection_fingerprint = collection.fingerprint
    save_model(model, root / "model")
    with open(root / "papers.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "title", "abstract", "authors"])
        w.writerows(PAPERS)
    with open(root / "anonymous.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "title", "abstract"])
        w.writerows(p[:3] for p in PAPERS)
    return root, collection, model


def best_total(affinity, allowed, k, m):
    """The best total by brute force: every choice of k people per paper within the quotas."""
    n_papers, n_people = affinity.shape
    best = -np.inf
    choices = [list(itertools.combinations(np.flatnonzero(allowed[p]), k))
               for p in range(n_papers)]
    for pick in itertools.product(*choices):
        loads = np.bincount([r for people in pick for r in people], minlength=n_people)
        if loads.max() <= m:
            best = max(best, sum(affinity[p, list(people)].sum()
                                 for p, people in enumerate(pick)))
    return best


def test_the_assignment_is_optimal_and_keeps_every_rule(folder):
    root, collection, model = folder
    papers = load_papers(root / "papers.csv", model.text_settings)
    prepared = prepare(model, collection, papers, AssignSettings(2, 2),
                       index=index_for(model, collection))
    result = assign(prepared)
    pairs = [(r.paper, r.person) for r in result.rows]
    assert len(pairs) == 8 and len(set(pairs)) == 8
    assert np.bincount([p for p, _ in pairs], minlength=4).tolist() == [2, 2, 2, 2]
    assert result.loads.max() <= 2 and result.loads.sum() == 8
    allowed = prepared.allowed
    assert all(allowed[p, c] for p, c in pairs)
    ann = list(prepared.pool).index(collection.person_index["ann"])
    assert not allowed[0, ann]  # P1 is Ann's own paper ("Lindqvist, A.")
    assert prepared.conflicts.of(0, collection.person_index["cy"])  # her co-author on d6
    expected = best_total(prepared.affinity.values, allowed, 2, 2)
    assert result.total == pytest.approx(expected, abs=1e-9)
    for r in result.rows:  # rank: among the people allowed for the paper, by affinity
        here = prepared.affinity.values[r.paper]
        assert r.rank == 1 + int(((here > here[r.person]) & allowed[r.paper]).sum())


def test_pins_and_forbidden_pairs(folder):
    root, collection, model = folder
    papers = load_papers(root / "papers.csv", model.text_settings)
    prepared = prepare(model, collection, papers, AssignSettings(2, 3),
                       index=index_for(model, collection))
    first = assign(prepared)
    kept = first.rows[0]
    eve = list(prepared.pool).index(collection.person_index["eve"])
    again = assign(prepared, pinned=[(3, eve)], forbidden=[(kept.paper, kept.person)])
    pairs = {(r.paper, r.person) for r in again.rows}
    assert (3, eve) in pairs and (kept.paper, kept.person) not in pairs
    assert any(r.pinned for r in again.rows if (r.paper, r.person) == (3, eve))
    assert again.total <= first.total + 1e-9


def test_the_cli_writes_the_assignment_and_every_affinity(folder, tmp_path, capsys):
    root, collection, model = folder
    out, aff = tmp_path / "assignment.csv", tmp_path / "affinity.tsv"
    assert main(["assign", str(root / "model"), str(root / "papers.csv"), "--per-paper", "2",
                 "--max-per-person", "2", "--out", str(out), "--affinity", str(aff)]) == 0
    printed = capsys.readouterr().out
    assert "4 papers, a pool of 5 people" in printed
    assert "authors: 2 on the papers; 1 are people of the collection" in printed
    assert "assigned 8 pairs" in printed
    with open(out, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:9] == ["paper_id", "title", "person_id", "name", "affinity", "rank",
                                 "closest_documents", "shared_words", "pinned"]
    assert {"affinity_by", "model", "collection", "settings", "exported"} <= set(rows[0])
    assert len(rows) == 8 and {r["paper_id"] for r in rows} == {"P1", "P2", "P3", "P4"}
    assert not any(r["paper_id"] == "P1" and r["person_id"] in ("ann", "cy") for r in rows)
    assert rows[0]["affinity_by"].startswith("Log-linear (prior once) 0.33")
    lines = aff.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "paper_id\tperson_id\taffinity\tconflict" and len(lines) == 1 + 4 * 5
    own = [line.split("\t") for line in lines[1:] if line.startswith("P1\tann\t")]
    assert own[0][3].startswith(
        "an author of the paper (A. Lindqvist: initials of «Ann Lindqvist»)")
    assert main(["assign", str(root / "model"), str(root / "anonymous.csv"), "--per-paper",
                 "1", "--max-per-person", "1", "--out", str(out)]) == 0
    assert "the papers name no authors" in capsys.readouterr().out


def test_no_assignment_says_why_before_solving(folder, tmp_path, capsys):
    root, collection, model = folder
    papers = load_papers(root / "papers.csv", model.text_settings)
    prepared = prepare(model, collection, papers, AssignSettings(4, 4),
                       index=index_for(model, collection))
    said = obstacles(prepared)
    assert any("P1 «Lockless rings»" in s and "needs 4 reviewers" in s for s in said), said
    out = tmp_path / "a.csv"
    assert main(["assign", str(root / "model"), str(root / "papers.csv"), "--per-paper", "2",
                 "--max-per-person", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no assignment exists" in err and "8 reviews" in err and not out.exists()
