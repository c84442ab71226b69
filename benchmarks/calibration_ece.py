"""Reliability of P(expert) per method (issue 42): expected calibration error over each query's
top 10 (10 equal-width bins of P; the gap between mean P and the share relevant in each bin,
weighted by its count), and a reliability curve, before and after the fit that sees how peaked
the answer is.

"before": sigmoid(a z + b) fitted on the held-out documents alone, as models calibrated before
issue 42 did (refitted here with the same objective, so any model can be compared). "after":
the app's fit (calibration.fit_p_expert: the FEATURES of rankers/probability.py, on the
held-out documents and short queries drawn from them). On the held-out documents themselves
both are cross-fitted (fitted on half of them, measured on the other half, both ways round), so
no document judges a fit it was part of.

    python benchmarks/calibration_ece.py --model DIR --collection PATH \
        [--topics NAME TOPICS QRELS [outside]] ... [--methods auto loglinear ...] [--curves]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from expert_gui.core.data.loading import load_collection  # noqa: E402
from expert_gui.core.data.topics import read_topics  # noqa: E402
from expert_gui.core.evaluation.calibration import (  # noqa: E402
    fit_p_expert,
    held_out_again,
    index_for,
)
from expert_gui.core.evaluation.heldout import HeldOut  # noqa: E402
from expert_gui.core.evaluation.probability_fit import (  # noqa: E402
    BINS,
    calibration_error,
    fit_logistic,
    top_pairs,
)
from expert_gui.core.evaluation.qrels import read_qrels  # noqa: E402
from expert_gui.core.rankers.batch import block_size, blocks  # noqa: E402
from expert_gui.core.rankers.fusion import zscores  # noqa: E402
from expert_gui.core.rankers.methods import make_ranker  # noqa: E402
from expert_gui.core.rankers.probability import expert_probabilities, sigmoid  # noqa: E402
from expert_gui.core.store.storage import load_model  # noqa: E402

DEFAULT_METHODS = ("auto", "loglinear", "model1-d", "model2-jm", "model1-jm", "model2-d",
                   "model1-d-doc", "tfidf", "lsi", "ensemble")


def score_rows(ranker, texts):
    """Every person's score for each query, whether it knows a word, and its known words."""
    values = np.zeros((len(texts), len(ranker.person_ids)))
    knows, n_words = np.zeros(len(texts), dtype=bool), np.zeros(len(texts))
    start = 0
    for part in blocks(texts, block_size(ranker)):
        s = ranker.score_batch(part)
        values[start:start + len(part)] = s.values
        knows[start:start + len(part)] = [s.knows(i) for i in range(len(part))]
        n_words[start:start + len(part)] = [len(k) for k in s.known]
        start += len(part)
    return values, knows, n_words


def old_fit(values, knows, labels):
    """sigmoid(a z + b) on these queries, as models before issue 42 were fitted."""
    rows = np.flatnonzero(knows)
    z = zscores(values[rows]).ravel()
    w = fit_logistic(np.column_stack([z, np.ones_like(z)]), labels[rows].ravel())
    return lambda v, n: sigmoid(w[0] * zscores(v) + w[1])


def label_matrix(person_ids, topics, qrels):
    index = {p: i for i, p in enumerate(person_ids)}
    y = np.zeros((len(topics), len(person_ids)), dtype=bool)
    for i, t in enumerate(topics):
        for p, grade in qrels.get(t, {}).items():
            if grade > 0 and p in index:
                y[i, index[p]] = True
    return y


