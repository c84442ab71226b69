"""Query panel: type a topic, see the people ranked by the chosen method (`auto`, the fusion
chosen on the model's held-out documents, by default), each with the ranking method's own number
under its name (P(expert), comparable across queries, where the model holds a fit for the
method; else P(c|q) for the log-linear model, or the method's score), which query words the
model does not know, why a person ranks where they do (each word's P(c|w), Eq. 1, and their
supporting documents), only among a list of people if given, and export the ranking as CSV or a
TREC run, labelled with the method, query, model, collection and date.

Near 750 lines, on purpose: the ranking, its table, the explanation and the export all follow one
query, one chosen ranker (built in the background, a baseline standing in before any model) and
one chosen person; splitting them would pass that state between modules."""

from __future__ import annotations

import csv
import html
import re
from datetime import datetime
from pathlib import Path

import numpy as np
from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
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

from expert_gui.core.errors import OutputFolderError
from expert_gui.core.evaluation.every_document import measured_note
from expert_gui.core.evaluation.runs import write_run
from expert_gui.core.evaluation.tables import label
from expert_gui.core.paths import models_dir
from expert_gui.core.rankers.candidates import Restricted
from expert_gui.core.rankers.loglinear import LogLinearRanker, supporting_documents
from expert_gui.core.rankers.methods import make_ranker
from expert_gui.core.rankers.names import METHODS, SCORE_NAMES
from expert_gui.core.rankers.query_type import auto_reason, query_kind
from expert_gui.core.store.model_folders import (
    COMPLETE,
    PARTIAL,
    list_model_folders,
    partial_text,
)
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.people_filter import PeopleFilterDialog
from expert_gui.gui.prepared_rankers import NEEDS_MODEL, PreparedRankers
from expert_gui.gui.save_dialogs import file_stem, save_file
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import (
    BarDelegate,
    ColumnFitter,
    boxed,
    compact,
    fill_table,
    item,
    make_table,
)

DEFAULT_DEPTH = 50
TREC_TOPIC_ID = "query"
SHOWN_DOCUMENTS = 50  # supporting documents listed per person (the title says how many exist)


# The baseline chosen before any model is trained (the methods of NEEDS_MODEL come after).
FIRST_BASELINE = "model1-d"  # the strongest baseline on DPDK's topics (docs/results)


def score_bars(scores: np.ndarray) -> np.ndarray:
    """Bars for a method's own scores, as a share of the best: a log-probability (Model 1/2's
    log P(q|c)) as exp(score - best), a similarity as score / best."""
    scores = np.asarray(scores, dtype=np.float64)
    if not len(scores):
        return scores
    best = float(scores.max())
    if best <= 0:
        return np.exp(scores - best)
    return np.clip(scores / best, 0.0, 1.0)


VALUE_HEADER = "Score"  # the column of numbers until a ranking names its own


