"""The one place that moves core work off the GUI thread.

Core functions (`load_collection`, `train`, `evaluate`, ...) take a `progress` callback and a
`should_stop` flag and know nothing of threads. A `Task` runs one of them in a QThread and turns
its progress events into a Qt signal, batched so the GUI thread handles at most ~20 batches a
second however fast the core reports. `TaskRunner` keeps one task per slot: a new load replaces
the old one (which is asked to stop), and a second training is refused while one runs.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal

log = logging.getLogger(__name__)

# Seconds between two progress batches sent to the GUI thread.
EMIT_INTERVAL_S = 0.05


class Task(QThread):
    """Runs `func(*args, progress=..., should_stop=..., [should_pause=...], **kwargs)` in a thread.

    The hooks are passed only to a function that takes them (`load_model(folder)` takes none).
    `func` may be named as "package.module:function": it is then imported in the thread, so the
    GUI thread never waits for a heavy import (torch, scikit-learn) to finish.

    Signals (delivered on the GUI thread): `progressed(list)` with the events since the last
    batch, then exactly one of `succeeded(result)` or `failed(exception, traceback_text)`.
    A task stopped through `stop()` still ends with `succeeded` or `failed`, whichever the core
    function did; `was_stopped` tells the receiver it was asked to stop.
    """

    progressed = Signal(list)
    succeeded = Signal(object)
    failed = Signal(object, str)

    def __init__(self, name: str, func: Callable[..., Any] | str, *args, pausable: bool = False,
                 parent: QObject | None = None, **kwargs):
        super().__init__(parent)
        self.name = name
        self._func = func
        self._args = args
        self._kwargs = kwargs
        self._pausable = pausable
        self._stop = threading.Event()
        self._pause = threading.Event()
        self._hold = threading.Event()
        self._lock = threading.Lock()
        self._pending: list = []
        self._last_emit = 0.0
        self.setObjectName(f"task-{name}")

    # -- control (GUI thread) -------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()
        self._pause.clear()
        self._hold.clear()

    @property
    def was_stopped(self) -> bool:
        return self._stop.is_set()

    def set_paused(self, paused: bool) -> None:
        if paused:
            self._pause.set()
        else:
            self._pause.clear()

    @property
    def paused(self) -> bool:
        return self._pause.is_set()

    def set_held(self, held: bool) -> None:
        """Make a pausable task wait as a pause would, for the app's own work rather than the
        user (a training's steps wait while a method for the open model finishes indexing, so
        that their rate, and the time left, is theirs)."""
        if held:
            self._hold.set()
        else:
            self._hold.clear()

    @property
    def held(self) -> bool:
        return self._hold.is_set()

    # -- the worker side ------------------------------------------------------------------------
    def _progress(self, event) -> None:
        with self._lock:
            self._pending.append(event)
        now = time.monotonic()
        if now - self._last_emit >= EMIT_INTERVAL_S:
            self._last_emit = now
            self._flush()

    def _flush(self) -> None:
        with self._lock:  # emitted under the lock: batches are queued in the order taken
            batch, self._pending = self._pending, []
            if batch:
                self.progressed.emit(batch)

    def flush_pending(self) -> None:
        """Send events the worker has held for a while (GUI thread): a core function that goes
        quiet after a burst (the last step, then a long calibration) must not leave the
        screen showing the burst's first event."""
        if self._pending and time.monotonic() - self._last_emit >= EMIT_INTERVAL_S:
            self._last_emit = time.monotonic()
            self._flush()

    def run(self) -> None:
        hooks = {"progress": self._progress, "should_stop": self._stop.is_set}
        if self._pausable:
            hooks["should_pause"] = lambda: self._pause.is_set() or self._hold.is_set()
        try:
            func = self._func
            if isinstance(func, str):
                module, _, name = func.partition(":")
                func = getattr(importlib.import_module(module), name)
            accepted = inspect.signature(func).parameters
            kwargs = dict(self._kwargs, **{k: v for k, v in hooks.items() if k in accepted})
            result = func(*self._args, **kwargs)
        except Exception as exc:  # every failure reaches the user as a dialog, never a crash
            self._flush()
            text = traceback.format_exc()
            log.error("task %s failed:\n%s", self.name, text)
            self.failed.emit(exc, text)
            return
        self._flush()
        self.succeeded.emit(result)


class TaskBusy(RuntimeError):
    """A task of an exclusive kind (training) is already running."""


