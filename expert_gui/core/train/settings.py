"""The training settings, apart from the trainer so that reading them (the CLI's help, the GUI's
form) does not import torch.

Every numeric setting has a range (`RANGES`) with the reason for it. `TrainSettings` refuses a
value outside it, whoever builds the settings (the CLI, a `train_settings.json`, a resumed
checkpoint), and the app's form is built from the same ranges: an Adadelta eps of 0, reached by
a mouse wheel over the form, once trained a model that never moved from its initialisation.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from expert_gui.core import schema
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import InputFileError
from expert_gui.core.store.storage import MAX_DIM

OPTIMIZERS = ("adadelta", "adam")
DEVICES = ("auto", "cpu", "cuda", "mps")


@dataclass(frozen=True)
class Range:
    """The values a number may take: `low` and `high` (None: unbounded), each included unless
    open, and why the range is what it is."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    why: str = ""
    why_low: str = ""  # why not below `low`, where `why` speaks only of the high end

    def __contains__(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else
                                     value <= self.high)

    def text(self) -> str:
        """'above 0', 'at least 1', 'in (0, 1)', 'in [1, 8,192]'."""
        low, high = _number(self.low), _number(self.high)
        if self.low is not None and self.high is not None:
            return (f"in {'(' if self.low_open else '['}{low}, "
                    f"{high}{')' if self.high_open else ']'}")
        if self.low is not None:
            return f"above {low}" if self.low_open else f"at least {low}"
        if self.high is not None:
            return f"below {high}" if self.high_open else f"at most {high}"
        return "a finite number"


def _number(value: float | None) -> str:
    """A bound or a value as a message shows it: '8,192', '1e-06'."""
    if value is None:
        return ""
    return f"{int(value):,}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


# Every count has an upper bound too, by what a machine can hold or a run can use: a value
# past it (`--dim 1000000000`, `--window 100000000`) used to end in a failed allocation's
# traceback. What a run needs for its collection is checked before it starts (memory.py).
RANGES: dict[str, Range] = {
    "window": Range(1, 1024, why="a training instance holds at least one word; each instance "
                                 "holds n word ids, and n-grams of a thousand words are whole "
                                 "documents, not contexts"),
    "dim": Range(1, MAX_DIM, why="an embedding has at least one dimension; the widest word vectors "
                              "in use have 4,096, and each of the |V| + |C| vectors is held four "
                              "times in training (weights, gradients, the optimiser's two "
                              "averages): 2^16 words at 8,192 take 8 GiB"),
    "batch_size": Range(1, 1 << 20, why="a step needs at least one instance, and holds a "
                                        "batch x candidate-chunk matrix of scores"),
    # l2 and the learning rate hold no memory: a value too large for the numbers makes the loss
    # non-finite, and training stops there with a TrainingError, its last good checkpoint kept
    "l2": Range(0, why="a negative penalty would reward large weights"),
    "learning_rate": Range(0, why="0 means the optimiser's own default"),
    "rho": Range(0, 1, True, True, why="Adadelta's decay averages old and new squared "
                                        "gradients; at 0 or 1 one of them is ignored"),
    "eps": Range(0, 1, True, True, why="Adadelta's step is sqrt(E[dx^2] + eps) / sqrt(E[g^2] "
                                        "+ eps) times the gradient: at eps = 0 it never moves"),
    "epochs": Range(1, 10_000, why="training passes over the instances at least once; the "
                                   "paper trains 1 epoch, DPDK's best is 5, and each epoch is "
                                   "kept in the model's history"),
    "validation_fraction": Range(0, 1, high_open=True,
                                 why="a share of the instances; all of them would leave none "
                                     "to train on",
                                 why_low="a share of the instances cannot be negative (0: "
                                         "none held out)"),
    "patience": Range(1, 10_000, why="early stopping waits at least one epoch, and at most as "
                                     "many as a run may have"),
    "seed": Range(0, 2**31 - 1, why="numpy's and torch's seeds are non-negative, and the "
                                    "form's field holds 31 bits"),
    "checkpoint_every": Range(0, 2**31 - 1, why="steps between checkpoints (0: none by "
                                                "steps); a run counts at most 2^31 steps "
                                                "between two"),
    "checkpoint_minutes": Range(0, 525_600, why="minutes of training between checkpoints (0: "
                                                "none by time); at most a year"),
    "candidate_chunk": Range(1, 1 << 20, why="a chunk holds at least one candidate, and a "
                                             "step holds a batch x chunk matrix of scores"),
    "threads": Range(0, 1024, why="0 means torch's default; no machine this runs on has more "
                                  "than 1,024 cores"),
}


