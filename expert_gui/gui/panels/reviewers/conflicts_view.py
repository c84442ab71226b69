"""The conflicts of interest found: how many pairs in all and by kind (authors, possible
authors, co-authors, shared affiliations, listed in a file), and each pair with every reason,
filtered by a paper or person typed. No pair listed here is ever assigned."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from expert_gui.gui.widgets import ColumnFitter, fill_table, item, make_table, plural

MAX_ROWS = 5_000  # pairs listed at once (a filter narrows them)

KIND_WORDS = {"author": ("author", "authors"),
              "possible author": ("possible author", "possible authors"),
              "co-author": ("co-author", "co-authors"),
              "affiliation": ("shared affiliation", "shared affiliations"),
              "listed": ("listed in the file", "listed in the file")}

TIP = ("Who may not review a paper, and why: its authors where they are people of the "
       "collection (or may be: a name that fits several people counts for each), their "
       "co-authors in the collection (within the co-author window), people of an author's "
       "affiliation, and the pairs of the conflicts file.")


class ConflictsView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.summary = QLabel("Run to find the conflicts of interest.")
        self.summary.setObjectName("conflicts-summary")
        self.summary.setWordWrap(True)
        self.summary.setToolTip(TIP)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by paper, person or reason…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda _: self._fill())
        self.table = make_table(["Paper", "Person", "Name", "Why they may not review it"])
        self.table.setObjectName("reviewer-conflicts")
        self.table.setToolTip(TIP)
        # who and which paper whole; the reasons shorten (whole in their tooltips)
        self.fitter = ColumnFitter(self.table, content=(), elastic=(2, 0, 3, 1))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        self._rows: list[tuple[str, str, str, str]] = []

    def clear(self, text: str = "Run to find the conflicts of interest.") -> None:
        self._rows = []
        self.summary.setText(text)
        self.table.setRowCount(0)

    def show_conflicts(self, prepared) -> None:
        conflicts, papers, people = prepared.conflicts, prepared.papers, prepared.collection
        pairs = sorted(conflicts.reasons.items())
        self._rows = [(papers.doc_ids[paper], people.person_ids[person],
                       people.person_names[person], "; ".join(reasons))
                      for (paper, person), reasons in pairs]
        kinds = ", ".join(plural(n, *KIND_WORDS.get(kind, (kind, kind)))
                          for kind, n in sorted(conflicts.counts.items(), key=lambda kv: -kv[1]))
        with_any = len({paper for paper, _ in conflicts.reasons})
        if pairs:
            text = (f"{plural(len(pairs), 'pair')} in conflict, on {with_any:,} of "
                    f"{plural(papers.n_documents, 'paper')}: {kinds}. Per paper: the Conflicts "
                    "column of Papers.")
        elif any(conflicts.authors.values()):
            text = "No conflicts of interest found."
        else:
            text = ("No conflicts of interest found: the papers name no authors, so only a "
                    "conflicts file can give them.")
        self.summary.setText(text)
        self._fill()

    def _fill(self) -> None:
        wanted = self.filter.text().strip().casefold()
        rows = [r for r in self._rows if not wanted or any(wanted in c.casefold() for c in r)]
        shown = rows[:MAX_ROWS]
        fill_table(self.table, [[item(paper, tooltip=paper), item(pid, tooltip=pid),
                                 item(name, tooltip=name), item(why, tooltip=why)]
                                for paper, pid, name, why in shown])
        self.fitter.fit()
        if len(rows) > len(shown):
            self.table.setToolTip(f"The first {len(shown):,} of {len(rows):,} pairs: type to "
                                  f"filter them. {TIP}")

    def show_paper(self, paper_id: str) -> None:
        """Only the pairs of one paper (from the Papers tab)."""
        self.filter.setText(paper_id)
