"""Reviewers panel: assign many papers from outside the collection (submissions, proposals) to
the collection's people, K per paper, at most M (at least m) per person, never a pair in
conflict of interest, with the highest total affinity (core/reviewers).

Open the papers (the Open button or a drop; any format the app reads, or a table with an id,
text and optionally authors), set the quotas, Run: a worker ranks every paper against the pool
and finds the conflicts (`prepare`), then another solves (`assign`). Pin or forbid pairs and
Solve again (the quotas may change too) without ranking again. Where no assignment exists the
panel says why, in the papers' and people's ids, and what to change. The assignment exports as
CSV (with the evidence and what made it) and every pair's affinity as TSV.

A model is needed (its rankers give the affinities); the papers stay open when the collection
or model changes, but what was found for the one before (affinities, conflicts, pins) goes."""

from __future__ import annotations

import html
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.data.text import TextSettings
from expert_gui.core.errors import ExpertGuiError, QueryError
from expert_gui.core.reviewers.assignment import Result
from expert_gui.gui.app_settings import read_path, settings
from expert_gui.gui.dialogs import error_text, show_error
from expert_gui.gui.open_dialog import choose_collection_path
from expert_gui.gui.panels.collection import COLLECTION_FILE_FILTERS
from expert_gui.gui.panels.query_texts import saved_models_text
from expert_gui.gui.panels.reviewers.assignment_view import (
    FORBID,
    PIN,
    RELEASE,
    ByPaper,
    ByPerson,
    result_notes,
    result_summary,
)
from expert_gui.gui.panels.reviewers.conflicts_view import ConflictsView
from expert_gui.gui.panels.reviewers.controls import RunControls
from expert_gui.gui.panels.reviewers.form import CHOSEN, AssignForm
from expert_gui.gui.panels.reviewers.papers_view import PapersView
from expert_gui.gui.panels.reviewers.pins_view import PinsView
from expert_gui.gui.panels.reviewers.work import (
    Blocked,
    export,
    load_submissions,
    marked_pairs,
    prepare_pool,
    rematch,
    solve,
    with_quotas,
)
from expert_gui.gui.save_dialogs import file_stem, save_file
from expert_gui.gui.state import AppState
from expert_gui.gui.widgets import ElidedLabel, WhenShown, plural

LOAD, RUN, EXPORT = "reviewers-load", "reviewers-run", "reviewers-export"
FOLDER, PAPERS = "reviewers/folder", "reviewers/papers"
RED, ORANGE = "#c92a2a", "#d9480f"
TABS = ("Papers", "Conflicts", "By paper", "By person", "Pinned and forbidden")


class ReviewersPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.setObjectName("reviewers-panel")
        self.setAcceptDrops(True)
        self.submissions = None
        self.prepared = None
        self.prepared_key: tuple | None = None
        self.result: Result | None = None
        self.marks: dict[tuple[str, str], str] = {}  # (paper id, person id) -> PIN or FORBID
        self.solved_marks: dict[tuple[str, str], str] = {}  # those of `result`
        self.obstacles: list[str] = []

        self.open_button = QPushButton("Open papers…")
        self.open_button.setToolTip(
            "The papers to assign: a table (CSV, TSV, Excel) with an id, the title and abstract "
            "and, if known, the authors and affiliations; or any export or folder the app "
            "opens as a collection. You can also drop one on this panel.")
        self.open_button.clicked.connect(self.choose_papers)
        self.path_label = ElidedLabel("No papers open")
        self.path_label.setObjectName("papers-path")
        self.form = AssignForm()
        self.form.changed.connect(self._update)
        self.form.conflicts_requested.connect(self.choose_conflicts)
        self.capacity_label = QLabel("")
        self.capacity_label.setWordWrap(True)
        self.capacity_label.setStyleSheet("color: #495057;")
        self.controls = c = RunControls()
        self.run_button, self.solve_button = c.run_button, c.solve_button
        self.export_button, self.progress = c.export_button, c.progress
        c.run_button.clicked.connect(self.run)
        c.solve_button.clicked.connect(self.solve_again)
        c.stop_button.clicked.connect(self.stop)
        c.export_button.clicked.connect(lambda: self.export_files(affinities=False))
        c.affinities_button.clicked.connect(lambda: self.export_files(affinities=True))
        self.notice = QLabel("")
        self.notice.setObjectName("reviewers-notice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.RichText)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.notice.linkActivated.connect(lambda href: state.model_requested.emit(Path(href)))
        # a line kept for it even when empty: rows do not move under the pointer when it speaks
        self.notice.setMinimumHeight(self.notice.fontMetrics().lineSpacing())
        self.summary = QLabel("")
        self.summary.setObjectName("reviewers-summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.papers_view = PapersView()
        self.conflicts_view = ConflictsView()
        self.by_paper = ByPaper()
        self.by_person = ByPerson()
        self.pins_view = PinsView()
        for view in (self.by_paper, self.by_person):
            view.pair_action.connect(self.mark)
        self.pins_view.removed.connect(self.release)
        self.papers_view.table.cellDoubleClicked.connect(self._paper_double_clicked)
        self.tabs = QTabWidget()
        for title, view in zip(TABS, (self.papers_view, self.conflicts_view, self.by_paper,
                                      self.by_person, self.pins_view), strict=True):
            self.tabs.addTab(view, title)

        left = QWidget()
        ll = QVBoxLayout(left)
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(self.path_label, 1)
        ll.addLayout(top)
        ll.addWidget(self.form)
        ll.addWidget(self.capacity_label)
        ll.addWidget(self.controls)
        ll.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.notice)
        rl.addWidget(self.summary)
        rl.addWidget(self.tabs, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        # the settings whole at first (narrower, they scroll); the results take the rest
        split.setSizes([left.sizeHint().width() + scroll.verticalScrollBar().sizeHint().width(),
                        900])
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            run = QShortcut(QKeySequence(keys), self)
            run.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            run.activated.connect(self.run)
        again = QShortcut(QKeySequence("F5"), self)
        again.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        again.activated.connect(self.solve_again)

        self.form.restore()
        self._reopen = WhenShown(self, self._reopen_last)  # the last session's papers
        self._reopen()
        state.collection_changed.connect(self._collection_changed)
        state.model_changed.connect(self._model_changed)
        state.people_changed.connect(self._people_changed)
        state.runner.started.connect(self._update)
        state.runner.finished.connect(self._update)
        self._people_changed()
        self._say(self._ready(models=True), rich=True)
        self._update()

    # -- opening ----------------------------------------------------------------------------------
    def choose_papers(self) -> None:
        start = read_path(settings(), FOLDER)
        path = choose_collection_path(self, COLLECTION_FILE_FILTERS,
                                      str(start) if start is not None and start.is_dir() else "",
                                      title="Open the papers to assign: a file or a folder")
        if path is not None:
            self.open_papers(path)

    def choose_conflicts(self) -> None:
        start = read_path(settings(), FOLDER)
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a list of conflicts", str(start or ""),
            "Conflicts: paper and person ids (*.csv *.tsv *.txt);;All files (*)")
        if path:
            self.form.set_conflicts_file(Path(path))

    def _reopen_last(self) -> None:
        last = read_path(settings(), PAPERS)
        if self.submissions is None and last is not None and last.exists() and \
                self.state.runner.unhandled(LOAD) is None:
            self.open_papers(last)

    def open_papers(self, path: Path) -> None:
        """Read the papers in the background (a load started while another runs replaces it)."""
        path = Path(path)
        s = settings()
        s.setValue(FOLDER, str(path if path.is_dir() else path.parent))
        s.setValue(PAPERS, str(path))
        model, collection = self.state.model, self.state.collection
        text = model.text_settings if model is not None else \
            collection.settings if collection is not None else TextSettings()
        self.controls.busy(f"Reading {path.name}…")
        self.state.runner.start(LOAD, load_submissions, path, text, collection,
                                on_progress=self.controls.show_progress,
                                on_success=self._loaded,
                                on_failure=lambda exc, tb: self._failed(
                                    f"Cannot read the papers in {path.name}", exc, tb))

    def _loaded(self, submissions) -> None:
        if submissions is None:
            self._say("Reading the papers was stopped.")
            return
        if submissions.collection is not self.state.collection:  # opened meanwhile
            self.state.runner.start(LOAD, rematch, submissions, self.state.collection,
                                    on_success=self._loaded)
            return
        ids = set(submissions.papers.doc_ids)
        self.marks = {k: v for k, v in self.marks.items() if k[0] in ids}
        self.submissions = submissions
        self._forget(self._ready(models=True), rich=True)
        papers = submissions.papers
        matched = [m for ms in submissions.matches.values() for m in ms]
        found = sum(m.person is not None for m in matched)
        maybe = sum(bool(m.possible) for m in matched)
        authors = sum(len(papers.people_of(i)) for i in range(papers.n_documents))
        self.path_label.setText(str(submissions.path))
        self.state.message.emit(
            f"Read {plural(papers.n_documents, 'paper')} from {submissions.path.name}: "
            f"{plural(authors, 'author')}" + (f", {found:,} found in the collection" if
                                               self.state.collection is not None else "")
            + (f", {maybe:,} who may be" if maybe else ""))
        self.tabs.setCurrentWidget(self.papers_view)

    def _failed(self, title: str, exc: BaseException, details: str) -> None:
        """The user's mistake (a file, a setting) is said in the panel; a bug in a dialog."""
        self._update()
        if isinstance(exc, ExpertGuiError):
            self._say(f"{title}: {error_text(exc)}", RED)
        else:
            show_error(self, title, exc, details)

    # -- running ----------------------------------------------------------------------------------
    def _key(self, assign_settings) -> tuple:
        """What the affinities and conflicts were found for: a new Run is needed when it
        changes (the quotas, pins and forbidden pairs only need a new solve)."""
        s, path = assign_settings, self.form.conflicts_file
        stamp = path.stat().st_mtime if path is not None and path.is_file() else None
        return (id(self.submissions.papers), id(self.state.model), id(self.state.collection),
                s.method, s.recency, s.candidates, s.coauthor_years, path, stamp)

    def _candidates(self) -> tuple[str, ...] | None:
        if self.form.pool() != CHOSEN or not self.state.people:
            return None
        known = self.state.collection.person_index
        return tuple(p for p in self.state.people if p in known)

    def _ready(self, *, models: bool = False) -> str:
        """Why the panel cannot run now ("" when it can); `models`: with the saved models of
        the collection to open (read from the disk)."""
        if self.state.collection is None:
            return "Open a collection (Ctrl+O), then a model trained on it."
        if self.state.model is None:
            return ("Assigning reviewers needs a trained model of this collection: its rankers "
                    "give the affinities." + (" " + saved_models_text(
                        self.state.collection, "assign here") if models else ""))
        if self.submissions is None:
            return "Open the papers to assign (Open papers…, or drop a file on this panel)."
        return html.escape(self.form.problem())

    def run(self) -> None:
        """Rank and find the conflicts (a worker), then solve (another)."""
        if self.state.runner.running(RUN) is not None:
            return
        problem = self._ready(models=True)
        if problem:
            self._say(problem, RED if self.state.model is not None else "", rich=True)
            return
        try:
            assign_settings = self.form.settings(self._candidates())
        except (QueryError, ValueError) as exc:
            self._say(str(exc), RED)
            return
        key = self._key(assign_settings)
        self._forget("")
        self.controls.busy("Ranking the papers…")
        model, collection = self.state.model, self.state.collection
        self.state.runner.start(
            RUN, prepare_pool, model, collection, self.submissions.papers, assign_settings,
            self.form.conflicts_file, on_progress=self.controls.show_progress,
            on_success=lambda prepared: self._prepared(prepared, key, model, collection),
            on_failure=lambda exc, tb: self._failed("Cannot rank the papers", exc, tb))
        self._update()

    def _prepared(self, prepared, key: tuple, model, collection) -> None:
        if model is not self.state.model or collection is not self.state.collection:
            return  # for a model or collection since replaced
        if prepared is None:
            self._say("Stopped before the papers were all ranked.")
            self._update()
            return
        self.prepared, self.prepared_key = prepared, key
        per_paper: dict[int, int] = {}
        for paper, _ in prepared.conflicts.reasons:
            per_paper[paper] = per_paper.get(paper, 0) + 1
        self.papers_view.show_papers(self.submissions, per_paper)
        self.conflicts_view.show_conflicts(prepared)
        self._solve()  # the ranking's worker may not have ended yet: it is replaced

    def solve_again(self) -> None:
        """Solve with the pins, forbidden pairs and quotas as they are (a worker)."""
        if self.prepared is None or self.state.runner.running(RUN) is not None:
            return
        self._solve()

    def _solve(self) -> None:
        if not self._current():
            self._say("The papers, pool, affinity or conflicts settings changed since the last "
                      "Run: Run again (Ctrl+Enter) to rank with them.", ORANGE)
            return
        try:
            prepared = with_quotas(self.prepared, *self.form.quotas())
        except QueryError as exc:
            self._say(str(exc), RED)
            return
        pairs, dropped = marked_pairs(prepared, self.marks)
        pinned = [pair for pair, mark in pairs.items() if mark == PIN]
        forbidden = [pair for pair, mark in pairs.items() if mark == FORBID]
        marks = dict(self.marks)
        self.controls.busy("Solving…")
        self.state.runner.start(
            RUN, solve, prepared, pinned, forbidden, on_progress=self.controls.show_progress,
            on_success=lambda found: self._solved(found, prepared, marks, dropped),
            on_failure=lambda exc, tb: self._failed("Cannot solve", exc, tb))
        self._update()

    def _solved(self, found, prepared, marks: dict, dropped: int) -> None:
        if prepared.papers is not getattr(self.prepared, "papers", None):
            return  # a Run since
        self._update()
        if found is None:
            self._say("Solving was stopped; the assignment shown is the one before.")
            return
        if isinstance(found, Blocked):
            self.obstacles = found.obstacles
            self._show_nothing()
            items = "".join(f"<li>{html.escape(o)}</li>" for o in found.obstacles)
            self._say(f"<b>No assignment exists with these settings.</b><ul>{items}</ul>"
                      "Change what is named, then Solve again (F5): the quotas and pins need "
                      "no new Run; the pool or the conflicts do.", RED, rich=True)
            return
        self.obstacles = []
        self.result, self.solved_marks = found, marks
        self._show_result(dropped)

    def _show_result(self, dropped: int = 0) -> None:
        result = self.result
        prepared = result.prepared
        self._say(result_notes(result, dropped), ORANGE)
        self.summary.setText(result_summary(result))
        self.by_paper.show_result(result, marked_pairs(prepared, self.marks)[0])
        self.by_person.show_result(result)
        self._show_marks()
        if self.tabs.currentWidget() in (self.papers_view, self.conflicts_view):
            self.tabs.setCurrentWidget(self.by_paper)

    def stop(self) -> None:
        for slot in (RUN, LOAD):
            self.state.runner.stop(slot)

    # -- pins -------------------------------------------------------------------------------------
    def mark(self, action: str, paper: int, column: int) -> None:
        """Pin, forbid or release a pair of the assignment shown (indices of its run)."""
        prepared = self.result.prepared if self.result is not None else self.prepared
        if prepared is None:
            return
        key = (prepared.papers.doc_ids[paper], prepared.person_id(column))
        reasons = prepared.conflicts.of(paper, int(prepared.pool[column]))
        if action == PIN and reasons:
            self._say(f"{prepared.person_name(column)} may not review {key[0]}: "
                      f"{'; '.join(reasons)}.", RED)
            return
        if action == RELEASE:
            self.marks.pop(key, None)
        else:
            self.marks[key] = PIN if action == PIN else FORBID
        self._marks_changed()

    def release(self, keys: list) -> None:
        for key in keys:
            self.marks.pop(tuple(key), None)
        self._marks_changed()

    def _marks_changed(self) -> None:
        self._show_marks()
        if self.result is not None:
            self.by_paper.marks = marked_pairs(self.result.prepared, self.marks)[0]
            self.by_paper.refresh()
            if self.marks != self.solved_marks:
                self._say("The pinned and forbidden pairs changed: Solve again (F5) to apply "
                          "them.", ORANGE)
        self._update()

    def _show_marks(self) -> None:
        papers = self.submissions.papers if self.submissions is not None else None
        self.pins_view.show_marks(self.marks, papers, self.state.collection)
        pinned = sum(v == PIN for v in self.marks.values())
        self.tabs.setTabText(4, f"Pinned {pinned}, forbidden {len(self.marks) - pinned}"
                             if self.marks else TABS[4])

    # -- export -----------------------------------------------------------------------------------
    def export_files(self, *, affinities: bool) -> None:
        if self.result is None or self.state.runner.running(EXPORT) is not None:
            return
        stem = file_stem(Path(self.submissions.path).stem, "papers")
        chosen = save_file(self, "Export affinities" if affinities else "Export assignment",
                           f"{stem}-{'affinities.tsv' if affinities else 'assignment.csv'}",
                           {"TSV (*.tsv)": ".tsv"} if affinities else {"CSV (*.csv)": ".csv"})
        if chosen is None:
            return
        path = chosen[0]
        self.state.runner.start(
            EXPORT, export, self.result, None if affinities else path,
            path if affinities else None, str(self.state.model_path or ""),
            on_success=lambda written: self.state.message.emit(
                f"Saved {', '.join(str(p) for p in written)}"),
            on_failure=lambda exc, tb: self._failed(f"Cannot write {path.name}", exc, tb))

    # -- the app's state --------------------------------------------------------------------------
    def _collection_changed(self, collection) -> None:
        """Another collection: other people. The papers stay; their authors are looked for
        again, and what was found for the collection before goes."""
        self.marks = {}
        self._forget(self._ready(models=True), rich=True)
        self.conflicts_view.clear()
        if self.submissions is not None:  # none shown for the people before
            found = self.submissions
            self.submissions = replace(found, matches={}, collection=None)
            self.papers_view.show_papers(self.submissions, None)
            if collection is not None:
                self.state.runner.start(LOAD, rematch, found, collection,
                                        on_success=self._rematched)
        self._show_marks()
        self._update()

    def _rematched(self, submissions) -> None:
        if self.submissions is not None and submissions.papers is self.submissions.papers \
                and submissions.collection is self.state.collection:
            self.submissions = submissions
            self.papers_view.show_papers(submissions, None)

    def _model_changed(self, _model) -> None:
        """Another model gives other affinities: Run again (pins, by id, stay)."""
        self._forget(self._ready(models=True), rich=True)
        self.conflicts_view.clear()
        if self.submissions is not None:
            self.papers_view.show_papers(self.submissions, None)
        self._update()

    def _people_changed(self) -> None:
        self.form.set_chosen_people(len(self.state.people))

    def _forget(self, text: str, *, rich: bool = False) -> None:
        """No assignment on screen: the tables and exports go until the next solve."""
        self.prepared = self.prepared_key = None
        self.obstacles = []
        self._show_nothing()
        self._say(text, rich=rich)
        if self.submissions is not None:
            self.papers_view.show_papers(self.submissions, None)
        else:
            self.papers_view.clear()

    def _show_nothing(self) -> None:
        self.result = None
        self.summary.setText("")
        self.by_paper.clear()
        self.by_person.clear()

    def _current(self) -> bool:
        """Whether the last Run's affinities and conflicts are those of the settings now."""
        if self.prepared is None or self.submissions is None or self.form.problem():
            return False
        try:
            return self._key(self.form.settings(self._candidates())) == self.prepared_key
        except (QueryError, ValueError):
            return False

    def _say(self, text: str, color: str = "", *, rich: bool = False) -> None:
        shown = text if rich else html.escape(text)
        self.notice.setText(f'<span style="color:{color}">{shown}</span>' if color and text
                            else shown)

    def _update(self, _slot: str = "") -> None:
        """Buttons, progress and the capacity line as things are now."""
        runner = self.state.runner
        self.controls.set_state(
            running=runner.running(RUN) is not None or runner.running(LOAD) is not None,
            runnable=html.unescape(self._ready()), solvable=self._current(),
            exportable=self.result is not None and runner.running(EXPORT) is None)
        if self.submissions is not None and self.state.collection is not None:
            pool = len(self._candidates() or ()) or self.state.collection.n_people
            self.capacity_label.setText(self.form.capacity(self.submissions.papers.n_documents,
                                                           pool))
        else:
            self.capacity_label.setText("")

    def _paper_double_clicked(self, row: int, _column: int) -> None:
        """A paper of the Papers tab: its people, or its conflicts before any assignment."""
        paper = self.papers_view.paper_at(row)
        if self.result is not None:
            self.by_paper.select_paper(paper)
            self.tabs.setCurrentWidget(self.by_paper)
        elif self.prepared is not None:
            self.conflicts_view.show_paper(self.prepared.papers.doc_ids[paper])
            self.tabs.setCurrentWidget(self.conflicts_view)

    # -- drag and drop ----------------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.open_papers(Path(urls[0]))
