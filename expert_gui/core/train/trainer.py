"""The trainer of section 3.2: Eq. 3 minimised with Adadelta (or Adam) over n-gram instances,
with checkpoints, resume, early stopping, pause and stop (the network and its loss: net.py; one
step on the device: step.py).

Randomness is a pure function of the seed (initialisation) and of (seed, epoch) (the shuffle), so
a checkpoint need only hold the parameters, the optimiser state and the position in the epoch
for a resumed run to reproduce an uninterrupted one.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import TextSettings
from expert_gui.core.errors import ModelFileError, TrainingError
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.store.outputs import locked
from expert_gui.core.store.storage import (
    CHECKPOINT_DIR,
    CHECKPOINT_STATE,
    claim_model_folder,
    latest_checkpoint,
    save_checkpoint,
    save_model,
)
from expert_gui.core.train import distributed
from expert_gui.core.train.instances import count_instances, make_instances, mean_weight
from expert_gui.core.train.memory import check_memory
from expert_gui.core.train.net import (
    LogLinearNet,
    device_memory_bytes,
    initial_parameters,
    make_optimizer,
    select_device,
)
from expert_gui.core.train.settings import TrainSettings
from expert_gui.core.train.step import DeviceInstances, make_stepper

# Seconds between two reads of the loss, by device type: a read waits for every queued step,
# so an accelerator is read about ten times a second; on the CPU a read costs nothing, so it
# happens after every step (and a CPU run reports every step's loss, as it always did).
READ_EVERY_S = {"cpu": 0.0, "cuda": 0.1, "mps": 0.1}
# Under torchrun every process must read at the same steps: every this many, off the CPU.
READ_EVERY_STEPS = 50
# An epoch's end checkpoints unless the training since the last checkpoint took less than this
# many times as long as writing that checkpoint did: on an H200 DPDK's epochs take 0.15 s and
# each of their checkpoints 0.3-0.45 s (docs/results/gpu.md), so checkpointing every one of them
# nearly tripled the steps' time to protect less work than it cost; on a two-core CPU an epoch
# of DPDK takes about 25 s, and every one still checkpoints.
EPOCH_CHECKPOINT_RATIO = 10


@dataclass
class TrainProgress:
    """One training step, as plain numbers (val_loss is None until the first validation).

    `train_loss` is the mean loss of the steps since the loss was last read from the device
    (every step on the CPU, about every 100 ms on a GPU: READ_EVERY_S; `loss_is_new` when that
    read was at this step), so that a GPU never waits for the host between two reads."""

    step: int
    total_steps: int
    epoch: int
    epochs: int
    train_loss: float
    val_loss: float | None
    instances_per_s: float
    eta_s: float
    device_memory_bytes: int
    loss_is_new: bool = True
    path: str = ""  # how the steps run: "CPU", "GPU (CUDA graph)", ... (Stepper.path)


# Optimiser options that follow the device rather than the run, so a checkpoint made on one
# device resumes on another.
_DEVICE_OPTIONS = ("capturable", "foreach", "fused")


def split_validation(n: int, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out instance indices; every instance is in exactly one of them."""
    n_val = min(max(int(round(n * fraction)), 1), n - 1) if fraction > 0 else 0
    order = np.random.default_rng([seed, 1]).permutation(n)
    return np.sort(order[n_val:]), np.sort(order[:n_val])


def epoch_order(train_idx: np.ndarray, seed: int, epoch: int) -> np.ndarray:
    """The shuffled instances of one epoch, a pure function of (seed, epoch)."""
    return train_idx[np.random.default_rng([seed, 2, epoch]).permutation(len(train_idx))]


# -- the loop -----------------------------------------------------------------------------------
ProgressFn = Callable[[TrainProgress], None]


