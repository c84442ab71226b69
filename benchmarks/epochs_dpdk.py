"""MAP on the DPDK dev topics after each epoch: the measurement behind the default `epochs`.

    .venv/bin/python benchmarks/epochs_dpdk.py ../shared/data/dpdk-maintainers --epochs 20

Trains once, resuming epoch by epoch from the run's own checkpoint (so epoch E's model is exactly
the model an E-epoch run gives), and after each epoch ranks all people for every dev topic by
`model.query_log_probs` and scores the run with ir_measures' AP. Topics none of whose words the
model knows get AP 0. Also prints where early stopping on the validation loss would have
stopped, for patience 1 and 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path

import ir_measures
import numpy as np
from ir_measures import AP

from expert_gui.core.data.loading import load_collection
from expert_gui.core.data.text import NUMBER_RULES, TextSettings
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.trainer import train


def read_topics(path: Path) -> dict[str, str]:
    with open(path, encoding="utf-8", newline="") as f:
        return {r["topic_id"]: r["query"] for r in csv.DictReader(f, delimiter="\t")}


def mean_ap(model: LogLinearModel, topics: dict[str, str], qrels: list) -> float:
    run = []
    for qid, query in topics.items():
        ids, _, _ = model.encode(query)
        if len(ids) == 0:
            continue
        scores = model.query_log_probs(ids)
        run += [ir_measures.ScoredDoc(qid, pid, float(s))
                for pid, s in zip(model.person_ids, scores, strict=True)]
    per_topic = {m.query_id: m.value for m in ir_measures.iter_calc([AP], qrels, run)}
    judged = {q.query_id for q in qrels}
    return float(np.mean([per_topic.get(q, 0.0) for q in judged]))


def early_stop_epoch(val: list[float], patience: int) -> int:
    """The epoch early stopping would return (its best), and the run would end `patience` later."""
    best, best_epoch, bad = float("inf"), 0, 0
    for e, v in enumerate(val, start=1):
        if v < best:
            best, best_epoch, bad = v, e, 0
        else:
            bad += 1
            if bad >= patience:
                break
    return best_epoch


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", nargs="?", default="../shared/data/dpdk-maintainers")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--numbers", choices=NUMBER_RULES, default=TextSettings().numbers,
                   help="the text settings' number rule (the default, numbers, keeps names such as mlx5)")
    p.add_argument("--out", default=None, help="folder for the run (default: a temp folder)")
    args = p.parse_args()
    data = Path(args.data)
    collection = load_collection(Path(data), settings=TextSettings(numbers=args.numbers))
    topics = read_topics(data / "topics.dev.tsv")
    qrels = list(ir_measures.read_trec_qrels(str(data / "qrels.dev.txt")))
    out = Path(args.out or tempfile.mkdtemp(prefix="epochs-dpdk-"))
    rows = []
    for epochs in range(1, args.epochs + 1):
        t = time.perf_counter()
        settings = TrainSettings(epochs=epochs, checkpoint_every=0, device="cpu")
        model = train(collection, settings, out_dir=out, resume=epochs > 1)
        h = model.history[-1]
        rows.append({"epoch": epochs, "train_loss": h["train_loss"], "val_loss": h["val_loss"],
                     "MAP": mean_ap(model, topics, qrels), "seconds": time.perf_counter() - t})
        print(json.dumps(rows[-1]), flush=True)
    val = [r["val_loss"] for r in rows]
    for patience in (1, 2):
        e = early_stop_epoch(val, patience)
        print(f"early stopping (patience {patience}) returns epoch {e}: MAP {rows[e - 1]['MAP']:.4f}")
    best = max(rows, key=lambda r: r["MAP"])
    print(f"best MAP {best['MAP']:.4f} at epoch {best['epoch']}", file=sys.stderr)


if __name__ == "__main__":
    main()
