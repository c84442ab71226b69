"""What an experiment is asked (`ExperimentSettings`), reports while it runs
(`ExperimentProgress`) and found (`ExperimentResult`): shared by the experiment that fills them
and the report that writes them."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from expert_gui.core.data.text import TextSettings
from expert_gui.core.evaluation.analysis import APDifference, EntropyFit
from expert_gui.core.evaluation.heldout import HeldOutSettings
from expert_gui.core.evaluation.measures import PerTopic
from expert_gui.core.evaluation.pairwise import PairwiseError
from expert_gui.core.evaluation.sweeps import Curve
from expert_gui.core.evaluation.tables import Table
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.train.settings import TrainSettings

STAGES = ("load", "train", "rank", "heldout", "numbers", "analyse", "expansion", "sweep")
"""The stages in order, as `ExperimentProgress.stage` and the wall times name them."""


@dataclass(frozen=True)
class ExperimentProgress:
    """One step of one stage; `total` is 0 while a stage does not know its length."""

    stage: str
    done: float
    total: float
    detail: str = ""


@dataclass(frozen=True)
class ExperimentSettings:
    """Everything that decides the numbers; written to report.md and settings.json.

    depth: people kept per ranking in the run files (trec_eval's usual 1000).
    expansion_ks: the k of Figure 4 (Model 1 (jm) with each query word's k nearest W_p words).
    sweep_windows / sweep_epochs: Figure 2; sweep_epochs None trains as long as `train` says.
    held_out: the documents held out of training (as `expert-gui train` does).
    exclude_topic_documents: remove every document whose text is one of the queries before
    anything else (papers used as queries), so that a query does not find itself.
    other_numbers: also train with this numbers rule and add its log-linear and auto rows to
    Table 2 (the rule's effect, with significance).
    candidates: a file of the people to rank (ids or names, one a line); every measure is then
    computed within them, the topics none of whose relevant people is among them left out.
    suggested_settings: where `train` came from (the paper's defaults, or the collection's
    train_settings.json).
    """

    text: TextSettings = field(default_factory=TextSettings)
    train: TrainSettings = field(default_factory=TrainSettings)
    methods: tuple[str, ...] = METHODS
    depth: int = 1000
    n_permutations: int = 10_000
    seed: int = 0
    expansion_ks: tuple[int, ...] = (0, 1, 2, 4, 8, 16)
    sweep_windows: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
    sweep_epochs: int | None = None
    held_out: HeldOutSettings = field(default_factory=HeldOutSettings)
    exclude_topic_documents: bool = False
    other_numbers: str = ""
    candidates: str = ""
    suggested_settings: str = ""

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["text"] = self.text.to_dict()
        d["train"] = dataclasses.asdict(self.train)
        d["held_out"] = self.held_out.to_dict()
        return json.loads(json.dumps(d, default=str))


@dataclass
class ExperimentResult:
    """What was measured and where it went; `completed` is False when `should_stop` ended it."""

    out_dir: Path
    settings: ExperimentSettings
    n_topics: int = 0
    per_topic: dict[str, PerTopic] = field(default_factory=dict)
    held_out: dict[str, PerTopic] = field(default_factory=dict)
    excluded_documents: int = 0
    candidates: int = 0
    dropped_topics: list[str] = field(default_factory=list)
    coverage: str = ""
    auto: str = ""
    pairwise: dict[str, tuple[PairwiseError, PairwiseError]] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    entropy: EntropyFit | None = None
    difference: APDifference | None = None
    expansion: Curve = field(default_factory=dict)
    sweep: Curve = field(default_factory=dict)
    model_path: Path | None = None
    sources: dict[str, str] = field(default_factory=dict)
    wall_times: dict[str, float] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    completed: bool = False
