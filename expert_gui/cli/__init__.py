"""`expert-gui`: with no sub-command it opens the GUI (on the collection a path names, if one does);
with one it runs the CLI on the same core.

Each sub-command lives in its own module here and exposes `register(subparsers)`. Only the
command being run is imported (and it imports its heavy libraries when it runs), so that
`expert-gui --help` and `expert-gui COMMAND --help` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from pathlib import Path

from expert_gui import __version__
from expert_gui.core.errors import ExpertGuiError

# Each sub-command and its line in `expert-gui --help` (its module, the command's name with
# "_" for "-", gives it the same line).
COMMANDS = {
    "stats": "the paper's Table 1 for a collection, and its load report",
    "train": "train the log-linear model on a collection",
    "query": "rank people for a free-text query",
    "neighbours": "nearest words in the model's word embeddings",
    "rank": "rank a topic file with one method and write a TREC run",
    "heldout": "which method works best here: MAP/MRR of every method on the documents held "
               "out of training",
    "experiment": "evaluate every method on topics with relevance judgments",
    "assign": "assign papers from outside to reviewers: K per paper, at most M per person, "
              "no conflict of interest",
    "profile": "a person's profile: words, topics, similar people",
    "export-embeddings": "write word and person embeddings for the TensorBoard Projector",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser, with `command`'s own options (the others are listed by name only)."""
    parser = _top_level_parser()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if name == command:
            importlib.import_module(f"expert_gui.cli.{name.replace('-', '_')}").register(sub)
        else:
            sub.add_parser(name, help=summary)
    return parser


def _top_level_parser(add_help: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="expert-gui", add_help=add_help,
        description="Who here knows most about a topic? Run without a command to open the app; "
                    "`expert-gui FOLDER` (or FILE) opens it on that collection.",
    )
    parser.add_argument("--version", action="version", version=f"expert-gui {__version__}")
    parser.add_argument("--screenshot", metavar="DIR",
                        help="open the app, save a PNG of every panel to DIR, and quit")
    parser.add_argument("--install-desktop-entry", action="store_true",
                        help="add the app to this Linux desktop's applications menu, and quit")
    return parser


def _first_word(argv: list[str]) -> str | None:
    """The first argument that is not an option: a sub-command, or a collection to open (found
    without building any command's parser)."""
    parser = _top_level_parser(add_help=False)
    parser.add_argument("command", nargs="?")
    known, _ = parser.parse_known_args(argv)
    return known.command


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _print_safely()
    first = _first_word(argv)
    opening = None  # `expert-gui FOLDER`: the app, on that collection
    if first is not None and first not in COMMANDS:
        opening = Path(first).expanduser()
        if not opening.exists():
            print(f"expert-gui: error: {first!r} is neither a command ({', '.join(COMMANDS)}) "
                  "nor a file or folder to open", file=sys.stderr)
            return 2
        argv = list(argv)
        argv.remove(first)
    args = build_parser(first if first in COMMANDS else None).parse_args(argv)
    if args.install_desktop_entry:
        return _install_desktop_entry()
    if args.command is None:
        from expert_gui.gui.app import run_gui

        return run_gui(screenshot_dir=args.screenshot, fast_exit=args.screenshot is None,
                       collection=opening)
    warnings = _warnings_to_stderr(args.command)
    try:
        return int(args.func(args) or 0)
    except ExpertGuiError as exc:
        hint = getattr(exc, "cli_hint", "")
        print(f"expert-gui {args.command}: error: {exc}" + (f" (or {hint})" if hint else ""),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"expert-gui {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        logging.getLogger("expert_gui").removeHandler(warnings)


def _warnings_to_stderr(command: str) -> logging.Handler:
    """The engine's warnings (a collection read without a cache, ...) as one line each on
    stderr, the way errors are printed."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter(f"expert-gui {command}: warning: %(message)s"))
    logging.getLogger("expert_gui").addHandler(handler)
    return handler


def _install_desktop_entry() -> int:
    from expert_gui.desktop_entry import install_desktop_entry

    try:
        written = install_desktop_entry()
    except OSError as exc:
        print(f"expert-gui: error: cannot install the desktop entry: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def _print_safely() -> None:
    """What the terminal cannot encode (a lone surrogate in an id, any character on a strict
    ASCII or UTF-8 stream) is printed as a backslash escape instead of ending the command."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
