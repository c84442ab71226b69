"""The papers to assign as they were read: id, title, each author and who of the collection they
were found to be (✓), or may be (?: counted as a conflict with each of them), the conflicts of
each paper once found, and the problems of the load report with their file and line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget

from expert_gui.gui.widgets import ColumnFitter, boxed, compact, fill_table, item, make_table

MAX_PROBLEMS = 500  # listed one by one; all are counted
FOUND, MAYBE = "✓", "?"


def author_text(match, collection) -> tuple[str, str]:
    """An author as the table shows them ("Ann Lee ✓") and the line of the tooltip that says
    who of the collection they are."""
    def who(person: int) -> str:
        return f"{collection.person_names[person]} ({collection.person_ids[person]})"

    if match.person is not None:
        return f"{match.author} {FOUND}", f"{match.author}: {who(match.person)}, {match.how}"
    if match.possible:
        names = " or ".join(who(p) for p in match.possible[:4])
        more = f" or {len(match.possible) - 4} more" if len(match.possible) > 4 else ""
        return (f"{match.author} {MAYBE}",
                f"{match.author}: may be {names}{more} ({match.how}); a conflict with each")
    return match.author, f"{match.author}: not in the collection ({match.how})"


class PapersView(QWidget):
    """The papers table (a row per paper, in the file's order) and the load report."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.table = make_table(["Paper", "Title", "Authors", "Conflicts"])
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setToolTip("Click a header to sort; double-click a paper for its people (or "
                              "its conflicts)")
        self.table.setObjectName("reviewer-papers")
        # the ids and authors whole while they fit (titles shorten, whole in their tooltips)
        counts = self.fontMetrics().horizontalAdvance("Conflicts") + 24
        self.fitter = ColumnFitter(self.table, fixed={3: counts}, elastic=(0, 2, 1))
        self.legend = QLabel(f"{FOUND}: the author is this person of the collection; "
                             f"{MAYBE}: may be one of several (each a conflict). Hover an "
                             "author's cell for who.")
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet("color: #495057;")
        self.report = compact(QPlainTextEdit())
        self.report.setReadOnly(True)
        self.report.setPlaceholderText("Problems found while reading the papers appear here.")
        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.table, 1)
        tl.addWidget(self.legend)
        split.addWidget(top)
        self.report_box = boxed("Load report", self.report)
        split.addWidget(self.report_box)
        split.setSizes([500, 110])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def clear(self) -> None:
        self.table.setRowCount(0)
        self.report.clear()
        self.report_box.setTitle("Load report")

    def show_papers(self, submissions, conflicts_per_paper: dict[int, int] | None) -> None:
        """`conflicts_per_paper`: pairs in conflict by paper, once found (None before a Run)."""
        papers, collection = submissions.papers, submissions.collection
        rows = []
        for i in range(papers.n_documents):
            matches = submissions.matches.get(i, [])
            if collection is not None and matches:
                shown = [author_text(m, collection) for m in matches]
            else:
                shown = [(papers.person_names[a], papers.person_names[a])
                         for a in papers.people_of(i)]
            authors = ", ".join(text for text, _ in shown)
            tip = "\n".join(line for _, line in shown) or "No authors given"
            n = None if conflicts_per_paper is None else conflicts_per_paper.get(i, 0)
            paper = item(papers.doc_ids[i], tooltip=papers.doc_ids[i])
            paper.setData(Qt.ItemDataRole.UserRole, i)
            rows.append([paper,
                         item(papers.title(i, 200), tooltip=papers.title(i, 400)),
                         item(authors or "—", tooltip=tip),
                         item("" if n is None else n, align_right=True,
                              tooltip="Pairs in conflict with this paper (Conflicts tab)"
                              if n is not None else "Found at Run")])
        fill_table(self.table, rows)
        self.table.setSortingEnabled(True)  # by a header's click: the most conflicts first
        self.fitter.fit()
        # A paper without authors is no problem here (a blind review's manuscripts): said once.
        problems = [p for p in papers.report.problems if p.kind != "no-people"]
        lines = [str(p) for p in problems[:MAX_PROBLEMS]]
        if len(problems) > MAX_PROBLEMS:
            lines.append(f"… and {len(problems) - MAX_PROBLEMS:,} more")
        unnamed = sum(not len(papers.people_of(i)) for i in range(papers.n_documents))
        if unnamed:
            lines.insert(0, f"{unnamed:,} of {papers.n_documents:,} papers name no authors: "
                            "only a conflicts file gives their conflicts of interest.")
        self.report.setPlainText("\n".join(lines))
        self.report_box.setTitle(f"Load report: {len(problems):,} problem"
                                 f"{'s' if len(problems) != 1 else ''}" if problems else
                                 "Load report: no problems")

    def paper_at(self, row: int) -> int:
        """The paper (its index among the papers) a row shows, however the table is sorted."""
        return int(self.table.item(row, 0).data(Qt.ItemDataRole.UserRole))
