"""`expert-gui rank --topics` per method, in its parts: the load (the model, the collection and
its index, as the CLI opens them), building the method's ranker, ranking the topics
(`rank_batch`, depth 1,000), with the process's peak memory; the code of `--old-rev` (a `git
archive` of it) and this tree's, each method in a fresh process of each, one after the other.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_rank_topics.py \\
        /tmp/dpdk20 --model /tmp/dpdk20-model [--old-rev main] [--methods auto ensemble] \
        [--repeats 3]

(/tmp/dpdk20 and its model: benchmarks/dpdk_copies.py and benchmarks/bench_million.py.) The
topics are the collection's `topics.dev.tsv`; with --repeats, each figure is the median of
that many processes (old and new taking turns). The load includes the first tokenizer's import of
scikit-learn (its stop words), which every process pays once, whichever method it runs. Prints seconds and GB per method and code, and the
largest relative difference between the two codes' scores of the top 1,000 people, rank by rank.
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEPTH = 1000


def child(root: str, model_dir: str, collection_path: str, method: str, out: str) -> None:
    """One method with the code under `root`, as `rank --topics` runs it: times, peak, scores."""
    sys.path.insert(0, root)
    from expert_gui.cli.ranker_options import load_collection_of
    from expert_gui.core.data.topics import read_topics
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.store.storage import load_model

    start = time.perf_counter()
    topics = [t.query for t in read_topics(Path(collection_path) / "topics.dev.tsv")]
    model = load_model(model_dir)
    collection = load_collection_of(model, collection_path) if method != "loglinear" else None
    model.tokenizer.words("")  # its stop words import scikit-learn: 1.5 s, once a process
    loaded = time.perf_counter()
    options = {"aggregation": "sum"} if method in ("loglinear", "ensemble", "auto") else {}
    if method == "ensemble":
        options["fusion"] = "product"
    ranker = make_ranker(method, model=model, collection=collection, **options)
    built = time.perf_counter()
    rankings = ranker.rank_batch(topics, depth=DEPTH)
    ranked = time.perf_counter()
    np.savez(out, scores=np.array([np.pad(r.scores, (0, DEPTH - len(r.scores)),
                                          constant_values=np.nan) for r in rankings]))
    print(json.dumps({"load": loaded - start, "build": built - loaded, "rank": ranked - built,
                      "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                      "topics": len(topics)}))


def measure(root: Path, model: Path, collection: Path, method: str, scores: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", str(root), str(model),
                           str(collection), method, str(scores)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def difference(a: np.ndarray, b: np.ndarray) -> float:
    both = np.isfinite(a) & np.isfinite(b)
    assert (np.isnan(a) == np.isnan(b)).all()
    return float(np.max(np.abs(a[both] - b[both]) / np.maximum(np.abs(a[both]), 1e-300),
                        initial=0.0))


def main(argv=None) -> int:
    if argv is None and sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:7])
        return 0
    from expert_gui.core.rankers.names import METHODS

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("collection", type=Path)
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--old-rev", default="main")
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--repeats", type=int, default=1)
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp())
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old_rev, "expert_gui"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(work / "old", filter="data")
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.old_rev],
                         check=True, capture_output=True, text=True).stdout.strip()
    print(f"old: {args.old_rev} ({rev}); new: this tree; {args.collection}")
    print(f"{'method':<14}{'code':<8}{'load s':>8}{'build s':>9}{'rank s':>8}{'peak GB':>9}"
          f"{'max rel. diff.':>16}")
    for method in args.methods:
        runs = {"old": [], "new": []}
        for _ in range(args.repeats):
            for code, root in (("old", work / "old"), ("new", ROOT)):
                runs[code].append(measure(root, args.model, args.collection, method,
                                          work / f"{code}.npz"))
        diff = difference(np.load(work / "old.npz")["scores"], np.load(work / "new.npz")["scores"])
        for code, measured in runs.items():
            m = {k: statistics.median(r[k] for r in measured) for k in measured[0]}
            print(f"{method:<14}{code:<8}{m['load']:8.1f}{m['build']:9.1f}{m['rank']:8.2f}"
                  f"{m['peak']:9.2f}" + (f"{diff:16.1e}" if code == "new" else ""), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
