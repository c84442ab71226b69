"""Expert profiling measured: each person's topics ranked, against the qrels inverted.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/profiles_map.py \
        ../shared/data/dpdk-maintainers --model MODEL_DIR --out docs/results/profiles-dpdk
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/profiles_map.py \
        ../shared/data/aminer-dblp --topics topics.tsv --qrels qrels.txt --model MODEL_DIR \
        --out docs/results/profiles-aminer --look c0172 c0182 c0129

MODEL_DIR: a model trained on the collection (`expert-gui train DATA --out MODEL_DIR`).

Topics (default: DPDK's 158 dev topics, the MAINTAINERS sections). Inverting the qrels gives each
person the topics they are relevant to (on DPDK the sections they maintain); every person with at
least one is evaluated. Systems: the
log-linear model (P(c|q), Eq. 2) and Model 2 with Jelinek-Mercer smoothing (its posterior under a
uniform prior), each with topics ordered by the person's rank in the topic ("rank", the
profile's default) or by P(c|q) ("probability"). MAP over the people, and the paired
randomization test (10,000 permutations, two-tailed) of each against Model 2 with the same
order, and of the two orders of the log-linear model.

Words: the three word scores of `profile.WORD_SCORES`, compared on the evaluated people by
- title recall@20: the share of the known words of their sections' titles ("Intel ice" -> intel,
  ice) that are among their 20 words; a crude but independent sign of reading right;
- median collection frequency of the 20 words (rare junk is low);
- sharing: the average number of evaluated people whose 20 words hold each word (generic words
  are shared by many).
And the profiles of a few people (`--look`; default the mlx5 maintainers), printed and written
as Markdown.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import time
from collections import Counter
from pathlib import Path

import numpy as np

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.measures import LABELS
from expert_gui.core.evaluation.profiling import compare_profiling, invert_qrels
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.evaluation.significance import randomization_test
from expert_gui.core.explore.profile import TOPIC_ORDERS, WORD_SCORES, Profiler, score_topics
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.store.storage import load_model

SYSTEMS = ("loglinear", "model2-jm")
LOOK_AT = ("matan-azrad", "viacheslav-ovsiienko", "dariusz-sosnowski", "bing-zhao",
           "suanming-mou", "ori-kam")
TOP = 20
MEASURES = ("AP", "RR", "P@5")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default="../shared/data/dpdk-maintainers")
    parser.add_argument("--topics", default="topics.dev.tsv", help="in DATA")
    parser.add_argument("--qrels", default="qrels.dev.txt", help="in DATA")
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", default="docs/results/profiles-dpdk")
    parser.add_argument("--look", nargs="*", default=list(LOOK_AT), help="people to show")
    args = parser.parse_args()
    data, out = Path(args.data), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = load_model(args.model)
    collection = load_collection(data, settings=model.text_settings)
    topics = {t.id: t.query for t in read_topics(data / args.topics)}
    qrels = read_qrels(data / args.qrels)
    started = time.perf_counter()
    scores = {name: score_topics(make_ranker(name, model=model, collection=collection), topics)
              for name in SYSTEMS}
    results = {order: compare_profiling(scores, qrels, model.person_ids, "model2-jm",
                                        measures=MEASURES, order=order)
               for order in TOPIC_ORDERS}
    elapsed = time.perf_counter() - started
    p_orders = randomization_test(results["rank"].per_person["loglinear"].values["AP"],
                                  results["probability"].per_person["loglinear"].values["AP"])

    people = results["rank"].people
    lines = [
        f"# Expert profiling on {data.name}: topic ranking per person",
        "",
        f"Model: `{args.model}` ({model.n_people:,} people, {len(model.vocab):,} words, dim "
        f"{model.dim}, numbers rule '{model.text_settings.numbers}'); collection `{data}`; "
        f"{len(scores['loglinear'].topic_ids)} topics of `{args.topics}`; {len(people)} people "
        f"with at least one relevant topic in `{args.qrels}` (inverted); load average "
        f"{os.getloadavg()[0]:.2f}.",
        "",
        "Means over the people; p: paired randomization test of log-linear against Model 2 "
        "(10,000 permutations, two-tailed).",
        "",
        "| topic order | measure | log-linear | Model 2 (jm) | p |",
        "|---|---|---|---|---|",
    ]
    for order in TOPIC_ORDERS:
        r = results[order]
        for m in MEASURES:
            lines.append(f"| {order} | {LABELS[m]} | {r.mean('loglinear', m):.4f} | "
                         f"{r.mean('model2-jm', m):.4f} | {r.p_values['loglinear'][m]:.4f} |")
    lines += ["", f"Log-linear, rank against probability order: p = {p_orders:.4f}.",
              f"Scoring all topics for all people with both systems took {elapsed:.1f} s.", ""]
    _write_per_person(out / "per_person.csv", results, invert_qrels(qrels))

    profiler = Profiler(model, collection)
    profiler.prepare()
    lines += _word_scores(profiler, people, qrels, topics)
    lines += _looks(profiler, scores["loglinear"], topics, args.look)
    text = "\n".join(lines) + "\n"
    (out / "results.md").write_text(text, encoding="utf-8")
    print(text)


def _write_per_person(path: Path, results, inverted) -> None:
    people = results["rank"].people
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["person_id", "relevant_topics",
                    *(f"AP_{s}_{o}" for o in TOPIC_ORDERS for s in SYSTEMS)])
        for i, p in enumerate(people):
            relevant = sum(g > 0 for g in inverted[p].values())
            w.writerow([p, relevant, *(f"{results[o].per_person[s].values['AP'][i]:.4f}"
                                       for o in TOPIC_ORDERS for s in SYSTEMS)])


def _word_scores(profiler: Profiler, people, qrels, topics) -> list[str]:
    model = profiler.model
    inverted = invert_qrels(qrels, list(topics))
    counts = model.vocab.counts
    lines = ["## Word scores", "",
             f"Over the {len(people)} evaluated people, their top {TOP} words by each score:", "",
             "| score | title recall@20 | median collection frequency | people sharing a word |",
             "|---|---|---|---|"]
    for score in WORD_SCORES:
        recall, freq, lists = [], [], {}
        for p in people:
            words = profiler.words(profiler.person(p), TOP, score)
            lists[p] = {w.word for w in words}
            freq += [int(counts[w.word_id]) for w in words]
            title = {w for t, g in inverted[p].items() if g > 0 for w in model.encode(topics[t])[1]
                     if not w.startswith("<")}
            if title:
                recall.append(len(title & lists[p]) / len(title))
        shared = Counter(w for ws in lists.values() for w in ws)
        sharing = np.mean([shared[w] for ws in lists.values() for w in ws])
        lines.append(f"| {score} | {np.mean(recall):.3f} | {statistics.median(freq):,} | "
                     f"{sharing:.1f} |")
    lines.append("")
    return lines


def _looks(profiler: Profiler, scores, topics, people) -> list[str]:
    lines = ["## Some profiles", ""]
    for pid in people:
        if pid not in profiler.person_ids:
            continue
        i = profiler.person(pid)
        lines.append(f"### {profiler.model.person_names[i]} ({pid}), "
                     f"{len(profiler.documents(i))} documents")
        lines.append("")
        for score in WORD_SCORES:
            words = ", ".join(w.word for w in profiler.words(i, 12, score))
            lines.append(f"- words by {score}: {words}")
        best = scores.for_person(i, 6)
        lines.append("- topics: " + "; ".join(f"{topics[t.topic_id]} ({t.topic_id}, rank "
                                              f"{t.rank})" for t in best))
        similar = profiler.similar(i, 5)
        lines.append("- similar: " + "; ".join(f"{s.name} ({s.score:.2f}: {', '.join(s.words)})"
                                               for s in similar))
        lines.append("")
    return lines


if __name__ == "__main__":
    main()
