"""`expert-gui`: with no sub-command it opens the GUI; with one it runs the CLI on the same core.

Each sub-command lives in its own module here and exposes `register(subparsers)`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from expert_gui import __version__
from expert_gui.core.errors import ExpertGuiError

COMMANDS = ("stats", "train", "query", "neighbours", "rank", "heldout", "experiment", "profile",
            "export_embeddings")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="expert-gui",
        description="Who here knows most about a topic? Run without a command to open the app.",
    )
    parser.add_argument("--version", action="version", version=f"expert-gui {__version__}")
    parser.add_argument("--screenshot", metavar="DIR",
                        help="open the app, save a PNG of every panel to DIR, and quit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"expert_gui.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _print_safely()
    args = build_parser().parse_args(argv)
    if args.command is None:
        from expert_gui.gui.app import run_gui

        return run_gui(screenshot_dir=args.screenshot)
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


def _print_safely() -> None:
    """What the terminal cannot encode (a lone surrogate in an id, any character on a strict
    ASCII or UTF-8 stream) is printed as a backslash escape instead of ending the command."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
