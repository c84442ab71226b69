"""Profile panel: what a person knows and who works on the same (core/explore/profile.py).

The words that characterise them (double-click: query with it), the topics of the open topic set
they rank highest in (double-click: query with the topic), the people with the closest candidate
vectors and their co-authors (double-click: their profile), their documents and, when documents
have dates, documents per year or month with those about the selected word or topic on top. A map
of all people (PCA, or t-SNE) coloured by group, the person and their nearest people marked;
double-click a point for that person's profile.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.data.people_search import search_for
from expert_gui.core.errors import UnknownPersonError
from expert_gui.core.explore.people_map import PROJECTIONS, PeopleMap, map_people
from expert_gui.core.explore.profile import (
    WORD_SCORE_LABELS,
    WORD_SCORES,
    Profile,
    Profiler,
    score_topics,
)
from expert_gui.core.explore.projector import export_embeddings
from expert_gui.core.explore.timeline import PERIODS
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.people_edits import PeopleEditor
from expert_gui.gui.save_dialogs import choose_folder
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    ColumnFitter,
    LabelPlacer,
    boxed,
    fill_table,
    item,
    make_plot,
    make_table,
    plural,
)

DEFAULT_K = 20
SHOWN_DOCUMENTS = 2000  # rows of the documents table (a person may have many more)
LABELLED_NEIGHBOURS = 6  # nearest people named on the map
GROUP_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#e7ba52")
ABOUT = QColor("#fff3bf")


def compute_profile(profiler: Profiler, person: str, k: int, topics, word_score: str,
                    period: str, should_stop=None) -> Profile | None:
    """The worker's job: the one-off preparation (first time only), then the profile."""
    if not profiler.prepare(should_stop):
        return None
    return profiler.profile(person, k, topics, word_score, period)


