"""Every document counts: once the calibration has measured the model trained without the
held-out documents, the model the app keeps is trained again on all of them.

Held-out documents are for measuring, not for losing: without this, a word only they hold stays
unknown to every method for good, and 2% of a collection never counts as evidence again. The
paper trains on every document. The second run repeats the first (the same settings and seed,
as many epochs as the measured run kept, a vocabulary cut from every document), so the
calibration still describes it fairly: it measured a model made the same way from 98% of the
documents. The calibration keeps its figures of the measured model, and records the second run
under `retrained`; `calibration.index_for` then gives the rankers the whole collection.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from expert_gui.core.durations import format_duration
from expert_gui.core.evaluation.evaluate import Stopped

if TYPE_CHECKING:
    from expert_gui.core.evaluation.heldout import HeldOut
    from expert_gui.core.model.loglinear import LogLinearModel
    from expert_gui.core.train.settings import TrainSettings

# Methods whose rankings use the log-linear model: a model trained again on every document has
# seen the held-out ones, so these are not measured on them again (the calibration's figures,
# of the model it measured, stand for them).
USES_THE_MODEL = ("auto", "loglinear", "ensemble")


def retrained(model: LogLinearModel) -> dict | None:
    """The record of the second run (documents, people, epochs, steps, seconds), or None for a
    model kept as measured (trained without held-out documents, or before this existed)."""
    return (model.calibration or {}).get("retrained")


def epochs_kept(model: LogLinearModel) -> int:
    """The epochs the measured model's parameters had: the best one with early stopping, else
    every epoch it ran."""
    best = int(model.settings.get("best_epoch") or 0)
    if model.settings.get("early_stopping") and best:
        return best
    return max(len(model.history), 1)


def train_on_every_document(measured: LogLinearModel, split: HeldOut, settings: TrainSettings,
                            *, progress: Callable[..., None] | None = None,
                            should_stop=None,
                            should_pause=None) -> LogLinearModel:
    """The measured (calibrated) model's twin trained on all of `split.collection`, with the
    measured model's calibration, settings and history; Stopped when stopped (the caller then
    keeps the measured model).

    `progress(text, done, total, step=None)` says what runs ("Training again on every
    document: epoch 2 of 5, about 1 min left") and counts its steps; `step` is the run's own
    step event with its losses (`net.weighted_mean_loss`, as the measured run's),
    for the numbers a window shows. The caller makes them a calibration.TrainingStage, not step
    events of the run, which would start the measured run's curve again. No checkpoints: a run
    cut short keeps the measured model, saved before this starts (the app answers with it
    meanwhile)."""
    from expert_gui.core.train.trainer import TrainProgress, train

    tell = progress or (lambda text, done=0, total=0, step=None: None)
    collection = split.collection
    epochs = epochs_kept(measured)
    again = replace(settings, epochs=epochs, early_stopping=False, checkpoint_every=0,
                    checkpoint_minutes=0.0)
    text = "Training again on every document"
    def forward(event) -> None:
        if isinstance(event, TrainProgress):
            left = f", about {format_duration(event.eta_s)} left" if event.eta_s < 1e9 else ""
            tell(f"{text}: epoch {event.epoch} of {event.epochs}{left}", event.step,
                 event.total_steps, event)

    tell(f"{text}: all {collection.n_documents:,} (the {len(split.documents):,} held out "
         f"included), {epochs} epoch{'s' if epochs != 1 else ''}", 0, 0)
    start = time.perf_counter()
    model = train(collection, again, progress=forward, should_stop=should_stop,
                  should_pause=should_pause)
    if model.settings.get("stopped"):
        raise Stopped
    record = {"documents": collection.n_documents, "people": model.n_people,
              "words": model.n_words, "epochs": epochs, "steps": int(model.settings["steps"]),
              "seconds": round(time.perf_counter() - start, 1)}
    model.settings, model.history = dict(measured.settings), list(measured.history)
    model.calibration = {**measured.calibration, "retrained": record}
    return model


def retrained_note(model: LogLinearModel) -> str:
    """What the kept model is, beside the held-out figures that describe the measured one: ''
    for a model kept as measured."""
    record = retrained(model)
    if record is None:
        return ""
    n = len(model.calibration["held_out"]["documents"])
    return (f"The held-out figures are of the model measured on {n:,} documents it had not "
            f"seen; the model kept was then trained again, with the same settings and "
            f"{record['epochs']} epoch{'s' if record['epochs'] != 1 else ''}, on all "
            f"{record['documents']:,} documents ({format_duration(record['seconds'])}), so "
            "every method's answers use every document.")


def measured_note(model: LogLinearModel) -> str:
    """What answers while the second run trains: the measured model, saved and calibrated, which
    lacks what only the held-out documents hold until the model trained on them replaces it."""
    n = len((model.calibration or {}).get("held_out", {}).get("documents", ()))
    return (f"the measured model answers: it has not seen the {n:,} held-out document"
            f"{'s' if n != 1 else ''} that measured it, and the model trained again on every "
            "document replaces it when that run ends")
