"""`expert-gui experiment`: the paper's evaluation of a collection in one command, with a
progress bar per stage."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys

from expert_gui.cli import COMMANDS
from expert_gui.cli.train import (
    add_suggested_settings_argument,
    held_out_fraction,
    say_suggested,
    suggested,
)
from expert_gui.core.data.text import NUMBER_RULES, TextSettings
from expert_gui.core.evaluation.heldout import HeldOutSettings
from expert_gui.core.rankers.names import METHODS
from expert_gui.core.train.settings import TrainSettings


def register(sub) -> None:
    p = sub.add_parser(
        "experiment", help=COMMANDS["experiment"],
        description="Train (or reuse --model) the log-linear model, rank every topic with every "
                    "method, and write run files, the paper's Tables 2 and 4 (Markdown, CSV, "
                    "LaTeX), per-topic measures, Figures 3-5 (and 2 with --sweep) as PNG and SVG, "
                    "and report.md to DIR.")
    p.add_argument("collection", metavar="COLLECTION", help="collection file or folder")
    p.add_argument("--topics", required=True, metavar="FILE", help="topics (TSV, SERT or TREC)")
    p.add_argument("--qrels", required=True, metavar="FILE", help="TREC relevance judgments")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the results")
    p.add_argument("--model", metavar="DIR", help="reuse this trained model instead of training")
    t = TrainSettings()
    p.add_argument("--epochs", type=int, help=f"training epochs ({t.epochs})")
    p.add_argument("--window", type=int, help=f"n-gram window ({t.window})")
    p.add_argument("--dim", type=int, help=f"embedding size ({t.dim})")
    p.add_argument("--batch-size", type=int, help=f"instances per batch ({t.batch_size})")
    p.add_argument("--overlapping", action="store_true", default=None,
                   help="overlapping n-grams (small corpora)")
    p.add_argument("--seed", type=int, default=0, help="seed of training and of the tests (0)")
    p.add_argument("--threads", type=int,
                   help="CPU threads for training (0: torch's default; 1 is faster on a busy machine)")
    add_suggested_settings_argument(p)
    p.add_argument("--candidates", metavar="FILE", default="",
                   help="rank only these people (a person id or name a line) and compute every "
                        "measure within them")
    p.add_argument("--numbers", choices=NUMBER_RULES, default=TextSettings().numbers,
                   help="which tokens are folded into the number token: 'numbers' (default: "
                        "integers and hex literals; mlx5, i40e stay words) or 'any-digit'")
    p.add_argument("--other-numbers", choices=NUMBER_RULES, default="",
                   help="also train with this numbers rule and add its Log-linear and Auto rows "
                        "to Table 2")
    p.add_argument("--held-out", type=held_out_fraction, default=HeldOutSettings().fraction,
                   metavar="FRACTION",
                   help="share of documents held out of training as queries (default 0.02, at "
                        "least 50, at most 1000)")
    p.add_argument("--exclude-topic-documents", action="store_true",
                   help="remove the documents whose text is a query (papers as queries) first")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated methods (default: all of {','.join(METHODS)})")
    p.add_argument("--depth", type=int, default=1000, help="people per ranking in the runs (1000)")
    p.add_argument("--permutations", type=int, default=10_000,
                   help="randomization-test permutations (10000)")
    p.add_argument("--sweep", action="store_true",
                   help="also train one model per window n = 1, 2, 4, 8, 16, 32 (Figure 2)")
    p.add_argument("--sweep-epochs", type=int, help="epochs of each sweep model (default: --epochs)")
    p.set_defaults(func=run)


def settings_from_args(args: argparse.Namespace):
    """The run's ExperimentSettings."""
    from expert_gui.core.evaluation.results import ExperimentSettings

    given = {"window": args.window, "dim": args.dim, "batch_size": args.batch_size,
             "epochs": args.epochs, "overlapping": args.overlapping, "threads": args.threads}
    given = {k: v for k, v in given.items() if v is not None}
    found = suggested(args, _collection_to_train(args), given=given)
    say_suggested(found)
    train = dataclasses.replace(found.settings, seed=args.seed, **given)
    return ExperimentSettings(candidates=args.candidates, suggested_settings=found.source,
        text=TextSettings(numbers=args.numbers), train=train,
        held_out=HeldOutSettings(fraction=args.held_out, seed=args.seed),
        exclude_topic_documents=args.exclude_topic_documents, other_numbers=args.other_numbers,
        methods=tuple(m.strip() for m in args.methods.split(",") if m.strip()),
        depth=args.depth, n_permutations=args.permutations, seed=args.seed,
        sweep_epochs=args.sweep_epochs)


def _collection_to_train(args: argparse.Namespace):
    """The collection the experiment trains on, whose size the suggested settings are made for
    (None with --model: nothing is trained). Loaded from the cache the experiment then reads."""
    if args.model or args.no_suggested_settings:
        return None
    from expert_gui.core.data.loading import load_collection

    return load_collection(args.collection, settings=TextSettings(numbers=args.numbers))


class _Bars:
    """One tqdm bar per stage, opened when the stage starts and closed when the next one does."""

    def __init__(self):
        self.stage = None
        self.bar = None

    def __call__(self, event) -> None:
        from tqdm import tqdm

        if event.stage != self.stage:
            self.close()
            self.stage = event.stage
            self.bar = tqdm(desc=f"{event.stage:<9}", total=None, unit="", leave=True,
                            bar_format="{desc} {percentage:3.0f}%|{bar}| {elapsed}{postfix}")
        if event.total:
            self.bar.total = event.total
            self.bar.n = event.done
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            if self.bar.total:
                self.bar.n = self.bar.total
            self.bar.close()
            self.bar = None


def run(args: argparse.Namespace) -> int:
    from expert_gui.core.evaluation.experiment import run_experiment

    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        print(f"expert-gui experiment: error: {exc}", file=sys.stderr)
        return 2
    bars = _Bars()
    stop = _StopOnInterrupt()
    try:
        result = run_experiment(args.collection, args.topics, args.qrels, args.out,
                                settings=settings, model_path=args.model, sweep=args.sweep,
                                progress=bars, should_stop=stop)
    finally:
        stop.restore()
        bars.close()
    if not result.completed:
        print("expert-gui experiment: stopped; the report holds what was finished",
              file=sys.stderr)
    print(f"report: {result.out_dir / 'report.md'}")
    return 0 if result.completed else 130


class _StopOnInterrupt:
    """The first Ctrl-C asks the experiment to stop at its next check (the report of what was
    finished is still written); a second one interrupts at once."""

    def __init__(self):
        self.requested = False
        self._previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping after the current step (Ctrl-C again to abort)", file=sys.stderr)

    def __call__(self) -> bool:
        return self.requested

    def restore(self) -> None:
        signal.signal(signal.SIGINT, self._previous)
