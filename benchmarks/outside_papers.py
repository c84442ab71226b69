"""Papers from outside the collection (`rank --outside`): `auto`'s rule for them beside every
single method and `auto` as it ranks other queries, on the reviewer gold standard's shared dev
half and on the shared proxies of "who could review this?", seeds 0-2; with the label-free
evidence behind the rule (how far each method's answer follows who wrote most).

    .venv/bin/python benchmarks/outside_papers.py [--data ../shared/data] [--models DIR]
        [--seeds 0 1 2] [--sets reviewer aminer-papers aminer-experts-papers dpdk-pool-commits]
        [--threads 2] [--json OUT]

Each model is trained as `expert-gui train` trains it (the collection's suggested settings, the
held-out documents calibrating `auto`, then again on every document), seeded, and kept under
--models. Query sets:
- reviewer: the reviewer gold standard (Stelmakh et al.): the collection of 58 researchers'
  papers, the 188 judged papers of topics.dev.tsv as queries (rated by researchers for how well
  they could review them), relevant: grade >= 1 (rating 3-5 of 5);
- aminer-papers, aminer-experts-papers, dpdk-pool-commits: benchmarks/auto_generalises.py's sets
  of queries from outside (a paper removed from AMiner, its area's experts relevant; AMiner's
  experts' own papers as the collection and the topic papers none of them wrote; the 60 most
  prolific DPDK authors' commits as the collection and the commits of a driver section by
  anyone else, the section's maintainers relevant).

Printed per set and seed: MAP (ir-measures' AP over every candidate, the judged queries) of
`auto` as it ranks a query of the collection's own kind, `auto --outside`, and every single
method, the best single method and `auto --outside` less it; for the reviewer set also the
gold standard's own pairwise measure (for each researcher, the pairs of papers they rated with
different grades, weighted by the difference, in the wrong order by the score: lower is
better; ties count half) of each method's per-paper z-score; and, without labels, how the
log-linear model's answers follow the prior: the Spearman correlation of each person's mean
rank over the queries with their number of documents, Eq. 2 against the prior counted once.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import auto_generalises as ag
import numpy as np
from scipy.stats import spearmanr

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import index_for
from expert_gui.core.evaluation.measures import measure_run
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.evaluation.runs import run_from_rankings
from expert_gui.core.rankers.fusion import zscores
from expert_gui.core.rankers.methods import make_ranker

SINGLE = {"loglinear": {}, "loglinear-prior-once": {"aggregation": "prior-once"},
          "model1-jm": {}, "model1-d": {}, "model1-d-doc": {}, "model2-jm": {}, "model2-d": {},
          "tfidf": {}, "lsi": {}, "ensemble": {}}
SETS = ("reviewer", "aminer-papers", "aminer-experts-papers", "dpdk-pool-commits")
REVIEWER = "reviewer-goldstandard"


def model_and_queries(name: str, seed: int, args):
    """The set's model (trained as the app trains it), its collection and its query set."""
    if name == "reviewer":
        path = args.data / REVIEWER
        collection = load_collection(path)
        model = ag.model_for("reviewer", collection, path, seed, args)
        return model, collection, ag.topic_set(path / "topics.dev.tsv", path / "qrels.dev.txt")
    key = ag.SETS[name]
    collection, path = ag.collection_of(key, args)
    model = ag.model_for(key, collection, path, seed, args)
    if name == "aminer-papers":
        queries = ag.topic_set(path / "topics-documents.tsv", path / "qrels-documents.txt")
    elif name == "aminer-experts-papers":
        queries = ag.outside_papers(path, collection)
    else:
        queries = ag.outside_commits(args.data, collection)
    return model, collection, queries


def mean_ap(ranker, queries) -> tuple[float, dict[str, np.ndarray], int]:
    """MAP over the queries with a relevant person, and every query's scores of every person
    (in the ranker's order; the queries judged with none are ranked too, for the pairwise
    measure)."""
    topics = list(queries.queries)
    judged = [t for t in topics if queries.qrels[t]]
    rankings = ranker.rank_batch([queries.queries[t] for t in topics])
    qrels = {t: {p: 1 for p in queries.qrels[t]} for t in judged}
    run = run_from_rankings({t: r for t, r in zip(topics, rankings, strict=True)
                             if t in qrels})
    per_topic = measure_run(qrels, run, judged, ["AP"])
    scores = {}
    for topic, ranking in zip(topics, rankings, strict=True):
        row = np.full(len(ranking.person_ids), np.nan)
        row[ranking.people] = ranking.scores
        scores[topic] = row
    return float(np.mean(per_topic.values["AP"])), scores, len(judged)


