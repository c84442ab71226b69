"""How far the time left a run shows is from the time its steps then took: at 10%, 25% and 50%
of the steps (and at the first estimate), shown against actual, as the app's Train button runs
a collection (its suggested settings, the held-out split, the progress events the Training panel
and `expert-gui train` show).

    .venv/bin/python benchmarks/eta_error.py PATH [PATH ...] [--epochs N] [--threads N]

`actual` runs from the event to the end of the steps (the last epoch's end, its validation loss
and held-out MAP included, as the shown time counts them); the run is stopped there, before
the calibration, which has a progress of its own. The error is (shown - actual) / actual. The
machine's load is printed with each run: other work on a shared machine changes the rate after
the estimate was made.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path

from expert_gui.core.data.loading import load_collection
from expert_gui.core.evaluation.calibration import train_with_held_out
from expert_gui.core.train.settings import TrainSettings, suggested_settings
from expert_gui.core.train.trainer import TrainProgress

FRACTIONS = (0.10, 0.25, 0.50)


def measure(path: Path, epochs: int | None, threads: int) -> dict:
    collection = load_collection(path)
    settings = suggested_settings(collection.source, TrainSettings(device="cpu"),
                                  collection=collection).settings
    settings = replace(settings, retrain_on_all=False, threads=threads,
                       epochs=epochs or settings.epochs)
    events: list[tuple[float, TrainProgress]] = []
    done = {"steps": False}

    def progress(event) -> None:
        if isinstance(event, TrainProgress):
            events.append((time.perf_counter(), event))
            done["steps"] = (event.step == event.total_steps and not event.loss_is_new
                             and event.epoch == event.epochs)

    train_with_held_out(collection, settings, progress=progress,
                        should_stop=lambda: done["steps"])
    end = events[-1][0]
    total = events[-1][1].total_steps
    row = {"collection": path.name, "steps": total, "epochs": settings.epochs,
           "batch": settings.batch_size, "load": os.getloadavg()[0]}
    first = next((t, e) for t, e in events if e.eta_s != float("inf"))
    at = {"first": first}
    for f in FRACTIONS:
        at[f"{f:.0%}"] = next((t, e) for t, e in events if e.step >= f * total)
    for name, (t, e) in at.items():
        actual = end - t
        row[name] = (e.eta_s, actual, (e.eta_s - actual) / actual if actual > 0 else 0.0)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--epochs", type=int, help="instead of the suggested number")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's)")
    args = parser.parse_args()
    for path in args.paths:
        started = os.getloadavg()[0]
        row = measure(path, args.epochs, args.threads)
        print(f"{row['collection']}: {row['steps']} steps ({row['epochs']} epochs of batches of "
              f"{row['batch']}), load average {started:.2f} at the start, "
              f"{row['load']:.2f} at the end")
        for name in ("first", *(f"{f:.0%}" for f in FRACTIONS)):
            shown, actual, error = row[name]
            print(f"  at {name:>5}: shown {shown:7.1f} s, actual {actual:7.1f} s, "
                  f"error {error:+.0%}")


if __name__ == "__main__":
    main()