class WordCompleter(QCompleter):
    """Completes the word being typed (the last one), not the whole query."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.words = QStringListModel(self)
        self.setModel(self.words)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchStartsWith)
        self.setModelSorting(QCompleter.ModelSorting.UnsortedModel)  # most frequent first
        self.setMaxVisibleItems(12)

    def set_words(self, words: list[str]) -> None:
        # the same words (a model retrained on the same collection) leave the list alone: a
        # reset hides the open popup, and keys on their way to it are lost
        if words != self.words.stringList():
            self.words.setStringList(words)

    def splitPath(self, path: str) -> list[str]:
        last = path.split(" ")[-1]
        return [last] if last else ["\0"]  # after a space: no word begun, no list

    def pathFromIndex(self, index) -> str:
        text = self.widget().text() if self.widget() is not None else ""
        head = text.rsplit(" ", 1)[0] + " " if " " in text else ""
        return head + str(index.data())


class QueryPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("query-panel")
        self.ranker: LogLinearRanker | None = None
        self.method_ranker = None  # the chosen method's ranker, when it is not the log-linear one
        self.loglinear_ranking = None  # of the current query, always: P(c|q) and the entropy
        self.ranking = None  # of the current query by the chosen method
        self.ranked_by = ""  # the method that made `ranking` (the log-linear one until ready)
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
        self.search_button.clicked.connect(self.run_query)
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

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.words_label)
        layout.addWidget(main, 1)

        self._dropped = ""  # why the last model was closed, until another opens
        self._wanted_method = ""  # the user's method while a baseline stands in for it
        # Every method's ranker for the open model and collection, prepared in the background
        # as soon as they open: choosing a method answers at once.
        self.rankers = PreparedRankers(state, self)
        self.rankers.ready.connect(self._ranker_ready)
        self._training_for = None  # the collection a run is training a model for
        self._query_path = None  # the collection the query box's text was typed for
        self._text_at_load = None  # the query box's text when a collection began to load
        state.runner.started.connect(self._task_started)
        state.model_dropped.connect(self._model_dropped)
        state.model_changed.connect(self._model_changed)
        state.collection_changed.connect(self._collection_changed)
        state.query_requested.connect(self.set_query)
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
        if self.method_ranker is None and self.query_edit.text().strip():
            self.run_query()  # a ranker chosen before has ranked already (_method_ready)

    def _model_text(self, model) -> str:
        """What the open model is, before any query."""
        text = f"{model.n_people:,} people, {model.n_words:,} words known. Press Enter to rank."
        if partial_text(model):
            text += (f' <span style="color:#d9480f">A <b>partial</b> model: training was '
                     f"{html.escape(partial_text(model))}.</span>")
        if measured := self._measured_text():
            text += f" {measured[0].upper()}{measured[1:]}."
        return text

    def _measured_text(self) -> str:
        """While a run trains the open model again on every document: that the measured model
        answers and what it lacks ('' otherwise)."""
        if not self.state.measured_answers():
            return ""
        return f'<span style="color:#d9480f">{html.escape(measured_note(self.state.model))}</span>'

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

    def _no_model_text(self) -> str:
        """With no model: the baselines answer now; why the last model closed, and the saved
        models of this collection, newest first, to open."""
        collection = self.state.collection
        if collection is None:
            return "Open a collection (Ctrl+O): the baselines answer at once, the log-linear " \
                   "model after training."
        baselines = (f"Until a model is trained, {html.escape(label(self.method()))} and the "
                     "other baselines answer here; the log-linear model, Auto and the "
                     "ensemble come after training.")
        if self._training_for is collection:
            return (f"Training a model for <b>{html.escape(collection.name)}</b>: it answers "
                    f"here as soon as it is saved. {baselines}")
        if self._dropped:
            return (html.escape(self._dropped) + "<br>" + self._saved_models_text(collection)
                    + " " + baselines)
        return self._saved_models_text(collection) + " " + baselines

    def _saved_models_text(self, collection) -> str:
        saved = [f for f in list_model_folders(models_dir())
                 if f.kind in (COMPLETE, PARTIAL) and f.belongs_to(collection)]
        name = html.escape(collection.name)
        if not saved:
            return (f"No model for <b>{name}</b> yet: train one (Ctrl+T), then query here.")
        links = ", ".join(f'<a href="{html.escape(str(f.path))}">{html.escape(f.name)}</a>'
                          + (" (partial)" if f.kind == PARTIAL else "") for f in saved[:3])
        more = f" and {len(saved) - 3} more in the Training panel" if len(saved) > 3 else ""
        return (f"No model open for <b>{name}</b>. Open one trained on it (newest first): "
                f"{links}{more}; or train a new one (Ctrl+T).")

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
        if self.method_ranker is None and self.query_edit.text().strip():
            self.run_query()  # not built before: the stand-in ranks until it is
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
        if self.ranker is not None and self.query_edit.text().strip():
            self.run_query()

    def _build_method_ranker(self) -> None:
        """The chosen method's ranker: prepared already (every method's is, in the background,
        once per model and collection), or built now; until it is ready, and for Log-linear,
        the log-linear model ranks (without a model, nothing: the query waits for the stand-in
        baseline)."""
        self.method_ranker = None
        model, collection, method = self.state.model, self.state.collection, self.method()
        self.rankers.prepare(method)
        if collection is None or method == "loglinear" or (model is None and
                                                            method in NEEDS_MODEL):
            return
        built = self.rankers.get(method)
        if built is not None:
            self._method_ready(built, method)
        else:
            self.rankers.want(method)

    def _ranker_ready(self, method: str, ranker) -> None:
        if method == self.method() and self.method_ranker is None:
            self._method_ready(ranker, method)

    def _method_ready(self, ranker, method: str) -> None:
        if method != self.method():
            return  # built for a choice that has since changed
        self.method_ranker = ranker
        if self.query_edit.text().strip():
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
        self.query_edit.setFocus()
        self.query_edit.selectAll()

    def set_query(self, text: str) -> None:
        self.query_edit.setText(text)
        self.run_query()

    def run_query(self) -> None:
        """Rank on the GUI thread: one matrix-vector product and a softmax over people (or a
        baseline's sparse product, before any model)."""
        text = self.query_edit.text().strip()
        if not text:
            return
        if self.ranker is None and self.method_ranker is None:
            self.words_label.setText(
                "Open a collection first (Ctrl+O)." if self.state.collection is None else
                f"{html.escape(label(self.method()))} is being prepared: the query runs when "
                "it is ready.")
            return
        self.loglinear_ranking = self.ranker.rank(text) if self.ranker is not None else None
        ranker, self.ranked_by = self.ranker, "loglinear"
        if self.method_ranker is not None:
            ranker, self.ranked_by = self.method_ranker, self.method()
        people = self.state.people
        if people:
            ranker = Restricted(ranker, people)
        ranking = ranker.rank(text) if people or ranker is not self.ranker else \
            self.loglinear_ranking
        self.ranking = ranking
        self._show_words(ranking)
        self._show_ranking(ranking)
        self.export_button.setEnabled(len(ranking) > 0)
        if self.loglinear_ranking is not None:
            self.state.set_ranking(self.loglinear_ranking)

    def _show_words(self, ranking) -> None:
        parts = []
        if ranking.known_words:
            parts.append("Query words: <b>" + html.escape(" ".join(ranking.known_words)) + "</b>")
        if ranking.unknown_words:
            parts.append('<span style="color:#c92a2a">Unknown words (ignored): <s>'
                         + html.escape(" ".join(ranking.unknown_words)) + "</s></span>")
        if ranking.no_known_words:
            parts.append('<span style="color:#c92a2a">The model knows none of these words: '
                         "nobody can be ranked.</span>")
        elif self.loglinear_ranking is not None and self.loglinear_ranking.entropy is not None:
            parts.append(f"normalized entropy (Eq. 6): {self.loglinear_ranking.entropy:.3f}")
        parts.append(f"ranked by {html.escape(self._method_note(ranking))}")
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

    def _method_note(self, ranking) -> str:
        """Which method ranked, and for auto with what and why."""
        note = label(self.ranked_by)
        if "label" in ranking.extra:
            n = len(self.state.model.tokenizer.words(ranking.query))
            note += (f": {ranking.extra['label']}. For this {query_kind(n)}: "
                     f"{auto_reason(self.state.model.calibration, n)}")
        elif self.method() != self.ranked_by:
            note += f" ({label(self.method())} is being prepared" + \
                ("" if self.state.collection is not None else ": open the model's collection") + ")"
        if ranking.candidates is not None:
            note += f"; among the {ranking.n_candidates:,} people chosen"
        return note

    def shown_values(self, ranking) -> tuple[str, str, list[float], bool]:
        """The number the list shows beside each person, under the ranking method's name: the
        column's header, its tooltip, the values (in rank order) and whether bars suit them."""
        method = label(self.ranked_by)
        people = ranking.people[:self.depth_spin.value()]
        if ranking.p_expert is not None:
            fit = ranking.extra.get("p_expert", {})
            return (f"{method} P(expert)",
                    f"P(expert) by {method}: {method}'s own estimate of the probability that "
                    "the person is one of the right people for this query (a logistic fit of "
                    f"its scores on the model's {fit.get('queries', 0):,} held-out documents), "
                    "comparable across queries. Each method has its own fit: for one query two "
                    "methods can be sure to very different degrees, so compare people within "
                    "one method's list, not one method's numbers with another's.",
                    ranking.p_expert[:len(people)].tolist(), True)
        if self.ranked_by == "loglinear" and ranking.probabilities is not None:
            return (f"{method} P(c|q)", "P(c|q) of the log-linear model (Eq. 2): shared "
                    "among the people, so not comparable across queries",
                    ranking.probabilities[people].tolist(), True)
        name = SCORE_NAMES.get(self.ranked_by, "score")
        return (f"{method}: {name}", f"{method}'s own score, {name} (no P(expert): the model "
                "was trained without held-out documents or before P(expert) existed)",
                ranking.scores[:len(people)].tolist(), False)

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
        header, tip, values, bars = self.shown_values(ranking)
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

    # -- explanation ------------------------------------------------------------------------------
    def _person_chosen(self, row: int) -> None:
        """The user selected a row: that person stays selected while the same query ranks
        again."""
        if self.ranking is not None and 0 <= row < self.results.rowCount():
            self._chosen = (self.ranking.query,
                            self.ranking.person_ids[int(self.ranking.people[row])])
        self._explain(row)

    def _explain(self, row: int) -> None:
        if self.ranking is None or row < 0 or row >= len(self.ranking):
            return
        person = int(self.ranking.people[row])
        pid, name = self._person(self.ranking, person)
        who = f"<b>{html.escape(name)}</b> ({html.escape(pid)}) is ranked {row + 1}"
        rows = []
        if self.ranker is None:  # no model: only the documents say why
            self.why_label.setText(f"{who} by {html.escape(label(self.ranked_by))}; below, "
                                   "their documents that hold the query's words.")
        else:
            explanation = self.ranker.explain(self.ranking, person)
            how = (": the product of P(c|w) over the query words (Eq. 2) decides the order."
                   if self.ranked_by == "loglinear" else
                   f" by {html.escape(label(self.ranked_by))}; "
                   "below, the log-linear model's evidence.")
            self.why_label.setText(f"{who}{how}")
            largest = max((np.exp(lp) for _, lp in explanation.word_log_probs), default=1.0)
            for word, log_p in explanation.word_log_probs:
                bar = item("")
                bar.setData(Qt.ItemDataRole.UserRole, float(np.exp(log_p) / largest))
                rows.append([word, item(f"{log_p:.3f}", align_right=True),
                             item(f"{np.exp(log_p):.4f}", align_right=True), bar])
        fill_table(self.words_table, rows)
        self.words_fitter.fit()
        collection = self.state.collection
        found = () if collection is None else all_supporting_documents(
            collection, pid, self.ranking.known_words)
        self._documents = list(found[:SHOWN_DOCUMENTS])
        # Titles stay short: a group box is at least as wide as its title.
        self.docs_box.setTitle(f"Supporting documents: {len(self._documents):,} of {len(found):,}"
                               if len(found) > len(self._documents) else
                               f"Supporting documents: {len(found):,}")
        self.doc_view.clear()
        fill_table(self.docs_table, [
            [item(collection.title(d.index, 80), tooltip=d.doc_id),
             collection.date_text(d.index), d.matches,
             item(", ".join(d.words), tooltip=", ".join(d.words))] for d in self._documents])
        self.docs_fitter.fit()
        if not self._documents:
            self.doc_view.setPlaceholderText(
                "No document of this person holds a query word: the model ranks them by "
                "semantic similarity alone." if self.state.collection is not None else
                "Open the model's collection to see supporting documents.")
        else:
            self.docs_table.blockSignals(True)  # shown once, below, not also by the signal
            self.docs_table.selectRow(0)
            self.docs_table.blockSignals(False)
            self._show_document(0)

    def _show_document(self, row: int) -> None:
        collection = self.state.collection
        if collection is None or row < 0 or row >= len(self._documents):
            return
        doc = self._documents[row]
        text = html.escape(collection.text(doc.index))
        if doc.words:
            pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in doc.words) + r")\b",
                                 re.IGNORECASE)
            text = pattern.sub(r'<b style="background:#ffe066">\1</b>', text)
        date = collection.date_text(doc.index)
        self.doc_view.setHtml(f"<p><b>{html.escape(doc.doc_id)}</b>"
                              f"{' · ' + date if date else ''}</p>"
                              f"<p style='white-space:pre-wrap'>{text}</p>")

    # -- export -----------------------------------------------------------------------------------
    def export_ranking(self) -> None:
        if self.ranking is None or len(self.ranking) == 0:
            return
        name = f"{file_stem(self.ranking.query, 'ranking')}-{self.ranked_by}.csv"
        chosen = save_file(self, "Export ranking", name,
                           {"CSV (*.csv)": ".csv", "TREC run (*.run *.txt)": ".run"})
        if chosen is not None:
            path, kind = chosen
            self.save_ranking(path, trec="TREC" in kind or path.suffix == ".run")

    def save_ranking(self, path: Path, *, trec: bool) -> None:
        """The ranking on screen, as listed (all of its people, not only those shown)."""
        try:
            if trec:
                write_run(path, {TREC_TOPIC_ID: self.ranking}, tag=self.ranked_by,
                          p_expert=self.ranking.p_expert is not None)
            else:
                s = self.state
                names = [self._person(self.ranking, p)[1]
                         for p in range(len(self.ranking.person_ids))]
                model = str(s.model_path or "") + (
                    " (the measured model, before training again on every document)"
                    if s.measured_answers() else "")  # the folder's model is replaced after
                write_ranking_csv(path, self.ranking, names, {
                    "method": label(self.ranked_by), "query": self.ranking.query,
                    "model": model, "collection": str(s.collection_path or ""),
                    "exported": datetime.now().astimezone().isoformat(timespec="seconds")},
                    score=SCORE_NAMES.get(self.ranked_by, "score"))
        except (OSError, OutputFolderError) as exc:
            show_error(self, f"Cannot write {path.name}", exc)
            return
        self.state.message.emit(f"Saved the ranking to {path}")


