"""Values derived once from an object (a collection's documents x words counts, a collection
without some documents, a ranker over a collection and a model) and shared by whoever asks, for
as long as the object lives.

At a million documents every prepared method holding its own documents x words counts and
postings took the app to 9.0 GB; derived once per collection, they are held once. Each value is
built under its own lock, so two threads asking at once (the app prepares the methods in one
worker while another builds the one chosen) build it once and both get it. Whoever shares a
value reads it and never changes it.

A value must not refer to its owner, which it would keep alive for ever. `weak=True` keeps a
value only while someone else holds it: for a value that refers to its owner (a ranker holds
its collection) or that should go with its last user (a collection without a model's held-out
documents, once the model is closed).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

_values: dict[int, dict[Hashable, _Slot]] = {}  # by id(owner), dropped when the owner goes
_lock = threading.Lock()


class _Slot:
    """One value of an owner, its lock, and how it is held."""

    def __init__(self):
        self.lock = threading.Lock()
        self.value = None
        self.ref = None

    def get(self):
        return self.value if self.ref is None else self.ref()


def derived(owner: object, key: Hashable, build: Callable[[], T], *, weak: bool = False) -> T:
    """`build()` the first time `owner` is asked for `key`, the same value after that (while
    it is held, for `weak`)."""
    with _lock:
        slots = _values.get(id(owner))
        if slots is None:
            slots = _values[id(owner)] = {}
            # Runs as the owner is freed, before another object can take its id.
            weakref.finalize(owner, _values.pop, id(owner), None)
        slot = slots.setdefault(key, _Slot())
    with slot.lock:
        value = slot.get()
        if value is None:
            value = build()
            if weak:
                slot.ref = weakref.ref(value)
            else:
                slot.value = value
        return value
