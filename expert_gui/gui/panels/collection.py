"""Collection panel: open a collection (dialog or drop), watch it load, read its load report,
its Table 1 statistics, its people and their documents; open the topics and qrels that go with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QRegularExpression, QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.data.formats.presets import TableColumns
from expert_gui.core.data.formats.reading import LoadProgress
from expert_gui.core.data.loading import collection_path, load_collection
from expert_gui.core.data.people_search import PeopleSearch, search_for
from expert_gui.core.data.topics import read_topics
from expert_gui.core.evaluation.qrels import coverage, read_qrels
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.open_dialog import choose_collection_path
from expert_gui.gui.people_edits import PeopleEditor
from expert_gui.gui.state import AppState
from expert_gui.gui.table_columns import choose_table_columns, table_to_preview
from expert_gui.gui.widgets import (
    ColumnFitter,
    ElidedLabel,
    boxed,
    compact,
    fill_table,
    item,
    make_table,
    plural,
)

# Problems listed one by one in the report (all are counted; a huge list would only slow the view).
MAX_LISTED_PROBLEMS = 500
# People a name written another way adds to the search's matches (the pattern grows with each).
MAX_MATCHED = 500
# Documents of one person listed in the viewer.
MAX_LISTED_DOCUMENTS = 2000
# File names looked for next to a collection folder, so topics and qrels open with it.
TOPIC_FILES = ("topics.tsv", "topics.dev.tsv")
QREL_FILES = ("qrels.txt", "qrels.dev.txt")
# What the Open dialog's file filter offers: single-file collections, and any file of a collection
# folder (which opens the folder). Detection goes by content, so "All files" stays offered.
COLLECTION_FILE_FILTERS = (
    "Collection files (*.bib *.ris *.csv *.tsv *.xlsx *.txt *.ciw *.nbib *.medline *.xml "
    "*.json *.rdf *.enw *.trec *.gz documents.* associations.* people.*)",
    "BibTeX or RIS (*.bib *.ris)",
    "Web of Science: plain text or tab-delimited (*.txt *.ciw *.csv)",
    "PubMed: MEDLINE, XML or CSV (*.nbib *.txt *.medline *.xml *.csv)",
    "Scopus, Lens, IEEE, Publish or Perish, Zotero, Embase, Ovid, SpringerLink, ACM CSV (*.csv)",
    "CSL-JSON, OpenAlex, Crossref (*.json)",
    "EndNote XML or tagged, RefWorks and NASA ADS tagged (*.xml *.enw *.txt)",
    "Zotero RDF (*.rdf)",
    "Tables of publications with text and authors columns (*.csv *.tsv *.xlsx)",
    "TREC documents (*.trec *.xml *.txt *.gz)",
    "A file of a collection folder (documents.* associations.* people.*)",
    "All files (*)",
)

STAT_LABELS = (
    ("documents", "Documents", "{:,}"),
    ("average_document_length", "Average document length (tokens)", "{:,.1f}"),
    ("people_with_documents", "Candidates (people with documents)", "{:,}"),
    ("associations", "Document-candidate associations", "{:,}"),
    ("documents_with_people", "Documents with at least one candidate", "{:,}"),
    ("associations_per_document_mean", "Associations per document (mean)", "{:.2f}"),
    ("associations_per_document_sd", "Associations per document (sd)", "{:.2f}"),
    ("associations_per_person_mean", "Associations per candidate (mean)", "{:.2f}"),
    ("associations_per_person_sd", "Associations per candidate (sd)", "{:.2f}"),
)


def progress_fraction(event: LoadProgress) -> float | None:
    """A load progress event's completed fraction (None while the total is unknown)."""
    if not event.total:
        return None
    return max(0.0, min(1.0, event.done / event.total))


class CollectionPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("collection-panel")
        self.columns: TableColumns | None = None  # a table's columns, as chosen for the open one

        self.open_button = QPushButton("Open collection…")
        self.open_button.setToolTip("A file (an export from Web of Science, PubMed, Scopus, "
                                    "Zotero, EndNote..., a table, TREC) or a folder "
                                    "(documents.tsv and associations.tsv, exports, a git "
                                    "repository, text files), from one dialog (Ctrl+O). You "
                                    "can also drop either on the window.")
        self.open_button.clicked.connect(self.choose_collection)
        self.topics_button = QPushButton("Open topics…")
        self.topics_button.clicked.connect(self.choose_topics)
        self.qrels_button = QPushButton("Open qrels…")
        self.qrels_button.clicked.connect(self.choose_qrels)
        self.path_label = ElidedLabel("No collection open")
        self.path_label.setObjectName("collection-path")
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(lambda: self.state.runner.stop("load"))
        self.topics_label = QLabel("No topics")

        self.stats_table = make_table(["Statistic (Table 1)", "Value"])
        # Values keep their width; long statistic names shorten (their tooltips say them whole).
        self.stats_fitter = ColumnFitter(self.stats_table, content=(1,), elastic=(0,))
        self.report_view = compact(QPlainTextEdit())
        self.report_view.setReadOnly(True)
        self.report_view.setPlaceholderText("The load report appears here.")

        self.people_model = QStandardItemModel(0, 3)
        self.people_model.setHorizontalHeaderLabels(["Person", "Name", "Documents"])
        self.people_proxy = QSortFilterProxyModel()
        self.people_proxy.setSourceModel(self.people_model)
        self.people_proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.people_proxy.setFilterKeyColumn(-1)
        self.people_search = QLineEdit()
        self.people_search.setPlaceholderText("Search people…")
        self.people_search.setClearButtonEnabled(True)
        self.people_search.setToolTip("A part of a name or id, or a name written another way "
                                      "(\"W. Tobler\" finds Waldo R. Tobler and Tobler)")
        self.people_search.textChanged.connect(self._search_people)
        self.search: PeopleSearch | None = None  # the open collection's, once built
        self.people_view = QTableView()
        self.people_view.setModel(self.people_proxy)
        self.people_view.setSortingEnabled(True)
        self.people_view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
        self.people_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.people_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.people_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.people_view.verticalHeader().setVisible(False)
        self.people_view.verticalHeader().setDefaultSectionSize(
            self.people_view.fontMetrics().height() + 8)
        # Counts whole; a long name or id (a consortium's) shortens instead of pushing the
        # counts off the side (the name before the id, as in the query panel).
        self.people_fitter = ColumnFitter(self.people_view, content=(2,), elastic=(1, 0))
        self.people_view.selectionModel().currentRowChanged.connect(self._show_person)
        self.people_view.doubleClicked.connect(lambda index: self.state.profile_requested.emit(
            self.people_proxy.index(index.row(), 0).data()))
        self.people_view.setToolTip("Double-click a person to see their profile; select two "
                                    "to merge them")
        self.editor = PeopleEditor(state, self)
        self._after_edit: str | None = None  # the person to select once the edit is read
        self.merge_button = QPushButton("Merge…")
        self.merge_button.setToolTip("Select two people who are one: their documents become "
                                     "one person's (kept in the collection's people edits)")
        self.merge_button.clicked.connect(self.merge_selected)
        self.split_button = QPushButton("Split off…")  # short: three buttons share a row
        self.split_button.setToolTip("Split a spelling off: the documents that write the "
                                     "selected person one way become another person's")
        self.split_button.clicked.connect(self.split_selected)
        self.undo_button = QPushButton("Undo edit")
        self.undo_button.clicked.connect(self.undo_edit)
        self.people_view.selectionModel().selectionChanged.connect(
            lambda *_: self._show_edit_buttons())

        self.documents_list = compact(QListWidget())
        self.documents_list.currentItemChanged.connect(self._show_document)
        self.document_view = compact(QTextBrowser())
        self.document_view.setPlaceholderText("Select a person, then one of their documents.")

        top = QHBoxLayout()
        for w in (self.open_button, self.topics_button, self.qrels_button):
            top.addWidget(w)
        top.addWidget(self.path_label, 1)
        top.addWidget(self.topics_label)
        loading = QHBoxLayout()
        loading.addWidget(self.progress, 1)
        loading.addWidget(self.cancel_button)

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(boxed("Statistics", self.stats_table))
        left.addWidget(boxed("Load report", self.report_view))
        people = QWidget()
        pl = QVBoxLayout(people)
        pl.setContentsMargins(0, 0, 0, 0)
        search = QHBoxLayout()  # the edits beside the search: a row of their own made the
        search.addWidget(self.people_search, 1)  # window too tall for a small screen
        for w in (self.merge_button, self.split_button, self.undo_button):
            search.addWidget(w)
        pl.addLayout(search)
        pl.addWidget(self.people_view)
        docs = QSplitter(Qt.Orientation.Horizontal)
        docs.addWidget(self.documents_list)
        docs.addWidget(self.document_view)
        docs.setSizes([360, 400])  # the list names documents by title and date
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(boxed("People", people))
        self.documents_box = boxed("Documents", docs)
        right.addWidget(self.documents_box)
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(left)
        main.addWidget(right)
        main.setSizes([420, 800])

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(loading)
        layout.addWidget(main, 1)

        state.topics_changed.connect(self._show_topics)
        self._show_edit_buttons()

    # -- opening ----------------------------------------------------------------------------------
    def choose_collection(self) -> None:
        """A file (an export, a table, TREC; any file of a collection folder opens the
        folder) or a folder (documents.tsv and its companions, exports, a git repository, text
        files), from one dialog."""
        path = choose_collection_path(self, COLLECTION_FILE_FILTERS, self._start_folder())
        if path is not None:
            self.open_collection(path)

    def reread(self, settings) -> None:
        """Read the open collection again with other text settings (a model's own, trained
        with an earlier rule), with the columns it was read with."""
        if self.state.collection_path is not None:
            self.open_collection(self.state.collection_path, self.columns, settings)

    def open_collection(self, path: Path, columns: TableColumns | None = None,
                        settings=None) -> None:
        """Load in the background; a load started while another runs replaces it. A table of
        publications first shows its columns, to be confirmed or changed. `settings`: the text
        settings to read it with (default: the current rules)."""
        path = Path(path)
        if columns is None:
            path = collection_path(path)  # a file of a collection folder: the folder
        table = table_to_preview(path) if columns is None and settings is None else None
        if table is not None:  # a table, or a folder holding one: its columns first
            choose_table_columns(self, self.state.runner, table,
                                 lambda chosen: self.open_collection(path, chosen))
            return
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.progress.setRange(0, 0)
        self.progress.setFormat(f"Loading {path.name}…")
        self.state.message.emit(f"Loading {path}…")
        self.state.runner.start(
            "load", load_collection, path, columns=columns,
            **({} if settings is None else {"settings": settings}),
            on_progress=self._on_progress,
            on_success=lambda collection: self._loaded(collection, path, columns),
            on_failure=lambda exc, tb: self._failed(f"Cannot open {path.name or path}", exc, tb),
        )

    def _on_progress(self, events: list) -> None:
        event = events[-1]
        fraction = progress_fraction(event)
        if fraction is None:
            return
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{event.message or 'Loading'}… {fraction:.0%}")

    def _failed(self, title: str, exc: BaseException, details: str) -> None:
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        still = self.state.collection
        self.state.message.emit(f"{title}" + (f"; {still.name} stays open" if still else ""))
        show_error(self, title, exc, details)

    def _loaded(self, collection, path: Path, columns: TableColumns | None = None) -> None:
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        if collection is None:  # stopped by the user
            self.state.message.emit("Loading cancelled")
            return
        path = Path(collection.source) if collection.source else path  # a file's folder
        self.columns = columns
        self.state.set_collection(collection, path)
        self._show_collection(collection, path)
        self.state.message.emit(f"Opened {path.name}: "
                                f"{plural(collection.n_documents, 'document')}, "
                                f"{plural(collection.n_people, 'person', 'people')}")
        if path.is_dir():
            self._open_companions(path)

    def _open_companions(self, folder: Path) -> None:
        """Topics and qrels next to the collection open with it (as in the demo's folder)."""
        topics = next((folder / n for n in TOPIC_FILES if (folder / n).is_file()), None)
        qrels = next((folder / n for n in QREL_FILES if (folder / n).is_file()), None)
        if topics is not None:
            self.open_topics(topics)
        if qrels is not None:
            self.open_qrels(qrels)

    def choose_topics(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open topics", self._start_folder(),
            "Topics: TSV, SERT or TREC (*.tsv *.txt *.sert *.trec topics*);;All files (*)")
        if path:
            self.open_topics(Path(path))

    def choose_qrels(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open qrels", self._start_folder(),
            "TREC qrels (*.txt *.qrels qrels*);;All files (*)")
        if path:
            self.open_qrels(Path(path))

    def _start_folder(self) -> str:
        """File dialogs start in the open collection's folder."""
        path = self.state.collection_path
        if path is None:
            return ""
        return str(path if path.is_dir() else path.parent)

    def open_topics(self, path: Path) -> None:
        try:
            topics = read_topics(path)
        except Exception as exc:
            show_error(self, f"Cannot open {Path(path).name}", exc)
            return
        self.state.set_topics({t.id: t.query for t in topics}, path)

    def open_qrels(self, path: Path) -> None:
        try:
            qrels = read_qrels(path)
        except Exception as exc:
            show_error(self, f"Cannot open {Path(path).name}", exc)
            return
        self.state.set_qrels(qrels, path)

    def _show_topics(self) -> None:
        """How many topics and judgments, and how many of them match: judgments of other topics
        or other people's ids would make every measure 0."""
        s = self.state
        parts = [f"{len(s.topics):,} topics" if s.topics else "no topics",
                 f"qrels for {len(s.qrels):,}" if s.qrels else "no qrels"]
        text = ", ".join(parts)
        tip = [str(p) for p in (s.topics_path, s.qrels_path) if p is not None]
        if s.topics and s.qrels and s.collection is not None:
            found = coverage(s.qrels, s.topics, s.collection.person_ids)
            text = f"{len(s.topics):,} topics, qrels for {found.matched:,} of them"
            if found.known < found.relevant:
                text += f"; {found.known:,} of the {found.relevant:,} people judged are known"
            if found.problem():
                text = f'<span style="color:#c92a2a">{text}</span>'
                tip.append(found.problem())
            tip.append(found.text())
        self.topics_label.setText(text)
        self.topics_label.setToolTip("\n".join(tip))

    # -- showing ----------------------------------------------------------------------------------
    def _show_collection(self, collection, path: Path) -> None:
        self.path_label.setText(f"{collection.name} — {path}")
        stats = collection.stats().to_dict()
        fill_table(self.stats_table, [[item(label, tooltip=label),
                                       item(fmt.format(stats[key]), align_right=True)]
                                      for key, label, fmt in STAT_LABELS])
        self.stats_fitter.fit()
        report = collection.report
        lines = [report.summary()]
        if report.problems:
            lines.append("")
            # the user's own people edits first: past the listed problems they would be hidden
            problems = sorted(report.problems, key=lambda p: not p.kind.startswith("people-edit"))
            lines += [str(p) for p in problems[:MAX_LISTED_PROBLEMS]]
            if len(report.problems) > MAX_LISTED_PROBLEMS:
                lines.append(f"… and {len(report.problems) - MAX_LISTED_PROBLEMS:,} more")
        else:
            lines.append("No problems found.")
        self.report_view.setPlainText("\n".join(lines))
        self.people_model.removeRows(0, self.people_model.rowCount())
        per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
        for i, (pid, name) in enumerate(zip(collection.person_ids, collection.person_names,
                                            strict=True)):
            n = QStandardItem()
            n.setData(int(per_person[i]), Qt.ItemDataRole.DisplayRole)
            id_item = QStandardItem(pid)
            id_item.setData(i, Qt.ItemDataRole.UserRole)
            self.people_model.appendRow([id_item, QStandardItem(name), n])
        # Anonymous people (AMiner's c0001...) have their id for a name: one column says it.
        self.people_fitter.omitted = frozenset(
            {1} if collection.person_names == collection.person_ids else ())
        self.people_fitter.fit()
        self.documents_list.clear()
        self.document_view.clear()
        self.documents_box.setTitle("Documents")
        self.search = None
        self.state.runner.start("people-search", search_for, collection,
                                on_success=lambda s: self._searchable(collection, s))
        if self._after_edit is not None:
            self.select_person(self._after_edit)
            self._after_edit = None
        self._show_edit_buttons()

    # -- finding and editing people -------------------------------------------------------------
    def _searchable(self, collection, search: PeopleSearch) -> None:
        if collection is self.state.collection:
            self.search = search
            self._search_people(self.people_search.text())

    def _search_people(self, text: str) -> None:
        """People whose name or id holds the text, and those a name written another way may
        mean (people_search.py), once the search is built; case and accents aside."""
        text = " ".join(text.split())
        matched = self.search.matching(text) if self.search is not None and text else []
        ids = self.state.collection.person_ids if matched else []
        found = "|".join(QRegularExpression.escape(ids[i]) for i in matched[:MAX_MATCHED])
        pattern = QRegularExpression.escape(text) + (f"|^(?:{found})$" if found else "")
        self.people_proxy.setFilterRegularExpression(QRegularExpression(
            pattern, QRegularExpression.PatternOption.CaseInsensitiveOption))

    def selected_people(self) -> list[str]:
        rows = self.people_view.selectionModel().selectedRows(0)
        return [row.data() for row in rows]

    def _show_edit_buttons(self) -> None:
        chosen = self.selected_people()
        collection = self.state.collection
        self.merge_button.setEnabled(len(chosen) == 2)
        self.split_button.setEnabled(len(chosen) == 1 and collection is not None and len(
            collection.person_spellings.get(chosen[0], ())) > 1)
        last = self.editor.last_edit()
        self.undo_button.setEnabled(last is not None)
        self.undo_button.setToolTip(f"Undo the last people edit: {last.text()}" if last else
                                    "No people edit to undo")

    def merge_selected(self) -> None:
        chosen = self.selected_people()
        if len(chosen) == 2:
            self._after_edit = self.editor.ask_merge(*chosen)

    def split_selected(self) -> None:
        chosen = self.selected_people()
        if len(chosen) == 1 and self.editor.ask_split(chosen[0]):
            self._after_edit = chosen[0]

    def undo_edit(self) -> None:
        self.editor.undo()

    def _show_person(self, current, _previous=None) -> None:
        self.documents_list.clear()
        self.document_view.clear()
        self.documents_box.setTitle("Documents")
        collection = self.state.collection
        if collection is None or not current.isValid():
            return
        source = self.people_proxy.mapToSource(current)
        person = self.people_model.item(source.row(), 0).data(Qt.ItemDataRole.UserRole)
        documents = collection.documents_of(person)
        for d in documents[:MAX_LISTED_DOCUMENTS].tolist():
            date = collection.date_text(d)
            it = QListWidgetItem(f"{date} · {collection.title(d)}" if date
                                 else collection.title(d))
            it.setToolTip(collection.doc_ids[d])
            it.setData(Qt.ItemDataRole.UserRole, d)
            self.documents_list.addItem(it)
        shown = min(len(documents), MAX_LISTED_DOCUMENTS)
        # Titles stay short: a group box is at least as wide as its title.
        self.documents_box.setTitle(f"Documents: the first {shown:,} of {len(documents):,}"
                                    if shown < len(documents) else
                                    f"Documents: {len(documents):,}")

    def _show_document(self, current, _previous=None) -> None:
        collection = self.state.collection
        if collection is None or current is None:
            return
        d = current.data(Qt.ItemDataRole.UserRole)
        people = ", ".join(collection.person_names[int(p)] for p in collection.people_of(d))
        date = collection.date_text(d)
        self.document_view.setPlainText(
            f"{collection.doc_ids[d]}{'   ' + date if date else ''}   ({people})\n\n"
            f"{collection.text(d)}")

    def select_person(self, person_id: str) -> None:
        """Show a person's documents (used by the screenshots and by other panels)."""
        matches = self.people_model.findItems(person_id, Qt.MatchFlag.MatchExactly, 0)
        if matches:
            index = self.people_proxy.mapFromSource(matches[0].index())
            self.people_view.setCurrentIndex(index)