def all_supporting_documents(collection, person_id: str, words) -> tuple:
    """Every document of the person that holds a query word, most occurrences first."""
    person = collection.person_index.get(person_id)
    if person is None:
        return ()
    return supporting_documents(collection, person_id, list(dict.fromkeys(words)),
                                n=len(collection.documents_of(person)))


def write_ranking_csv(path: Path, ranking, person_names: list[str], about: dict[str, str], *,
                      score: str) -> None:
    """One row per ranked person: rank, id, name, the method's score under its own name
    (`score`: "log P(q|c)", ...), P(expert) when the ranking has it, P(c|q) for the log-linear
    model; then what made the ranking (`about`: method, query, model, collection, exported) on
    every row, so a row read alone still says where its numbers come from."""
    p_expert, p_c_q = ranking.p_expert is not None, ranking.probabilities is not None
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["rank", "person_id", "name", score, *(["P(expert)"] if p_expert else []),
                    *(["P(c|q)"] if p_c_q else []), *about])
        for rank, (person, value) in enumerate(zip(ranking.people, ranking.scores,
                                                   strict=True), start=1):
            row = [rank, ranking.person_ids[person], person_names[person], f"{value:.6g}"]
            if p_expert:
                row.append(f"{ranking.p_expert[rank - 1]:.6g}")
            if p_c_q:
                row.append(f"{ranking.probabilities[person]:.6g}")
            w.writerow(row + list(about.values()))
