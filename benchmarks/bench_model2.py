"""Model 2's `rank --topics` on the host: the rankers of `--old-rev` (git show; main's ranks one
topic at a time, a pass over every document each) against this tree's `rank_batch` (each
topic's matched documents only, all topics a block), on the same collection and topics.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_model2.py \\
        /tmp/dpdk20 [--repeats 3] [--old-rev main]

(/tmp/dpdk20: `benchmarks/dpdk_copies.py /work/shared/data/dpdk-maintainers /tmp/dpdk20`.)
Prints each path's median seconds (the index built before), the ratio, and the largest
relative difference of the top 1,000 people's scores, rank by rank and person by person (people
whose scores tie may change places).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.rankers.language_models import Model2

DEPTH = 1000


def old_module(rev: str):
    """language_models.py as it was at `rev`, imported beside this tree's."""
    root = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "-C", str(root), "show",
                             f"{rev}:expert_gui/core/rankers/language_models.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "old_language_models.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_language_models", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_language_models"] = module
    spec.loader.exec_module(module)
    return module


def difference(a, b) -> float:
    """The largest relative difference between two rankings' scores at each rank and, for the
    people ranked elsewhere (ties: the copies' people are equally good), of their own scores."""
    if not len(a.scores):
        assert not len(b.scores), a.query
        return 0.0
    by_person = dict(zip(a.people.tolist(), a.scores, strict=True))
    mine = np.array([by_person.get(p, s) for p, s in zip(b.people.tolist(), b.scores,
                                                          strict=True)])
    return float(max(np.max(np.abs(b.scores - a.scores) / np.abs(a.scores)),
                     np.max(np.abs(b.scores - mine) / np.abs(mine))))


def median_seconds(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("collection", type=Path)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--old-rev", default="main")
    args = p.parse_args(argv)
    collection = load_collection(args.collection)
    topics = [t.query for t in read_topics(args.collection / "topics.dev.tsv")]
    print(f"{collection.n_documents:,} documents, {len(topics)} topics")
    old_class = old_module(args.old_rev).Model2
    for smoothing in ("jm", "dirichlet"):
        old, new = old_class(collection, smoothing=smoothing), Model2(collection, smoothing)
        old_s, old_r = median_seconds(lambda o=old: [o.rank(t, depth=DEPTH) for t in topics],
                                      args.repeats)
        new_s, new_r = median_seconds(lambda n=new: n.rank_batch(topics, depth=DEPTH),
                                      args.repeats)
        worst = max((difference(a, b) for a, b in zip(old_r, new_r, strict=True)),
                    default=0.0)
        print(f"model2-{smoothing}: {args.old_rev} {old_s:.2f} s, this tree {new_s:.2f} s "
              f"({old_s / new_s:.1f}x); scores within {worst:.1e} relative",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