def _holding_output_folder(train_fn):
    """Before any work: claim `out_dir` (created, or recognised as the program's own; a user's
    folder or an unwritable path is refused with OutputFolderError), and hold its lock for the
    whole run, so a second trainer on the same folder is refused instead of racing this one."""
    @functools.wraps(train_fn)
    def wrapper(collection, settings=TrainSettings(), *, out_dir=None, **kwargs):
        if out_dir is None or not distributed.context().is_main:
            return train_fn(collection, settings, out_dir=out_dir, **kwargs)
        folder = claim_model_folder(out_dir)
        with locked(folder, "training"):
            return train_fn(collection, settings, out_dir=folder, **kwargs)
    return wrapper


@_holding_output_folder
def train(collection: Collection, settings: TrainSettings = TrainSettings(), *,
          out_dir: str | Path | None = None, progress: ProgressFn | None = None,
          should_stop: Callable[[], bool] | None = None,
          should_pause: Callable[[], bool] | None = None, resume: bool = False,
          word_vectors=None,
          epoch_score: Callable[[dict[str, np.ndarray], int], float] | None = None,
          finish: Callable[[LogLinearModel], LogLinearModel] | None = None) -> LogLinearModel:
    """Train the log-linear model on a collection and return it (saved to out_dir when given).

    Checkpoints go to out_dir/checkpoint every `checkpoint_every` steps and at an epoch's end
    (neither when it is 0; an epoch's end not when it took a fraction of what a checkpoint does:
    EPOCH_CHECKPOINT_RATIO), after `checkpoint_minutes` of training since the last one (not
    under torchrun), when stopped, and at the end; `resume` continues from it.
    `word_vectors` (embeddings.load_word_vectors) may be passed when already loaded; otherwise
    settings.embeddings is read here. Under torchrun each process trains on its share of every
    batch (see distributed.py). `epoch_score`, given the parameters as numpy arrays and the
    epoch's number (from 1, counting the epochs before a resume) at the end of every epoch,
    returns a score to maximise (held-out MAP, evaluation/calibration.py); it is recorded in the
    history and, when given, early stopping watches it instead of the validation loss.
    `finish` completes a model that was not stopped (its calibration) and returns the model to
    save (it, or one trained again on more documents: evaluation/every_document.py).
    """
    if resume and out_dir is None:
        raise TrainingError("resuming needs the output folder that holds the checkpoint")
    if settings.threads:
        torch.set_num_threads(settings.threads)
    dist = distributed.context()
    device = distributed.device_for(dist, select_device(settings.device))
    check_memory(len(collection.vocab), collection.n_people,
                 count_instances(collection, settings.window, settings.overlapping), settings,
                 device_free=torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else None)
    instances = make_instances(collection, settings.window, settings.overlapping)
    if len(instances) == 0:
        raise TrainingError("the collection has no document with both words and people; "
                            "there is nothing to train on")
    train_idx, val_idx = split_validation(len(instances), settings.validation_fraction,
                                          settings.seed)
    if settings.embeddings and word_vectors is None and not resume:
        from expert_gui.core.train.embeddings import load_word_vectors

        word_vectors = load_word_vectors(settings.embeddings, collection.vocab)
    if word_vectors is not None and word_vectors.dim != settings.dim:
        raise TrainingError(f"the word vectors have {word_vectors.dim} dimensions but the model "
                            f"{settings.dim}; set the dimension to {word_vectors.dim}")
    # Mixed precision takes the products in float16: its 10-bit mantissa keeps the validation
    # loss within 1% of fp32 where bfloat16's 7 bits did not (scores and gradients here stay far
    # inside float16's range; the log-sum-exp itself is taken in fp32).
    compute_dtype = torch.float16 if settings.mixed_precision else None
    net = LogLinearNet(*initial_parameters(len(collection.vocab), collection.n_people, settings,
                                           word_vectors),
                       chunk=settings.candidate_chunk, compute_dtype=compute_dtype).to(device)
    optimizer = make_optimizer(net.parameters(), settings, device)
    run = _Run(steps_per_epoch=math.ceil(len(train_idx) / settings.batch_size))
    checkpoint = Path(out_dir) / CHECKPOINT_DIR if out_dir is not None else None
    if resume:
        _restore(Path(out_dir), net, optimizer, run, settings, collection)
    data = DeviceInstances(instances, device)
    stepper = make_stepper(distributed.wrap(net, dist, device), net, optimizer, data, settings,
                           dist)
    losses = _LossReads(stepper, checkpoint, dist, run, READ_EVERY_S.get(device.type, 0.1))
    total_steps = run.steps_per_epoch * settings.epochs
    meter = _Meter(run.step)
    saved_at = time.monotonic()  # of the last checkpoint, less the time spent paused since
    writing = None  # seconds the last checkpoint took (None: none yet)

    def save() -> None:
        nonlocal saved_at, writing
        if checkpoint is not None and dist.is_main:
            began = time.monotonic()
            _save_checkpoint(checkpoint, net, optimizer, run, settings, collection)
            writing = time.monotonic() - began
        saved_at = time.monotonic()

    def epoch_end_due() -> bool:
        # the first epoch's end always (that measures a checkpoint); later ones unless the
        # training since the last checkpoint took less than EPOCH_CHECKPOINT_RATIO times it
        return writing is None or time.monotonic() - saved_at >= EPOCH_CHECKPOINT_RATIO * writing

    stopped = False
    while run.epoch < settings.epochs and not stopped:
        plan = data.plan(epoch_order(train_idx, settings.seed, run.epoch), settings.batch_size,
                         dist)
        losses.start_epoch(run)
        meter.restart()  # the epoch's rate leaves out the measures after the last one
        while run.batch < run.steps_per_epoch:
            paused = _wait_while_paused(should_pause, should_stop)
            if paused is None:
                stopped = True
                break
            if paused:  # neither the speed nor the time to the next checkpoint counts a pause
                meter.restart()
                saved_at += paused
            n = stepper.step(plan, run.batch)
            run.step += 1
            run.batch += 1
            run.epoch_instances += n
            checkpoint_due = (settings.checkpoint_every
                              and run.step % settings.checkpoint_every == 0) or (
                settings.checkpoint_minutes and not dist.active
                and time.monotonic() - saved_at >= 60 * settings.checkpoint_minutes)
            meter.queued(n)
            if checkpoint_due or run.batch == run.steps_per_epoch or losses.due(run):
                losses.read(run)
                meter.finished()
            if checkpoint_due:
                save()
            if progress is not None and dist.is_main:
                progress(meter.event(run, total_steps, settings, losses.last, device,
                                     loss_is_new=losses.step == run.step, path=stepper.path))
        losses.read(run)  # when stopped: the steps since the last read
        if stopped:
            break
        _end_epoch(run, net, data, val_idx, settings, epoch_score)
        if progress is not None and dist.is_main:
            progress(meter.event(run, total_steps, settings, run.history[-1]["train_loss"],
                                 device, loss_is_new=False, path=stepper.path))
        if settings.early_stopping and run.bad_epochs >= settings.patience:
            break
        if settings.checkpoint_every and run.epoch < settings.epochs and epoch_end_due():
            save()  # a small collection may never reach checkpoint_every steps before a kill
    save()
    model = _to_model(net, run, settings, collection, word_vectors, stopped,
                      weight=mean_weight(collection, settings.window, settings.overlapping))
    if finish is not None and not stopped and dist.is_main:
        model = finish(model)
    if out_dir is not None and dist.is_main:
        save_model(model, out_dir)
    return model


