"""The assignment read both ways. By paper: each paper with its people, and for the paper
selected every person of the pool, the assigned first, with the affinity, their place among the
people allowed for the paper, whether pinned, forbidden or in conflict, and why an assigned one
fits (their closest documents, the words they share with the paper). By person: each person's
load and the papers they review.

A pair is pinned (kept by every solve), forbidden (left out) or released from the context menu,
the buttons or the keys P, F and R; `pair_action` asks the panel, which solves again on
request."""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from expert_gui.gui.widgets import (
    BarDelegate,
    ColumnFitter,
    boxed,
    compact,
    fill_table,
    item,
    make_table,
    plural,
)

PIN, FORBID, RELEASE = "pin", "forbid", "release"
ACTIONS = {PIN: ("Pin", "P", "Keep this pair in every assignment"),
           FORBID: ("Forbid", "F", "Never assign this pair"),
           RELEASE: ("Release", "R", "Neither pinned nor forbidden")}
RANK_TIP = "This person's place for the paper among the people allowed to review it (1: the best)"


def affinity_tip(prepared) -> str:
    return f"Affinity: how far above the pool this person stands for the paper, by {prepared.label}"


def result_summary(result) -> str:
    """One paragraph: what was assigned, how well, how fast, and what made the affinities."""
    prepared = result.prepared
    s, n = prepared.settings, len(result.rows)
    return (f"{plural(prepared.papers.n_documents, 'paper')} × {s.per_paper} = "
            f"{plural(n, 'pair')} among {plural(len(prepared.pool), 'person', 'people')}: total "
            f"affinity {result.total:,.2f} (mean {result.total / max(n, 1):.2f}), loads "
            f"{int(result.loads.min())}-{int(result.loads.max())}, solved in "
            f"{result.seconds:.1f} s. Affinity by {prepared.label}.")


def result_notes(result, dropped: int = 0) -> str:
    """What the user should know of an assignment: marks left out, papers the collection has
    no word of, people recency leaves out ("" when nothing)."""
    prepared = result.prepared
    notes = []
    if dropped:
        notes.append(f"{plural(dropped, 'pinned or forbidden pair')} name a paper or person "
                     "not in this run's pool, and were left out")
    blind = prepared.affinity.blind
    if blind.any():
        ids = [prepared.papers.doc_ids[i] for i in blind.nonzero()[0]]
        notes.append(f"{plural(len(ids), 'paper')} share no word with the collection; their "
                     f"people are chosen for the quotas only: {', '.join(ids[:8])}"
                     + (" …" if len(ids) > 8 else ""))
    if prepared.idle:
        notes.append(f"{plural(prepared.idle, 'person', 'people')} of the pool have no document "
                     "that counts under recency and may not review")
    return "; ".join(notes) + "." if notes else ""


class PairTable:
    """Pin, forbid and release the pair of a table's selected row: a context menu, keys."""

    def __init__(self, table: QTableWidget, pair_of, act):
        self.table, self.pair_of, self.act = table, pair_of, act
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._menu)
        for action, (_, key, _) in ACTIONS.items():
            shortcut = QShortcut(QKeySequence(key), table)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(lambda a=action: self.trigger(a))

    def trigger(self, action: str) -> None:
        pair = self.pair_of(self.table.currentRow())
        if pair is not None:
            self.act(action, *pair)

    def _menu(self, point) -> None:
        row = self.table.rowAt(point.y())
        if row < 0 or self.pair_of(row) is None:
            return
        self.table.selectRow(row)
        menu = QMenu(self.table)
        for action, (text, key, tip) in ACTIONS.items():
            entry = menu.addAction(f"{text}\t{key}")
            entry.setToolTip(tip)
            entry.triggered.connect(lambda _=False, a=action: self.trigger(a))
        menu.exec(self.table.viewport().mapToGlobal(point))


def pair_buttons(trigger) -> QHBoxLayout:
    row = QHBoxLayout()
    for action, (text, key, tip) in ACTIONS.items():
        button = QPushButton(f"{text} ({key})")
        button.setObjectName(f"{action}-button")
        button.setToolTip(f"{tip}; then Solve again")
        button.clicked.connect(lambda _=False, a=action: trigger(a))
        row.addWidget(button)
    row.addStretch(1)
    return row


