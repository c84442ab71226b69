"""What the training form shows for a collection: its defaults, or the settings it was last
trained with, remembered per collection in the app's settings file: reopened (in this session
or the next), the form offers them again, and Reset gives the collection's defaults. Only the
edits are kept, so that defaults that change later (a collection that grew, a newer release)
still apply to what the user did not change. `RememberedForm` is mixed into `TrainingPanel`
(panel.py)."""

from __future__ import annotations

import hashlib
import json

from expert_gui.core.train.settings import TrainSettings, field_problem
from expert_gui.gui.app_settings import note, read_text, settings
from expert_gui.gui.panels.training.form import collection_defaults, form_defaults


def _key(collection) -> str:
    """One key per collection path (a hash: a path's slashes would nest QSettings groups)."""
    digest = hashlib.sha256(str(collection.source).encode("utf-8", "replace")).hexdigest()
    return f"training/last-{digest[:20]}"


def remember(collection, values: dict, defaults: TrainSettings) -> dict:
    """The form's values a run of `collection` starts with: what differs from its defaults
    (nothing: forgotten). Returns those edits."""
    edits = {k: v for k, v in values.items() if v != getattr(defaults, k, v)}
    s = settings()
    if edits:
        s.setValue(_key(collection), json.dumps(edits, sort_keys=True))
    else:
        s.remove(_key(collection))
    return edits


def last_edits(collection) -> dict:
    """The edits `collection` was last trained with ({} when none); a value the trainer would
    refuse, or a damaged entry, is left out and noted."""
    s = settings()
    key = _key(collection)
    text = read_text(s, key, "training settings")
    if not text:
        return {}
    try:
        edits = json.loads(text)
    except ValueError:
        edits = None
    if not isinstance(edits, dict):
        note(f"the setting {key} in {s.fileName()} was ignored: not the settings of a run")
        s.remove(key)
        return {}
    kept = {}
    for name, value in edits.items():
        why = field_problem(name, value) if name in TrainSettings.__dataclass_fields__ else \
            "not a training setting"
        if why:
            note(f"the last training setting {name} = {value!r} of {collection.name} was "
                 f"ignored: {why}")
        else:
            kept[name] = value
    return kept


def edits_text(edits: dict) -> str:
    """'epochs 1, dim 128': the edits, as the caption names them."""
    return ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in sorted(edits.items()))


class RememberedForm:
    """The form's defaults and its caption, mixed into `TrainingPanel` (it uses the panel's
    form, state, caption and Reset button, `_defaults`, `_form_origin` and `_last_edits`)."""

    def apply_collection_defaults(self, collection) -> None:
        """The form shows the paper's defaults, or the collection's `train_settings.json` when
        it ships one (a small collection such as the demo trains well in seconds with smaller
        batches and more epochs); never the previous collection's."""
        self._defaults, self._defaults_source, problem, reasons = collection_defaults(collection)
        self.form.show_reasons(reasons)
        self.defaults_label.setToolTip("\n".join(f"{k.replace('_', ' ').capitalize()}: {why}."
                                                  for k, why in reasons.items()))
        if problem:
            self.state.message.emit(problem.capitalize())
        self.reset_form()
        self._last_edits = last_edits(collection) if collection is not None else {}
        for name, value in self._last_edits.items():  # the form marks one it cannot show
            self.form.set_value(name, value)
        self._show_form_origin()
        if self._defaults != form_defaults() and not self._last_edits:
            self.state.message.emit(f"Training settings {self._defaults_source} applied")

    def remember_settings(self, collection) -> None:
        """A new run of `collection` starts with the form's settings: remembered for it."""
        self._last_edits = remember(collection, self.form.values(), self._defaults)

    def reset_form(self) -> None:
        """Back to the defaults the caption names."""
        self.form.show_settings(self._defaults)
        self._form_origin = ""
        self._show_form_origin()

    def _show_form_origin(self) -> None:
        """The caption says whose settings the form shows; Reset is offered when edited."""
        values = self.form.values()
        edited = values != self._defaults.to_dict()
        collection = self.state.collection
        if self._form_origin:
            text = self._form_origin
        elif not edited:
            text = f"Settings: {self._defaults_source}."
        elif self._last_edits and collection is not None and \
                values == {**self._defaults.to_dict(), **self._last_edits}:
            text = (f"Settings: as {collection.name} was last trained "
                    f"({edits_text(self._last_edits)}); Reset gives {self._defaults_source}.")
        else:
            text = f"Settings: edited; Reset gives {self._defaults_source}."
        self.defaults_label.setText(text)
        self.reset_button.setEnabled(not self.is_training() and edited)
