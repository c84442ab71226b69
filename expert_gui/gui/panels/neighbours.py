"""Nearest-terms panel: the words nearest to a word (or the sum of several) in W_p, with distances,
and a 2-D map of the embedding (PCA, or t-SNE) with that neighbourhood highlighted. Clicking a
word queries with it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.data.text import PAD_ID
from expert_gui.core.model.neighbours import METRICS, nearest_words
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    LabelPlacer,
    WhenShown,
    boxed,
    fill_table,
    item,
    make_table,
    set_placeholder,
)

MAP_WORDS = 1500  # the most frequent words drawn on the map (t-SNE cost grows with them)
PROJECTIONS = ("PCA", "t-SNE")
LABELLED_NEIGHBOURS = 25  # the nearest words named on the map; the title says when k is more


@dataclass(frozen=True)
class WordMap:
    """2-D positions of some words of the vocabulary (`word_ids`, most frequent first).

    A PCA map keeps its centre and axes, so any other word can be placed on it too.
    """

    method: str
    word_ids: np.ndarray
    xy: np.ndarray
    mean: np.ndarray | None = None
    axes: np.ndarray | None = None


def project_words(embeddings: np.ndarray, method: str = "PCA", n_words: int = MAP_WORDS, *,
                  seed: int = 0, should_stop=None) -> WordMap:
    """PCA (two leading principal axes, by SVD) or t-SNE of the most frequent words.

    Vocabulary ids are in order of frequency, so the first ids are the most frequent words.
    """
    if method not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}")
    ids = np.arange(PAD_ID + 1, min(len(embeddings), n_words + 1))
    x = embeddings[ids].astype(np.float64)
    mean = x.mean(axis=0) if len(ids) else np.zeros(embeddings.shape[1])
    x = x - mean
    if method == "PCA" or len(ids) < 4:  # t-SNE needs a few words; so does a second axis
        axes = np.zeros((2, embeddings.shape[1]))
        if len(ids):
            _, _, vt = np.linalg.svd(x, full_matrices=False)
            axes[:len(vt[:2])] = vt[:2]
        return WordMap("PCA", ids, x @ axes.T, mean, axes)
    from sklearn.manifold import TSNE
    from threadpoolctl import threadpool_limits

    perplexity = float(min(30, max(2, (len(ids) - 1) // 3)))
    # One OpenMP thread: spinning thread pools on a busy machine made t-SNE 10-100x slower
    # and took the cores the window needs.
    with threadpool_limits(limits=1):
        xy = TSNE(n_components=2, perplexity=perplexity, init="pca",
                  random_state=seed).fit_transform(x)
    return WordMap(method, ids, xy)


class NeighboursPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("neighbours-panel")
        self.word_map: WordMap | None = None
        self.neighbours = []
        self.query_ids = np.zeros(0, dtype=np.int64)

        self.words_edit = QLineEdit()
        self.words_edit.setPlaceholderText("A word or words, e.g. “driver”")
        self.words_edit.returnPressed.connect(self.find)
        self.metric_combo = QComboBox()
        self.metric_combo.addItems(list(METRICS))
        self.metric_combo.setToolTip("Euclidean distance as in the paper (section 5.2), or "
                                     "cosine distance, which ignores the vectors' lengths")
        self.metric_combo.currentTextChanged.connect(lambda _: self.find())
        self.k_spin = QSpinBox()
        self.k_spin.setRange(1, 500)
        self.k_spin.setValue(15)
        self.k_spin.setPrefix("k = ")
        self.k_spin.valueChanged.connect(lambda _: self.find())
        find = QPushButton("Find")
        find.clicked.connect(self.find)
        self.projection_combo = QComboBox()
        self.projection_combo.addItems(list(PROJECTIONS))
        self.projection_combo.setToolTip(f"How the {MAP_WORDS:,} most frequent words are laid out "
                                         "in 2-D (t-SNE runs in the background and can take a minute)")
        self.projection_combo.currentTextChanged.connect(lambda _: self.compute_map())
        self.status = QLabel("Train or open a model to explore its word embeddings.")
        self.status.setWordWrap(True)

        self.table = make_table(["Word", "Distance"])
        self.table.cellDoubleClicked.connect(
            lambda row, _col: self.state.query_requested.emit(self.table.item(row, 0).text()))
        self.table.setToolTip("Double-click a word to query with it")

        self.map_plot = pg.PlotWidget(title="Word embeddings W_p in 2-D (click a word to query)")
        self.map_plot.hideAxis("bottom")
        self.map_plot.hideAxis("left")
        # Zooming moves names closer or apart: placed again (labels overlapped).
        self.placer = LabelPlacer(self.map_plot, lambda: self.labels)
        self.background = pg.ScatterPlotItem(size=4, pen=None, brush=pg.mkBrush(134, 142, 150, 110),
                                             hoverable=True, tip=lambda x, y, data: str(data))
        self.highlight = pg.ScatterPlotItem(size=10, pen=pg.mkPen("w"), hoverable=True,
                                            tip=lambda x, y, data: self.tips.get(data, data))
        self.tips: dict[str, str] = {}  # word -> what its dot's tooltip says
        for scatter in (self.background, self.highlight):
            scatter.sigClicked.connect(self._clicked)
            self.map_plot.addItem(scatter)
        self.labels: list[pg.TextItem] = []

        top = QHBoxLayout()
        top.addWidget(self.words_edit, 1)
        for w in (self.metric_combo, self.k_spin, find, QLabel("Map:"), self.projection_combo):
            top.addWidget(w)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(boxed("Nearest words", self.table))
        split.addWidget(self.map_plot)
        split.setSizes([300, 940])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

        state.model_changed.connect(self._model_changed)
        # Behind a tab, it follows the query when next shown (WhenShown).
        self._when_ranked = WhenShown(self, self._follow_query,
                                      latest=lambda: self.state.ranking)
        state.ranked.connect(self._when_ranked)
        self._model_changed(state.model)

    def _model_changed(self, model) -> None:
        self.word_map = None
        self.background.setData([], [])
        self.neighbours = []
        self.query_ids = np.zeros(0, dtype=np.int64)
        self._clear_highlight()
        self.table.setRowCount(0)
        self.setEnabled(model is not None)
        self.map_plot.setTitle("Word embeddings W_p in 2-D")
        if model is None:
            self.status.setText("Train or open a model to explore its word embeddings.")
            set_placeholder(self.map_plot, "Train or open a model to map its words.")
            return
        self.status.setText(f"{model.n_words:,} words, dimension {model.dim}.")
        self.compute_map()
        if self.state.ranking is not None:  # the query panel re-ranked with the new model
            self._follow_query(self.state.ranking)

    def _follow_query(self, ranking) -> None:
        """The panel follows the query box until the user types words of their own."""
        if not self.words_edit.isModified() and ranking.known_words:
            self.words_edit.setText(" ".join(dict.fromkeys(ranking.known_words)))
            self.find()

    # -- the neighbours -----------------------------------------------------------------------------
    def find(self) -> None:
        model = self.state.model
        text = self.words_edit.text().strip()
        if model is None or not text:
            return
        ids, known, unknown = model.encode(text)
        note = f"Unknown words ignored: {' '.join(unknown)}. " if unknown else ""
        if len(ids) == 0:
            self.status.setText(note + "No known word to start from.")
            self.table.setRowCount(0)
            self._clear_highlight()
            return
        self.query_ids = np.unique(ids)
        self.neighbours = nearest_words(model, ids, k=self.k_spin.value(),
                                        metric=self.metric_combo.currentText())
        fill_table(self.table, [[n.word, item(f"{n.distance:.4f}", align_right=True)]
                                for n in self.neighbours])
        target = " + ".join(dict.fromkeys(known))
        self.status.setText(note + f"The {len(self.neighbours)} words nearest to {target} "
                                   f"({self.metric_combo.currentText()} distance).")
        self._draw_highlight()

    # -- the map ------------------------------------------------------------------------------------
    def compute_map(self) -> None:
        model = self.state.model
        if model is None:
            return
        method = self.projection_combo.currentText()
        set_placeholder(self.map_plot, f"Laying out the {MAP_WORDS:,} most frequent words "
                                       f"({method})…")
        self.state.runner.start("word-map", project_words, model.word_embeddings, method,
                                on_success=lambda m: self._show_map(m, model),
                                on_failure=lambda e, tb: show_error(self, "Cannot draw the map",
                                                                    e, tb))

    def _show_map(self, word_map: WordMap, model) -> None:
        if model is not self.state.model:
            return  # computed for a model that has since been replaced
        self.word_map = word_map
        set_placeholder(self.map_plot, None)
        words = model.vocab.words
        self.background.setData(word_map.xy[:, 0], word_map.xy[:, 1],
                                data=[words[i] for i in word_map.word_ids])
        self._draw_highlight()

    def _position(self, word_id: int) -> np.ndarray | None:
        """Where a word sits: its map position, or for PCA its projection even if not drawn."""
        m = self.word_map
        hits = np.flatnonzero(m.word_ids == word_id)
        if len(hits):
            return m.xy[hits[0]]
        if m.axes is not None:
            return (self.state.model.word_embeddings[word_id] - m.mean) @ m.axes.T
        return None

    def _clear_highlight(self) -> None:
        self.highlight.setData([], [])
        self.tips = {}
        for label in self.labels:
            self.map_plot.removeItem(label)
        self.labels = []

    def _draw_highlight(self) -> None:
        self._clear_highlight()
        if self.word_map is None or self.state.model is None:
            return
        words = self.state.model.vocab.words
        metric = self.metric_combo.currentText()
        spots = []
        for i in self.query_ids:
            self.tips[words[int(i)]] = f"{words[int(i)]} (query word)"
        for rank, n in enumerate(self.neighbours, start=1):
            self.tips[n.word] = (f"{n.word}: neighbour {rank} of {len(self.neighbours)}, "
                                 f"{metric} distance {n.distance:.4f}")
        marked = [(int(i), "#d9480f") for i in self.query_ids] + \
            [(n.word_id, "#1f5fbf") for n in self.neighbours]
        for rank, (word_id, colour) in enumerate(marked):
            xy = self._position(word_id)
            if xy is None:
                continue
            spots.append({"pos": xy, "brush": pg.mkBrush(colour), "data": words[word_id]})
            if rank >= len(self.query_ids) + LABELLED_NEIGHBOURS:
                continue  # further neighbours are dots: their names are in the table
            is_query = rank < len(self.query_ids)
            label = pg.TextItem(words[word_id], color=colour, anchor=(0, 1),
                                fill=pg.mkBrush(255, 255, 255, 200))
            if is_query:
                font = label.textItem.font()
                font.setBold(True)
                label.setFont(font)
            label.setPos(float(xy[0]), float(xy[1]))
            label.setZValue(20 if is_query else 10)
            self.map_plot.addItem(label)
            self.labels.append(label)
        self.highlight.setData(spots)
        if spots:
            # Zoom to the neighbourhood (the whole map is a right-click "View all" away).
            xy = np.array([spot["pos"] for spot in spots])
            (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
            self.map_plot.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.35)
        self.placer.place()
        missing = len(self.query_ids) + len(self.neighbours) - len(spots)
        notes = []
        if len(self.neighbours) > LABELLED_NEIGHBOURS:
            notes.append(f"the {LABELLED_NEIGHBOURS} nearest of {len(self.neighbours)} named")
        if missing:
            notes.append(f"{missing} highlighted words are outside the {MAP_WORDS:,} drawn")
        notes = notes or ["click a word to query with it"]
        self.map_plot.setTitle(f"Word embeddings in 2-D ({self.word_map.method}); "
                               + "; ".join(notes))

    def _clicked(self, _scatter, points, *_) -> None:
        if len(points):
            word = points[0].data()
            if word:
                self.state.query_requested.emit(str(word))
