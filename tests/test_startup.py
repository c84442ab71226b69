"""Fast start and the desktop entry: `expert-gui --help` and `COMMAND --help` import none of the
heavy libraries, each command imports what it needs when it runs, the window's module imports
no torch, the desktop entry installs, and a wheel carries the app's files."""

import configparser
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from expert_gui.cli import COMMANDS, main
from expert_gui.desktop_entry import DESKTOP_FILE

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "sklearn", "matplotlib", "scipy.stats", "ir_measures", "PySide6")


def imported_after(code: str) -> set[str]:
    """The heavy modules a fresh interpreter holds after running `code`."""
    probe = (f"import json, sys\n{code}\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [[]] + [[c] for c in COMMANDS])
def test_help_imports_no_heavy_library(argv):
    code = ("from expert_gui.cli import main\n"
            "try:\n"
            f"    main({argv + ['--help']!r})\n"
            "except SystemExit:\n"
            "    pass")
    assert imported_after(code) == set()


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name, summary in COMMANDS.items():
        assert name in out and summary[:30] in out


def test_the_main_window_module_imports_no_torch_nor_scikit_learn():
    held = imported_after("import expert_gui.gui.main_window")
    assert not held & {"torch", "sklearn", "matplotlib", "scipy.stats"}


def test_desktop_entry_installs_entry_and_icons(tmp_path, monkeypatch):
    if not sys.platform.startswith("linux"):
        pytest.skip("desktop entries are a Linux thing")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["--install-desktop-entry"]) == 0
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(tmp_path / "applications" / DESKTOP_FILE, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Name"] == "Expertise Explorer"
    assert section["Icon"] == "expert-gui"
    assert "expert-gui" in section["Exec"] or "expert_gui" in section["Exec"]
    icons = tmp_path / "icons" / "hicolor"
    assert (icons / "scalable" / "apps" / "expert-gui.svg").is_file()
    assert (icons / "48x48" / "apps" / "expert-gui.png").is_file()


@pytest.mark.slow
def test_a_wheel_carries_the_demo_the_icons_and_the_formats_guide(tmp_path):
    source = tmp_path / "source"  # a copy, so the build leaves nothing in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".*", "build", "*.egg-info", "__pycache__", "tests", "benchmarks", "results",
        "screenshots"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(source)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "expert_gui/resources/demo/documents.tsv" in names
    assert "expert_gui/resources/icons/expert-gui.svg" in names
    assert "expert_gui/resources/icons/expert-gui-256.png" in names
    assert "expert_gui/docs/collection-formats.md" in names
    assert "expert_gui/gui/about.py" in names


def test_the_desktop_entry_quotes_a_path_with_spaces_as_the_spec_says(tmp_path, monkeypatch):
    from expert_gui import desktop_entry

    bin_dir = tmp_path / "my apps" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "expert-gui").write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    exec_line = next(line for line in desktop_entry.desktop_entry_text().splitlines()
                     if line.startswith("Exec="))
    assert exec_line == f'Exec="{bin_dir / "expert-gui"}" %f'  # %f: a file dropped on it
