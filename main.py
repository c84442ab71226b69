"""Launch the expertise explorer: `python main.py` opens the GUI, `python main.py CMD ...` runs the CLI."""

from expert_gui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
