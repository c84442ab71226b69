"""How late a 20 ms QTimer fires in the app's window: idle, while a collection loads, and while a
model trains.

    python benchmarks/gui_responsiveness.py COLLECTION [--seconds 5] [--dim 300] [--batch-size 1024]
                                            [--threads N]   (default: the app's, cores - 1)

Both phases run in the same process on the same machine, so the idle phase is the baseline. The
issue's bar: no stall above 100 ms while training.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

TICK_MS = 20


def measure(app, seconds: float, until=None) -> list[float]:
    """Lateness (ms) of each tick of a TICK_MS timer over `seconds` of event loop (or until
    `until()` holds)."""
    from PySide6.QtCore import QTimer

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and not (until is not None and until()):
        app.processEvents()
        time.sleep(0.001)
    timer.stop()
    return [(b - a) * 1000 - TICK_MS for a, b in zip(ticks, ticks[1:], strict=False)]


def summary(name: str, lateness: list[float]) -> str:
    if len(lateness) < 2:
        return f"{name:>9}: too short to measure"
    q = statistics.quantiles(lateness, n=100, method="inclusive")  # never beyond the max
    return (f"{name:>9}: {len(lateness)} ticks, lateness median {statistics.median(lateness):.1f} "
            f"ms, p99 {q[98]:.1f} ms, max {max(lateness):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection", type=Path)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=None,
                        help="training threads (0: every core); default: the form's")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("EXPERT_GUI_HOME", tempfile.mkdtemp(prefix="expert-gui-bench-"))

    from expert_gui.gui.app import create_application
    from expert_gui.gui.main_window import MainWindow
    from expert_gui.gui.screenshots import wait_until

    app = create_application()
    window = MainWindow()
    window.show()
    print(summary("idle", measure(app, args.seconds)))
    started = time.perf_counter()
    window.collection_panel.open_collection(args.collection)
    lateness = measure(app, 3600, until=lambda: window.state.collection is not None
                       and not window.state.runner.running("load"))
    print(summary("loading", lateness) + f" ({time.perf_counter() - started:.1f} s load)")
    wait_until(lambda: not window.state.runner.any_running(), 600)
    panel = window.training_panel
    settings = {"dim": args.dim, "batch_size": args.batch_size, "epochs": 1000,
                "checkpoint_every": 0}
    if args.threads is not None:
        settings["threads"] = args.threads
    for name, value in settings.items():
        panel.form.set_value(name, value)
    print(f"training threads: {panel.form.settings().threads}")
    panel.start_training()
    wait_until(lambda: len(panel.plot.steps) > 0, 600)
    steps_before = len(panel.plot.steps)
    lateness = measure(app, args.seconds)
    steps = len(panel.plot.steps) - steps_before
    print(summary("training", lateness) + f" ({steps} steps meanwhile)")
    panel.stop_training()
    wait_until(lambda: not panel.is_training(), 600)


if __name__ == "__main__":
    main()