@dataclass
class _Run:
    """Where a run is; all of it goes into the checkpoint."""

    steps_per_epoch: int
    epoch: int = 0
    batch: int = 0
    step: int = 0
    epoch_loss: float = 0.0
    epoch_instances: int = 0
    best_val: float = math.inf
    best_epoch: int = 0
    bad_epochs: int = 0
    history: list | None = None
    best: dict | None = None

    def __post_init__(self):
        self.history = [] if self.history is None else self.history

    def state(self) -> dict:
        keys = ("epoch", "batch", "step", "epoch_loss", "epoch_instances", "best_val",
                "best_epoch", "bad_epochs", "history")
        state = {k: getattr(self, k) for k in keys}
        if state["best_val"] == math.inf:  # no validation yet; JSON has no infinity
            state["best_val"] = None
        return state


class _LossReads:
    """Reads the loss that the steps sum on the device: after the first step, then every
    `every_s` seconds (every step when 0; every READ_EVERY_STEPS steps under torchrun), and
    before every checkpoint and epoch end. A non-finite loss is caught at the read after it,
    which names the steps since the last good read; the checkpoint on disk is then still the
    one before them."""

    def __init__(self, stepper, checkpoint: Path | None, dist, run: _Run, every_s: float):
        self.stepper, self.checkpoint, self.dist = stepper, checkpoint, dist
        self.every_s = every_s
        self.last = math.nan  # mean loss of the steps between the last two reads
        self.step = run.step  # the step of the last read (or of the checkpoint resumed)
        self.instances = run.epoch_instances  # the epoch's instances at the last read
        self.time: float | None = None  # when the last read was; None before the first

    def start_epoch(self, run: _Run) -> None:
        self.stepper.start_epoch(run.epoch_loss)
        self.instances = run.epoch_instances

    def due(self, run: _Run) -> bool:
        if self.time is None or self.every_s == 0:
            return True
        if self.dist.active:
            return run.step % READ_EVERY_STEPS == 0
        return time.perf_counter() - self.time >= self.every_s

    def read(self, run: _Run) -> None:
        if self.step == run.step:
            return
        total = self.stepper.read()
        if not math.isfinite(total):
            first = self.step + 1
            steps = f"step {run.step}" if first == run.step else f"steps {first}-{run.step}"
            kept = self.checkpoint is not None and (self.checkpoint / CHECKPOINT_STATE).exists()
            where = f" ({self.checkpoint} keeps the last good state)" if kept else ""
            raise TrainingError(
                f"the training loss became {total} in {steps} (epoch {run.epoch + 1}); "
                f"training stopped{where}. Try a lower learning rate.")
        if run.epoch_instances > self.instances:
            self.last = (total - run.epoch_loss) / (run.epoch_instances - self.instances)
        run.epoch_loss, self.instances = total, run.epoch_instances
        self.step, self.time = run.step, time.perf_counter()


