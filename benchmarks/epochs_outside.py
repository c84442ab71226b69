"""The log-linear model's MAP after each epoch on AMiner, on its held-out documents and on queries
from outside the collection: the measurement behind the suggested epochs (core/train/shape.py).

    .venv/bin/python benchmarks/epochs_outside.py [../shared/data/aminer-dblp] \
        [--batches 1024 127] [--epochs 30] [--seed 0] [--threads 1]

The 114 papers of topics-documents.tsv are removed from the collection first (as
`experiment --exclude-topic-documents` does), so that as queries they come from outside it, as
the 7 areas of topics.tsv do; 2% of the rest (50 documents) are held out, seeded. One training
per batch size; after every epoch, from the parameters as they are (Eq. 2's order: W_c sum W_p
+ k b), the MAP of the held-out documents as queries (their authors relevant: what the
calibration measures), of the 7 areas and of the 114 papers (the experts of their area
relevant), over all people, relevant people without documents counted as never found.
Printed: one row per epoch and batch size, and each curve's best epoch for each query set.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import Tokenizer
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.calibration import held_out_map
from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out, without_documents
from expert_gui.core.evaluation.qrels import read_qrels
from expert_gui.core.rankers.fusion import average_precisions
from expert_gui.core.train.instances import count_instances
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.shape import steps_per_epoch
from expert_gui.core.train.trainer import train


def topic_map(training, topics: Path, qrels: Path):
    """MAP of Eq. 2's ranking of every judged topic, from raw parameters."""
    tokenizer = Tokenizer(training.settings)
    index = training.person_index
    judged = read_qrels(qrels)
    encoded = []
    for topic in read_topics(topics):
        relevant = [p for p, g in judged.get(topic.id, {}).items() if g > 0]
        if relevant:
            encoded.append((training.vocab.encode(tokenizer.words(topic.query))[0],
                            np.array([index[p] for p in relevant if p in index], dtype=np.int64),
                            len(relevant)))

    def score(params: dict) -> float:
        wp, wc, b = (np.asarray(params[k], dtype=np.float64) for k in
                     ("word_embeddings", "candidate_weights", "candidate_bias"))
        total = 0.0
        for ids, found, judged_count in encoded:
            if len(ids) and len(found):
                logits = wc @ wp[ids].sum(axis=0) + len(ids) * b
                total += float(average_precisions(logits[None, :], found)[0]) * \
                    len(found) / judged_count
        return total / len(encoded)

    return score


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("aminer", nargs="?", type=Path, default=Path("../shared/data/aminer-dblp"))
    p.add_argument("--batches", type=int, nargs="+", default=[1024, 127])
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()

    collection = load_collection(args.aminer)
    papers = {t.query.strip() for t in read_topics(args.aminer / "topics-documents.tsv")}
    drop = [d for d in range(collection.n_documents) if collection.text(d).strip() in papers]
    split = hold_out(without_documents(collection, np.asarray(drop, dtype=np.int64)),
                     HeldOutSettings(seed=args.seed))
    measures = {"held-out": held_out_map(split),
                "areas": topic_map(split.training, args.aminer / "topics.tsv",
                                   args.aminer / "qrels.txt"),
                "papers": topic_map(split.training, args.aminer / "topics-documents.tsv",
                                    args.aminer / "qrels-documents.txt")}
    print(f"{len(drop)} query papers removed, {len(split.documents)} held out; "
          f"{split.training.n_documents:,} documents trained on", file=sys.stderr)
    print("| batch | epoch | steps | " + " | ".join(measures) + " |\n|---|---|---|---|---|---|")
    curves = {}
    for batch in args.batches:
        rows = []

        per_epoch = steps_per_epoch(count_instances(split.training), batch)

        def epoch_score(params, batch=batch, rows=rows, per_epoch=per_epoch) -> float:
            row = {name: f(params) for name, f in measures.items()}
            rows.append(row)
            print(f"| {batch} | {len(rows)} | {len(rows) * per_epoch:,} | " +
                  " | ".join(f"{v:.3f}" for v in row.values()) + " |", flush=True)
            return row["held-out"]

        settings = TrainSettings(batch_size=batch, epochs=args.epochs, seed=args.seed,
                                 threads=args.threads, checkpoint_every=0, checkpoint_minutes=0)
        train(split.training, settings, epoch_score=epoch_score)
        curves[batch] = rows
    for batch, rows in curves.items():
        best = {name: max(range(len(rows)), key=lambda e, n=name: rows[e][n]) + 1
                for name in measures}
        print(f"\nbatch {batch}: best epoch " + ", ".join(
            f"{name} {e} ({rows[e - 1][name]:.3f})" for name, e in best.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
