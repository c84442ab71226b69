"""The query panel's export: the ranking on screen as CSV (every row saying what made it) or as
a TREC run. `RankingExport` is mixed into `QueryPanel` (query.py; it uses the panel's state,
ranking, `ranked_by`, `ranked_variant` and `_person`)."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

from expert_gui.core.errors import OutputFolderError
from expert_gui.core.evaluation.runs import write_run
from expert_gui.core.evaluation.tables import label
from expert_gui.core.rankers.names import SCORE_NAMES
from expert_gui.core.rankers.query_type import OUTSIDE_PAPER
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.save_dialogs import file_stem, save_file

TREC_TOPIC_ID = "query"


class RankingExport:
    """Export… (Ctrl+E) of the query panel."""

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
                about = {"method": label(self.ranked_by), "query": self.ranking.query}
                variant = self.ranked_variant
                if variant:  # what else made it: asked as a paper from outside, recency
                    about["asked_as"] = OUTSIDE_PAPER if variant.outside else "topic"
                    about["recency"] = self.recency_text or "none"
                if self.ranking.p_expert is None and (missing := self.missing_p_expert()):
                    about["p_expert"] = missing  # each person's own score instead, and why
                write_ranking_csv(path, self.ranking, names, {
                    **about, "model": model, "collection": str(s.collection_path or ""),
                    "exported": datetime.now().astimezone().isoformat(timespec="seconds")},
                    score=SCORE_NAMES.get(self.ranked_by, "score"))
        except (OSError, OutputFolderError) as exc:
            show_error(self, f"Cannot write {path.name}", exc)
            return
        self.state.message.emit(f"Saved the ranking to {path}")


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
