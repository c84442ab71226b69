"""What the saved-models list says of each model folder, so that a bad run can be told from a
good one without opening it: its held-out MAP (with a warning when it is near chance or far
below the baselines), what its settings change from the paper's defaults, and its date."""

from __future__ import annotations

import time

from expert_gui.core.evaluation.quality import held_out_warning
from expert_gui.core.store.model_folders import DAMAGED, INTERRUPTED, PARTIAL, ModelFolder
from expert_gui.core.train.settings import differences_from_defaults

WARNING_SIGN = "\u26a0"  # what marks a warning wherever a model is named


def folder_date(info: ModelFolder) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))


def settings_text(settings: dict) -> str:
    changes = differences_from_defaults(settings)
    return ", ".join(changes) if changes else "the paper's defaults"


def held_out_text(info: ModelFolder) -> str:
    """The held-out MAP: the calibration's, or for a model stopped before it, the last one its
    training measured (none: stopped before its first epoch ended, when it is measured)."""
    measures = info.held_out
    if "loglinear" not in measures:
        measured = [h for h in info.history if h.get("held_out_map") is not None]
        if measured:
            return (f"held-out MAP {measured[-1]['held_out_map']:.3f} after epoch "
                    f"{measured[-1]['epoch']} (not calibrated: stopped)")
        if info.kind == PARTIAL:
            return "no held-out MAP: stopped before the first epoch ended"
        return "no held-out documents"
    text = f"held-out MAP {measures['loglinear']['AP']:.3f}"
    if "auto" in measures:
        text += f" (auto {measures['auto']['AP']:.3f})"
    if info.retrained_documents:  # the MAP is of the model measured before
        text += f", then trained on all {info.retrained_documents:,} documents"
    return text


def folder_warning(info: ModelFolder) -> str:
    """Why the folder's model is weak ('' when it is not, or holds no finished model)."""
    if info.kind in (INTERRUPTED, DAMAGED):
        return ""
    return held_out_warning(info.held_out, documents=info.held_out_documents or None)


def folder_text(info: ModelFolder, *, retraining: bool = False) -> str:
    """The list's lines for one folder: name and date; how far it got (partial or interrupted
    runs) or its held-out MAP (`retraining`: of the measured model, which the run that saved it
    trains again on every document); its settings; a warning."""
    lines = [f"{info.name} · {folder_date(info)}"]
    if info.kind == DAMAGED:
        return "\n".join([*lines, info.status_text()])
    if info.kind == INTERRUPTED:
        lines.append(f"interrupted at {info.progress_text()} · {settings_text(info.settings)}")
        return "\n".join(lines)
    head = f"partial: stopped at {info.progress_text()} · " if info.kind == PARTIAL else ""
    again = " · the measured model, being trained again on every document" if retraining else ""
    lines.append(f"{head}{held_out_text(info)}{again} · {settings_text(info.settings)}")
    warning = folder_warning(info)
    if warning:
        lines.append(f"{WARNING_SIGN} {warning}")
    return "\n".join(lines)