@dataclass(frozen=True)
class TrainSettings:
    """Section 4.4's settings, and ours. `learning_rate` 0 means the optimiser's own default
    (1.0 for Adadelta, 0.001 for Adam). `checkpoint_every` counts steps; epoch ends checkpoint
    too unless the epoch took under ten checkpoints' time (0: only at the end; trainer.py's
    EPOCH_CHECKPOINT_RATIO), and so does every `checkpoint_minutes` of training (an epoch of a
    large collection takes hours).
    `epochs` is 5, from the DPDK dev topics (benchmarks/epochs_dpdk.py): MAP rose from 0.41
    after one epoch (the paper's setting) to 0.51 after five, then stayed at 0.48-0.50 while the
    validation loss bottomed out at epoch 6 and rose from epoch 7. `retrain_on_all`: once the
    held-out documents have measured and calibrated the model trained without them, train it
    again on every document (evaluation/every_document.py; as long again). `cuda_graphs`: on one CUDA GPU
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
    checkpoint_minutes: float = 10.0
    candidate_chunk: int = 8192
    embeddings: str = ""
    threads: int = 0
    retrain_on_all: bool = True

    def __post_init__(self):
        problem = settings_problem(self)
        if problem:
            raise ValueError(problem)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TrainSettings:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def field_problem(name: str, value) -> str:
    """Why `value` cannot be setting `name` ('' when it can): its type, then its range."""
    default = _DEFAULTS[name]
    if isinstance(default, bool):
        return "" if isinstance(value, bool) else f"{_label(name)} must be true or false"
    if isinstance(default, int | float):
        whole = isinstance(default, int)
        kind = numbers.Integral if whole else numbers.Real
        if isinstance(value, bool) or not isinstance(value, kind):
            kind_text = "a whole number" if whole else "a number"
            return f"{_label(name)} must be {kind_text}, not {value!r}"
        if not math.isfinite(value):
            return f"{_label(name)} must be a finite number, not {value}"
        limits = RANGES.get(name)
        if limits is not None and value not in limits:
            below = limits.low is not None and value <= limits.low
            why = limits.why_low if below and limits.why_low else limits.why
            return f"{_label(name)} must be {limits.text()}, not {_number(value)}: {why}"
        return ""
    return "" if isinstance(value, str) else f"{_label(name)} must be text, not {value!r}"


def settings_problem(settings: TrainSettings) -> str:
    """The first reason the settings cannot train ('' when they can)."""
    for f in fields(settings):
        problem = field_problem(f.name, getattr(settings, f.name))
        if problem:
            return problem
    if settings.optimizer not in OPTIMIZERS:
        return f"optimizer must be one of {', '.join(OPTIMIZERS)}, not {settings.optimizer!r}"
    if not (settings.device in DEVICES or settings.device.startswith("cuda:")):
        return f"device must be one of {', '.join(DEVICES)} (or cuda:N), not {settings.device!r}"
    if settings.early_stopping and settings.validation_fraction == 0:
        return "early stopping needs a validation fraction above 0"
    return ""


# What `retrain_on_all` costs (benchmarks/every_document.py, docs/results/every-document.md):
# the second run repeats the first's epochs on 2% more documents.
RETRAIN_COST = ("on a shared two-core CPU, DPDK's 45,205 commits took 1-6 minutes more (the first "
                "run 7-13), the demo under a second; on a GPU, seconds")

# Settings that change how a run goes, not the model it makes.
HOW_IT_RUNS = ("device", "threads", "candidate_chunk", "checkpoint_every", "checkpoint_minutes",
               "cuda_graphs")


def differences_from_defaults(values) -> list[str]:
    """The settings in `values` (a model's settings dict) that differ from the paper's defaults,
    as the saved-models list names them: ["eps 0", "epochs 10", "overlapping"]."""
    return _named({f.name: values[f.name] for f in fields(TrainSettings)
                   if f.name not in HOW_IT_RUNS and f.name in values
                   and values[f.name] != f.default})


def describe_settings(settings: TrainSettings, names) -> str:
    """Settings `names` of `settings` in words: "batch size 32, epochs 77"."""
    return ", ".join(_named({n: getattr(settings, n) for n in names}))


def _named(values: dict) -> list[str]:
    out = []
    for f in fields(TrainSettings):
        if f.name not in values:
            continue
        value, name = values[f.name], _label(f.name)
        if isinstance(f.default, bool):
            out.append(name if value else f"no {name}")
        elif f.name == "embeddings":
            out.append(f"embeddings {str(value).replace(chr(92), '/').rsplit('/', 1)[-1]}")
        elif isinstance(value, float):
            out.append(f"{name} {value:g}")
        elif isinstance(value, int):
            out.append(f"{name} {value:,}")
        else:
            out.append(f"{name} {value}")
    return out


def _label(name: str) -> str:
    return name.replace("_", " ")


_DEFAULTS = {f.name: f.default for f in fields(TrainSettings)}


SUGGESTED_SETTINGS_FILE = "train_settings.json"
# A settings file names a few dozen numbers; one larger than this is not one (and is not read
# whole: someone else may have put a 10 GB file there).
MAX_SETTINGS_BYTES = 1 << 16
PAPER_DEFAULTS = "the paper's defaults (section 4.4)"


@dataclass(frozen=True)
class SuggestedSettings:
    """The settings to train a collection with: `base` with the collection's
    `train_settings.json` over it, when its folder has one (a small collection such as the demo
    trains well in seconds with smaller batches and more epochs), and, for what the file does not
    set, the batch size and epochs the collection's shape needs (shape.py: a few hundred titles
    make two steps an epoch at the paper's settings). `source` says where they come from,
    `values` what the file set, `reasons` why each setting the shape changed was changed, and
    `problem` what in the file was not used ('' when none)."""

    settings: TrainSettings
    source: str
    values: dict
    problem: str = ""
    reasons: dict = field(default_factory=dict)


def suggested_settings_path(source: str | Path) -> Path | None:
    """The collection's suggested training settings file, if its folder has one."""
    if not source:
        return None
    folder = Path(source)
    folder = folder if folder.is_dir() else folder.parent
    path = folder / SUGGESTED_SETTINGS_FILE
    return path if path.is_file() else None


def suggested_settings(source: str | Path, base: TrainSettings = TrainSettings(),
                       name: str = "", *, collection=None,
                       given: Iterable[str] = ()) -> SuggestedSettings:
    """`base` with the `train_settings.json` beside the collection at `source` over it, and,
    with the loaded `collection`, the batch size and epochs its shape needs for what neither the
    file nor `given` (settings the user set, such as command-line options) sets: what the app's
    training form shows and `expert-gui train` and `experiment` use. A file that cannot be read,
    is not a JSON object or holds an invalid value is not used, and `problem` says why; names
    the trainer does not have are left out, and `problem` names them."""
    found = _from_file(source, base, name)
    if collection is None:
        return found
    from expert_gui.core.train.shape import Shape, suggest

    shape = Shape.of(collection, found.settings.window, found.settings.overlapping)
    batch, epochs, reasons = suggest(shape, found.settings.batch_size, found.settings.epochs,
                                     {*found.values, *given})
    if not reasons:
        return found
    settings = replace(found.settings, batch_size=batch, epochs=epochs)
    changed = describe_settings(settings, reasons)
    source_text = (f"{found.source}, and for this collection's size ({changed})" if found.values
                   else f"suggested for this collection's size ({changed})")
    return replace(found, settings=settings, source=source_text, reasons=reasons)


def _from_file(source: str | Path, base: TrainSettings, name: str) -> SuggestedSettings:
    """`base` with the collection's train_settings.json over it (the whole of the suggestion
    before the collection is loaded)."""
    path = suggested_settings_path(source)
    if path is None:
        return SuggestedSettings(base, PAPER_DEFAULTS, {})
    try:
        data = read_regular(path, InputFileError, MAX_SETTINGS_BYTES + 1)
        if len(data) > MAX_SETTINGS_BYTES:
            raise ValueError(f"larger than {MAX_SETTINGS_BYTES // 1024} KiB, the most a "
                             "settings file holds; not read")
        values = schema.parse(data)
        if not isinstance(values, dict):
            raise ValueError("expected a JSON object of training settings")
        known = {f.name for f in fields(TrainSettings)}
        used = {k: v for k, v in values.items() if k in known}
        settings = replace(base, **used)
    except (InputFileError, ValueError, TypeError) as exc:
        why = exc.message if isinstance(exc, InputFileError) else exc
        return SuggestedSettings(base, PAPER_DEFAULTS, {}, f"ignored {path}: {why}")
    unknown = sorted(set(values) - known)
    problem = (f"{path} names settings the trainer does not have, left out: "
               f"{', '.join(unknown)}") if unknown else ""
    owner = f"{name}'s " if name else ""
    return SuggestedSettings(settings, f"suggested by {owner}{path.name}", used, problem)