def half(split, documents):
    return HeldOut(split.collection, split.training, documents, split.settings)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--collection", required=True)
    ap.add_argument("--topics", nargs="+", action="append", default=[],
                    metavar="NAME TOPICS QRELS [outside]")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS))
    ap.add_argument("--curves", action="store_true", help="print each reliability curve")
    ap.add_argument("--show", nargs=2, metavar=("TOPIC_SET", "TOPIC"),
                    help="print the top P(expert) and the normalized entropy of one topic")
    args = ap.parse_args()

    model = load_model(args.model)
    collection = load_collection(args.collection, settings=model.text_settings)
    split = held_out_again(collection, model.calibration)
    index = index_for(model, collection)
    started = time.perf_counter()
    fits = fit_p_expert(model, split, model.calibration, args.methods)
    print(f"fit on {len(split.documents):,} held-out documents: "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    for method, fit in fits.items():
        print(f"{method}: the fit's own cross-fitted check: "
              + ", ".join(f"{k} ECE {e:.3f}" for k, e in fit["ece"].items())
              + f"; P(expert) shown for: {', '.join(fit['kinds']) or 'no query type'}")
    odd, even = half(split, split.documents[1::2]), half(split, split.documents[0::2])
    halves = [fit_p_expert(model, h, model.calibration, args.methods) for h in (odd, even)]

    sets = [("held-out documents", split.queries(), split.qrels(), False)]
    for spec in args.topics:
        name, topics_path, qrels_path, *rest = spec
        topics = read_topics(topics_path)
        sets.append((name, {t.id: t.query for t in topics}, read_qrels(qrels_path),
                     bool(rest and rest[0] == "outside")))
    print(f"{'set':<22} {'method':<13} {'queries':>7} {'ECE before':>10} {'ECE after':>9} "
          f"{'top-1 P before':>14} {'after':>6} {'P@1':>6}")
    curves, old_fits = [], {}
    for name, queries, qrels, outside in sets:
        topics = [t for t in queries if t in qrels]
        texts = [queries[t] for t in topics]
        for method in args.methods:
            ranker = make_ranker(method, model=model, collection=index, p_expert=False,
                                 outside=outside)
            values, knows, n_words = score_rows(ranker, texts)
            labels = label_matrix(ranker.person_ids, topics, qrels)
            after = np.zeros_like(values)
            before = np.zeros_like(values)
            if name == "held-out documents":  # cross-fitted: each half by the other's fit
                position = {d: i for i, d in enumerate(topics)}
                for h, other in ((odd, 1), (even, 0)):
                    rows = [position[d] for d in h.queries() if d in position]
                    fit = halves[other].get(method)
                    if fit is None:
                        continue
                    after[rows] = expert_probabilities(values[rows], n_words[rows],
                                                       fit["weights"])
                    rest = [r for r in range(len(topics)) if r not in set(rows)]
                    before[rows] = old_fit(values[rest], knows[rest], labels[rest])(
                        values[rows], n_words[rows])
            else:
                if method not in fits:
                    continue
                after = expert_probabilities(values, n_words, fits[method]["weights"])
                if method not in old_fits:
                    held_values, held_knows, _ = score_rows(
                        make_ranker(method, model=model, collection=index, p_expert=False),
                        list(split.queries().values()))
                    old_fits[method] = old_fit(held_values, held_knows, label_matrix(
                        ranker.person_ids, list(split.queries()), split.qrels()))
                before = old_fits[method](values, n_words)
            row = []
            relevant = [np.flatnonzero(y) for y in labels]
            for p in (before, after):
                e, curve = calibration_error(*top_pairs(values, p, relevant,
                                                        np.flatnonzero(knows)))
                top1 = [p[q, int(np.argmax(values[q]))] for q in np.flatnonzero(knows)]
                row.append((e, float(np.mean(top1)), curve))
            p_at_1 = float(np.mean([labels[q, int(np.argmax(values[q]))]
                                    for q in np.flatnonzero(knows)]))
            print(f"{name:<22} {method:<13} {int(knows.sum()):>7} {row[0][0]:>10.3f} "
                  f"{row[1][0]:>9.3f} {row[0][1]:>14.3f} {row[1][1]:>6.3f} {p_at_1:>6.3f}",
                  flush=True)
            curves.append((name, method, row[0][2], row[1][2]))
            if args.show and args.show[0] == name and args.show[1] in topics:
                q = topics.index(args.show[1])
                ranked = make_ranker(method, model=model, collection=index, p_expert=False)
                r = ranked.rank(texts[q])
                top = int(np.argmax(values[q]))
                print(f"    {args.show[1]} ({texts[q]!r}): top {ranker.person_ids[top]} "
                      f"relevant={bool(labels[q, top])} P before {before[q, top]:.3f} after "
                      f"{after[q, top]:.3f}; normalized entropy of P(c|q) "
                      f"{'-' if r.entropy is None else f'{r.entropy:.3f}'}")
    if args.curves:
        print("\nreliability curves: bin [lo, hi): count, mean P, share relevant "
              "(before | after)")
        for name, method, before, after in curves:
            print(f"{name} / {method}")
            for label, curve in (("before", before), ("after", after)):
                cells = "  ".join(f"{b / BINS:.1f}: {n} {mp:.2f} {fy:.2f}"
                                  for b, n, mp, fy in curve)
                print(f"  {label:<6} {cells}")


if __name__ == "__main__":
    main()
