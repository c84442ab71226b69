"""The user's folders (EXPERT_GUI_HOME) read-only, a file, or full (issue 24 items 8 and 9):
every command says so and goes on without a cache where it does not need one, and a full disk
where a load keeps its text ends it with the path and the space needed, never a traceback."""

import errno
import os
import shutil
import subprocess

import pytest
from fixtures.training import FOLDER

from expert_gui.cli import main
from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.paths import cache_dir, config_dir, log_dir, models_dir

FAST = ["--dim", "8", "--batch-size", "64", "--epochs", "1"]


def test_a_home_that_is_a_file_gives_its_folders_and_says_why(tmp_path, monkeypatch):
    from expert_gui.core.paths import unwritable

    (tmp_path / "home").write_text("not a folder")
    monkeypatch.setenv("EXPERT_GUI_HOME", str(tmp_path / "home"))
    for folder in (cache_dir(), config_dir(), log_dir(), models_dir()):
        assert folder.is_relative_to(tmp_path / "home")
        assert unwritable(folder) == f"{tmp_path / 'home'} is a file, not a folder"


@pytest.mark.parametrize("command", ["stats", "train", "query"])
def test_every_command_goes_on_without_a_cache_when_home_is_a_file(tmp_path, monkeypatch,
                                                                    capsys, command):
    model = tmp_path / "model"
    if command == "query":
        assert main(["train", str(FOLDER), "--out", str(model), *FAST]) == 0
    (tmp_path / "home").write_text("not a folder")
    monkeypatch.setenv("EXPERT_GUI_HOME", str(tmp_path / "home"))
    capsys.readouterr()
    args = {"stats": ["stats", str(FOLDER)],
            "train": ["train", str(FOLDER), "--out", str(tmp_path / "m2"), *FAST],
            "query": ["query", str(model), "ring queue", "--method", "model2-jm"]}[command]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (f"expert-gui {command}: warning: {tmp_path / 'home' / 'cache' / 'collections'}: "
            f"{tmp_path / 'home'} is a file, not a folder; the collection is read without a "
            "cache") in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_home_is_read_without_a_cache(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o500)
    monkeypatch.setenv("EXPERT_GUI_HOME", str(home))
    try:
        assert main(["stats", str(FOLDER)]) == 0
    finally:
        os.chmod(home, 0o700)
    assert "permission denied; the collection is read without a cache" in capsys.readouterr().err


def mount_tmpfs(folder, options):
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
            capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")


def test_a_real_read_only_home(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    mount_tmpfs(home, "ro,size=64k")
    monkeypatch.setenv("EXPERT_GUI_HOME", str(home))
    try:
        assert main(["stats", str(FOLDER)]) == 0
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)
    assert "read-only file system; the collection is read without a cache" in \
        capsys.readouterr().err


class _FullDisk:
    """The spill file of a load on a full disk: every write fails as the kernel's would."""

    def __init__(self, real):
        self.real = real

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def close(self):
        self.real.close()


def test_a_full_home_ends_a_load_with_the_space_needed(monkeypatch, capsys):
    real = CollectionBuilder.__init__

    def on_a_full_disk(self, *args, **kwargs):
        real(self, *args, **kwargs)
        if self._text_out is not None:
            self._text_out = _FullDisk(self._text_out)

    monkeypatch.setattr(CollectionBuilder, "__init__", on_a_full_disk)
    assert main(["stats", str(FOLDER)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"expert-gui stats: error: {cache_dir() / 'collections'}: no space left on the device (")
    assert "KiB needed" in err and "the collection's text is kept there while it loads" in err
    assert list((cache_dir() / "collections").iterdir()) == []


def test_a_real_full_home(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    mount_tmpfs(home, "size=256k")
    collection = tmp_path / "big"
    collection.mkdir()
    with open(collection / "documents.tsv", "w", encoding="utf-8") as f:
        f.write("doc_id\ttext\n")
        for i in range(20_000):
            f.write(f"d{i}\tring buffers and lockless queues, note {i}\n")
    (collection / "associations.tsv").write_text("d1\ta\n", encoding="utf-8")
    monkeypatch.setenv("EXPERT_GUI_HOME", str(home))
    try:
        assert main(["stats", str(collection)]) == 2
        err = capsys.readouterr().err
        free = shutil.disk_usage(home).free
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)
    assert "no space left on the device (" in err and "needed" in err and "Traceback" not in err
    assert free > 200_000  # what the load wrote is gone
