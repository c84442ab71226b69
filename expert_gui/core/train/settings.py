"""The training settings, apart from the trainer so that reading them (the CLI's help, the GUI's
form) does not import torch."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

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
