"""Model 2 comparison panel: one query ranked side by side by the log-linear model, Model 2 (jm or
d smoothing) and their ensemble (Eq. 5), rank changes highlighted; with topics and qrels, the
paper's Table 2 and Table 4 for this collection and the per-topic AP difference (Figure 5); and,
with no judgments at all, every method on the documents held out of the model's training: which
method works best on this collection."""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.analysis import APDifference, ap_difference
from expert_gui.core.evaluation.calibration import held_out_measures, index_for
from expert_gui.core.evaluation.evaluate import Stopped, evaluate
from expert_gui.core.evaluation.every_document import USES_THE_MODEL, retrained, retrained_note
from expert_gui.core.evaluation.measures import LABELS, evaluated_topics
from expert_gui.core.evaluation.qrels import check_coverage, restrict
from expert_gui.core.evaluation.quality import CHANCE
from expert_gui.core.evaluation.tables import (
    TABLE2_METHODS,
    TABLE4_METHODS,
    Table,
    build_table,
    label,
)
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.fusion import auto_label
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.save_dialogs import choose_folder
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    BETTER,
    WORSE,
    WhenShown,
    boxed,
    fill_table,
    item,
    make_plot,
    make_table,
    set_placeholder,
    shortened,
)

SHOWN = 20  # people per side-by-side ranking
SMOOTHINGS = {"Jelinek-Mercer (jm)": "model2-jm", "Dirichlet (d)": "model2-d"}
EVALUATED = (*TABLE2_METHODS, "ensemble")


@dataclass(frozen=True)
class Evaluation:
    """Tables 2 and 4 and Figure 5 for the loaded topics."""

    n_topics: int
    people: int  # the people ranked and judged within (0: everybody)
    table2: Table
    table4: Table
    difference: APDifference


# What Save report does (experiment.report_for_model's stages, in order), as the bar names them.
REPORT_STAGES = {"load": "reading the collection", "train": "opening the model",
                 "rank": "ranking the topics with every method",
                 "heldout": "ranking the held-out documents", "numbers": "the other numbers",
                 "analyse": "tables and significance tests",
                 "expansion": "query expansion (Figure 4)"}


def evaluate_methods(model, collection, queries: dict[str, str], qrels: dict, *,
                     people: list[str] | None = None, progress=None,
                     should_stop=None) -> Evaluation:
    """Rank and score every topic with every method of Tables 2 and 4 (runs in a worker);
    with `people`, only they are ranked and judged, and the topics none of whose relevant
    people is among them are left out."""
    if people:
        qrels, _ = restrict(qrels, people)
    check_coverage(qrels, queries, people or model.person_ids)
    topics = evaluated_topics(qrels, list(queries))
    collection = index_for(model, collection)
    per_topic = {}
    for i, method in enumerate(EVALUATED):
        if progress is not None:
            progress((i, len(EVALUATED), label(method)))
        ranker = make_ranker(method, model=model, collection=collection)
        if people:
            ranker = Restricted(ranker, people)
        per_topic[method], _ = evaluate(ranker, queries, qrels, topics, should_stop=should_stop)
    if progress is not None:
        progress((len(EVALUATED), len(EVALUATED), "significance tests"))
    table2 = build_table("Table 2", per_topic, TABLE2_METHODS, "loglinear")
    table4 = build_table("Table 4", per_topic, TABLE4_METHODS, "ensemble")
    difference = ap_difference(topics, per_topic["loglinear"].values["AP"],
                               per_topic["model2-jm"].values["AP"])
    return Evaluation(len(topics), len(people or ()), table2, table4, difference)


def build_model2(collection, method: str):
    """Model 2's index of the collection (a worker builds it: it reads every document)."""
    return make_ranker(method, collection=collection)


def fill_results_table(table: QTableWidget, table_result: Table) -> None:
    """Means per method and measure, the best in bold, significance marks as in the paper."""
    headers = ["Method", *(LABELS.get(x, x) for x in table_result.measures)]
    table.setColumnCount(len(headers))
    table.setHorizontalHeaderLabels(headers)
    rows = []
    for m in table_result.methods:
        name = label(m) + (" (reference)" if m == table_result.reference else "")
        row = [item(name)]
        for x in table_result.measures:
            cell = item(f"{table_result.means[m][x]:.3f}{table_result.mark(m, x)}",
                        align_right=True)
            if m in table_result.best(x):
                font = QFont(cell.font())
                font.setBold(True)
                cell.setFont(font)
            p = table_result.p_values.get(m, {}).get(x)
            if p is not None:
                cell.setToolTip(f"adjusted p = {p:.4g} against {table_result.reference}")
            row.append(cell)
        rows.append(row)
    fill_table(table, rows)