@torch.no_grad()
def validation_loss(net: LogLinearNet, data: DeviceInstances, idx: np.ndarray,
                    batch_size: int = 4096) -> float | None:
    """Weighted mean cross-entropy of Eq. 3 (without the penalty) over held-out instances."""
    if len(idx) == 0:
        return None
    device_idx = torch.from_numpy(idx).to(data.device)
    n_targets = data.target_counts(idx, batch_size, distributed.DistContext())
    total = torch.zeros((), dtype=torch.float64, device=data.device)
    for b, start in enumerate(range(0, len(idx), batch_size)):
        batch = data.batch(device_idx[start:start + batch_size], int(n_targets[b]))
        total += net(*batch, 1).double()
    return float(total) / len(idx)


def _end_epoch(run: _Run, net, data: DeviceInstances, val_idx, settings,
               epoch_score=None) -> None:
    val = validation_loss(net, data, val_idx)
    entry = {"epoch": run.epoch + 1, "step": run.step,
             "train_loss": run.epoch_loss / max(run.epoch_instances, 1), "val_loss": val}
    criterion = val  # lower is better
    if epoch_score is not None:
        entry["held_out_map"] = epoch_score(
            {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}, entry["epoch"])
        criterion = -entry["held_out_map"]
    run.history.append(entry)
    run.epoch += 1
    run.batch = 0
    run.epoch_loss, run.epoch_instances = 0.0, 0
    if criterion is not None and criterion < run.best_val:
        run.best_val, run.best_epoch, run.bad_epochs = criterion, run.epoch, 0
        if settings.early_stopping:
            run.best = {k: v.detach().clone() for k, v in net.state_dict().items()}
    else:
        run.bad_epochs += 1


def _wait_while_paused(should_pause, should_stop) -> float | None:
    """Block while paused; None when the run should stop, else the seconds spent paused."""
    start = None
    while True:
        if should_stop is not None and should_stop():
            return None
        if should_pause is None or not should_pause():
            return 0.0 if start is None else time.monotonic() - start
        start = time.monotonic() if start is None else start
        time.sleep(0.1)


