"""Shared test set-up: headless Qt, and user folders (settings, caches, models) in a temp dir."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def _user_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXPERT_GUI_HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def folder(fixtures, tmp_path):
    """A writable copy of the TSV fixture, so tests may touch its files (a module may have a
    `folder` of its own)."""
    src = fixtures / "collections/folder_tsv"
    dst = tmp_path / "folder"
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    return dst
