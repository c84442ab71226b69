"""Query panel: type a topic, or paste a paper from outside the collection (who could review
it?), see the people ranked by the chosen method (`auto`, the fusion chosen on the model's
held-out documents, by default), each with the ranking method's own number under its name
(P(expert), comparable across queries, where the model holds a fit for the method and the query
asks what it was fitted on; else P(c|q) for the log-linear model, or the method's score), which
query words the model does not know, why a person ranks where they do (each word's P(c|w), Eq.
1, and their supporting documents), only among a list of people if given, with recent work
counting more if asked (query_options.py), and export the ranking as CSV or a TREC run
(query_export.py), labelled with the method, query, model, collection and date.

The ranking and its table follow one query and one chosen ranker (built in the background, a
baseline standing in before any model), so they stay here; why the chosen person ranks where
they do is query_explain.py, what the panel says before a ranking query_texts.py, the number
beside each person query_values.py, the completion of a typed word query_completer.py."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.errors import QueryError
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.candidates import Restricted, on_people
from expert_gui.core.rankers.loglinear import LogLinearRanker
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.rankers.query_type import (
    OUTSIDE_PAPER,
    auto_reason,
    outside_reason,
    query_kind,
    words_in,
)
from expert_gui.core.store.model_folders import partial_text
from expert_gui.gui.panels.query_completer import WordCompleter
from expert_gui.gui.panels.query_explain import Explanation
from expert_gui.gui.panels.query_export import RankingExport
from expert_gui.gui.panels.query_options import (
    PAPER,
    TOPIC,
    PaperEdit,
    QueryOptions,
    no_p_expert,
    variant_words,
)
from expert_gui.gui.panels.query_texts import ModelTexts, held_out_note
from expert_gui.gui.panels.query_values import VALUE_HEADER, score_bars, shown_values
from expert_gui.gui.people_filter import PeopleFilterDialog
from expert_gui.gui.prepared_rankers import (
    FIRST_BASELINE,
    NEEDS_MODEL,
    PreparedRankers,
    Variant,
)
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    BarDelegate,
    ColumnFitter,
    ElidedLabel,
    boxed,
    compact,
    fill_table,
    item,
    make_table,
)

DEFAULT_DEPTH = 50
SHOWN_WORDS = 16  # query words named in the line under the query (a pasted paper has hundreds)


class QueryPanel(Explanation, ModelTexts, RankingExport, QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("query-panel")
        self.ranker: LogLinearRanker | None = None
        self.method_ranker = None  # the chosen method's ranker, when it is not the log-linear one
        self.loglinear_ranking = None  # of the current query, always: P(c|q) and the entropy
        self.ranking = None  # of the current query by the chosen method
        self.ranked_by = ""  # the method that made `ranking` (the log-linear one until ready)
        self._held_out_words = ()  # of `ranking`'s words, those only the held-out documents hold
        self.variant = Variant()  # the query's kind and recency, as chosen
        self.ranked_variant = Variant()  # those of `ranking`
        self.recency_text = ""  # what the recency of `ranking` did to the documents
        self._method_recency = ""  # the same, of the method ranker's
        self._documents = []
        # (query, person id) of the person the user selected: a ranking of the same query (by
        # another method or model, to another depth) keeps them selected where listed
        self._chosen: tuple[str, str] | None = None

        self.method_combo = QComboBox()
        for method in METHODS:
            self.method_combo.addItem(label(method), method)
        self.method_combo.setToolTip(
            "Which method ranks: Auto fuses the log-linear model, Model 2 (jm) and Model 1 (d) "
            "as the documents held out of training showed best (and says how); the others need "
            "the model's collection too, except Log-linear")
        self.method_combo.currentIndexChanged.connect(lambda _: self._method_chosen())
        self.people_button = QPushButton("People: everybody")
        self.people_button.setToolTip("Rank only some people: paste a list or open a file of "
                                      "person ids or names (current staff, a reviewer pool)")
        self.people_button.clicked.connect(self.choose_people)

        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText("Type a topic, e.g. “memory allocation” (Ctrl+L)")
        self.query_edit.setClearButtonEnabled(True)
        self.completer = WordCompleter(self.query_edit)
        self.query_edit.setCompleter(self.completer)
        self.query_edit.returnPressed.connect(self.run_query)
        self.search_button = QPushButton("Rank people")
        self.search_button.setToolTip("Rank the people for the topic (Enter) or the pasted "
                                      "paper (Ctrl+Enter)")
        self.search_button.clicked.connect(self.run_query)
        self.options = QueryOptions()
        self.options.changed.connect(self._variant_chosen)
        self.paper_edit = PaperEdit()
        self.paper_edit.submitted.connect(self.run_query)
        self.paper_edit.setVisible(False)
        self.paper_hint = ElidedLabel("The paper goes in the box below; Ctrl+Enter ranks it.",
                                      words=True)
        self.paper_hint.setStyleSheet("color: #495057;")
        self.paper_hint.setVisible(False)
        self.depth_spin = QSpinBox()
        self.depth_spin.setRange(1, 100_000)
        self.depth_spin.setValue(DEFAULT_DEPTH)
        self.depth_spin.setPrefix("top ")
        self.depth_spin.setToolTip("How many people to list")
        self.depth_spin.valueChanged.connect(
            lambda _: self._show_ranking(self.ranking) if self.ranking is not None else None)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the ranking as CSV or as a TREC run (Ctrl+E)")
        self.export_button.clicked.connect(self.export_ranking)
        self.words_label = QLabel("Train or open a model to query.")
        self.words_label.setObjectName("query-words")
        self.words_label.setWordWrap(True)
        self.words_label.setTextFormat(Qt.TextFormat.RichText)
        self.words_label.linkActivated.connect(self._link)
        self.completer.keep_clear_of(self.words_label)

        # P(c|q) and its bar keep their width; names, then ids, take the rest, shortened with
        # "…" when the panel is narrow (an id too short to read is hidden), so every number
        # and bar stays on screen.
        bar_width = self.fontMetrics().horizontalAdvance("0") * 14
        self.results = make_table(["Rank", "Person", "Name", VALUE_HEADER, ""])
        self.results.setItemDelegateForColumn(4, BarDelegate(self.results))
        self.results_fitter = ColumnFitter(self.results, content=(0, 3), fixed={4: bar_width},
                                           elastic=(2, 1))  # the name before the id
        self.results.currentCellChanged.connect(lambda row, *_: self._person_chosen(row))
        self.results.cellDoubleClicked.connect(
            lambda row, _c: self.state.profile_requested.emit(self.results.item(row, 1).text()))
        self.results.setToolTip("Double-click a person to see their profile")
        self.words_table = make_table(["Query word", "log P(c|w)", "P(c|w)", ""])
        self.words_table.setItemDelegateForColumn(3, BarDelegate(self.words_table))
        self.words_fitter = ColumnFitter(self.words_table, content=(1, 2),
                                         fixed={3: bar_width}, elastic=(0,))
        self.docs_table = make_table(["Document", "Date", "Matches", "Query words"])
        # Dates and counts whole; titles and words shorten (whole in their tooltips).
        self.docs_fitter = ColumnFitter(self.docs_table, content=(1, 2), elastic=(0, 3))
        self.docs_table.currentCellChanged.connect(lambda row, *_: self._show_document(row))
        self.doc_view = compact(QTextBrowser())
        self.doc_view.setPlaceholderText("Select a supporting document to read it.")
        self.why_label = QLabel("Select a person to see why they rank there.")
        self.why_label.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.method_combo)
        top.addWidget(self.people_button)
        top.addWidget(self.query_edit, 1)
        top.addWidget(self.paper_hint, 1)
        top.addWidget(self.depth_spin)
        top.addWidget(self.search_button)
        top.addWidget(self.export_button)

        why = QWidget()
        wl = QVBoxLayout(why)
        wl.setContentsMargins(0, 0, 0, 0)
        wl.addWidget(self.why_label)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(boxed("Each query word's evidence", self.words_table))
        self.docs_box = boxed("Supporting documents", self.docs_table)
        split.addWidget(self.docs_box)
        split.addWidget(self.doc_view)
        split.setSizes([160, 160, 220])
        wl.addWidget(split, 1)

        main = QSplitter(Qt.Orientation.Horizontal)
        self.results_box = boxed("Ranked people", self.results)
        main.addWidget(self.results_box)
        main.addWidget(why)
        main.setSizes([640, 600])

        below = QWidget()  # the ranking, under a pasted paper that may be made taller
        bl = QVBoxLayout(below)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(2)
        bl.addWidget(self.words_label)
        bl.addWidget(main, 1)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.paper_edit)
        body.addWidget(below)
        body.setStretchFactor(1, 1)
        body.setSizes([self.fontMetrics().lineSpacing() * 7 + 12, 600])

        layout = QVBoxLayout(self)
        layout.setSpacing(3)  # two rows of controls above the ranking, on a small screen too
        layout.addLayout(top)
        layout.addWidget(self.options)
        layout.addWidget(body, 1)

        self._dropped = ""  # why the last model was closed, until another opens
        self._wanted_method = ""  # the user's method while a baseline stands in for it
        # Every method's ranker for the open model and collection, prepared in the background
        # as soon as they open: choosing a method answers at once.
        self.rankers = PreparedRankers(state, self)
        self.rankers.ready.connect(self._ranker_ready)
        self.rankers.variant_ready.connect(self._variant_ready)
        self.rankers.every_document_ready.connect(
            lambda: self.run_query() if self.ranking and self.ranking.unknown_words else None)
        self._training_for = None  # the collection a run is training a model for
        self._query_path = None  # the collection the query box's text was typed for
        self._text_at_load = None  # the query box's text when a collection began to load
        state.runner.started.connect(self._task_started)
        state.model_dropped.connect(self._model_dropped)
        state.model_changed.connect(self._model_changed)
        state.collection_changed.connect(self._collection_changed)
        state.query_requested.connect(self._query_requested)
        state.people_changed.connect(self._people_changed)
        state.retraining_changed.connect(self._retraining_changed)
        self._model_changed(state.model)

    # -- model and query --------------------------------------------------------------------------
    def _model_changed(self, model) -> None:
        self.ranker = self.method_ranker = None  # nothing ranks until this model's are ready
        self.people_button.setEnabled(model is not None)  # chosen among the model's people
        if model is not None and self.state.people:  # keep the people this model knows
            known = set(model.person_ids)
            kept = [p for p in self.state.people if p in known]
            if kept != self.state.people:
                self.state.set_people(kept)
        self.ranker = make_ranker("loglinear", model=model) if model is not None else None
        self.export_button.setEnabled(False)
        self.ranking = self.loglinear_ranking = None
        self._clear_results()
        self._offer_methods(model)
        if model is None:
            collection = self.state.collection
            self.completer.set_words([] if collection is None else collection.vocab.words[1:])
            self.words_label.setText(self._no_model_text())
        else:
            self._dropped = ""
            self.completer.set_words(model.vocab.words[1:])
            self.words_label.setText(self._model_text(model))
        self._build_method_ranker()
        if self.method_ranker is None and self.query_text():
            self.run_query()  # a ranker chosen before has ranked already (_method_ready)


    def _retraining_changed(self) -> None:
        """The run that trains the open model again ended (stopped: the measured model stays
        open, and no longer says it will be replaced)."""
        if self.state.model is None:
            return
        if self.ranking is not None:
            self._show_words(self.ranking)
        else:
            self.words_label.setText(self._model_text(self.state.model))

    def _task_started(self, slot: str) -> None:
        if slot == "load":
            self._text_at_load = self.query_edit.text()

    def _collection_changed(self, _collection) -> None:
        # A query left from another collection would be run on this one when its model opens;
        # one typed while this one loaded is for it (Ctrl+O, Ctrl+L, type: it is kept).
        if self.state.collection_path != self._query_path:
            self._query_path = self.state.collection_path
            if self.query_edit.text() == self._text_at_load or self._text_at_load is None:
                self.query_edit.clear()
        self._text_at_load = None
        self._model_changed(self.state.model)

    def _model_dropped(self, text: str) -> None:
        self._dropped = text

    def set_training(self, collection) -> None:
        """The collection a run trains a model for (None: no run). With no model open for it,
        say that one is on its way rather than ask for Ctrl+T again; another collection opened
        meanwhile is not the one being trained for."""
        if collection is self._training_for:
            return  # called on every training-panel change; the text lists model folders
        self._training_for = collection
        if self.state.model is None and self.ranking is None:
            self.words_label.setText(self._no_model_text())

    def _offer_methods(self, model) -> None:
        """Without a model only the baselines rank (they need no training): the methods of a
        model are shown but disabled, and the first baseline stands in for them until a model
        opens."""
        baselines_only = model is None and self.state.collection is not None
        items = self.method_combo.model()
        for i in range(self.method_combo.count()):
            needs = self.method_combo.itemData(i) in NEEDS_MODEL
            items.item(i).setEnabled(not (baselines_only and needs))
            items.item(i).setToolTip("Comes with a trained model (Ctrl+T)" if needs and
                                     baselines_only else "")
        self.method_combo.blockSignals(True)
        if baselines_only and self.method() in NEEDS_MODEL:
            self._wanted_method = self.method()
            self.method_combo.setCurrentIndex(self.method_combo.findData(FIRST_BASELINE))
        elif model is not None and self._wanted_method:
            self.method_combo.setCurrentIndex(self.method_combo.findData(self._wanted_method))
            self._wanted_method = ""
        self.method_combo.blockSignals(False)


    def _link(self, href: str) -> None:
        self.state.model_requested.emit(Path(href))

    def _clear_results(self) -> None:
        """Nothing on the right may explain a ranking that is no longer on the left."""
        for table in (self.results, self.words_table, self.docs_table):
            table.setRowCount(0)
        header = self.results.horizontalHeaderItem(3)  # named by the next ranking's method
        header.setText(VALUE_HEADER)
        header.setToolTip("")
        self._documents = []
        self.doc_view.clear()
        self.why_label.setText("Select a person to see why they rank there.")
        self.docs_box.setTitle("Supporting documents")
        self.results_box.setTitle("Ranked people")

    def method(self) -> str:
        return self.method_combo.currentData()

    def _method_chosen(self) -> None:
        """Every change of method ranks again at once: with the log-linear model (or the stand-in
        baseline) while the chosen method's ranker is built, then with it."""
        self._wanted_method = ""  # the user's choice replaces the one a baseline stood in for
        self._build_method_ranker()
        if self.method_ranker is None and self.query_text():
            self.run_query()  # not built before: the stand-in ranks until it is

    def _variant_chosen(self) -> None:
        """A topic or a paper, and recency: the box for the text, then the ranker for them."""
        outside = self.options.outside()
        self.query_edit.setVisible(not outside)
        self.paper_hint.setVisible(outside)
        self.paper_edit.setVisible(outside)
        try:
            variant = self.options.variant()
        except QueryError:  # said beside the fields
            self._forget_ranking("")
            return
        if variant.outside != self.variant.outside:
            if outside and not self.paper_edit.text().strip():  # a topic box's pasted paper
                self.paper_edit.setPlainText(self.query_edit.text().strip())
            (self.paper_edit if outside else self.query_edit).setFocus()
        self.variant = variant
        self._build_method_ranker()
        if not self.query_text():  # the ranking on screen is of the other box's text
            self._forget_ranking("Paste a paper's title and abstract above, then press "
                                 "Ctrl+Enter." if outside else "Type a topic and press Enter.")
        elif self.method_ranker is None:
            self.run_query()  # says what is being prepared

    def _forget_ranking(self, text: str) -> None:
        self.ranking = None
        self.export_button.setEnabled(False)
        self._clear_results()
        self.words_label.setText(text)

    def query_text(self) -> str:
        """The topic typed, or the paper pasted, as chosen."""
        edit = self.paper_edit if self.options.outside() else self.query_edit
        return edit.text().strip()

    def choose_people(self) -> None:
        model = self.state.model
        if model is None:
            return
        dialog = PeopleFilterDialog(list(model.person_ids), list(model.person_names),
                                    self.state.people, self)
        if dialog.exec():
            self.set_people(dialog.chosen)

    def set_people(self, person_ids: list[str]) -> None:
        """Rank only these people (none: everybody); the comparison panel evaluates within them
        too."""
        self.state.set_people(person_ids)

    def _people_changed(self) -> None:
        n = len(self.state.people)
        self.people_button.setText(f"People: {n:,} chosen" if n else "People: everybody")
        if (self.ranker is not None or self.method_ranker is not None) and self.query_text():
            self.run_query()

    def _build_method_ranker(self) -> None:
        """The chosen method's ranker: prepared already (every method's is, in the background,
        once per model and collection), or built now; until it is ready, and for Log-linear,
        the log-linear model ranks (without a model, nothing: the query waits for the stand-in
        baseline). A paper from outside or recency (a `Variant`) has rankers of its own, built
        when chosen; nothing stands in for them."""
        self.method_ranker = None
        model, collection, method = self.state.model, self.state.collection, self.method()
        self.rankers.prepare(method)
        if collection is None or (model is None and method in NEEDS_MODEL):
            return
        if self.variant:
            built = self.rankers.get_variant(method, self.variant)
            if built is not None:
                self._method_ready(built.ranker, method, self.variant, built.recency_text)
            else:
                self.rankers.want_variant(method, self.variant)
            return
        if method == "loglinear":
            return
        built = self.rankers.get(method)
        if built is not None:
            self._method_ready(built, method)
        else:
            self.rankers.want(method)

    def _ranker_ready(self, method: str, ranker) -> None:
        if method == self.method() and self.method_ranker is None and not self.variant:
            self._method_ready(ranker, method)

    def _variant_ready(self, method: str, variant: Variant, built) -> None:
        if self.method_ranker is None:
            self._method_ready(built.ranker, method, variant, built.recency_text)

    def _method_ready(self, ranker, method: str, variant: Variant = Variant(),
                      recency_text: str = "") -> None:
        if method != self.method() or variant != self.variant:
            return  # built for a choice that has since changed
        self.method_ranker = ranker
        self._method_recency = recency_text
        if self.query_text():
            self.run_query()

    def chosen_method(self) -> str:
        """The user's method, also while a baseline stands in for it (no model yet)."""
        return self._wanted_method or self.method()

    def restore(self, query: str, method: str) -> None:
        """The last session's query and method (a relaunch), ranked as soon as a ranker is."""
        index = self.method_combo.findData(method)
        if index >= 0:
            if self.method_combo.model().item(index).isEnabled():
                self.method_combo.setCurrentIndex(index)
                self._wanted_method = ""
            else:  # needs a model: chosen when one opens
                self._wanted_method = method
        self.query_edit.setText(query)
        self._query_path = self.state.collection_path
        self.run_query()

    def focus_query(self) -> None:
        if self.options.outside():
            self.paper_edit.setFocus()
            self.paper_edit.selectAll()
            return
        self.query_edit.setFocus()
        self.query_edit.selectAll()

    def set_query(self, text: str) -> None:
        """Rank `text` as what is chosen: a topic, or a paper from outside."""
        if self.options.outside():
            self.paper_edit.setPlainText(text)
        else:
            self.query_edit.setText(text)
        self.run_query()

    def set_paper(self, text: str) -> None:
        """Rank `text` as a paper from outside the collection."""
        self.paper_edit.setPlainText(text)
        if self.options.kind() != PAPER:
            self.options.set_kind(PAPER)  # ranks it, once its ranker is ready
        else:
            self.run_query()

    def _query_requested(self, text: str) -> None:
        """Another panel asks for a topic (of the topic set, a profile's word)."""
        self.options.set_kind(TOPIC)
        self.set_query(text)

    def run_query(self) -> None:
        """Rank on the GUI thread: one matrix-vector product and a softmax over people (or a
        baseline's sparse product, before any model)."""
        text = self.query_text()
        if not text:
            return
        if self.options.problem:  # a recency that cannot be used
            return
        waiting = bool(self.variant) and self.method_ranker is None
        if waiting or (self.ranker is None and self.method_ranker is None):
            what = " ".join(filter(None, (label(self.method()), variant_words(self.variant))))
            self._forget_ranking(
                "Open a collection first (Ctrl+O)." if self.state.collection is None else
                f"{html.escape(what)} is being prepared: the query runs when it is ready.")
            return
        self.loglinear_ranking = self.ranker.rank(text) if self.ranker is not None else None
        ranker, self.ranked_by = self.ranker, "loglinear"
        self.ranked_variant, self.recency_text = Variant(), ""
        if self.method_ranker is not None:
            ranker, self.ranked_by = self.method_ranker, self.method()
            self.ranked_variant, self.recency_text = self.variant, self._method_recency
        people = self.state.people
        if people:
            ranker = among(ranker, people)
        ranking = ranker.rank(text) if people or ranker is not self.ranker else \
            self.loglinear_ranking
        self.ranking = ranking = self._over_every_document(text, ranking)
        self._show_words(ranking)
        self._show_ranking(ranking)
        self.export_button.setEnabled(len(ranking) > 0)
        if self.loglinear_ranking is not None:
            self.state.set_ranking(self.loglinear_ranking)

    def _over_every_document(self, text: str, ranking):
        """While the measured model answers, a topic with words only the held-out documents
        hold is ranked by FIRST_BASELINE over every document, which holds them."""
        whole = None if self.variant else self.rankers.over_every_document()
        answer = None
        if whole is not None and ranking.unknown_words:
            answer = on_people((among(whole, self.state.people) if self.state.people else whole)
                               .rank(text), self.state.model.person_ids)
        known = set(ranking.known_words)
        self._held_out_words = tuple(dict.fromkeys(
            w for w in (answer.known_words if answer else ()) if w not in known))
        if not self._held_out_words:
            return ranking
        self.ranked_by = FIRST_BASELINE
        return answer

    def _show_words(self, ranking) -> None:
        parts = []
        if ranking.known_words:
            parts.append("Query words: <b>" + words_text(ranking.known_words) + "</b>")
        if ranking.unknown_words:
            parts.append('<span style="color:#c92a2a">Unknown words (ignored): <s>'
                         + words_text(ranking.unknown_words) + "</s></span>")
        if ranking.no_known_words:
            parts.append('<span style="color:#c92a2a">The model knows none of these words: '
                         "nobody can be ranked.</span>")
        elif self.loglinear_ranking is not None and self.loglinear_ranking.entropy is not None:
            parts.append(f"normalized entropy (Eq. 6): {self.loglinear_ranking.entropy:.3f}")
        parts.append(f"ranked by {html.escape(self._method_note(ranking))}")
        if missing := self.missing_p_expert():
            parts.append(html.escape(missing))
        if self.state.model is None:
            parts.append("the log-linear model, Auto and the ensemble come after training "
                         "(Ctrl+T)")
        partial = partial_text(self.state.model) if self.state.model is not None else ""
        if partial:
            parts.append(f'<span style="color:#d9480f">a <b>partial</b> model '
                         f"({html.escape(partial)})</span>")
        if measured := self._measured_text():
            parts.append(measured)
        self.words_label.setText(" &nbsp;·&nbsp; ".join(parts))

    def missing_p_expert(self) -> str:
        """Why the ranking on screen has no P(expert) though the model holds a fit for its
        method: its query's type, a paper from outside, or recency ("" otherwise)."""
        if self.ranking is not None and (why := self.ranking.extra.get("no_p_expert")):
            return f"no P(expert): {why}"
        model = self.state.model
        fits = (model.calibration or {}).get("probability", {}) if model is not None else {}
        return no_p_expert(self.ranked_variant) if self.ranked_by in fits else ""

    def _method_note(self, ranking) -> str:
        """Which method ranked, and for auto with what and why; what recency did."""
        if self._held_out_words:
            return held_out_note(self._held_out_words, self.method())
        note = label(self.ranked_by)
        variant = self.ranked_variant
        if "label" in ranking.extra:
            n = words_in(self.state.model.tokenizer, ranking.query)
            if ranking.extra.get("query_type") == OUTSIDE_PAPER:
                note += (f": {ranking.extra['label']}. For this {OUTSIDE_PAPER} ({n:,} words): "
                         f"{outside_reason()}")
            else:
                note += (f": {ranking.extra['label']}. For this {query_kind(n)}: "
                         f"{auto_reason(self.state.model.calibration, n)}")
        elif variant.outside:
            note += f" for a {OUTSIDE_PAPER}"
        elif self.method() != self.ranked_by:
            note += f" ({label(self.method())} is being prepared" + \
                ("" if self.state.collection is not None else ": open the model's collection") + ")"
        if variant.recency:
            note += f"; recency: {self.recency_text or variant.recency.describe()}"
            if self.ranked_by == "loglinear":
                note += (" (the log-linear model, trained on every document, weighs each "
                         "person by their share of documents that count)")
        if ranking.candidates is not None:
            if self.state.people:
                note += f"; among the {ranking.n_candidates:,} people chosen" + (
                    " with a document that counts" if variant.recency else "")
            else:
                note += f"; only the {ranking.n_candidates:,} people with a document that counts"
        return note

    def _show_ranking(self, ranking) -> None:
        """The ranking's people, the one the user selected for this query (if listed) or the
        first selected and explained."""
        depth = self.depth_spin.value()
        # the person chosen for this query (another query: its first person), taken before the
        # table is emptied and filled again
        chosen = self._chosen if self._chosen is not None and \
            self._chosen[0] == ranking.query else None
        rows = []
        names_are_ids = True  # then the Name column only repeats the Person column
        header, tip, values, bars = shown_values(ranking, self.ranked_by, depth,
                                                 self.missing_p_expert())
        shown = ranking.people[:depth]
        if bars:  # a share of the largest
            top = max(values, default=1.0)
            shares = [v / top if top > 0 else 0.0 for v in values]
        else:  # a method's own score, as a share of the best (score_bars)
            shares = score_bars(np.asarray(values, dtype=np.float64)).tolist()
        for rank, (person, value, share) in enumerate(zip(shown, values, shares, strict=True),
                                                      start=1):
            bar = item("")
            bar.setData(Qt.ItemDataRole.UserRole, float(share))
            bar.setToolTip(f"{header} = {value:.4g}")
            pid, name = self._person(ranking, person)
            names_are_ids &= name == pid
            text = f"{value:.4f}" if bars else f"{value:.4g}"
            rows.append([rank, item(pid, tooltip=pid), item(name, tooltip=f"{name} ({pid})"),
                         item(text, align_right=True, tooltip=tip), bar])
        self._clear_results()
        head = self.results.horizontalHeaderItem(3)
        head.setText(header)
        head.setToolTip(tip)
        fill_table(self.results, rows)
        self.results_fitter.omitted = frozenset({2} if names_are_ids and rows else ())
        self.results_fitter.fit()
        among = "" if ranking.candidates is None else f" of {ranking.n_candidates:,} chosen"
        if len(ranking):
            self.results_box.setTitle(f"Ranked people: top {len(rows):,} of {len(ranking):,}"
                                      if len(rows) < len(ranking) else
                                      f"Ranked people: all {len(rows):,}{among}")
        self._chosen = chosen
        listed = [ranking.person_ids[p] for p in shown]
        row = listed.index(chosen[1]) if chosen is not None and chosen[1] in listed else 0
        if rows:
            self.results.blockSignals(True)  # explained once, below, not also by the signal
            self.results.selectRow(row)
            self.results.blockSignals(False)
            self.results.scrollToItem(self.results.item(row, 0))
            # The people on screen before the first one's explanation is worked out (its
            # evidence and supporting documents took a quarter of a typed query's time).
            self.results.viewport().repaint()
            self._explain(row)

    def _person(self, ranking, person: int) -> tuple[str, str]:
        """A ranked person's id and name (the model's, or the collection's before any)."""
        pid = ranking.person_ids[person]
        if self.state.model is not None:
            return pid, self.state.model.person_names[person]
        collection = self.state.collection
        index = collection.person_index.get(pid) if collection is not None else None
        return pid, collection.person_names[index] if index is not None else pid


def among(ranker, people):
    """`ranker` ranking only `people` (ids); under recency, of those only the ones with a
    document that counts (the people make_ranker's ranker ranks)."""
    if isinstance(ranker, Restricted):
        inner = ranker.ranker
        ranked = {inner.person_ids[i] for i in ranker.candidates}
        return Restricted(inner, [p for p in people if p in ranked])
    return Restricted(ranker, people)


def words_text(words) -> str:
    """Query words for the line under the query: all of a topic's, the first of a paper's."""
    shown = " ".join(words[:SHOWN_WORDS])
    more = len(words) - SHOWN_WORDS
    return html.escape(shown) + (f" … ({len(words):,} in all)" if more > 0 else "")