class _Meter:
    """Instances per second and the time left, from the steps the device has finished.

    A GPU runs the steps the host queues later; only a read of the loss waits for them (a
    point where the device is synchronised: READ_EVERY_S). So the rate is measured between
    such reads, over the last READS_KEPT of them, never from the host's queueing (which ran
    20 times faster than the device on an H200), and is right on a CPU, where every step is
    read, and on a GPU alike."""

    READS_KEPT = 50

    def __init__(self, step: int):
        self.start_step = step
        self.reads: list[tuple[float, int]] = []  # (time of a read, instances finished by it)
        self.seen = 0  # instances queued
        self.rate = 0.0

    def restart(self) -> None:
        """Measure from the next read (after a pause)."""
        self.reads = []

    def queued(self, n: int) -> None:
        self.seen += n

    def finished(self) -> None:
        """The device has finished every step queued so far (the loss was just read)."""
        self.reads = [*self.reads[-(self.READS_KEPT - 1):], (time.perf_counter(), self.seen)]
        (t0, s0), (t1, s1) = self.reads[0], self.reads[-1]
        if t1 > t0:
            self.rate = (s1 - s0) / (t1 - t0)

    def event(self, run: _Run, total_steps: int, settings, loss: float,
              device, loss_is_new: bool, path: str) -> TrainProgress:
        left = (total_steps - run.step) * settings.batch_size
        val = run.history[-1]["val_loss"] if run.history else None
        return TrainProgress(
            step=run.step, total_steps=total_steps, epoch=min(run.epoch + 1, settings.epochs),
            epochs=settings.epochs, train_loss=float(loss), val_loss=val,
            instances_per_s=self.rate, eta_s=left / self.rate if self.rate > 0 else math.inf,
            device_memory_bytes=device_memory_bytes(device), loss_is_new=loss_is_new, path=path)


# -- checkpoints and the result -----------------------------------------------------------------
def _save_checkpoint(folder: Path, net, optimizer, run: _Run, settings, collection) -> None:
    tensors = {f"param.{k}": v for k, v in net.state_dict().items()}
    if not all(bool(torch.isfinite(v).all()) for v in tensors.values()):
        raise TrainingError(f"the parameters became non-finite by step {run.step}; training "
                            f"stopped ({folder} keeps the last good state). Try a lower "
                            "learning rate.")
    opt = optimizer.state_dict()
    for i, state in opt["state"].items():
        for name, value in state.items():
            tensors[f"optim.{i}.{name}"] = torch.as_tensor(value)
    for k, v in (run.best or {}).items():
        tensors[f"best.{k}"] = v
    save_checkpoint(folder, tensors, {
        "settings": settings.to_dict(), "text_settings": collection.settings.to_dict(),
        "collection_fingerprint": collection.fingerprint, "collection_source": collection.source,
        "total_steps": run.steps_per_epoch * settings.epochs,
        "param_groups": opt["param_groups"], "run": run.state(),
    })


def checkpoint_settings(out_dir: str | Path) -> tuple[TrainSettings, TextSettings]:
    """The settings a checkpointed run was started with, so a resume can reuse them."""
    _, _, meta = _latest_checkpoint(Path(out_dir))
    return (TrainSettings.from_dict(meta["settings"]),
            TextSettings.from_dict(meta["text_settings"]))


def _latest_checkpoint(out_dir: Path) -> tuple[Path, dict, dict]:
    found = latest_checkpoint(out_dir)
    if found is None:
        raise TrainingError(f"there is no checkpoint to resume from in {out_dir}; train "
                            "without --resume to start afresh")
    return found


