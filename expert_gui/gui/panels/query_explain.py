"""Why a person ranks where they do, on the query panel's right: each query word's P(c|w) (Eq.
1) from the log-linear model, and the person's documents that hold the query's words, the
selected one shown with them marked. `Explanation` is mixed into `QueryPanel` (query.py; it uses
the panel's state, ranking, `ranked_by`, the log-linear `ranker` and the tables it lays out)."""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import Qt

from expert_gui.core.data.text import highlight_pattern
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.loglinear import supporting_documents
from expert_gui.core.rankers.methods import recency_weights
from expert_gui.gui.widgets import fill_table, item

SHOWN_DOCUMENTS = 50  # supporting documents listed per person (the title says how many exist)


class Explanation:
    """The words table, the supporting documents and the document view of the query panel."""

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
        recency = self.ranked_variant.recency
        if recency and found:  # only the documents that count (the others weigh 0)
            weights = recency_weights(collection, recency).weights
            found = tuple(d for d in found if weights[d.index] > 0)
        self._documents = list(found[:SHOWN_DOCUMENTS])
        # Titles stay short: a group box is at least as wide as its title.
        counting = " that count" if recency else ""
        self.docs_box.setTitle(f"Supporting documents{counting}: {len(self._documents):,} of "
                               f"{len(found):,}" if len(found) > len(self._documents) else
                               f"Supporting documents{counting}: {len(found):,}")
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
            pattern = highlight_pattern(doc.words)
            text = pattern.sub(lambda m: f'<b style="background:#ffe066">{m.group()}</b>', text)
        date = collection.date_text(doc.index)
        self.doc_view.setHtml(f"<p><b>{html.escape(doc.doc_id)}</b>"
                              f"{' · ' + date if date else ''}</p>"
                              f"<p style='white-space:pre-wrap'>{text}</p>")


def all_supporting_documents(collection, person_id: str, words) -> tuple:
    """Every document of the person that holds a query word, most occurrences first."""
    person = collection.person_index.get(person_id)
    if person is None:
        return ()
    return supporting_documents(collection, person_id, list(dict.fromkeys(words)),
                                n=len(collection.documents_of(person)))
