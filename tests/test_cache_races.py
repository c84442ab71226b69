"""Issue 43 item 7: loads of one collection at once, a cache moved aside by an earlier version,
and a load killed while reading: each load works, and nothing is left beside the caches."""

import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import expert_gui
from expert_gui.core.data import cache
from expert_gui.core.data.loading import collection_cache, load_collection
from expert_gui.core.paths import cache_dir

# The code under test, for the processes a test starts (the tree expert_gui was imported from).
REPO = Path(expert_gui.__file__).resolve().parent.parent


def left_beside(collection) -> list[str]:
    """What the caches' folder holds besides the cache of `collection`."""
    root = cache_dir() / "collections"
    return sorted(p for p in os.listdir(root) if p != collection.fingerprint)


def test_a_cache_moved_aside_by_an_earlier_version_is_removed(folder):
    first = load_collection(folder)
    cached = collection_cache(first.fingerprint)
    aside = cached.with_name(cached.name + ".old")  # what a racing load of before left
    aside.mkdir()
    (aside / "collection.json").write_text("{}", encoding="utf-8")
    (cached / "xxh3").write_text("0" * 32, encoding="ascii")  # damaged: must be rewritten
    again = load_collection(folder)
    assert again.doc_ids == first.doc_ids
    assert left_beside(again) == []


def test_a_load_that_finds_the_cache_written_meanwhile_keeps_it(folder, monkeypatch):
    """The lost race, made deterministic: another load's rename lands just before this one's."""
    real = os.replace
    raced = []

    def replace(src, dst):
        if not raced and Path(dst).parent.name == "collections":
            raced.append(dst)
            monkeypatch.setattr(os, "replace", real)
            load_collection(folder)  # the other load, whole, with the same files
            monkeypatch.setattr(os, "replace", replace)
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    collection = load_collection(folder)
    assert raced and collection.n_documents > 0
    assert left_beside(collection) == []


def _load(path: str, home: str, start, out) -> None:
    os.environ["EXPERT_GUI_HOME"] = home
    start.wait()
    try:
        out.put(load_collection(path).fingerprint)
    except BaseException as exc:  # the test says which
        out.put(f"{type(exc).__name__}: {exc}")


def test_two_processes_loading_at_once_both_load(folder):
    home = os.environ["EXPERT_GUI_HOME"]
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_load, args=(str(folder), home, start, out))
               for _ in range(2)]
    for w in workers:
        w.start()
    said = sorted(out.get() for _ in workers)
    for w in workers:
        w.join()
    collection = load_collection(folder)
    assert said == [collection.fingerprint] * 2
    assert left_beside(collection) == []


_KILLED_WHILE_READING = """
import os, sys, time
from expert_gui.core.data.loading import load_collection

def progress(event):
    print("reading", flush=True)
    time.sleep(600)  # killed here, its text spilled beside the caches

load_collection(sys.argv[1], progress=progress)
"""


def test_a_load_killed_while_reading_leaves_nothing_once_the_next_one_runs(folder):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WHILE_READING, str(folder)],
                             stdout=subprocess.PIPE, env=env, cwd=folder.parent)
    try:
        assert child.stdout.readline() == b"reading\n"
        root = cache_dir() / "collections"
        assert os.listdir(root)  # its text, spilled beside the caches
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
    collection = load_collection(folder)
    assert left_beside(collection) == []


def test_a_load_leaves_the_work_folder_of_a_running_one(tmp_path):
    with cache.work_folder(tmp_path, "f" * 24, "spill") as work:
        cache.remove_stale(tmp_path)
        assert work.is_dir()
    assert os.listdir(tmp_path) == []
