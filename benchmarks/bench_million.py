"""A collection of a million documents end to end on one machine: DPDK copied K times
(benchmarks/dpdk_copies.py; K = 20: 904,100 documents, 29,460 people).

    .venv/bin/python benchmarks/dpdk_copies.py /work/shared/data/dpdk-maintainers /tmp/dpdk20
    EXPERT_GUI_HOME=/tmp/home .venv/bin/python benchmarks/bench_million.py /tmp/dpdk20 \\
        --out /tmp/dpdk20-model [--train-steps 200]

Times, with the peak memory (RSS) after each: the load (first, then cached), holding out the
default documents, the per-epoch held-out MAP, the calibration (every method ranks the held-out
documents in blocks), building each method and ranking the collection's topics with it
(`rank --topics` less the load), one query per method (the query panel), and a profile. A
random 300-dimensional model stands in for a trained one (what it learnt does not change the
cost); it is saved to --out, calibrated, so `expert-gui rank` and the app can open it. With
--train-steps, the trainer runs that many steps of an epoch and its instances/s give the time of
an epoch (an epoch at K = 20 takes about an hour on two CPU cores).
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.calibration import calibrate, held_out_map
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
from expert_gui.core.explore.profile import Profiler
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.store.storage import save_model


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def timed(label: str, fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    print(f"{label:<52} {time.perf_counter() - start:8.1f} s   peak {peak_gb():5.2f} GB",
          flush=True)
    return out


def random_model(collection, dim: int = 300) -> LogLinearModel:
    rng = np.random.default_rng(0)
    return LogLinearModel(
        word_embeddings=rng.normal(0, 0.1, (len(collection.vocab), dim)).astype(np.float32),
        candidate_weights=rng.normal(0, 0.1, (collection.n_people, dim)).astype(np.float32),
        candidate_bias=np.zeros(collection.n_people, np.float32), vocab=collection.vocab,
        text_settings=collection.settings, person_ids=list(collection.person_ids),
        person_names=list(collection.person_names), settings={"dim": dim},
        collection_fingerprint=collection.fingerprint, collection_source=collection.source,
        collection_format=collection.report.format)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("collection", type=Path)
    p.add_argument("--out", type=Path, required=True, help="where to save the model")
    p.add_argument("--train-steps", type=int, default=0)
    args = p.parse_args(argv)
    collection = timed("load (first time or cached)", load_collection, args.collection)
    timed("load again (cached)", load_collection, args.collection)
    print(f"  {collection.n_documents:,} documents, {collection.n_people:,} people, "
          f"{len(collection.vocab):,} words")
    split = timed("hold out the default documents", hold_out, collection, HeldOutSettings())
    print(f"  {len(split.documents):,} held-out documents")
    model = random_model(split.training)
    params = {k: getattr(model, k) for k in ("word_embeddings", "candidate_weights",
                                             "candidate_bias")}
    measure = timed("encode the held-out documents (once a run)", held_out_map, split)
    timed("held-out MAP after an epoch", measure, params)
    model.calibration = timed("calibration (every method, every held-out document)",
                              calibrate, model, split)
    timed("save the model", save_model, model, args.out)
    topics = [t.query for t in read_topics(args.collection / "topics.dev.tsv")]
    for method in METHODS:
        ranker = timed(f"{method}: build", make_ranker, method, model=model,
                       collection=split.training)
        timed(f"{method}: rank {len(topics)} topics (rank --topics, less the load)",
              ranker.rank_batch, topics, depth=1000)
        timed(f"{method}: one query (the query panel)", ranker.rank, topics[0])
    profiler = Profiler(model, split.training)
    timed("profile: prepare (once per model)", profiler.prepare)
    timed("profile: one person", profiler.profile, model.person_ids[0], 10)
    if args.train_steps:
        from expert_gui.core.train.settings import TrainSettings
        from expert_gui.core.train.trainer import train

        rates = []

        def progress(event):
            rates.append((event.step, event.total_steps, event.instances_per_s))

        steps = {"n": 0}

        def stop():
            steps["n"] += 1
            return steps["n"] > args.train_steps

        timed(f"train {args.train_steps} steps (of epoch 1)", train, split.training,
              TrainSettings(epochs=1, checkpoint_every=0), progress=progress, should_stop=stop)
        _, total, rate = rates[-1]
        print(f"  {rate:,.0f} instances/s: an epoch of {total:,} steps would take "
              f"{total * 1024 / rate / 60:.0f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
