"""What the query panel says before it has a ranking to show: the open model (partial, or the
measured one answering while its run trains it again), or, without a model, which baselines
answer now and the saved models of the collection to open; and why a word only the held-out
documents hold is answered by a baseline over every document. `ModelTexts` is mixed into
`QueryPanel` (query.py; it uses the panel's state, method, `_dropped` and `_training_for`)."""

from __future__ import annotations

import html

from expert_gui.core.evaluation.every_document import measured_note
from expert_gui.core.evaluation.tables import label
from expert_gui.core.paths import models_dir
from expert_gui.core.store.model_folders import (
    COMPLETE,
    PARTIAL,
    list_model_folders,
    partial_text,
)
from expert_gui.gui.prepared_rankers import FIRST_BASELINE


class ModelTexts:
    """The line under the query while nothing is ranked."""

    def _model_text(self, model) -> str:
        """What the open model is, before any query."""
        text = f"{model.n_people:,} people, {model.n_words:,} words known. Press Enter to rank."
        if partial_text(model):
            text += (f' <span style="color:#d9480f">A <b>partial</b> model: training was '
                     f"{html.escape(partial_text(model))}.</span>")
        if measured := self._measured_text():
            text += f" {measured[0].upper()}{measured[1:]}."
        if note := model.text_rule_note:
            text += f' <span style="color:#d9480f">{html.escape(note)}</span>'
        return text

    def _measured_text(self) -> str:
        """While a run trains the open model again on every document: that the measured model
        answers and what it lacks ('' otherwise)."""
        if not self.state.measured_answers():
            return ""
        return f'<span style="color:#d9480f">{html.escape(measured_note(self.state.model))}</span>'

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
        return saved_models_text(collection)


def saved_models_text(collection, then: str = "query here") -> str:
    """The saved models trained on `collection`, newest first, as links to open (their
    folders), or that there is none yet (train one, `then` ...)."""
    saved = [f for f in list_model_folders(models_dir())
             if f.kind in (COMPLETE, PARTIAL) and f.belongs_to(collection)]
    name = html.escape(collection.name)
    if not saved:
        return f"No model for <b>{name}</b> yet: train one (Ctrl+T), then {then}."
    links = ", ".join(f'<a href="{html.escape(str(f.path))}">{html.escape(f.name)}</a>'
                      + (" (partial)" if f.kind == PARTIAL else "") for f in saved[:3])
    more = f" and {len(saved) - 3} more in the Training panel" if len(saved) > 3 else ""
    return (f"No model open for <b>{name}</b>. Open one trained on it (newest first): "
            f"{links}{more}; or train a new one (Ctrl+T).")


def held_out_note(words, method: str) -> str:
    """Why FIRST_BASELINE over every document ranked a query instead of the chosen method."""
    quoted = ", ".join(f"“{w}”" for w in words)
    return (f"{label(FIRST_BASELINE)} over every document: only the held-out documents hold "
            f"{quoted}, which {label(method)} over the measured model’s documents does not know")