class ByPaper(QWidget):
    """Papers and, for the one selected, every person of the pool."""

    pair_action = Signal(str, int, int)  # action, paper, pool column

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.papers = make_table(["Paper", "Title", "Reviewers", "Affinity"])
        self.papers.setObjectName("by-paper")
        self.papers_fitter = ColumnFitter(self.papers, content=(3,), elastic=(1, 2, 0))
        self.papers.currentCellChanged.connect(lambda row, *_: self._paper_chosen(row))
        self.people = make_table(["", "Person", "Name", "Affinity", "Rank", "Status"])
        self.people.setObjectName("paper-people")
        self.people_fitter = ColumnFitter(self.people, content=(0, 3, 4),
                                          elastic=(2, 5, 1))
        self.people.currentCellChanged.connect(lambda row, *_: self._show_evidence(row))
        self.people_box = boxed("The paper's people", self.people)
        self.evidence = compact(QTextBrowser(), 3)
        self.evidence.setObjectName("evidence")
        self.evidence.setPlaceholderText("Select an assigned person to see why they fit.")
        self.actions = PairTable(self.people, self._pair_of_row, self.pair_action.emit)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        inner = QSplitter(Qt.Orientation.Vertical)
        inner.addWidget(self.people_box)
        inner.addWidget(boxed("Why they fit", self.evidence))
        inner.setSizes([340, 140])
        rl.addWidget(inner, 1)
        rl.addLayout(pair_buttons(self.actions.trigger))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(boxed("Papers", self.papers))
        split.addWidget(right)
        split.setSizes([460, 560])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.result = None
        self.marks: dict[tuple[int, int], str] = {}
        self._order: list[int] = []  # pool columns of the people table's rows
        self._allowed = None
        self._paper = -1

    def clear(self) -> None:
        self.result = None
        self._order, self._paper = [], -1
        for table in (self.papers, self.people):
            table.setRowCount(0)
        self.evidence.clear()
        self.people_box.setTitle("The paper's people")

    def show_result(self, result, marks: dict[tuple[int, int], str]) -> None:
        """`marks`: (paper, pool column) -> PIN or FORBID, as the user set them."""
        keep = self.papers.currentRow()
        self.result, self.marks = result, marks
        prepared = result.prepared
        self._allowed = prepared.allowed  # papers x pool, without conflicts
        papers = prepared.papers
        by_paper: dict[int, list] = {}
        for row in result.rows:
            by_paper.setdefault(row.paper, []).append(row)
        tip = affinity_tip(prepared)
        rows = []
        for p in range(papers.n_documents):
            mine = by_paper.get(p, [])
            names = ", ".join(prepared.person_name(r.person) + (" (pinned)" if r.pinned else "")
                              for r in mine)
            total = sum(r.affinity for r in mine)
            rows.append([item(papers.doc_ids[p], tooltip=papers.doc_ids[p]),
                         item(papers.title(p, 200), tooltip=papers.title(p, 400)),
                         item(names, tooltip=names),
                         item(f"{total / max(len(mine), 1):.2f}", align_right=True,
                              tooltip=f"The mean of its people's affinities. {tip}")])
        fill_table(self.papers, rows)
        self.papers.horizontalHeaderItem(3).setToolTip(tip)
        self.papers_fitter.fit()
        self.papers.selectRow(max(keep, 0) if rows else -1)
        self._paper_chosen(self.papers.currentRow())

    def refresh(self) -> None:
        """The selected paper's people again (their marks changed)."""
        self._paper_chosen(self.papers.currentRow())

    def select_paper(self, paper: int) -> None:
        self.papers.selectRow(paper)

    def _paper_chosen(self, paper: int) -> None:
        result = self.result
        if result is None or paper < 0:
            return
        keep = self._order[self.people.currentRow()] \
            if self._paper == paper and 0 <= self.people.currentRow() < len(self._order) else None
        self._paper = paper
        prepared = result.prepared
        values = prepared.affinity.values[paper]
        allowed = self._allowed[paper].copy()
        for (p, column), mark in self.marks.items():
            if p == paper and mark == FORBID:
                allowed[column] = False
        assigned = {r.person: r for r in result.rows if r.paper == paper}
        order = sorted(range(len(prepared.pool)),
                       key=lambda c: (c not in assigned, -values[c], c))
        tip = affinity_tip(prepared)
        ranked = np.sort(values[allowed])  # a place: 1 + the allowed people above
        rows = []
        for column in order:
            rank = 1 + len(ranked) - int(np.searchsorted(ranked, values[column], "right")) \
                if allowed[column] else None
            status = self._status(paper, column, column in assigned)
            mark = "✓" if column in assigned else ""
            rows.append([item(mark, tooltip="Assigned" if mark else ""),
                         item(prepared.person_id(column), tooltip=prepared.person_id(column)),
                         item(prepared.person_name(column), tooltip=prepared.person_name(column)),
                         item(f"{values[column]:.2f}", align_right=True, tooltip=tip),
                         item("" if rank is None else rank, align_right=True, tooltip=RANK_TIP),
                         item(status, tooltip=status)])
        self._order = order
        fill_table(self.people, rows)
        for column, text in ((3, tip), (4, RANK_TIP)):
            self.people.horizontalHeaderItem(column).setToolTip(text)
        self.people_fitter.fit()
        papers = prepared.papers
        self.people_box.setTitle(f"{papers.doc_ids[paper]}: {len(assigned)} of "
                                 f"{len(order):,} people assigned")
        self.people.selectRow(order.index(keep) if keep in order else 0)
        self._show_evidence(self.people.currentRow())

    def _status(self, paper: int, column: int, assigned: bool) -> str:
        prepared = self.result.prepared
        mark = self.marks.get((paper, column))
        reasons = prepared.conflicts.of(paper, int(prepared.pool[column]))
        parts = []
        if assigned:
            parts.append("assigned, pinned" if mark == PIN else "assigned")
        elif mark == PIN:
            parts.append("pinned: Solve again")
        if mark == FORBID:
            parts.append("forbidden")
        if reasons:
            parts.append("conflict: " + "; ".join(reasons))
        return ", ".join(parts)

    def _pair_of_row(self, row: int) -> tuple[int, int] | None:
        if self.result is None or not 0 <= row < len(self._order) or self._paper < 0:
            return None
        return self._paper, self._order[row]

    def _show_evidence(self, row: int) -> None:
        pair = self._pair_of_row(row)
        if pair is None:
            self.evidence.clear()
            return
        prepared = self.result.prepared
        paper, column = pair
        found = next((r for r in self.result.rows if r.paper == paper and r.person == column),
                     None)
        who = html.escape(f"{prepared.person_name(column)} ({prepared.person_id(column)})")
        if found is None:
            reasons = prepared.conflicts.of(paper, int(prepared.pool[column]))
            mark = self.marks.get(pair)
            then = ("" if reasons else
                    "<p>You forbade this pair: release it (R) and Solve again to allow it.</p>"
                    if mark == FORBID else
                    "<p>Pinned: Solve again (F5) to assign it and see why they fit.</p>"
                    if mark == PIN else
                    "<p>Why a person fits is worked out for the pairs an assignment keeps: pin "
                    "this pair (P) and Solve again to see it.</p>")
            self.evidence.setHtml(
                f"<p><b>{who}</b> is not assigned to this paper"
                + (": " + html.escape("; ".join(reasons)) if reasons else "") + ".</p>" + then)
            return
        evidence = found.evidence
        docs = "".join(f"<li>«{html.escape(title)}» <span style='color:#495057'>({doc_id}; "
                       f"cosine {cos:.2f})</span></li>"
                       for _, doc_id, title, cos in evidence.documents)
        words = html.escape(", ".join(evidence.words)) or "none"
        self.evidence.setHtml(
            f"<p><b>{who}</b>: affinity {found.affinity:.2f}, rank {found.rank}"
            + (" (pinned)" if found.pinned else "") + "</p>"
            f"<p>Closest documents:</p><ul>{docs or '<li>no document shares a word</li>'}</ul>"
            f"<p>Shared words: {words}</p>")


