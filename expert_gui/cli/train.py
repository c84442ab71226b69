"""`expert-gui train COLLECTION --out MODEL_DIR`: train the log-linear model, with a progress bar.

Ctrl-C once stops after the current step and writes a checkpoint (`--resume` continues it);
twice aborts at once. A sample of documents is held out of training and then used as queries:
their MAP and MRR say which method works best on the collection and calibrate `auto`.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
from dataclasses import replace

from expert_gui.cli import COMMANDS
from expert_gui.cli.stats import NUMBERS_HELP, add_collection_arguments, table_columns
from expert_gui.core.data.text import NUMBER_RULES, TextSettings
from expert_gui.core.train.settings import RETRAIN_COST

# Command-line option -> TrainSettings field, for the options that map one to one.
TRAIN_OPTIONS = {
    "window": int, "dim": int, "batch_size": int, "epochs": int, "l2": float,
    "learning_rate": float, "validation_fraction": float, "patience": int, "seed": int,
    "checkpoint_every": int, "checkpoint_minutes": float, "threads": int,
}


def register(sub):
    from expert_gui.core.evaluation.heldout import HeldOutSettings
    from expert_gui.core.train.settings import DEVICES, OPTIMIZERS, TrainSettings

    d = TrainSettings()
    p = sub.add_parser("train", help=COMMANDS["train"],
                       description="Train the log-linear expertise model (Van Gysel et al., "
                                   "WWW 2016) and write it to a model folder. The defaults are "
                                   "the paper's, or the collection's train_settings.json where "
                                   "its folder has one (as in the app); options given override "
                                   "them.")
    add_collection_arguments(p)
    p.add_argument("--out", required=True, metavar="MODEL_DIR",
                   help="folder for model.safetensors, manifest.json and checkpoint/")
    helps = {
        "window": f"n-gram size n (default {d.window})",
        "dim": f"embedding size e (default {d.dim}, or the --embeddings file's)",
        "batch_size": f"instances per step m (default {d.batch_size})",
        "epochs": f"passes over the instances (default {d.epochs}, chosen on DPDK's dev topics)",
        "l2": f"weight decay lambda (default {d.l2})",
        "learning_rate": "learning rate; 0: the optimiser's own default (1.0 for adadelta, "
                         f"0.001 for adam) (default {d.learning_rate:g})",
        "validation_fraction": f"share of instances held out (default {d.validation_fraction})",
        "patience": f"epochs without improvement before early stopping (default {d.patience})",
        "seed": f"random seed (default {d.seed})",
        "checkpoint_every": f"steps between checkpoints, also taken at epoch ends that took "
                            f"over ten checkpoints' time; 0: only at the end (default "
                            f"{d.checkpoint_every})",
        "checkpoint_minutes": f"also checkpoint after this many minutes of training since the "
                              f"last one; 0: never by time (default {d.checkpoint_minutes:g})",
        "threads": "CPU threads for torch (default: torch's choice)",
    }
    for name, kind in TRAIN_OPTIONS.items():
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=helps[name])
    p.add_argument("--optimizer", choices=OPTIMIZERS, default=None,
                   help=f"default {d.optimizer} (rho {d.rho}, eps {d.eps})")
    p.add_argument("--overlapping", action="store_true", default=None,
                   help="n-grams at every position (stride 1) instead of non-overlapping")
    p.add_argument("--early-stopping", action="store_true", default=None,
                   help="stop when the held-out documents' MAP (without held-out documents: the "
                        "validation loss) stops improving; keep the best epoch")
    p.add_argument("--held-out", type=held_out_fraction, default=HeldOutSettings().fraction,
                   metavar="FRACTION",
                   help="share of the documents with people held out of training and used as "
                        "queries, at least 50 and at most 1000 (default 0.02; 0: none, and 'auto' "
                        "is then the log-linear model and Model 2 (jm) with equal weights, "
                        "uncalibrated); --resume needs the same value")
    p.add_argument("--device", choices=DEVICES, default=None,
                   help="default auto: cuda, else mps, else cpu")
    p.add_argument("--mixed-precision", action="store_true", default=None,
                   help="float16 products (for GPUs)")
    p.add_argument("--cuda-graphs", action=argparse.BooleanOptionalAction, default=None,
                   help="on one CUDA GPU, replay each step from one captured CUDA graph "
                        "(default: on; it falls back to eager steps by itself where it cannot "
                        "be used)")
    p.add_argument("--retrain-on-all", action=argparse.BooleanOptionalAction, default=None,
                   help="once the held-out documents have measured the model and calibrated "
                        "auto, train it again on every document, the held-out ones included, "
                        "so that every method's answers use all of them (default: on). The "
                        f"second run takes about as long as the first: {RETRAIN_COST}")
    p.add_argument("--embeddings", metavar="FILE", default=None,
                   help="pretrained word vectors (word2vec binary/text or GloVe) for W_p")
    p.add_argument("--vocab-size", type=int, default=None,
                   help="vocabulary size including padding (default 65536)")
    p.add_argument("--min-count", type=int, default=None,
                   help="minimum occurrences for a word (default 1)")
    p.add_argument("--numbers", choices=NUMBER_RULES, default=None, help=NUMBERS_HELP)
    p.add_argument("--resume", action="store_true",
                   help="continue from MODEL_DIR/checkpoint with its settings")
    add_suggested_settings_argument(p)
    p.set_defaults(func=run)


def held_out_fraction(text: str) -> float:
    """--held-out, checked as the options are read (not after the collection has loaded)."""
    from expert_gui.core.evaluation.heldout import HeldOutSettings

    try:
        return HeldOutSettings(fraction=float(text)).fraction
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text} is not a share of the documents: it must be in [0, 1) (0: none held "
            "out)") from None


def add_suggested_settings_argument(p) -> None:
    p.add_argument("--no-suggested-settings", action="store_true",
                   help="start from the paper's defaults: ignore the collection's "
                        "train_settings.json and the batch size and epochs suggested for its "
                        "size (the app's training form applies both too)")


def suggested(args, collection, base=None, given=()):
    """The defaults this run starts from (a SuggestedSettings): the collection's
    train_settings.json over `base` (the paper's defaults), and the batch size and epochs its
    size needs for what neither the file nor the options `given` set, unless
    --no-suggested-settings."""
    from expert_gui.core.train.settings import PAPER_DEFAULTS, SuggestedSettings, TrainSettings
    from expert_gui.core.train.settings import suggested_settings as read

    base = TrainSettings() if base is None else base
    if args.no_suggested_settings:
        return SuggestedSettings(base, PAPER_DEFAULTS, {})
    return read(args.collection, base, collection=collection, given=given)


def say_suggested(found) -> None:
    """Which settings a run starts from, why each suggested one was, and any problem of the
    collection's file."""
    if found.problem:
        print(f"warning: {found.problem}", file=sys.stderr)
    given = ", ".join(f"{k} {v}" for k, v in found.values.items())
    print(f"settings: {found.source}" + (f" ({given})" if given else "") +
          ", then the options given here", file=sys.stderr)
    for name, why in found.reasons.items():
        print(f"  {name.replace('_', ' ')}: {why}", file=sys.stderr)


def _given(args) -> dict:
    """The training options given on the command line."""
    given = {k: getattr(args, k) for k in (*TRAIN_OPTIONS, "optimizer", "overlapping",
                                           "early_stopping", "device", "mixed_precision",
                                           "cuda_graphs", "embeddings", "retrain_on_all")}
    return {k: v for k, v in given.items() if v is not None}


def _text_settings(args) -> TextSettings:
    """The checkpoint's text settings when resuming, else the defaults; then the options."""
    from expert_gui.core.train.trainer import checkpoint_settings

    text = checkpoint_settings(args.out)[1] if args.resume else TextSettings()
    return replace(text, **{k: v for k, v in (("vocab_size", args.vocab_size),
                                              ("min_count", args.min_count),
                                              ("numbers", args.numbers)) if v is not None})


def _settings(args, collection):
    """TrainSettings: the checkpoint's when resuming, else the collection's suggested settings
    or the paper's defaults; then every option given on the command line. With the suggestion
    (None when resuming)."""
    from expert_gui.core.train.trainer import checkpoint_settings

    given = _given(args)
    found = None if args.resume else suggested(args, collection, given=given)
    train = checkpoint_settings(args.out)[0] if args.resume else found.settings
    return replace(train, **given), found


def run(args) -> int:
    from tqdm import tqdm

    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.errors import TrainingError
    from expert_gui.core.evaluation.calibration import (
        PhaseTimes,
        TrainingStage,
        UniformGuess,
        train_and_calibrate,
    )
    from expert_gui.core.evaluation.every_document import retrained, retrained_note
    from expert_gui.core.evaluation.heldout import HeldOutSettings, hold_out
    from expert_gui.core.evaluation.quality import (
        held_out_note,
        held_out_shortfall,
        held_out_warning,
        training_advice,
    )
    from expert_gui.core.store.storage import check_model_folder
    from expert_gui.core.train.embeddings import load_word_vectors
    from expert_gui.core.train.net import select_device
    from expert_gui.core.train.settings import TrainSettings

    try:  # options are checked before the collection loads: a bad value is told at once
        text = _text_settings(args)
        replace(TrainSettings(), **_given(args))
    except ValueError as exc:
        raise TrainingError(str(exc)) from exc
    check_model_folder(args.out)  # and so is a bad --out
    started = time.perf_counter()
    collection = load_collection(args.collection, format=args.format,
                                 associations=args.associations, people=args.people,
                                 settings=text, columns=table_columns(args),
                                 use_cache=not args.no_cache)
    loaded = time.perf_counter() - started
    try:
        settings, found = _settings(args, collection)
        split = hold_out(collection, HeldOutSettings(fraction=args.held_out, seed=settings.seed))
    except ValueError as exc:
        raise TrainingError(str(exc)) from exc
    if found is not None:
        say_suggested(found)
    print(f"{collection.name}: {collection.n_documents:,} documents, {collection.n_people:,} "
          f"people, {len(collection.vocab):,} words; {text.describe()}", file=sys.stderr)
    again = settings.retrain_on_all and len(split.documents)
    print(f"held out of training, as queries: {len(split.documents):,} documents"
          + ("; once they have measured the model, it is trained again on all "
             f"{collection.n_documents:,} (about as long again; --no-retrain-on-all: not)"
             if again else ""), file=sys.stderr)
    shortfall = held_out_shortfall(collection, len(split.documents), split.settings)
    if shortfall:
        print(f"note: {shortfall}", file=sys.stderr)
    vectors = None
    if settings.embeddings and not args.resume:
        vectors = load_word_vectors(settings.embeddings, split.training.vocab)
        print(f"embeddings: {vectors.summary()}", file=sys.stderr)
        if args.dim is None:
            settings = replace(settings, dim=vectors.dim)
    print(f"training on {select_device(settings.device)}: window {settings.window}, dim "
          f"{settings.dim}, batch {settings.batch_size}, {settings.epochs} epochs, "
          f"{settings.optimizer}", file=sys.stderr)

    stop = {"asked": False}

    def on_interrupt(signum, frame):
        if stop["asked"]:
            raise KeyboardInterrupt
        stop["asked"] = True
        print("\nstopping after this step (Ctrl-C again to abort)", file=sys.stderr)

    # tqdm's own rate and time left would time the host queueing steps; the trainer's come
    # from the steps the device has finished (TrainProgress)
    bar = tqdm(unit="step", dynamic_ncols=True, file=sys.stderr,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
    ran = {"on": ""}

    phases = PhaseTimes()

    def progress(event):
        phases(event)
        if isinstance(event, UniformGuess):
            return
        if isinstance(event, TrainingStage):  # after the steps: calibrating, saving
            # the bar counts what the stage counts (documents ranked, steps of the second
            # run), so that it is not full while minutes of work remain; else it stays full
            bar.total, bar.n = (event.total, event.done) if event.total else \
                (bar.total, bar.total or 0)
            bar.set_postfix_str(event.text, refresh=True)
            return
        ran["on"] = event.path
        bar.total = event.total_steps
        bar.n = event.step
        val = "-" if event.val_loss is None else f"{event.val_loss:.4g}"
        left = "" if not math.isfinite(event.eta_s) else \
            f", {tqdm.format_interval(event.eta_s)} left"
        bar.set_postfix_str(f"epoch {event.epoch}/{event.epochs} loss "
                            f"{event.train_loss:.4g} val {val} "
                            f"{event.instances_per_s:,.0f} inst/s{left}", refresh=False)
        bar.refresh()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        model = train_and_calibrate(split, settings, out_dir=args.out, progress=progress,
                                    should_stop=lambda: stop["asked"], resume=args.resume,
                                    word_vectors=vectors)
    finally:
        phases.end()
        signal.signal(signal.SIGINT, previous)
        bar.close()
    last = model.history[-1] if model.history else {}
    if stop["asked"]:
        print(f"stopped; checkpoint in {args.out}/checkpoint (continue with --resume)")
    val = last.get("val_loss")
    run = " of the measured run" if retrained(model) else ""
    uniform = UniformGuess(model.n_people).loss
    print(f"model written to {args.out}: epoch {last.get('epoch', 0)}{run}, weighted "
          f"cross-entropy per instance {last.get('train_loss', math.nan):.3f} (training), "
          f"{math.nan if val is None else val:.3f} (validation) nats; a uniform guess "
          f"scores log |C| = {uniform:.3f}")
    if val is not None and val >= uniform:
        print("warning: the validation loss is no better than a uniform guess over the people: "
              "the model has not learned to tell them apart on text it was not trained on",
              file=sys.stderr)
    if ran["on"]:
        print(f"the steps ran on {ran['on']}", file=sys.stderr)
    print(time_spent(loaded, phases.seconds, time.perf_counter() - started), file=sys.stderr)
    if model.calibration:
        print(held_out_summary(model.calibration, retrained_note(model)))
        quality = {"documents": len(model.calibration["held_out"]["documents"]),
                   "advice": training_advice(model, collection)}
        warning = held_out_warning(model.calibration["measures"], **quality)
        if warning:
            print(f"warning: {warning}", file=sys.stderr)
        note = held_out_note(model.calibration["measures"], **quality)
        if note:
            print(f"note: {note}", file=sys.stderr)
    return 0


def time_spent(load_s: float, phases: dict[str, float], wall_s: float) -> str:
    """Where the run's wall time went, and the share of it outside the training steps."""
    other = wall_s - load_s - sum(phases.values())  # holding out, instances, the network
    parts = [f"load {load_s:.1f} s", f"setting up {other:.1f} s"] + \
        [f"{name} {s:.1f} s" for name, s in phases.items()]
    outside = 1 - phases["steps"] / wall_s if wall_s > 0 else 0.0
    return (f"wall time {wall_s:.1f} s: " + ", ".join(parts)
            + f"; {outside:.0%} outside the steps")


def held_out_summary(calibration: dict, note: str = "") -> str:
    """The held-out documents' verdict: every method's MAP and MRR, and what auto ranks with."""
    from expert_gui.core.evaluation.tables import label
    from expert_gui.core.rankers.fusion import auto_label

    measures = calibration["measures"]
    n = len(calibration["held_out"]["documents"])
    lines = [f"on the {n:,} held-out documents as queries, the model measured being trained "
             "without them:"]
    for method, m in measures.items():
        lines.append(f"  {label(method):<26} MAP {m['AP']:.3f}  MRR {m['RR']:.3f}")
    lines.append(f"auto: {auto_label(calibration)}")
    if note:
        lines.append(note)
    return "\n".join(lines)
