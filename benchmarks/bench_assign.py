"""What `expert-gui assign` takes at scale, split by phase: P papers ranked against a pool of R
people, their conflicts found, the assignment solved exactly (K per paper, at most M per
person) and its evidence written, in one process from the command's start, with its peak memory.

    .venv/bin/python benchmarks/bench_assign.py [--dpdk ../shared/data/dpdk-maintainers]
        [--copies 2] [--papers 2000] [--pool 2000] [-k 3] [-m 6] [--model DIR]
        [--baseline 200] [--work DIR]

The collection is DPDK copied --copies times (benchmarks/dpdk_copies.py: 2 copies give 90,410
documents and 2,946 people); the pool is the --pool people with the most documents (--candidates
FILE, as a chair lists the programme committee). Each paper is five DPDK commit messages joined
(about 150 words, an abstract's length in the collection's own words) with three authors of the
collection (so every paper has authors and co-authors in conflict). Without --model the model
has the default settings' shapes (300 dimensions) and random parameters: what ranking costs does
not depend on their values, and training one on 90,410 documents would take an hour on two cores.

Baseline, in the same run: the first --baseline papers ranked one query at a time (`rank`, the
straightforward way), against the same papers by the batch `assign` uses; the ratio is printed.
The whole command runs as a child process (`expert-gui assign`), timed from its start, with its
peak memory (ru_maxrss of the child), and its own split of the time is printed beside.
"""

from __future__ import annotations

import argparse
import csv
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from dpdk_copies import write_copies  # noqa: E402


def build(args) -> tuple[Path, Path, Path]:
    """The collection, the model and the papers (written once under --work)."""
    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.model.loglinear import LogLinearModel
    from expert_gui.core.store.storage import save_model

    work = args.work
    folder = work / f"dpdk-x{args.copies}"
    if not (folder / "documents.tsv").exists():
        write_copies(args.dpdk, folder, args.copies)
    collection = load_collection(folder)
    model_dir = args.model or work / f"random-model-x{args.copies}"
    if args.model is None and not (model_dir / "manifest.json").exists():
        rng = np.random.default_rng(0)
        dim = 300
        model = LogLinearModel(
            word_embeddings=rng.normal(0, 0.1, (len(collection.vocab), dim)).astype(np.float32),
            candidate_weights=rng.normal(0, 0.1, (collection.n_people, dim)).astype(np.float32),
            candidate_bias=rng.normal(0, 0.1, collection.n_people).astype(np.float32),
            vocab=collection.vocab, text_settings=collection.settings,
            person_ids=list(collection.person_ids), person_names=list(collection.person_names),
            collection_fingerprint=collection.fingerprint, collection_source=str(folder))
        save_model(model, model_dir)
    papers = work / f"papers-{args.papers}.csv"
    if not papers.exists():
        rnd = random.Random(0)
        with open(papers, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["id", "title", "abstract", "authors"])
            for i in range(args.papers):
                docs = rnd.sample(range(collection.n_documents), 5)
                text = " ".join(collection.text(d).replace("\n", " ") for d in docs)
                authors = rnd.sample(range(collection.n_people), 3)
                w.writerow([f"S{i:05d}", collection.title(docs[0], 80), text,
                            "; ".join(collection.person_names[a] for a in authors)])
    pool = work / f"pool-{args.pool}.txt"
    counts = np.bincount(collection.assoc_people, minlength=collection.n_people)
    chosen = np.argsort(-counts, kind="stable")[:args.pool]
    pool.write_text("\n".join(collection.person_ids[i] for i in chosen) + "\n",
                    encoding="utf-8")
    return model_dir, papers, pool


def baseline(model_dir: Path, papers: Path, n: int) -> tuple[float, float]:
    """Seconds to rank the first `n` papers one at a time (`rank`) and as `assign` does."""
    from expert_gui.cli.ranker_options import load_collection_of
    from expert_gui.core.evaluation.calibration import index_for
    from expert_gui.core.rankers.methods import make_ranker
    from expert_gui.core.reviewers.affinity import affinities
    from expert_gui.core.store.storage import load_model

    model = load_model(model_dir)
    index = index_for(model, load_collection_of(model, None, whole=True))
    with open(papers, encoding="utf-8", newline="") as f:
        texts = [f"{r['title']} {r['abstract']}" for r, _ in zip(csv.DictReader(f),
                                                                 range(n), strict=False)]
    ranker = make_ranker("auto", model=model, collection=index, outside=True)
    ranker.rank(texts[0])  # every member built before either is timed
    started = time.perf_counter()
    for text in texts:
        ranker.rank(text)
    one_by_one = time.perf_counter() - started
    started = time.perf_counter()
    affinities(ranker, texts, np.arange(len(ranker.person_ids)), z_scored=True)
    return one_by_one, time.perf_counter() - started


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dpdk", type=Path, default=Path("../shared/data/dpdk-maintainers"))
    p.add_argument("--copies", type=int, default=2)
    p.add_argument("--papers", type=int, default=2000)
    p.add_argument("--pool", type=int, default=2000)
    p.add_argument("-k", type=int, default=3)
    p.add_argument("-m", type=int, default=6)
    p.add_argument("--model", type=Path, help="a model of that collection (default: random)")
    p.add_argument("--baseline", type=int, default=200)
    p.add_argument("--work", type=Path, default=Path("/tmp/bench-assign"))
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    model_dir, papers, pool = build(args)
    if args.baseline:
        loop, batch = baseline(model_dir, papers, args.baseline)
        print(f"ranking {args.baseline} papers: one at a time {loop:.1f} s, as assign does "
              f"{batch:.1f} s ({loop / batch:.1f} times as fast)")
    out = args.work / "assignment.csv"
    command = [str(Path(sys.executable).parent / "expert-gui"), "assign", str(model_dir),
               str(papers), "--per-paper", str(args.k), "--max-per-person", str(args.m),
               "--candidates", str(pool), "--coauthor-years", "5", "--out", str(out)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if done.returncode:
        print(done.stdout + done.stderr, file=sys.stderr)
        return done.returncode
    print(done.stdout.strip())
    print(done.stderr.strip())
    print(f"the whole command: {wall:.1f} s from its start, peak memory {peak:,.0f} MiB "
          f"({args.papers:,} papers x {args.pool:,} people, K = {args.k}, M = {args.m})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