class TaskRunner(QObject):
    """Starts tasks by slot. Exclusive slots refuse a second task; others replace the running one."""

    started = Signal(str)
    finished = Signal(str)

    EXCLUSIVE = frozenset({"training"})

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._tasks: dict[str, Task] = {}
        self._retired: set[Task] = set()
        self._callbacks: dict[Task, tuple] = {}
        self._closed = False
        self._flusher = QTimer(self)  # runs while tasks do
        self._flusher.setInterval(int(EMIT_INTERVAL_S * 1000))
        self._flusher.timeout.connect(self._flush_pending)

    def running(self, slot: str) -> Task | None:
        task = self._tasks.get(slot)
        return task if task is not None and task.isRunning() else None

    def unhandled(self, slot: str) -> Task | None:
        """The slot's task while its end is not handled yet: running, or ended with its result
        still queued for the GUI thread (a tiny collection loads before the next key press is
        read, and is not open yet)."""
        return self._tasks.get(slot)

    def any_running(self) -> bool:
        return any(t.isRunning() for t in self._tasks.values())

    def start(self, slot: str, func: Callable[..., Any] | str, *args,
              on_progress: Callable[[list], None] | None = None,
              on_success: Callable[[Any], None] | None = None,
              on_failure: Callable[[BaseException, str], None] | None = None,
              pausable: bool = False, **kwargs) -> Task:
        current = self.running(slot)
        if current is not None:
            if slot in self.EXCLUSIVE:
                raise TaskBusy(f"a {slot} task is already running")
            self._retire(current)
        task = Task(slot, func, *args, pausable=pausable, parent=self, **kwargs)
        self._callbacks[task] = (on_progress, on_success, on_failure)
        # Bound methods of this GUI-thread object: Qt queues the calls onto the GUI thread
        # (progress explicitly, as flush_pending emits it from the GUI thread: one queue, in
        # order).
        task.progressed.connect(self._on_progressed, Qt.ConnectionType.QueuedConnection)
        task.succeeded.connect(self._on_succeeded)
        task.failed.connect(self._on_failed)
        task.finished.connect(self._on_finished)
        self._tasks[slot] = task
        task.start()
        self._flusher.start()
        self.started.emit(slot)
        return task

    def _flush_pending(self) -> None:
        running = [t for t in self._tasks.values() if t.isRunning()]
        for task in running:
            task.flush_pending()
        if not running:
            self._flusher.stop()

    def stop(self, slot: str) -> None:
        task = self.running(slot)
        if task is not None:
            task.stop()

    def shut_down(self, wait_ms: int = 30_000, wait_for: tuple[str, ...] | None = None) -> bool:
        """Stop every task for good (the window is closing): results that arrive later reach no
        callback, so none can start new work while the application exits (a QThread destroyed
        while it runs aborts the process). `wait_for`: wait only for the tasks of these slots
        (those that write files), the rest being ended with the process."""
        self._closed = True
        return self.stop_all(wait_ms, wait_for)

    def stop_all(self, wait_ms: int = 30_000, wait_for: tuple[str, ...] | None = None) -> bool:
        """Ask every task to stop and wait for them (or for those of the slots `wait_for`);
        True when they ended in time."""
        tasks = [t for t in [*self._tasks.values(), *self._retired] if t.isRunning()]
        for t in tasks:
            t.stop()
        deadline = time.monotonic() + wait_ms / 1000
        ok = True
        for t in tasks:
            if wait_for is not None and t.name not in wait_for:
                continue
            left = max(0, int((deadline - time.monotonic()) * 1000))
            ok = t.wait(left) and ok
        return ok

    def _current_callbacks(self, index: int):
        """The callback of the sending task, or None when the task was replaced since."""
        task = self.sender()
        if self._closed or task is None or self._tasks.get(task.name) is not task:
            return None
        return self._callbacks.get(task, (None, None, None))[index]

    def _on_progressed(self, batch: list) -> None:
        if (cb := self._current_callbacks(0)) is not None:
            cb(batch)

    def _on_succeeded(self, result) -> None:
        if (cb := self._current_callbacks(1)) is not None:
            cb(result)

    def _on_failed(self, exc, text: str) -> None:
        if (cb := self._current_callbacks(2)) is not None:
            cb(exc, text)

    def _retire(self, task: Task) -> None:
        task.stop()
        self._retired.add(task)

    def _on_finished(self) -> None:
        task = self.sender()
        self._retired.discard(task)
        self._callbacks.pop(task, None)
        if self._tasks.get(task.name) is task:
            del self._tasks[task.name]
            self.finished.emit(task.name)
        task.deleteLater()
