"""The training settings, apart from the trainer so that reading them (the CLI's help, the GUI's
form) does not import torch."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

OPTIMIZERS = ("adadelta", "adam")
DEVICES = ("auto", "cpu", "cuda", "mps")


@dataclass(frozen=True)
class TrainSettings:
    """Section 4.4's settings, and ours. `learning_rate` 0 means the optimiser's own default
    (1.0 for Adadelta, 0.001 for Adam). `checkpoint_every` counts steps; epoch ends checkpoint
    too (0: only at the end).
    `epochs` is 5, from the DPDK dev topics (benchmarks/epochs_dpdk.py): MAP rose from 0.41
    after one epoch (the paper's setting) to 0.51 after five, then stayed at 0.48-0.50 while the
    validation loss bottomed out at epoch 6 and rose from epoch 7. `cuda_graphs`: on one CUDA GPU
    (one process), each full step is replayed from one captured CUDA graph (step.GraphStepper):
    1.27 M instances/s on an H100 at the paper's batch of 1,024, against 0.32 M eager
    (docs/results/gpu.md). Elsewhere, or if the capture fails, the step runs eagerly."""

    window: int = 8
    dim: int = 300
    batch_size: int = 1024
    l2: float = 0.01
    optimizer: str = "adadelta"
    learning_rate: float = 0.0
    rho: float = 0.95
    eps: float = 1e-6
    epochs: int = 5
    overlapping: bool = False
    validation_fraction: float = 0.01
    early_stopping: bool = False
    patience: int = 2
    seed: int = 0
    device: str = "auto"
    mixed_precision: bool = False
    cuda_graphs: bool = True
    checkpoint_every: int = 1000
    candidate_chunk: int = 8192
    embeddings: str = ""
    threads: int = 0

    def __post_init__(self):
        checks = [
            (self.window >= 1, "window must be at least 1"),
            (self.dim >= 1, "dim must be at least 1"),
            (self.batch_size >= 1, "batch size must be at least 1"),
            (self.l2 >= 0, "l2 must not be negative"),
            (self.optimizer in OPTIMIZERS, f"optimizer must be one of {OPTIMIZERS}"),
            (self.learning_rate >= 0, "learning rate must not be negative"),
            (self.epochs >= 1, "epochs must be at least 1"),
            (0 <= self.validation_fraction < 1, "validation fraction must be in [0, 1)"),
            (self.patience >= 1, "patience must be at least 1"),
            (self.validation_fraction > 0 or not self.early_stopping,
             "early stopping needs a validation fraction above 0"),
            (self.device in DEVICES or self.device.startswith("cuda:"),
             f"device must be one of {DEVICES}"),
            (self.checkpoint_every >= 0, "checkpoint_every must not be negative"),
            (self.candidate_chunk >= 1, "candidate_chunk must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TrainSettings:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


SUGGESTED_SETTINGS_FILE = "train_settings.json"
PAPER_DEFAULTS = "the paper's defaults (section 4.4)"


@dataclass(frozen=True)
class SuggestedSettings:
    """The settings to train a collection with: `base` with the collection's
    `train_settings.json` over it, when its folder has one (a small collection such as the demo
    trains well in seconds with smaller batches and more epochs). `source` says where they come
    from, `values` what the file set, `problem` what in the file was not used ('' when none)."""

    settings: TrainSettings
    source: str
    values: dict
    problem: str = ""


def suggested_settings_path(source: str | Path) -> Path | None:
    """The collection's suggested training settings file, if its folder has one."""
    if not source:
        return None
    folder = Path(source)
    folder = folder if folder.is_dir() else folder.parent
    path = folder / SUGGESTED_SETTINGS_FILE
    return path if path.is_file() else None


def suggested_settings(source: str | Path, base: TrainSettings = TrainSettings(),
                       name: str = "") -> SuggestedSettings:
    """`base` with the `train_settings.json` beside the collection at `source` over it: what the
    app's training form shows and `expert-gui train` and `experiment` use. A file that cannot be
    read, is not a JSON object or holds an invalid value is not used, and `problem` says why;
    names the trainer does not have are left out, and `problem` names them."""
    path = suggested_settings_path(source)
    if path is None:
        return SuggestedSettings(base, PAPER_DEFAULTS, {})
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(values, dict):
            raise ValueError("expected a JSON object of training settings")
        known = {f.name for f in fields(TrainSettings)}
        used = {k: v for k, v in values.items() if k in known}
        settings = replace(base, **used)
    except (OSError, ValueError, TypeError) as exc:
        return SuggestedSettings(base, PAPER_DEFAULTS, {}, f"ignored {path}: {exc}")
    unknown = sorted(set(values) - known)
    problem = (f"{path} names settings the trainer does not have, left out: "
               f"{', '.join(unknown)}") if unknown else ""
    owner = f"{name}'s " if name else ""
    return SuggestedSettings(settings, f"suggested by {owner}{path.name}", used, problem)