def pairwise_loss(scores: dict[str, np.ndarray], person_ids, qrels) -> float:
    """The gold standard's measure on the graded qrels: per researcher, pairs of rated papers
    with different grades, weight the difference, wrong order 1, a tie 1/2."""
    where = {p: i for i, p in enumerate(person_ids)}
    rated: dict[str, list[tuple[str, int]]] = {}
    for topic, grades in qrels.items():
        for person, grade in grades.items():
            if topic in scores and person in where:
                rated.setdefault(person, []).append((topic, grade))
    z = {t: zscores(np.nan_to_num(s, nan=-np.inf)) for t, s in scores.items()}
    wrong = total = 0.0
    for person, items in rated.items():
        i = where[person]
        for a, ga in items:
            for b, gb in items:
                if ga > gb:
                    w = ga - gb
                    sa, sb = z[a][i], z[b][i]
                    total += w
                    wrong += w * (1.0 if sa < sb else 0.5 if sa == sb else 0.0)
    return wrong / total if total else float("nan")


def follows_prior(scores: dict[str, np.ndarray], documents: np.ndarray) -> float:
    """Spearman's rho of each person's mean rank (best = highest) with their documents."""
    ranks = np.array([np.argsort(np.argsort(-np.nan_to_num(s, nan=-np.inf))) for s in
                      scores.values()])
    return float(spearmanr(-ranks.mean(axis=0), documents).correlation)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--models", type=Path, default=Path("/tmp/outside-papers"))
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    args.demo, args.every_document, args.paper_settings, args.epochs = None, True, False, 0

    rows = []
    for name in args.sets:
        for seed in args.seeds:
            started = time.perf_counter()
            model, collection, queries = model_and_queries(name, seed, args)
            index = index_for(model, collection)
            row = {"set": name, "seed": seed, "queries": sum(1 for t in queries.queries
                                                             if queries.qrels[t])}
            scores = {}
            for method, options in {"auto": {}, **SINGLE}.items():
                base = "loglinear" if method.startswith("loglinear") else method
                ranker = make_ranker(base, model=model, collection=index, p_expert=False,
                                     **options)
                row[method], scores[method], _ = mean_ap(ranker, queries)
            outside = make_ranker("auto", model=model, collection=index, outside=True)
            row["auto --outside"], scores["auto --outside"], _ = mean_ap(outside, queries)
            singles = {m: row[m] for m in SINGLE}
            best = max(singles, key=singles.get)
            row["best single"], row["best"] = best, singles[best]
            row["outside - best"] = row["auto --outside"] - singles[best]
            documents = np.bincount(index.assoc_people, minlength=index.n_people)
            order = [index.person_index[q] for q in model.person_ids]
            row["rho Eq. 2"] = follows_prior(scores["loglinear"], documents[order])
            row["rho prior once"] = follows_prior(scores["loglinear-prior-once"],
                                                  documents[order])
            if name == "reviewer":
                graded = read_qrels(args.data / REVIEWER / "qrels.dev.txt")
                row["loss"] = {m: pairwise_loss(scores[m], model.person_ids, graded)
                               for m in ("auto --outside", "auto", "loglinear",
                                         "loglinear-prior-once", "model1-d", "model2-jm")}
            row["seconds"] = time.perf_counter() - started
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


def print_table(rows: list[dict]) -> None:
    methods = ["auto", "auto --outside", *SINGLE]
    print("| set | seed | queries | " + " | ".join(methods)
          + " | best single | --outside - best | rho Eq. 2 / prior once |")
    print("|" + "---|" * (len(methods) + 6))
    for r in rows:
        print(f"| {r['set']} | {r['seed']} | {r['queries']} | "
              + " | ".join(f"{r[m]:.3f}" for m in methods)
              + f" | {r['best single']} | {r['outside - best']:+.3f} | "
                f"{r['rho Eq. 2']:+.2f} / {r['rho prior once']:+.2f} |")
    for r in rows:
        if "loss" in r:
            print(f"pairwise loss, reviewer seed {r['seed']}: " + ", ".join(
                f"{m} {v:.3f}" for m, v in r["loss"].items()))


if __name__ == "__main__":
    raise SystemExit(main())
