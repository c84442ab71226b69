"""The worker layer: results and errors arrive on the GUI thread, stop/pause reach the core."""

import threading
import time

import pytest
from PySide6.QtCore import QThread

from expert_gui.gui.workers import TaskBusy, TaskRunner

pytestmark = pytest.mark.gui


def _count(n, *, progress, should_stop, delay=0.0):
    done = 0
    for i in range(n):
        if should_stop():
            break
        progress(i)
        done += 1
        time.sleep(delay)
    return done


def test_result_and_every_progress_event_arrive_on_the_gui_thread(qtbot):
    runner = TaskRunner()
    got, seen, threads = [], [], []

    def on_progress(batch):
        threads.append(QThread.currentThread())
        seen.extend(batch)

    runner.start("load", _count, 500, on_progress=on_progress, on_success=got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [500]
    assert seen == list(range(500))  # batched, but none lost and in order
    assert len(threads) < 500  # batched: far fewer GUI-thread calls than events
    assert all(t is QThread.currentThread() for t in threads)


def test_failure_reports_the_exception_and_traceback(qtbot):
    runner = TaskRunner()
    failures = []

    def boom(*, progress, should_stop):
        raise ValueError("bad file")

    runner.start("load", boom, on_failure=lambda e, tb: failures.append((e, tb)))
    qtbot.waitUntil(lambda: bool(failures), timeout=5000)
    exc, tb = failures[0]
    assert isinstance(exc, ValueError) and "bad file" in tb


def test_stop_reaches_should_stop(qtbot):
    runner = TaskRunner()
    got = []
    task = runner.start("load", _count, 10_000, delay=0.001, on_success=got.append)
    qtbot.wait(30)
    task.stop()
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert 0 < got[0] < 10_000


def test_a_new_task_replaces_the_old_one_in_a_slot_and_only_the_new_reports(qtbot):
    runner = TaskRunner()
    got = []
    first = runner.start("load", _count, 10_000, delay=0.001, on_success=got.append)
    runner.start("load", _count, 3, on_success=got.append)
    assert first.was_stopped
    qtbot.waitUntil(lambda: bool(got) and not runner.any_running(), timeout=5000)
    assert got == [3]


def test_training_is_exclusive_and_pausable(qtbot):
    runner = TaskRunner()
    gate = threading.Event()
    pauses = []

    def train(*, progress, should_stop, should_pause):
        while not should_stop():
            pauses.append(should_pause())
            gate.set()
            time.sleep(0.002)
        return "model"

    got = []
    task = runner.start("training", train, pausable=True, on_success=got.append)
    with pytest.raises(TaskBusy):
        runner.start("training", train, pausable=True)
    assert gate.wait(5)
    task.set_paused(True)
    qtbot.waitUntil(lambda: bool(pauses) and pauses[-1], timeout=5000)
    task.set_paused(False)
    runner.stop("training")
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == ["model"] and True in pauses


def test_stop_all_waits_for_running_tasks(qtbot):
    runner = TaskRunner()
    runner.start("load", _count, 100_000, delay=0.001)
    assert runner.stop_all(wait_ms=5000)
    assert not runner.any_running()


def test_a_function_without_hooks_runs_too(qtbot):
    runner = TaskRunner()
    got = []
    runner.start("model", lambda x: x * 2, 21, on_success=got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [42]


def test_shut_down_waits_for_the_slots_named_and_stops_the_rest(qtbot):
    """As the window's close does: the work that writes files ends first; reading work in the
    middle of something it cannot interrupt is asked to stop, not waited for, and its result
    reaches nobody (test_soak.py quits while the people map is in its k-means)."""
    runner = TaskRunner()
    busy, release, got = threading.Event(), threading.Event(), []

    def reads(*, should_stop):
        busy.set()
        release.wait(30)
        return should_stop()

    reader = runner.start("people-map", reads, on_success=got.append)
    writer = runner.start("training", _count, 10**9, delay=0.001)
    assert busy.wait(5)
    assert runner.shut_down(wait_for=("training",))
    assert not writer.isRunning() and reader.isRunning() and reader.was_stopped
    release.set()
    qtbot.waitUntil(lambda: not runner.any_running(), timeout=5000)
    qtbot.wait(50)
    assert got == []
