"""What the first Train click of an app session waits for: from the click to the trained model
opened, in a fresh window (a new process each time, as a user starts the app), on each tree
given, alternating, so that two versions are compared in the same run.

    python benchmarks/bench_first_train_click.py [COLLECTION] [--trees DIR ...] [--repeat 3]
                                                 [--read 3] [--epochs N]

Each process opens the collection, waits until the window's start-up work is done and then
`--read` seconds more (a user reading the collection), clicks Train and times the run to the
model opened. `--trees` are source trees holding `expert_gui` (e.g. `git archive REV | tar -x
-C DIR`), run first on the path; default this checkout. COLLECTION defaults to the demo.
Prints each click's seconds and the median per tree. On the demo, on the project's two-core
machine: 2.79 s at 9f183c1, 1.96 s once the window's start-up also made torch's first optimiser
(medians of 3, alternating).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CLICK = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from PySide6.QtCore import QEventLoop, QTimer
from expert_gui.gui.app import create_application
from expert_gui.gui.main_window import MainWindow

app = create_application()
window = MainWindow()
window.confirm_stop_training = lambda: True
window.show()

def wait(until, limit=600.0):
    end = time.monotonic() + limit
    while not until():
        if time.monotonic() > end:
            raise SystemExit("timed out")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)

window.collection_panel.open_collection(sys.argv[2])
runner = window.state.runner
wait(lambda: window.state.collection is not None and not runner.running("load")
     and not runner.running("device"))
later = time.monotonic() + float(sys.argv[3])
wait(lambda: time.monotonic() > later)
if sys.argv[4]:
    window.training_panel.form.set_value("epochs", int(sys.argv[4]))
panel = window.training_panel
start = time.perf_counter()
panel.start_training()
wait(lambda: window.state.model is not None and panel.run_settled())
print(f"CLICK {time.perf_counter() - start:.3f}")
runner.stop_all()
"""


def click(tree: Path, collection: str, read: float, epochs: int | None) -> float:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    with tempfile.TemporaryDirectory() as home:
        env["EXPERT_GUI_HOME"] = home  # a fresh app: no remembered settings, models or cache
        done = subprocess.run([sys.executable, "-c", CLICK, str(tree), collection, str(read),
                               str(epochs or "")], env=env, capture_output=True, text=True,
                              timeout=1200, cwd=tempfile.gettempdir())
    lines = [line for line in done.stdout.splitlines() if line.startswith("CLICK ")]
    if done.returncode or not lines:
        raise SystemExit(f"{tree}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return float(lines[0].split()[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("collection", nargs="?", default=str(ROOT / "resources" / "demo"))
    p.add_argument("--trees", nargs="+", type=Path, default=[ROOT])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--read", type=float, default=3.0)
    p.add_argument("--epochs", type=int)
    args = p.parse_args()
    seconds: dict[Path, list[float]] = {t: [] for t in args.trees}
    for i in range(args.repeat):
        for tree in args.trees:
            s = click(tree.resolve(), args.collection, args.read, args.epochs)
            seconds[tree].append(s)
            print(f"{tree} click {i + 1}: {s:.2f} s", flush=True)
    for tree, values in seconds.items():
        print(f"{tree}: median {statistics.median(values):.2f} s over {len(values)} "
              f"({', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
