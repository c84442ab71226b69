"""Entropy panel: how sure the model is. The normalized entropy (Eq. 6) of the current query's
P(c|q) with the distribution itself; for a topic set, the histogram of entropies and, with qrels,
the entropy-versus-AP scatter with Pearson's R and the least-squares line (the paper's Figure 3)."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.evaluation.analysis import EntropyFit, entropy_vs_ap
from expert_gui.core.evaluation.evaluate import Stopped, check_stop
from expert_gui.core.evaluation.measures import evaluated_topics, measure_run
from expert_gui.core.evaluation.qrels import coverage
from expert_gui.core.evaluation.runs import run_from_rankings
from expert_gui.core.rankers.batch import block_size, blocks
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    WhenShown,
    boxed,
    make_plot,
    percent,
    set_placeholder,
    shortened,
)

SHOWN_PEOPLE = 50  # bars of the current query's distribution
HISTOGRAM_BINS = 20


@dataclass(frozen=True)
class TopicEntropies:
    """Each topic's normalized entropy (None: no known query word), and, with qrels, AP."""

    topics: tuple[str, ...]
    entropy: tuple[float | None, ...]
    fit: EntropyFit | None


def topic_entropies(model, queries: dict[str, str], qrels: dict, *, progress=None,
                    should_stop=None) -> TopicEntropies:
    """Rank every topic with the log-linear model; correlate entropy with AP when judged."""
    ranker = make_ranker("loglinear", model=model)
    rankings = {}
    for part in blocks(list(queries.items()), block_size(ranker)):
        check_stop(should_stop)
        rankings.update(zip((t for t, _ in part), ranker.rank_batch([q for _, q in part]),
                            strict=True))
        if progress is not None:
            progress((len(rankings), len(queries)))
    topics = tuple(rankings)
    entropy = tuple(rankings[t].entropy for t in topics)
    fit = None
    judged = evaluated_topics(qrels, topics) if qrels else ()
    if judged and not coverage(qrels, topics, model.person_ids).problem():
        ap = measure_run(qrels, run_from_rankings(rankings), judged, ("AP",)).values["AP"]
        fit = entropy_vs_ap(judged, [rankings[t].entropy for t in judged], ap)
    return TopicEntropies(topics, entropy, fit)


class EntropyPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("entropy-panel")
        self.result: TopicEntropies | None = None

        self.query_label = QLabel("Run a query to see how sure the model is.")
        self.query_label.setWordWrap(True)
        self.distribution_plot = make_plot("P(c|q) of the current query, most likely people first",
                                       "rank", "P(c|q)")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#3b7dd8")
        self.distribution_plot.addItem(self.bars)
        self.uniform_line = pg.InfiniteLine(
            angle=0, pen=pg.mkPen("#868e96", style=Qt.PenStyle.DashLine), label="uniform 1/|C|",
            labelOpts={"position": 0.9, "color": "#495057",
                       "fill": pg.mkBrush(255, 255, 255, 220)})
        # In front of the bars, its label on a light ground: the bars once hid it.
        self.uniform_line.setZValue(self.bars.zValue() + 10)
        self.distribution_plot.addItem(self.uniform_line)

        self.compute_button = QPushButton("Rank every topic")
        self.compute_button.setToolTip("Rank the loaded topic set with the log-linear model and "
                                       "plot its entropies (and AP, with qrels)")
        self.compute_button.clicked.connect(self.compute)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.topics_label = QLabel("Open topics (and qrels) to study a whole topic set.")
        self.topics_label.setWordWrap(True)
        self.histogram_plot = make_plot("Normalized entropy of each topic", "normalized entropy",
                                    "topics")
        self.histogram = pg.PlotDataItem(stepMode="center", fillLevel=0, brush="#a5c8f0",
                                         pen=pg.mkPen("#1f5fbf", width=1.5))
        self.histogram_plot.addItem(self.histogram)
        self.scatter_plot = make_plot("Entropy against average precision (Figure 3)",
                                  "normalized entropy", "AP")
        self.scatter = pg.ScatterPlotItem(
            size=8, brush=pg.mkBrush(59, 125, 216, 170), pen=pg.mkPen("#1f5fbf"),
            hoverable=True, hoverSize=11,
            tip=lambda x, y, data: f"{data}: {self.state.topics.get(data, '')}\n"
                                   f"entropy {x:.3f}, AP {y:.3f}")
        self.fit_line = pg.PlotDataItem(pen=pg.mkPen("#d9480f", width=2))
        self.scatter_plot.addItem(self.scatter)
        self.scatter_plot.addItem(self.fit_line)

        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.query_label)
        tl.addWidget(self.distribution_plot, 1)
        controls = QHBoxLayout()
        controls.addWidget(self.compute_button)
        controls.addWidget(self.progress)
        controls.addWidget(self.topics_label, 1)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(controls)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.histogram_plot)
        plots.addWidget(self.scatter_plot)
        bl.addWidget(plots, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(boxed("Current query", top))
        split.addWidget(boxed("Topic set", bottom))
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        # Behind a tab, it draws the query's distribution when next shown (WhenShown).
        self._when_ranked = WhenShown(self, self.show_ranking,
                                      latest=lambda: self.state.ranking)
        state.ranked.connect(self._when_ranked)
        state.model_changed.connect(lambda _: self._reset_query())
        state.model_changed.connect(lambda _: self._reset_topics())
        state.topics_changed.connect(self._reset_topics)
        self._reset_query()
        self._reset_topics()

    # -- the current query ------------------------------------------------------------------------
    def _reset_query(self) -> None:
        """Another model: the previous distribution goes (the query panel may already have
        ranked the query again with the new one)."""
        if self.state.ranking is not None:
            self.show_ranking(self.state.ranking)
            return
        self.query_label.setText("Run a query to see how sure the model is.")
        self._clear_distribution("Run a query in the Query panel: its P(c|q) appears here.")

    def _clear_distribution(self, note: str) -> None:
        self.bars.setOpts(x=[], height=[])
        self.uniform_line.setVisible(False)
        self.distribution_plot.setTitle("P(c|q) of the current query")
        set_placeholder(self.distribution_plot, note)

    def show_ranking(self, ranking) -> None:
        if ranking.probabilities is None or ranking.no_known_words:
            self.query_label.setText(f"“{shortened(ranking.query)}”: no distribution (no known "
                                     "word).")
            self._clear_distribution("The model knows none of the query's words.")
            return
        p = np.sort(ranking.probabilities)[::-1]
        shown = p[:SHOWN_PEOPLE]
        set_placeholder(self.distribution_plot, None)
        self.bars.setOpts(x=np.arange(1, len(shown) + 1), height=shown, width=0.8)
        self.uniform_line.setValue(1.0 / len(p))
        self.uniform_line.setVisible(True)
        self.distribution_plot.setTitle(
            f"P(c|q) of the current query: the {len(shown)} most likely of {len(p):,} people"
            if len(shown) < len(p) else f"P(c|q) of the current query: all {len(p):,} people")
        self.distribution_plot.setXRange(0.5, len(shown) + 0.5, padding=0.01)
        self.distribution_plot.setYRange(0, float(shown[0]) * 1.05, padding=0)
        top_share = float(shown[:5].sum())
        self.query_label.setToolTip(ranking.query)
        self.query_label.setText(
            f"“{html.escape(shortened(ranking.query))}”: normalized entropy "
            f"<b>{ranking.entropy:.3f}</b> "
            f"(0 = all mass on one person, 1 = uniform over {len(p):,} people); the top five "
            f"people hold {percent(top_share)} of P(c|q).")

    # -- the topic set ----------------------------------------------------------------------------
    def _reset_topics(self) -> None:
        """Another model or topic set: the plots of the previous one go."""
        s = self.state
        s.runner.stop("entropy")
        self.progress.setVisible(False)
        self.result = None
        self.histogram.setData([], [])
        self.scatter.setData([], [])
        self.fit_line.setData([], [])
        self.scatter_plot.setTitle("Entropy against AP (Figure 3)")
        ready = s.model is not None and bool(s.topics)
        set_placeholder(self.histogram_plot, "Click “Rank every topic”." if ready else
                        "Needs topics and a model.")
        set_placeholder(self.scatter_plot, "Click “Rank every topic”." if ready and s.qrels
                        else "Needs topics, qrels and a model.")
        self.compute_button.setEnabled(ready)
        if not s.topics:
            self.topics_label.setText("Open topics (and qrels) to study a whole topic set.")
        elif s.model is None:
            self.topics_label.setText(f"{len(s.topics):,} topics loaded; train or open a model.")
        else:
            self.topics_label.setText(f"{len(s.topics):,} topics"
                                      + (" with qrels" if s.qrels else " (no qrels: no AP)")
                                      + ". Click to rank them.")

    def compute(self) -> None:
        s = self.state
        if s.model is None or not s.topics:
            return
        self.progress.setVisible(True)
        self.progress.setRange(0, len(s.topics))
        self.progress.setValue(0)
        model = s.model
        s.runner.start("entropy", topic_entropies, model, dict(s.topics), s.qrels,
                       on_progress=lambda ev: self.progress.setValue(ev[-1][0]),
                       on_success=lambda r: self.show_topics(r) if model is s.model else None,
                       on_failure=self._failed)

    def _failed(self, exc, details) -> None:
        self.progress.setVisible(False)
        if isinstance(exc, Stopped):  # the model or topics changed meanwhile
            return
        show_error(self, "Cannot rank the topics", exc, details)

    def show_topics(self, result: TopicEntropies) -> None:
        self.progress.setVisible(False)
        self.result = result
        values = np.array([e for e in result.entropy if e is not None], dtype=np.float64)
        if len(values):
            lo, hi = float(values.min()), float(values.max())
            if hi - lo < 1e-9:
                lo, hi = lo - 0.05, hi + 0.05
            counts, edges = np.histogram(values, bins=HISTOGRAM_BINS, range=(lo, hi))
            set_placeholder(self.histogram_plot, None)
            self.histogram.setData(edges, counts)
        else:
            set_placeholder(self.histogram_plot, "No topic has a word the model knows.")
        skipped = len(result.entropy) - len(values)
        text = f"{len(values):,} topics ranked"
        if skipped:
            text += f" ({skipped} without a known word left out)"
        fit = result.fit
        if fit is not None and len(fit.entropy):
            set_placeholder(self.scatter_plot, None)
            self.scatter.setData(fit.entropy, fit.ap, data=list(fit.topics))
            if math.isfinite(fit.slope) and math.isfinite(fit.r):
                x = np.array([fit.entropy.min(), fit.entropy.max()])
                self.fit_line.setData(x, fit.slope * x + fit.intercept)
                text += (f"; Pearson's R = {fit.r:.2f} (permutation p = {fit.p:.3g}), "
                         f"AP ≈ {fit.slope:.2f} × entropy + {fit.intercept:.2f}")
                self.scatter_plot.setTitle(f"Entropy against AP (Figure 3): R = {fit.r:.2f}")
            else:  # one topic, or AP (or entropy) the same for all: no correlation to draw
                self.fit_line.setData([], [])
                text += "; too few topics (or constant values) for a correlation"
                self.scatter_plot.setTitle("Entropy against AP (Figure 3): no correlation")
        else:
            self.scatter.setData([], [])
            self.fit_line.setData([], [])
            set_placeholder(self.scatter_plot, "Open qrels for the entropy-AP scatter."
                            if fit is None else "No judged topic has a known word.")
            text += "; open qrels for the entropy-AP scatter"
        self.topics_label.setText(text)
