"""Start-up time: `expert-gui --help`, `expert-gui COMMAND --help` and the GUI's window, this tree
against a previous version, in the same run.

    .venv/bin/python benchmarks/bench_startup.py [--previous main] [--runs 7] [--display :94]

The previous version is checked out with `git worktree add` into a temporary folder and run by
the same Python with its own package first on the path, so the two differ only in their code.
The two alternate, run by run; the figures are medians. The window time runs from starting the
process until a window of that process titled "Expertise Explorer" is visible on the X display
(found with xdotool), on a first launch (an empty user folder, so the demo collection opens);
it needs an X server (Xvfb is enough) and xdotool, and is skipped without them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WINDOW_TITLE = "Expertise Explorer"


def _env(tree: Path, home: Path, display: str | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "EXPERT_GUI_HOME": str(home)}
    if display:
        env["DISPLAY"] = display
        env.pop("QT_QPA_PLATFORM", None)
    return env


def time_help(tree: Path, args: list[str]) -> float | None:
    """Seconds of `expert-gui ARGS`; None when that version has no such command."""
    with tempfile.TemporaryDirectory() as home:
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "expert_gui", *args], cwd=tree,
                              env=_env(tree, Path(home), None), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        return time.perf_counter() - t if done.returncode == 0 else None


def time_window(tree: Path, display: str, timeout: float = 60.0) -> float | None:
    """Seconds until the app's window is visible (a first launch); None, with the reason on
    stderr, when the app ends or shows nothing within `timeout`."""
    with tempfile.TemporaryDirectory() as home:
        log = Path(home) / "stderr.txt"
        t = time.perf_counter()
        app = subprocess.Popen([sys.executable, "-m", "expert_gui"], cwd=tree,
                               env=_env(tree, Path(home), display),
                               stdout=subprocess.DEVNULL, stderr=log.open("wb"))
        try:
            while time.perf_counter() - t < timeout:
                if app.poll() is not None:
                    print(f"{tree}: the app ended ({app.returncode}) before its window showed:\n"
                          f"{log.read_text(errors='replace')[-2000:]}", file=sys.stderr)
                    return None
                found = subprocess.run(
                    ["xdotool", "search", "--all", "--onlyvisible", "--pid", str(app.pid), "--name",
                     f"^{WINDOW_TITLE}$"], env={**os.environ, "DISPLAY": display},
                    capture_output=True, text=True)
                if found.stdout.strip():
                    return time.perf_counter() - t
                time.sleep(0.01)
            print(f"{tree}: no window in {timeout} s", file=sys.stderr)
            return None
        finally:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait()


def previous_tree(ref: str, folder: Path) -> str:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), ref],
                   check=True, capture_output=True)
    return subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
                          check=True, capture_output=True, text=True).stdout.strip()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--previous", default="main", help="git ref of the version to compare with")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--display", default=os.environ.get("DISPLAY"),
                   help="X display for the window time (default $DISPLAY; none: skipped)")
    args = p.parse_args()
    from expert_gui.cli import COMMANDS

    cases = {"--help": ["--help"], **{f"{c} --help": [c, "--help"] for c in COMMANDS}}
    window = bool(args.display) and shutil.which("xdotool") is not None
    if not window:
        print("no X display or no xdotool: the window time is skipped", file=sys.stderr)
    folder = Path(tempfile.mkdtemp(prefix="expert-gui-previous-")) / "tree"
    commit = previous_tree(args.previous, folder)
    trees = {"ours": ROOT, "previous": folder}
    times: dict[str, dict[str, list]] = {n: {c: [] for c in [*cases, "window"]} for n in trees}
    try:
        for _ in range(args.runs):
            for name, tree in trees.items():
                for case, argv in cases.items():
                    times[name][case].append(time_help(tree, argv))
                if window:
                    times[name]["window"].append(time_window(tree, args.display))
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
                       check=False, capture_output=True)
    out = {"previous": f"{args.previous} ({commit})", "runs": args.runs,
           "python": sys.version.split()[0], "load_average_1min": os.getloadavg()[0]}
    for case in times["ours"]:
        ours_times = [x for x in times["ours"][case] if x is not None]
        if not ours_times:
            continue
        ours = statistics.median(ours_times)
        out[case] = {"ours_median_s": round(ours, 3), "ours_failed": len(times["ours"][case])
                     - len(ours_times)}
        before_times = [x for x in times["previous"][case] if x is not None]
        if before_times:
            before = statistics.median(before_times)
            out[case].update(previous_median_s=round(before, 3), speedup=round(before / ours, 2),
                             previous_failed=len(times["previous"][case]) - len(before_times))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