def _restore(out_dir: Path, net, optimizer, run: _Run, settings, collection) -> None:
    """Continue from the newest complete checkpoint of the model folder (storage.py's
    `latest_checkpoint`: a save cut short by a crash leaves one in every case)."""
    folder, tensors, meta = _latest_checkpoint(out_dir)
    saved = TrainSettings.from_dict(meta["settings"])
    exact = ("window", "dim", "batch_size", "l2", "optimizer", "learning_rate", "rho", "eps",
             "overlapping", "validation_fraction", "seed")
    changed = [k for k in exact if getattr(saved, k) != getattr(settings, k)]
    if changed:
        raise TrainingError(f"the checkpoint in {folder} was made with other settings "
                            f"({', '.join(changed)}); resume with the same ones")
    if meta["collection_fingerprint"] != collection.fingerprint:
        raise TrainingError(f"the checkpoint in {folder} was made from another collection")
    device = next(net.parameters()).device
    state: dict = {}
    for key, value in tensors.items():
        if key.startswith("optim."):
            _, i, name = key.split(".", 2)
            if not i.isdigit():
                raise ModelFileError(folder / "state.safetensors", None,
                                     f"unexpected tensor {key!r}")
            state.setdefault(int(i), {})[name] = value
    best = {k[5:]: v.to(device) for k, v in tensors.items() if k.startswith("best.")}
    try:
        net.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("param.")})
        _check_optimizer_state(state, net)
        groups = [{**saved, **{k: group[k] for k in _DEVICE_OPTIONS if k in group}}
                  for saved, group in zip(meta["param_groups"], optimizer.param_groups,
                                          strict=True)]
        optimizer.load_state_dict({"state": state, "param_groups": groups})
        if best:
            LogLinearNet(*(best[k] for k in ("word_embeddings", "candidate_weights",
                                              "candidate_bias"))).load_state_dict(best)
    except (RuntimeError, ValueError, KeyError, TypeError) as exc:
        raise ModelFileError(folder, None, f"the checkpoint does not fit this model: "
                                           f"{str(exc).splitlines()[0]}") from exc
    run.best = best or None
    for k, v in meta["run"].items():
        setattr(run, k, v)
    if run.best_val is None:
        run.best_val = math.inf
    if not 0 <= run.batch <= run.steps_per_epoch:
        raise ModelFileError(folder, None, f"the checkpoint is at batch {run.batch} of an epoch "
                                           f"of {run.steps_per_epoch}")


def _check_optimizer_state(state: dict, net) -> None:
    """Every optimiser tensor belongs to a parameter and has its shape (or is a scalar)."""
    params = list(net.parameters())
    for i, tensors in state.items():
        if i >= len(params):
            raise ValueError(f"optimizer state for parameter {i} of {len(params)}")
        for name, value in tensors.items():
            if value.dim() and value.shape != params[i].shape:
                raise ValueError(f"optimizer state {name} of parameter {i} has shape "
                                 f"{tuple(value.shape)}, not {tuple(params[i].shape)}")


def _to_model(net: LogLinearNet, run: _Run, settings, collection, word_vectors,
              stopped: bool = False, weight: float = 1.0) -> LogLinearModel:
    params = run.best if (settings.early_stopping and run.best) else net.state_dict()
    # `stopped`: the user stopped the run, so the model is partial (the app marks it so).
    # `weight`: the instances' mean weight |d_max| / |d|, by which the history's losses
    # are divided to read as cross-entropy per instance (evaluation/calibration.LossScale).
    extra = {"best_epoch": run.best_epoch, "steps": run.step,
             "total_steps": run.steps_per_epoch * settings.epochs, "stopped": stopped,
             "mean_weight": weight}
    if word_vectors is not None:
        extra["embeddings_coverage"] = word_vectors.coverage()
    return LogLinearModel(
        word_embeddings=params["word_embeddings"].detach().cpu().numpy().copy(),
        candidate_weights=params["candidate_weights"].detach().cpu().numpy().copy(),
        candidate_bias=params["candidate_bias"].detach().cpu().numpy().copy(),
        vocab=collection.vocab,
        text_settings=collection.settings,
        person_ids=list(collection.person_ids),
        person_names=list(collection.person_names),
        settings={**settings.to_dict(), **extra},
        collection_fingerprint=collection.fingerprint,
        collection_source=collection.source,
        history=list(run.history),
        collection_format=collection.report.format,
    )