class ComparisonPanel(QWidget):
    report_written = Signal(object)  # the folder of a saved report

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("comparison-panel")
        self.model2 = None
        self.evaluation: Evaluation | None = None

        self.smoothing_combo = QComboBox()
        self.smoothing_combo.addItems(list(SMOOTHINGS))
        self.smoothing_combo.setToolTip("Model 2's smoothing (section 4.2 of the paper)")
        self.smoothing_combo.currentTextChanged.connect(lambda _: self._build_model2())
        self.query_label = QLabel("Run a query to compare the models.")
        self.query_label.setWordWrap(True)
        self.evaluate_button = QPushButton("Evaluate topic set")
        self.evaluate_button.setToolTip("Rank every judged topic with every method and build the "
                                        "paper's Tables 2 and 4 (runs in the background)")
        self.evaluate_button.clicked.connect(self.evaluate)
        self.report_button = QPushButton("Save report…")
        self.report_button.setToolTip(
            "Write what `expert-gui experiment --model` writes for this model, collection, "
            "topics and qrels: run files, Tables 2 and 4 (Markdown, CSV, LaTeX), per-topic "
            "measures, Figures 3-5 and report.md (runs in the background)")
        self.report_button.clicked.connect(self.save_report)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.eval_label = QLabel("Open topics and qrels, and a model, to evaluate.")
        self.eval_label.setWordWrap(True)

        self.rank_tables = {
            key: make_table(["Rank", "Δ", "Person"]) for key in ("loglinear", "model2", "ensemble")
        }
        self.rank_titles = {"loglinear": "Log-linear", "model2": "Model 2 (jm)",
                            "ensemble": "Ensemble (Eq. 5)"}
        self.rank_boxes = {}
        sides = QSplitter(Qt.Orientation.Horizontal)
        for key, table in self.rank_tables.items():
            table.setToolTip("Δ: places gained (green) or lost (red) against the log-linear model. "
                             "Double-click a person to see their profile")
            table.cellDoubleClicked.connect(lambda row, _c, t=table: self._open_profile(t, row))
            self.rank_boxes[key] = boxed(self.rank_titles[key], table)
            sides.addWidget(self.rank_boxes[key])

        self.table2 = make_table(["Method"], stretch_last=False)
        self.table4 = make_table(["Method"], stretch_last=False)
        self.diff_plot = make_plot("AP(log-linear) − AP(Model 2 (jm)) per topic (Figure 5)",
                                   "topics, sorted by difference", "ΔAP")
        self.diff_bars = pg.BarGraphItem(x=[], height=[], width=0.85)
        self.diff_plot.addItem(self.diff_bars)
        tabs = QTabWidget()
        tabs.addTab(self.table2, "Table 2: all methods")
        tabs.addTab(self.table4, "Table 4: ensemble")
        tabs.addTab(self.diff_plot, "Per-topic AP difference")
        self.heldout_table = make_table(["Method", "MAP", "MRR"], stretch_last=False)
        self.heldout_button = QPushButton("Measure every method")
        self.heldout_button.setToolTip("Rank every held-out document with every method (runs in "
                                       "the background)")
        self.heldout_button.clicked.connect(self.measure_held_out)
        self.heldout_label = QLabel()
        self.heldout_label.setWordWrap(True)
        held = QWidget()
        hl = QVBoxLayout(held)
        row = QHBoxLayout()
        row.addWidget(self.heldout_label, 1)
        row.addWidget(self.heldout_button)
        hl.addLayout(row)
        hl.addWidget(self.heldout_table, 1)
        tabs.addTab(held, "Held-out documents: which method works best here")
        self.results_tabs = tabs

        top = QHBoxLayout()
        top.addWidget(QLabel("Model 2 smoothing:"))
        top.addWidget(self.smoothing_combo)
        top.addWidget(self.query_label, 1)
        eval_row = QHBoxLayout()
        eval_row.addWidget(self.evaluate_button)
        eval_row.addWidget(self.report_button)
        eval_row.addWidget(self.progress)
        eval_row.addWidget(self.eval_label, 1)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(eval_row)
        bl.addWidget(tabs, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(sides)
        split.addWidget(boxed("Topic set", bottom))
        split.setSizes([380, 320])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        state.collection_changed.connect(lambda _: self._build_model2())
        state.collection_changed.connect(lambda _: self._reset())
        state.model_changed.connect(lambda _: self._reset())
        state.model_changed.connect(self._show_calibration)
        state.topics_changed.connect(self._reset)
        state.people_changed.connect(self._reset)
        # Behind a tab, it compares the query when next shown (WhenShown).
        self._when_ranked = WhenShown(self, self.compare,
                                      latest=lambda: self.state.ranking)
        state.ranked.connect(self._when_ranked)
        self._reset()
        self._show_calibration(state.model)

    # -- held-out documents -------------------------------------------------------------------------
    def _show_calibration(self, model) -> None:
        """What the model's training measured on its held-out documents: auto and its members."""
        calibration = getattr(model, "calibration", None)
        self.heldout_button.setEnabled(bool(calibration))
        if not calibration:
            self.heldout_label.setText(
                "Train a model (held-out documents are set aside by default) to see which method "
                "works best on this collection, with no relevance judgments.")
            fill_table(self.heldout_table, [])
            return
        self.fill_held_out({m: (v["AP"], v["RR"]) for m, v in calibration["measures"].items()})

    def fill_held_out(self, measures: dict[str, tuple[float, float]]) -> None:
        """One row per method, best MAP first; the verdict in the label."""
        calibration = self.state.model.calibration
        chance = calibration["measures"].get(CHANCE)
        order = sorted((m for m in measures if m != CHANCE), key=lambda m: -measures[m][0])
        if chance is not None:  # last, as the floor every method should be far above
            measures = {**measures, CHANCE: (chance["AP"], chance["RR"])}
            order.append(CHANCE)
        fill_table(self.heldout_table, [
            [label(m), item(f"{measures[m][0]:.3f}", align_right=True),
             item(f"{measures[m][1]:.3f}", align_right=True)] for m in order])
        n = len(calibration["held_out"]["documents"])
        auto = auto_label(calibration)
        self.heldout_label.setText(
            f"Each of the {n:,} documents held out of training is a query, its own people the "
            f"answers. Best on this collection: <b>{label(order[0])}</b> "
            f"(MAP {measures[order[0]][0]:.3f}). Auto: {html.escape(auto)}. "
            + html.escape(retrained_note(self.state.model)))

    def measure_held_out(self) -> None:
        s = self.state
        if s.model is None or s.collection is None or not s.model.calibration:
            if s.collection is None:
                self.heldout_label.setText("Open the model's collection to measure every method.")
            return
        self.heldout_button.setEnabled(False)
        self.heldout_label.setText("Ranking the held-out documents with every method…")
        s.runner.start("heldout", held_out_measures, s.model, s.collection,
                       on_success=self._held_out_measured, on_failure=self._held_out_failed)

    def _held_out_measured(self, per_method) -> None:
        self.heldout_button.setEnabled(True)
        measures = {m: (p.mean("AP"), p.mean("RR")) for m, p in per_method.items()}
        if retrained(self.state.model):  # the methods of the model kept are not measured again
            measures = {**{m: (v["AP"], v["RR"]) for m, v in
                           self.state.model.calibration["measures"].items()
                           if m in USES_THE_MODEL}, **measures}
        self.fill_held_out(measures)

    def _held_out_failed(self, exc, details) -> None:
        self.heldout_button.setEnabled(True)
        self.heldout_label.setText("Measuring stopped." if isinstance(exc, Stopped)
                                   else "Measuring failed.")
        if not isinstance(exc, Stopped):
            show_error(self, "Cannot measure the held-out documents", exc, details)

    # -- side by side -------------------------------------------------------------------------------
    def _model2_method(self) -> str:
        return SMOOTHINGS[self.smoothing_combo.currentText()]

    def _build_model2(self) -> None:
        self.model2 = None
        if self.state.collection is None:
            return
        method = self._model2_method()
        collection = self.state.collection
        self.rank_boxes["model2"].setTitle(f"Model 2 ({method.split('-')[1]})")
        self.state.runner.start(
            "model2", build_model2, collection, method,
            on_success=lambda ranker: self._model2_ready(ranker, collection),
            on_failure=lambda e, tb: show_error(self, "Cannot build Model 2", e, tb))

    def _model2_ready(self, ranker, collection) -> None:
        if collection is not self.state.collection:
            return  # built for a collection that has since been replaced
        self.model2 = ranker
        if self.state.ranking is not None:
            self.compare(self.state.ranking)

    def compare(self, ranking) -> None:
        """Rank the log-linear model's query with Model 2 and the ensemble; Δ against log-linear."""
        if self.model2 is None or ranking.no_known_words:
            self.query_label.setText("Model 2 is being built…" if self.model2 is None
                                     else "No known query word.")
            return
        from expert_gui.core.rankers.ensemble import EnsembleRanker  # scipy: not at start-up

        loglinear = make_ranker("loglinear", model=self.state.model)
        try:
            ensemble = EnsembleRanker([self.model2, loglinear])
        except QueryError as exc:
            self.query_label.setText(f"Cannot compare: {exc} (the model was trained on "
                                     "another collection)")
            return
        rankings = {"loglinear": ranking, "model2": self.model2.rank(ranking.query),
                    "ensemble": ensemble.rank(ranking.query)}
        base = {ranking.person_ids[p]: r for r, p in enumerate(ranking.people, start=1)}
        names = dict(zip(self.state.model.person_ids, self.state.model.person_names, strict=True))
        for key, r in rankings.items():
            rows = []
            for rank, person in enumerate(r.people[:SHOWN], start=1):
                pid = r.person_ids[person]
                delta = base.get(pid, len(base) + 1) - rank
                cell = item(f"{delta:+d}" if delta else "·", align_right=True)
                if key != "loglinear" and delta:
                    cell.setBackground(BETTER if delta > 0 else WORSE)
                person = item(names.get(pid, pid), tooltip=pid)
                person.setData(Qt.ItemDataRole.UserRole, pid)
                rows.append([rank, cell, person])
            fill_table(self.rank_tables[key], rows)
        # A pasted abstract is one short line here (whole in the tooltip), not a tall header.
        self.query_label.setText(f"“{shortened(ranking.query)}”: the top {SHOWN} of each method; "
                                 "Δ is the number of places a person moved up (+) or down (−) "
                                 "against the log-linear ranking.")
        self.query_label.setToolTip(ranking.query)

    def _open_profile(self, table, row: int) -> None:
        cell = table.item(row, 2)
        if cell is not None:
            self.state.profile_requested.emit(cell.data(Qt.ItemDataRole.UserRole))

    # -- the topic set ------------------------------------------------------------------------------
    def _reset(self) -> None:
        """Another collection, model or topic set: results of the previous ones go, and the
        label says what is still missing."""
        s = self.state
        s.runner.stop("evaluation")
        self.progress.setVisible(False)
        self.evaluation = None
        for table in (self.table2, self.table4):
            table.setRowCount(0)
            table.setColumnCount(1)
            table.setHorizontalHeaderLabels(["Method"])
        for table in self.rank_tables.values():
            table.setRowCount(0)
        self.diff_bars.setOpts(x=[], height=[])
        self.query_label.setText("Run a query to compare the models.")
        missing = [what for what, ok in (("a collection", s.collection is not None),
                                         ("a model", s.model is not None),
                                         ("topics", bool(s.topics)), ("qrels", bool(s.qrels)))
                   if not ok]
        self.evaluate_button.setEnabled(not missing)
        self.report_button.setEnabled(not missing and None not in (
            s.collection_path, s.model_path, s.topics_path, s.qrels_path)
            and s.runner.running("report") is None)
        if missing:
            text = "To evaluate, open " + _and(missing) + "."
        else:
            text = (f"{len(s.topics):,} topics and their qrels are open: click “Evaluate topic "
                    "set” for Tables 2 and 4.")
        self.eval_label.setText(text)
        set_placeholder(self.diff_plot, text)
        if s.ranking is not None:  # the query panel re-ranked with the new model first
            self.compare(s.ranking)

    def evaluate(self) -> None:
        s = self.state
        if s.model is None or s.collection is None or not s.topics or not s.qrels:
            return
        self.progress.setVisible(True)
        self.progress.setRange(0, len(EVALUATED))
        self.progress.setValue(0)
        self.eval_label.setText("Evaluating…")
        s.runner.start("evaluation", evaluate_methods, s.model, s.collection, dict(s.topics),
                       s.qrels, people=list(s.people), on_progress=self._on_progress, on_success=self.show_evaluation,
                       on_failure=self._failed)

    # -- the report -------------------------------------------------------------------------------
    def save_report(self) -> None:
        folder = choose_folder(self, "Save the report in a folder (an empty one; otherwise a "
                                     "new folder is made in it)")
        if folder is not None:
            self.write_report(folder)

    def write_report(self, folder: Path) -> None:
        """`experiment --model`'s files, in `folder` when it is empty, else in a new folder of
        it named after the collection and the time."""
        s = self.state
        if not self.report_button.isEnabled():
            return
        if folder.is_dir() and any(folder.iterdir()):
            folder = folder / f"report-{s.collection.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        self.report_button.setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.eval_label.setText(f"Writing the report to {folder}…")
        s.runner.start("report", "expert_gui.core.evaluation.experiment:report_for_model",
                       s.collection_path, s.topics_path, s.qrels_path, folder, s.model_path,
                       on_progress=self._report_progress,
                       on_success=self._report_written, on_failure=self._report_failed)

    def _report_progress(self, events: list) -> None:
        """One bar for the whole report, never going back: each stage its share, the stage's
        own progress within it (the bar restarted at every stage, 5 minutes on DPDK)."""
        e = events[-1]
        if e.stage not in REPORT_STAGES:
            return
        position = list(REPORT_STAGES).index(e.stage)
        within = min(e.done / e.total, 1.0) if e.total else 0.0
        value = int(1000 * (position + within) / len(REPORT_STAGES))
        self.progress.setRange(0, 1000)
        self.progress.setValue(max(value, self.progress.value()))
        share = f" {within:.0%}" if e.total else ""
        self.eval_label.setText(f"Writing the report, step {position + 1} of "
                                f"{len(REPORT_STAGES)}: {REPORT_STAGES[e.stage]}…{share}")

    def _report_written(self, result) -> None:
        self.progress.setVisible(False)
        self._reset_report_button()
        report = result.out_dir / "report.md"
        self.eval_label.setText(f"Report written: {report} ({len(result.files)} files)"
                                + ("" if result.completed else "; stopped before the end"))
        self.state.message.emit(f"Saved the report to {result.out_dir}")
        self.report_written.emit(result.out_dir)

    def _report_failed(self, exc, details) -> None:
        self.progress.setVisible(False)
        self._reset_report_button()
        self.eval_label.setText("The report was not written.")
        show_error(self, "Cannot write the report", exc, details)

    def _reset_report_button(self) -> None:
        s = self.state
        self.report_button.setEnabled(None not in (s.collection_path, s.model_path,
                                                   s.topics_path, s.qrels_path)
                                      and s.model is not None)

    def _on_progress(self, events: list) -> None:
        done, total, what = events[-1]
        self.progress.setValue(done)
        self.eval_label.setText(f"Evaluating: {what} ({done}/{total})")

    def _failed(self, exc, details) -> None:
        self.progress.setVisible(False)
        if isinstance(exc, Stopped):  # for a model or topics no longer open; the label says so
            return
        self.eval_label.setText("Evaluation failed.")
        show_error(self, "Cannot evaluate", exc, details)

    def show_evaluation(self, evaluation: Evaluation) -> None:
        self.progress.setVisible(False)
        self.evaluation = evaluation
        fill_results_table(self.table2, evaluation.table2)
        fill_results_table(self.table4, evaluation.table4)
        d = evaluation.difference
        colours = [pg.mkBrush("#2f9e44" if v > 0 else "#e03131") for v in d.difference]
        set_placeholder(self.diff_plot, None)
        self.diff_bars.setOpts(x=np.arange(len(d.difference)), height=d.difference,
                               brushes=colours, pens=[pg.mkPen(None)] * len(colours))
        within = (f" within the {evaluation.people:,} people chosen in the Query panel"
                  if evaluation.people else "")
        self.eval_label.setText(
            f"{evaluation.n_topics} judged topics{within}. Marks: *** p < 0.01, ** p < 0.05, * p < 0.1 "
            "(paired randomization test, Benjamini-Hochberg adjusted) against the reference row; "
            f"best in bold. Log-linear beats Model 2 (jm) on {d.wins} topics, loses on "
            f"{d.losses}, ties on {d.ties}.")


def _and(items: list[str]) -> str:
    """'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
