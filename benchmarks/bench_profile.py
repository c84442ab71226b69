"""Latency of a person's profile on DPDK, next to a log-linear query measured in the same run.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
        .venv/bin/python benchmarks/bench_profile.py ../shared/data/dpdk-maintainers --model DIR

Without --model a random 300-dimensional model over the collection stands in (the cost does not
depend on what was learnt). Goal: a profile under 50 ms.

Measured, as medians over people drawn at random (and over the dev topics for the query):
- prepare: the one-off |V| x |C| pass (log Z_1 per word, log P(c) per person), once per model;
- profile: `Profiler.profile(person, k=20, topics)` with the dev topic set scored beforehand
  (words with their document counts, topics, similar people with their shared words,
  co-authors, documents and timeline);
- the same for the five people with the most documents (the document counts and the timeline
  grow with them);
- its parts, and a query (`LogLinearRanker.rank`) for comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
from bench_rank import random_model

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.explore.profile import Profiler, score_topics
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.store.storage import load_model


def median_ms(fn, items, rounds: int = 3) -> float:
    """Median over `rounds` passes through the items, one call each, so that no call follows a
    call for the same item (the profiler keeps the last person's word scores)."""
    times = []
    for _ in range(rounds):
        for x in items:
            t = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default="../shared/data/dpdk-maintainers")
    parser.add_argument("--model")
    parser.add_argument("--people", type=int, default=100, help="people drawn (default 100)")
    args = parser.parse_args()
    data = Path(args.data)
    collection = load_collection(data)
    if args.model:
        model = load_model(args.model)
    else:
        model = random_model(collection.vocab, collection.person_ids, 300, collection.settings)
    queries = [t.query for t in read_topics(data / "topics.dev.tsv")]
    ranker = make_ranker("loglinear", model=model)
    people = np.random.default_rng(0).choice(model.n_people, min(args.people, model.n_people),
                                             replace=False).tolist()

    profiler = Profiler(model, collection)
    t = time.perf_counter()
    profiler.prepare()
    prepare_s = time.perf_counter() - t
    t = time.perf_counter()
    topics = score_topics(ranker, {str(i): q for i, q in enumerate(queries)})
    topics_s = time.perf_counter() - t

    per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
    prolific = [profiler.person(collection.person_ids[i])
                for i in np.argsort(-per_person, kind="stable")[:5]]
    rows = [
        ("query (log-linear rank, Eq. 2)", median_ms(ranker.rank, queries)),
        ("profile, k = 20, with topics", median_ms(lambda p: profiler.profile(p, 20, topics),
                                                   people)),
        (f"profile of the 5 most prolific ({per_person.max():,} documents at most)",
         median_ms(lambda p: profiler.profile(p, 20, topics), prolific)),
        ("  words (one |V| x e product) + document counts",
         median_ms(lambda p: profiler.words(p, 20), people)),
        ("  topics (from the scored set)", median_ms(lambda p: topics.for_person(p, 20), people)),
        ("  similar people + shared words", median_ms(lambda p: profiler.similar(p, 20),
                                                      people)),
        ("  co-authors", median_ms(lambda p: profiler.coauthors(p, 20), people)),
        ("  documents", median_ms(profiler.documents, people)),
    ]
    print(f"DPDK: {collection.n_documents:,} documents, {model.n_people:,} people, "
          f"{len(model.vocab):,} words, e = {model.dim}; {len(people)} people, "
          f"{len(queries)} queries; load average {os.getloadavg()[0]:.2f}")
    print(f"one-off per model: prepare {prepare_s * 1000:,.0f} ms; scoring {len(queries)} topics "
          f"for everyone {topics_s * 1000:,.0f} ms")
    query_ms = rows[0][1]
    for name, ms in rows:
        print(f"{name:<52} {ms:8.2f} ms median  ({ms / query_ms:5.1f} x a query)")


if __name__ == "__main__":
    main()