class ProfilePanel(QWidget):
    person_shown = Signal(str)  # the person whose profile is shown ("" when none is)

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("profile-panel")
        self.profiler: Profiler | None = None
        self.topic_scores = None
        self.people_map: PeopleMap | None = None
        self.profile: Profile | None = None
        self._person: str | None = None  # the person asked for last (shown, or on its way)
        self._about: np.ndarray | None = None  # which of the person's documents are selected
        self._about_per_period: tuple[tuple[str, int], ...] = ()
        self._about_label = ""

        self.person_edit = QLineEdit()
        self.person_edit.setPlaceholderText("A person's id or name (or double-click a person "
                                            "in any panel)")
        self.person_edit.setClearButtonEnabled(True)
        self.person_names = QStringListModel(self)
        completer = QCompleter(self.person_names, self.person_edit)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.person_edit.setCompleter(completer)
        self.person_edit.returnPressed.connect(self._typed)
        show = QPushButton("Profile")
        show.clicked.connect(self._typed)
        self.k_spin = QSpinBox()
        self.k_spin.setRange(1, 500)
        self.k_spin.setValue(DEFAULT_K)
        self.k_spin.setPrefix("k = ")
        self.k_spin.setToolTip("Words, topics, similar people and co-authors to list")
        self.k_spin.valueChanged.connect(lambda _: self.refresh())
        self.score_combo = QComboBox()
        for score in WORD_SCORES:
            self.score_combo.addItem(WORD_SCORE_LABELS[score], score)
        self.score_combo.setToolTip(
            "How words are scored. P(w|c) log(P(w|c)/P(w)): words this person uses often and "
            "more than others do (default). P(w|c): frequent words, much the same for everyone. "
            "P(c|w) (Eq. 1): rare words only this person used.")
        self.score_combo.currentIndexChanged.connect(lambda _: self.refresh())
        self.period_combo = QComboBox()
        self.period_combo.addItems(list(PERIODS))
        self.period_combo.setToolTip("The timeline's period")
        self.period_combo.currentTextChanged.connect(lambda _: self.refresh())
        self.projection_combo = QComboBox()
        self.projection_combo.addItems(list(PROJECTIONS))
        self.projection_combo.setToolTip("How people are laid out in 2-D (t-SNE runs in the "
                                         "background and can take a minute)")
        self.projection_combo.currentTextChanged.connect(lambda _: self.compute_map())
        self.status = QLabel("Train or open a model to see what its people know.")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.linkActivated.connect(self.show_person)  # "did you mean" names
        self.editor = PeopleEditor(state, self)
        self.merge_button = QPushButton("Merge into…")
        self.merge_button.setToolTip("Another person who is this one: their documents become "
                                     "this person's (kept in the collection's people edits)")
        self.merge_button.clicked.connect(
            lambda: self._person and self.editor.ask_merge_into(self._person))
        self.split_button = QPushButton("Split off…")
        self.split_button.setToolTip("Split a spelling off: the documents that write this "
                                     "person one way become another person's")
        self.split_button.clicked.connect(
            lambda: self._person and self.editor.ask_split(self._person))

        self.words_table = make_table(["Word", "Score", "Docs"])
        self.words_table.horizontalHeaderItem(2).setToolTip(
            "How many of the person's documents hold the word")
        self.words_table.setToolTip("Double-click a word to query with it; select it to see when "
                                    "this person used it")
        self.words_table.cellDoubleClicked.connect(
            lambda row, _c: self.state.query_requested.emit(self.words_table.item(row, 0).text()))
        self.words_table.currentCellChanged.connect(lambda row, *_: self._select_word(row))
        self.topics_table = make_table(["Rank", "Topic", "P(c|q)"])
        self.topics_table.setToolTip("The person's place in each topic's ranking. Double-click "
                                     "a topic to query with it; select it to see when this "
                                     "person worked on it")
        self.topics_table.cellDoubleClicked.connect(lambda row, _c: self._query_topic(row))
        self.topics_table.currentCellChanged.connect(lambda row, *_: self._select_topic(row))
        self.similar_table = make_table(["Person", "Cosine", "Shared words"])
        self.similar_table.setToolTip("Nearest candidate vectors (cosine on W_c), with the words "
                                      "that characterise both. Double-click: their profile")
        self.similar_table.cellDoubleClicked.connect(
            lambda row, _c: self._open_row(self.similar_table, row))
        self.coauthors_table = make_table(["Person", "Shared docs"])
        self.coauthors_table.horizontalHeaderItem(1).setToolTip("Documents they share")
        self.coauthors_table.setToolTip("People who share documents with this person. "
                                        "Double-click: their profile")
        self.coauthors_table.cellDoubleClicked.connect(
            lambda row, _c: self._open_row(self.coauthors_table, row))

        self.map_plot = pg.PlotWidget(title="People (candidate vectors W_c) in 2-D")
        self.map_labels: list[pg.TextItem] = []
        self.map_plot.hideAxis("bottom")
        self.map_plot.hideAxis("left")
        # Each spot's data is its person's index; the tooltip names them.
        self.everyone = pg.ScatterPlotItem(size=6, pen=None, hoverable=True,
                                           tip=lambda x, y, data: self._person_label(data))
        self.marked = pg.ScatterPlotItem(pen=pg.mkPen("k", width=1.5), hoverable=True,
                                         tip=lambda x, y, data: self._person_label(data))
        # Zooming moves names closer or apart: placed again.
        self.placer = LabelPlacer(self.map_plot, lambda: self.map_labels)
        for scatter in (self.everyone, self.marked):
            scatter.sigClicked.connect(self._map_clicked)
            self.map_plot.addItem(scatter)
        self.marked.setZValue(10)
        self.groups_label = QLabel("")
        self.groups_label.setWordWrap(True)
        self.groups_label.setTextFormat(Qt.TextFormat.RichText)
        map_box = QWidget()
        ml = QVBoxLayout(map_box)
        ml.setContentsMargins(0, 0, 0, 0)
        mtop = QHBoxLayout()
        mtop.addWidget(QLabel("Projection:"))
        mtop.addWidget(self.projection_combo)
        mtop.addStretch(1)
        ml.addLayout(mtop)
        ml.addWidget(self.map_plot, 1)
        ml.addWidget(self.groups_label)

        self.timeline_plot = make_plot("", "", "documents")
        self.all_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#ced4da")
        self.about_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#3b7dd8")
        self.timeline_plot.addItem(self.all_bars)
        self.timeline_plot.addItem(self.about_bars)
        self.timeline_label = QLabel("")
        self.timeline_label.setWordWrap(True)
        timeline_box = QWidget()
        tl = QVBoxLayout(timeline_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.timeline_label)
        tl.addWidget(self.timeline_plot, 1)

        self.docs_table = make_table(["Date", "Document", "Id"])
        # Numbers and dates keep their width; words, names and titles share the rest, shortened
        # with "…" (tooltips hold them whole): no column is cut at the panel's edge.
        self.fitters = [
            ColumnFitter(self.words_table, content=(1, 2), elastic=(0,)),
            ColumnFitter(self.topics_table, content=(0, 2), elastic=(1,)),
            ColumnFitter(self.similar_table, content=(1,), elastic=(0, 2)),
            ColumnFitter(self.coauthors_table, content=(1,), elastic=(0,)),
            ColumnFitter(self.docs_table, content=(0,), elastic=(1, 2)),
        ]
        self.docs_table.currentCellChanged.connect(lambda row, *_: self._show_document(row))
        self.doc_view = QTextBrowser()
        self.doc_view.setPlaceholderText("Select a document to read it.")
        docs_split = QSplitter(Qt.Orientation.Vertical)
        docs_split.addWidget(self.docs_table)
        docs_split.addWidget(self.doc_view)
        docs_split.setSizes([300, 200])

        self.tabs = QTabWidget()
        self.tabs.addTab(map_box, "Map")
        self.tabs.addTab(timeline_box, "Timeline")
        self.tabs.addTab(docs_split, "Documents")

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(boxed("Words", self.words_table))
        left.addWidget(boxed("Topics of the open topic set", self.topics_table))
        middle = QSplitter(Qt.Orientation.Vertical)
        middle.addWidget(boxed("Similar people", self.similar_table))
        self.coauthors_box = boxed("Co-authors", self.coauthors_table)
        middle.addWidget(self.coauthors_box)
        main = QSplitter(Qt.Orientation.Horizontal)
        for w in (left, middle, self.tabs):
            main.addWidget(w)
        main.setSizes([300, 340, 640])

        top = QHBoxLayout()
        top.addWidget(self.person_edit, 1)
        for w in (show, self.k_spin, QLabel("Words by:"), self.score_combo, QLabel("Timeline:"),
                  self.period_combo):
            top.addWidget(w)
        edits = QHBoxLayout()  # a row of its own: beside the rest it widened every narrow dock
        edits.addStretch(1)
        edits.addWidget(self.merge_button)
        edits.addWidget(self.split_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(edits)
        layout.addWidget(self.status)
        layout.addWidget(main, 1)

        state.model_changed.connect(lambda _m: self._rebuild())
        state.collection_changed.connect(lambda _c: self._rebuild())
        state.topics_changed.connect(self.score_topic_set)
        state.profile_requested.connect(self.show_person)
        self._rebuild()

    # -- model, collection, topics --------------------------------------------------------------
    def _rebuild(self) -> None:
        """A new profiler for the model and the open collection (AppState keeps only a model
        trained on it open, so its documents are the model's people's)."""
        model = self.state.model
        collection = self.state.collection if model is not None else None
        if self.profiler is not None and self.profiler.model is model and \
                self.profiler.collection is collection:
            return
        self.profiler = Profiler(model, collection) if model is not None else None
        self.people_map = None
        self.topic_scores = None
        self.setEnabled(model is not None)
        self._clear_map()
        if model is None:
            self.person_names.setStringList([])
            self._show(None)
            return
        self.person_names.setStringList(
            list(dict.fromkeys([*model.person_ids, *model.person_names])))
        self.status.setText(f"{model.n_people:,} people. Double-click a person in any panel, or "
                            "type an id or a name."
                            + ("" if collection is not None else
                               " Open the model's collection for documents, co-authors and the "
                               "timeline."))
        self.state.runner.start("profile-search", search_for, model)  # for `_typed`
        for button in (self.merge_button, self.split_button):  # edits are the collection's
            button.setEnabled(collection is not None)
        self.score_topic_set()
        self.compute_map()
        if self._person is not None and self._person in self.profiler.person_ids:
            self.show_person(self._person)
        else:  # not one of this model's people: their id leaves the box too
            self._person = None
            self.person_edit.clear()
            self._show(None)

    def score_topic_set(self) -> None:
        """Every person's P(c|q) and rank in every topic of the open topic set, once."""
        model, topics = self.state.model, dict(self.state.topics)
        self.topic_scores = None
        if model is None or not topics:
            self.refresh()
            return
        ranker = make_ranker("loglinear", model=model)

        def done(scores):
            if model is self.state.model:
                self.topic_scores = scores
                self.refresh()

        self.state.runner.start("profile-topics", score_topics, ranker, topics,
                                on_success=done,
                                on_failure=lambda e, tb: show_error(self, "Cannot rank the topics",
                                                                    e, tb))

    # -- a person -------------------------------------------------------------------------------
    def _typed(self) -> None:
        text = self.person_edit.text().strip()
        model = self.state.model
        if not text or model is None:
            return
        by_name = {n.lower(): p for p, n in zip(model.person_ids, model.person_names,
                                                strict=True)}
        person = text if text in self.profiler.person_ids else by_name.get(text.lower())
        if person is not None:
            self.show_person(person)
            return
        near = search_for(model).suggest(text)  # built with the model, in the background
        if len(near) != 1 and near:  # the names it may be, each a link to their profile
            links = ", ".join(f'<a href="{html.escape(model.person_ids[i])}">'
                              f"{html.escape(model.person_names[i])}</a>" for i in near)
            self.status.setText(f"Nobody is called {html.escape(text)!r}; did you mean {links}?")
            return
        # one name it may be; else the ids spelt most like it (a typo), which the profile names
        self.show_person(model.person_ids[near[0]] if near else text)

    def show_person(self, person_id: str) -> None:
        """Profile a person in the background (the first profile of a model also prepares it)."""
        if self.profiler is None:
            return
        try:
            self.profiler.person(person_id)
        except UnknownPersonError as exc:
            self.status.setText(html.escape(str(exc)))
            return
        self.person_edit.setText(person_id)
        self._person = person_id
        profiler = self.profiler
        self.state.runner.start(
            "profile", compute_profile, profiler, person_id, self.k_spin.value(),
            self.topic_scores, self.score_combo.currentData(), self.period_combo.currentText(),
            on_success=lambda p: self._show(p) if profiler is self.profiler and p else None,
            on_failure=lambda e, tb: show_error(self, "Cannot build the profile", e, tb))

    def refresh(self) -> None:
        """Profile the person again (settings or the topic set changed), also when their profile
        is still on its way (it was asked for before the topics were ranked)."""
        if self._person is not None and self.profiler is not None and \
                self._person in self.profiler.person_ids:
            self.show_person(self._person)

    def _open_row(self, table, row: int) -> None:
        cell = table.item(row, 0)
        if cell is not None and cell.data(Qt.ItemDataRole.UserRole):
            self.state.profile_requested.emit(cell.data(Qt.ItemDataRole.UserRole))

    def _query_topic(self, row: int) -> None:
        cell = self.topics_table.item(row, 1)
        if cell is not None:
            self.state.query_requested.emit(cell.data(Qt.ItemDataRole.UserRole))

    # -- showing a profile ----------------------------------------------------------------------
    def _show(self, profile: Profile | None) -> None:
        self.profile = profile
        self._about = None
        for table in (self.words_table, self.topics_table, self.similar_table,
                      self.coauthors_table, self.docs_table):
            table.setRowCount(0)
        self.doc_view.clear()
        self.person_shown.emit(profile.person_id if profile is not None else "")
        if profile is None:
            self._draw_timeline()
            self._draw_marks()
            return
        self._show_status()
        fill_table(self.words_table, [
            [item(w.word, tooltip=f"P(w|c) = {np.exp(w.log_p_word):.3g}, "
                                  f"P(c|w) = {np.exp(w.log_p_person):.3g}"),
             item(f"{w.score:.4g}", align_right=True),
             "" if w.documents is None else w.documents] for w in profile.words])
        if profile.topics is None:
            self.topics_table.setToolTip("Open a topic set (File > Open topics) to rank its "
                                         "topics for this person")
        else:
            rows = []
            for t in profile.topics:
                topic = item(f"{t.topic_id}: {t.query}", tooltip=t.query)
                topic.setData(Qt.ItemDataRole.UserRole, t.query)
                rows.append([t.rank, topic, item(f"{t.probability:.4f}", align_right=True)])
            fill_table(self.topics_table, rows)
        fill_table(self.similar_table, [
            [self._person_cell(s.person_id, s.name), item(f"{s.score:.3f}", align_right=True),
             item(", ".join(s.words), tooltip=", ".join(s.words))] for s in profile.similar])
        fill_table(self.coauthors_table, [[self._person_cell(a.person_id, a.name), a.documents]
                                          for a in profile.coauthors])
        self.coauthors_box.setTitle(
            "Co-authors" if profile.coauthors or self.profiler.collection is None else
            "Co-authors: none (no document of theirs has another person)")
        self._fill_documents()
        for fitter in self.fitters:
            fitter.fit()
        self._draw_timeline()
        self._draw_marks()

    def _show_status(self) -> None:
        """The shown person in one line: name, documents, years and their group on the map."""
        profile = self.profile
        parts = [f"<b>{html.escape(profile.name)}</b> ({html.escape(profile.person_id)})"]
        if self.profiler.collection is not None:
            parts.append(plural(len(profile.documents), "document"))
        if profile.timeline:
            parts.append(f"{profile.timeline[0][0]} to {profile.timeline[-1][0]}")
        if self.people_map is not None:
            group = int(self.people_map.groups[profile.person])
            parts.append(f"map group {group + 1}: "
                         f"{html.escape(self.people_map.labels[group].text())}")
        self.status.setText(" &nbsp;·&nbsp; ".join(parts))

    @staticmethod
    def _person_cell(person_id: str, name: str):
        cell = item(name, tooltip=person_id)
        cell.setData(Qt.ItemDataRole.UserRole, person_id)
        return cell

    def _fill_documents(self) -> None:
        collection = self.profiler.collection
        if collection is None:
            return
        rows = []
        for d in self.profile.documents[:SHOWN_DOCUMENTS].tolist():
            rows.append([collection.date_text(d), item(collection.title(d, 160),
                                                       tooltip=collection.doc_ids[d]),
                         collection.doc_ids[d]])
        fill_table(self.docs_table, rows)

    def _show_document(self, row: int) -> None:
        collection = self.profiler.collection if self.profiler is not None else None
        if collection is None or self.profile is None or row < 0 or \
                row >= min(len(self.profile.documents), SHOWN_DOCUMENTS):
            return
        d = int(self.profile.documents[row])
        self.doc_view.setHtml(f"<p><b>{html.escape(collection.doc_ids[d])}</b></p>"
                              f"<p style='white-space:pre-wrap'>"
                              f"{html.escape(collection.text(d))}</p>")

    # -- when they worked on a word or a topic ------------------------------------------------
    def _select_word(self, row: int) -> None:
        cell = self.words_table.item(row, 0)
        if cell is not None:
            self.show_about(cell.text(), f"the word “{cell.text()}”")

    def _select_topic(self, row: int) -> None:
        cell = self.topics_table.item(row, 1)
        if cell is not None:
            self.show_about(cell.data(Qt.ItemDataRole.UserRole), f"“{cell.text()}”")

    def show_about(self, query: str, label: str) -> None:
        """Mark the person's documents about a word or topic (`timeline.documents_about`)."""
        collection = self.profiler.collection if self.profiler is not None else None
        if collection is None or self.profile is None:
            return
        self._about, self._about_per_period = self.profiler.about(self.profile, query)
        self._about_label = label
        for row in range(self.docs_table.rowCount()):
            brush = QBrush(ABOUT) if self._about[row] else QBrush()
            for col in range(self.docs_table.columnCount()):
                self.docs_table.item(row, col).setBackground(brush)
        self._draw_timeline()

    def _draw_timeline(self) -> None:
        profile = self.profile
        collection = self.profiler.collection if self.profiler is not None else None
        self.all_bars.setOpts(x=[], height=[])
        self.about_bars.setOpts(x=[], height=[])
        if profile is None or collection is None:
            self.timeline_label.setText("")
            return
        if not profile.timeline:
            self.timeline_label.setText("The collection's documents have no dates." if not
                                        collection.has_dates else "None of these documents "
                                                                  "has a date.")
            return
        periods = [p for p, _ in profile.timeline]
        x = np.arange(len(periods))
        self.all_bars.setOpts(x=x, height=[n for _, n in profile.timeline])
        text = f"{profile.name}'s documents per {profile.period}"
        if self._about is not None:
            self.about_bars.setOpts(x=x, height=[n for _, n in self._about_per_period])
            text += f"; blue: those about {self._about_label} ({int(self._about.sum()):,})"
        else:
            text += "; select a word or a topic to see when they worked on it"
        self.timeline_label.setText(text)
        step = max(1, len(periods) // 12)
        self.timeline_plot.getAxis("bottom").setTicks(
            [[(i, periods[i]) for i in range(0, len(periods), step)]])

    # -- the map --------------------------------------------------------------------------------
    def compute_map(self) -> None:
        profiler = self.profiler
        if profiler is None:
            return
        method = self.projection_combo.currentText()
        self.state.runner.start(
            "people-map", map_people, profiler, method,
            on_success=lambda m: self._show_map(m) if profiler is self.profiler and m else None,
            on_failure=lambda e, tb: show_error(self, "Cannot draw the map of people", e, tb))

    def _clear_map(self) -> None:
        self.everyone.setData([], [])
        self.groups_label.setText("")
        self._draw_marks()

    def _show_map(self, people_map: PeopleMap) -> None:
        self.people_map = people_map
        model = self.profiler.model
        brushes = [pg.mkBrush(QColor(GROUP_COLOURS[g % len(GROUP_COLOURS)]).lighter(115))
                   for g in people_map.groups.tolist()]
        self.everyone.setData(pos=people_map.xy, brush=brushes, data=np.arange(model.n_people))
        legend = [f"<span style='color:{GROUP_COLOURS[g % len(GROUP_COLOURS)]}'>■</span> "
                  f"{g + 1} ({label.size:,}): {html.escape(label.text())}"
                  for g, label in enumerate(people_map.labels)]
        self.groups_label.setText(
            "Groups (k-means on the centred directions of W_c; cosine silhouette "
            f"{people_map.silhouette:.2f}), named by the words most of their members share "
            "(the share of members with each): " + " &nbsp; ".join(legend))
        self.map_plot.setTitle(f"People in 2-D ({people_map.method}); double-click one for "
                               "their profile")
        if self.profile is not None:
            self._show_status()  # it names the person's group
        self._draw_marks()

    def _draw_marks(self) -> None:
        """The person (a star, named in bold) and their nearest people (named), zoomed to."""
        for label in self.map_labels:
            self.map_plot.removeItem(label)
        self.map_labels = []
        self.marked.setData([], [])
        if self.people_map is None or self.profile is None:
            return
        model = self.profiler.model
        xy = self.people_map.xy
        me = self.profile.person
        near = [s.person for s in self.profile.similar]
        spots = [{"pos": xy[q], "size": 11, "brush": pg.mkBrush("#ffd43b"), "data": q}
                 for q in near]
        spots.append({"pos": xy[me], "size": 22, "symbol": "star", "brush": pg.mkBrush("#d9480f"),
                      "data": me})
        self.marked.setData(spots)
        for rank, q in enumerate([me, *near[:LABELLED_NEIGHBOURS]]):
            label = pg.TextItem(model.person_names[q], color="#d9480f" if rank == 0 else "#343a40",
                                anchor=(0, 1), fill=pg.mkBrush(255, 255, 255, 200))
            label.setToolTip(self._person_label(q))
            if rank == 0:
                font = label.textItem.font()
                font.setBold(True)
                label.setFont(font)
            label.setPos(float(xy[q, 0]), float(xy[q, 1]))
            label.setZValue(30 if rank == 0 else 20)
            self.map_plot.addItem(label)
            self.map_labels.append(label)
        # Zoom to the neighbourhood (the whole map is a right-click "View all" away).
        shown = xy[[me, *near]]
        (x0, y0), (x1, y1) = shown.min(axis=0), shown.max(axis=0)
        self.map_plot.setRange(xRange=(float(x0), float(x1)), yRange=(float(y0), float(y1)),
                               padding=0.3)
        self.placer.place()

    def _person_label(self, person) -> str:
        model = self.profiler.model if self.profiler is not None else None
        if model is None or person is None:
            return ""
        pid, name = model.person_ids[int(person)], model.person_names[int(person)]
        return pid if name == pid else f"{name} ({pid})"

    def _map_clicked(self, _scatter, points, event) -> None:
        if not len(points) or self.profiler is None:
            return
        person = int(points[0].data())
        if event is not None and event.double():
            self.state.profile_requested.emit(self.profiler.model.person_ids[person])
        else:
            self.state.message.emit(f"{self._person_label(person)}: double-click for the profile")

    # -- export ---------------------------------------------------------------------------------
    def export_embeddings(self) -> None:
        """File > Export embeddings: a folder for the TensorBoard Projector's files."""
        if self.profiler is None:
            return
        folder = choose_folder(self, "Export embeddings for the Projector")
        if folder is not None:
            self.save_embeddings(str(folder))

    def save_embeddings(self, folder: str) -> None:
        profiler = self.profiler
        groups = self.people_map.groups if self.people_map is not None else None
        self.state.runner.start(
            "export", export_embeddings, profiler.model, folder,
            collection=profiler.collection, groups=groups,
            on_success=lambda paths: self.state.message.emit(
                f"Wrote {len(paths)} files for the Projector to {folder}"),
            on_failure=lambda e, tb: show_error(self, "Cannot export the embeddings", e, tb))
