"""What a user waits for in the window: from a key press (or a click) to the painted result,
against the ranking's own time measured in the same run.

Four actions, each timed from the event to the end of the first paint of the table that shows
the result (its last bar painted; the profile: the start of the words' paint once shown):
- a typed query: Enter in the query box -> the ranked people painted;
- a method change: another method chosen -> its ranking painted (the first time, after the
  window has had the time a user takes to read the first results: the app prepares the
  rankers in the background once a model opens; a method chosen again reuses its ranker);
- LSI chosen for the first time, likewise (its index is the slowest to build: about 30 s on
  DPDK);
- a profile: a person asked for -> their words painted, the first paint once the profile is
  shown (the first profile of a model also prepares the model, once);
- with --lsi-at-load, only this: LSI chosen as the model opens (a query typed) -> its ranking
  painted, the first LSI answer after the load, beside the rest the window then prepares.
The typed query is split into where its time goes: the ranking (log-linear and the chosen
method), the table of people, the explanation of the first person (each query word's evidence
and the supporting documents), the other panels that follow the query (entropy, nearest terms,
Model 2 comparison: deferred while they are behind a tab) and the paint.

    python benchmarks/bench_gui_latency.py [COLLECTION] --model MODEL_DIR [--repeat 5]
                                           [--lsi-at-load]

COLLECTION defaults to ../shared/data/dpdk-maintainers; MODEL_DIR is a model trained on it
(`expert-gui train COLLECTION --out MODEL_DIR`). It runs on QT_QPA_PLATFORM (offscreen unless
set; under X11, DISPLAY=:N QT_QPA_PLATFORM=xcb measures a real server's paints too). Prints
medians in milliseconds (and the 90th percentile of a typed query and a method change).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

QUERIES = ("vhost user", "memory allocation in the mempool", "flow rules mlx5", "packet capture",
           "crypto device")
METHODS = ("model2-jm", "auto", "model1-d", "auto")
PEOPLE = ("matan-azrad", "bruce-richardson", "maxime-coquelin", "akhil-goyal")


class PaintedTable:
    """The time the first paint of a table after `arm()` ends: when its last bar is painted
    (the bars' column is the last, painted last in each row), so a table painted at once in
    the key's handler and one painted later by the event loop are timed alike."""

    def __init__(self, table, column: int):
        from PySide6.QtCore import QEvent, QObject

        from expert_gui.gui.widgets import BarDelegate

        clock = self

        class Filter(QObject):
            def eventFilter(self, watched, event):
                if event.type() == QEvent.Type.Paint and clock.armed:
                    clock.paints += 1
                return False

        class Bars(BarDelegate):
            def paint(self, painter, option, index):
                super().paint(painter, option, index)
                if clock.armed and clock.paints == 1:
                    clock.painted = time.perf_counter()

        self.armed, self.painted, self.paints = False, None, 0
        self.filter = Filter()
        table.viewport().installEventFilter(self.filter)
        self.bars = Bars(table)
        table.setItemDelegateForColumn(column, self.bars)

    def arm(self) -> None:
        self.armed, self.painted, self.paints = True, None, 0


class PaintClock:
    """The time of the next paint of a widget after `arm()`."""

    def __init__(self, widget):
        from PySide6.QtCore import QEvent, QObject

        clock = self

        class Filter(QObject):
            def eventFilter(self, watched, event):
                if event.type() == QEvent.Type.Paint and clock.armed and clock.painted is None:
                    clock.painted = time.perf_counter()
                return False

        self.armed, self.painted = False, None
        self.filter = Filter()
        widget.installEventFilter(self.filter)

    def arm(self) -> None:
        self.armed, self.painted = True, None


def wait(app, until, timeout: float = 120.0) -> None:
    start = time.monotonic()
    while not until():
        if time.monotonic() - start > timeout:
            raise TimeoutError("gave up waiting")
        app.processEvents()
        time.sleep(0.001)


class Parts:
    """Inclusive time spent in named methods during one action (monkeypatched wrappers)."""

    def __init__(self):
        self.times: dict[str, float] = {}

    def wrap(self, obj, name: str, label: str) -> None:
        original = getattr(obj, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.times[label] = self.times.get(label, 0.0) + time.perf_counter() - start

        setattr(obj, name, timed)


def median_ms(values) -> str:
    return f"{1000 * statistics.median(values):8.1f}" if values else "       –"


def p90_ms(values) -> str:
    """The 90th percentile (the median of a few values is not the whole story on a busy
    machine)."""
    if len(values) < 2:
        return "–"
    return f"{1000 * statistics.quantiles(values, n=10, method='inclusive')[-1]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collection", nargs="?", default=str(ROOT.parent / "shared" / "data" /
                                                             "dpdk-maintainers"))
    parser.add_argument("--model", required=True, help="a model trained on the collection")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of every action (5)")
    parser.add_argument("--lsi-at-load", action="store_true",
                        help="measure only the first LSI answer after the model opens")
    args = parser.parse_args()

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.store.storage import load_model
    from expert_gui.gui.app import create_application
    from expert_gui.gui.main_window import MainWindow

    app = create_application()
    collection = load_collection(Path(args.collection))
    model = load_model(Path(args.model))
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    state, qp = window.state, window.query_panel
    state.set_collection(collection, Path(args.collection))
    if args.lsi_at_load:
        lsi_at_load(app, window, model, Path(args.model))
        return
    opened = time.perf_counter()
    state.set_model(model, Path(args.model))
    window.show_panel("Query")
    ended: dict[str, float] = {}  # when the query panel's ranker and the people map were ready

    def idle() -> bool:
        now = time.perf_counter() - opened
        if qp.method_ranker is not None:
            ended.setdefault("ranker", now)
        if "ranker" in ended and not state.runner.running("people-map"):
            ended.setdefault("people map", now)
        return qp.method_ranker is not None and not state.runner.any_running()

    # Until the window is idle: what it does once a model opens (rankers, Model 2, the people
    # map), as a user reading the first results would give it time to.
    wait(app, idle, timeout=1800)
    idle_after = time.perf_counter() - opened
    results = PaintedTable(qp.results, 4)

    parts = Parts()
    for name, label in (("_show_words", "query words line"), ("_explain", "explanation"),
                        ("_show_ranking", "table of people")):
        parts.wrap(qp, name, label)
    # The paint that counts is the first after the table is filled (the fitter lays out its
    # columns right after): the one that shows the people, also when the panel paints them
    # before it explains the first person.
    fit = qp.results_fitter.fit

    def fit_then_arm():
        fit()
        results.arm()

    qp.results_fitter.fit = fit_then_arm
    parts.wrap(state, "set_ranking", "other panels")
    ranker_times, typed, split = [], [], {}
    for _ in range(args.repeat):
        for query in QUERIES:
            qp.query_edit.setText(query)
            app.processEvents()
            ranker = qp.method_ranker
            start = time.perf_counter()
            ranker.rank(query)
            qp.ranker.rank(query)
            ranker_times.append(time.perf_counter() - start)
            parts.times.clear()
            results.armed = False
            start = time.perf_counter()
            QTest.keyClick(qp.query_edit, Qt.Key.Key_Return)
            handled = time.perf_counter()
            wait(app, lambda: results.painted is not None)
            typed.append(results.painted - start)
            timings = dict(parts.times)
            timings["table of people"] -= timings.get("explanation", 0.0)
            timings["ranking (log-linear and auto)"] = (
                handled - start - sum(timings.values()))
            timings["paint"] = results.painted - handled  # < 0: painted within the handler
            for key, value in timings.items():
                split.setdefault(key, []).append(value)

    def choose(method: str) -> float:
        results.armed = False
        start = time.perf_counter()
        qp.method_combo.setCurrentIndex(qp.method_combo.findData(method))
        wait(app, lambda: qp.ranking is not None and qp.ranking.method == method
             and results.painted is not None, timeout=600)
        return results.painted - start

    changed, first_change = [], []
    built = set()
    for _ in range(args.repeat):
        for method in METHODS:
            if qp.method() == method:
                continue
            (changed if method in built else first_change).append(choose(method))
            built.add(method)
    first_lsi = choose("lsi")
    choose("auto")

    window.show_panel("Profile")
    pp = window.profile_panel
    words = PaintClock(pp.words_table.viewport())
    shown = pp._show

    def show_then_arm(profile):  # the paint after the profile is shown, not one before it
        if profile is not None:
            words.arm()
        shown(profile)

    pp._show = show_then_arm
    profiles, first_profile = [], []
    for round_ in range(args.repeat):
        for person in PEOPLE:
            if person not in model.person_ids:
                continue
            words.armed, words.painted = False, None
            start = time.perf_counter()
            state.profile_requested.emit(person)
            wait(app, lambda p=person: pp.profile is not None and pp.profile.person_id == p
                 and words.painted is not None)
            (profiles if round_ or first_profile else first_profile).append(
                words.painted - start)
    state.runner.stop_all()

    print(f"{args.collection}: {collection.n_documents:,} documents, {model.n_people:,} people; "
          f"{args.repeat} rounds; QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}")
    print("median ms")
    print(f"{median_ms(ranker_times)}  the ranking itself: auto and log-linear, "
          "one query (the baseline)")
    print(f"{median_ms(typed)}  typed query: Enter -> ranked people painted "
          f"({statistics.median(typed) / statistics.median(ranker_times):.1f} x the ranking; "
          f"p90 {p90_ms(typed)} ms of {len(typed)})")
    for key in sorted(split, key=lambda k: -statistics.median(split[k])):
        print(f"{median_ms(split[key])}    of which {key}")
    print(f"{median_ms(first_change)}  method change, first time")
    print(f"{median_ms(changed)}  method change, again (p90 {p90_ms(changed)} ms of "
          f"{len(changed)})")
    print(f"{median_ms([first_lsi])}  LSI chosen, first time")
    print(f"{idle_after:8.1f} s   from the model opened to the window idle (rankers prepared, "
          "Model 2, people map)")
    for what, seconds in ended.items():
        print(f"{seconds:8.1f} s     of which the {what} ready")
    print(f"{median_ms(first_profile)}  profile, the model's first (prepares the model)")
    print(f"{median_ms(profiles)}  profile, next ones")


def lsi_at_load(app, window, model, path: Path) -> None:
    """From the model opened, with LSI chosen and a query typed, to LSI's ranking painted."""
    state, qp = window.state, window.query_panel
    window.show_panel("Query")
    results = PaintedTable(qp.results, 4)
    opened = time.perf_counter()
    state.set_model(model, path)
    qp.method_combo.setCurrentIndex(qp.method_combo.findData("lsi"))
    qp.set_query(QUERIES[0])  # the log-linear model answers until LSI is built
    results.arm()
    wait(app, lambda: qp.ranking is not None and qp.ranking.method == "lsi", timeout=1800)
    answered = time.perf_counter()
    app.processEvents()
    painted = results.painted or time.perf_counter()
    state.runner.stop_all()
    print(f"{answered - opened:8.1f} s   LSI's first answer after the model opened "
          f"({painted - opened:.1f} s to its paint)")


if __name__ == "__main__":
    main()
