"""What training again on every document costs (issue 29, part 1): the app's Train button
(`train_with_held_out`, the collection's suggested settings) on a collection, timed in its
three parts: the measured run's steps, the calibration on the held-out documents, and the
second run on every document (`retrain_on_all`). The second run is compared with the first in
the same process, so a loaded machine still gives an honest ratio.

    python benchmarks/every_document.py resources/demo /work/shared/data/dpdk-maintainers \
        [--threads 2]
"""

from __future__ import annotations

import argparse
import time

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import TrainingStage, train_with_held_out
from expert_gui.core.evaluation.every_document import retrained
from expert_gui.core.train import trainer  # noqa: F401  torch, imported before the clock starts
from expert_gui.core.train.settings import TrainSettings, suggested_settings


def timed(path: str, threads: int) -> dict:
    collection = load_collection(path)
    base = TrainSettings(threads=threads, checkpoint_every=0, checkpoint_minutes=0)
    settings = suggested_settings(path, base, collection=collection).settings
    marks: dict[str, float] = {}

    def progress(event) -> None:
        if isinstance(event, TrainingStage):
            key = ("calibrating" if event.text.startswith("Calibrating") else
                   "again" if event.text.startswith("Training again") else None)
            if key and key not in marks:
                marks[key] = time.perf_counter()

    start = time.perf_counter()
    model = train_with_held_out(collection, settings, progress=progress)
    end = time.perf_counter()
    record = retrained(model)
    return {"collection": collection.name, "documents": collection.n_documents,
            "held_out": len(model.calibration["held_out"]["documents"]),
            "epochs": record["epochs"], "batch": settings.batch_size,
            "first": marks["calibrating"] - start, "calibration": marks["again"] -
            marks["calibrating"], "second": record["seconds"], "total": end - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collections", nargs="+")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    print("| collection | documents (held out) | settings | first run | calibration | "
          "second run | second / first |")
    print("|---|---|---|---|---|---|---|")
    for path in args.collections:
        r = timed(path, args.threads)
        print(f"| {r['collection']} | {r['documents']:,} ({r['held_out']:,}) | batch "
              f"{r['batch']}, {r['epochs']} epochs | {r['first']:.1f} s | "
              f"{r['calibration']:.1f} s | {r['second']:.1f} s | "
              f"{r['second'] / r['first']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