class ByPerson(QWidget):
    """The pool's people with their loads and, for the one selected, their papers."""

    pair_action = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        bar_width = self.fontMetrics().horizontalAdvance("0") * 10
        self.people = make_table(["Person", "Name", "Load", "", "Affinity"])
        self.people.setObjectName("by-person")
        self.people.setItemDelegateForColumn(3, BarDelegate(self.people))
        self.people_fitter = ColumnFitter(self.people, content=(2, 4), fixed={3: bar_width},
                                          elastic=(1, 0))
        self.people.currentCellChanged.connect(lambda row, *_: self._person_chosen(row))
        self.papers = make_table(["Paper", "Title", "Affinity", "Rank", "Pinned"])
        self.papers.setObjectName("person-papers")
        self.papers_fitter = ColumnFitter(self.papers, content=(2, 3, 4), elastic=(1, 0))
        self.papers_box = boxed("Their papers", self.papers)
        self.actions = PairTable(self.papers, self._pair_of_row, self.pair_action.emit)
        self.loads_label = QLabel("")
        self.loads_label.setWordWrap(True)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.papers_box, 1)
        rl.addLayout(pair_buttons(self.actions.trigger))
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(boxed("People", self.people), 1)
        ll.addWidget(self.loads_label)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([460, 560])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.result = None
        self._rows: list = []  # the assignment's rows of the person shown
        self._column = -1

    def clear(self) -> None:
        self.result, self._rows, self._column = None, [], -1
        for table in (self.people, self.papers):
            table.setRowCount(0)
        self.loads_label.setText("")

    def show_result(self, result) -> None:
        keep = self.people.currentRow()
        self.result = result
        prepared = result.prepared
        s = prepared.settings
        loads = result.loads
        per_person = np.zeros(len(prepared.pool))
        for row in result.rows:
            per_person[row.person] += row.affinity
        tip = affinity_tip(prepared)
        rows = []
        for column in range(len(prepared.pool)):
            bar = item("")
            bar.setData(Qt.ItemDataRole.UserRole, float(loads[column]) / s.max_per_person)
            bar.setToolTip(f"{int(loads[column])} of at most {s.max_per_person}")
            rows.append([item(prepared.person_id(column), tooltip=prepared.person_id(column)),
                         item(prepared.person_name(column),
                              tooltip=prepared.person_name(column)),
                         item(int(loads[column]), tooltip=f"Papers to review; at most "
                              f"{s.max_per_person}, at least {s.min_per_person}"),
                         bar,
                         item(f"{per_person[column]:.2f}", align_right=True,
                              tooltip=f"The sum of their papers' affinities. {tip}")])
        fill_table(self.people, rows)
        self.people_fitter.fit()
        idle = int((loads == 0).sum())
        self.loads_label.setText(
            f"Loads {int(loads.min())} to {int(loads.max())} papers (at most "
            f"{s.max_per_person}, at least {s.min_per_person})"
            + (f"; {idle:,} of {len(loads):,} people review none" if idle else "") + ".")
        self.people.selectRow(max(keep, 0) if rows else -1)
        self._person_chosen(self.people.currentRow())

    def _person_chosen(self, column: int) -> None:
        result = self.result
        if result is None or column < 0:
            return
        prepared = result.prepared
        papers = prepared.papers
        self._column = column
        self._rows = sorted((r for r in result.rows if r.person == column),
                            key=lambda r: -r.affinity)
        tip = affinity_tip(prepared)
        fill_table(self.papers, [[
            item(papers.doc_ids[r.paper], tooltip=papers.doc_ids[r.paper]),
            item(papers.title(r.paper, 200), tooltip=papers.title(r.paper, 400)),
            item(f"{r.affinity:.2f}", align_right=True, tooltip=tip),
            item(r.rank, tooltip=RANK_TIP),
            item("yes" if r.pinned else "")] for r in self._rows])
        self.papers_fitter.fit()
        self.papers_box.setTitle(f"Papers of {prepared.person_name(column)}: "
                                 f"{len(self._rows)}")

    def _pair_of_row(self, row: int) -> tuple[int, int] | None:
        if not 0 <= row < len(self._rows):
            return None
        return self._rows[row].paper, self._column
