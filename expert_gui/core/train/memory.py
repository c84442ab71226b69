"""What a training run needs in memory, checked before it starts against what the machine has.

Settings within their ranges (settings.RANGES) may still be too large for a collection: 8,192
dimensions over 2^16 words take 8 GiB, a window of 1,024 words over a large collection tens of
GiB of instances. An allocation that fails midway ends in a traceback, or worse, in the kernel
killing the process after the whole machine has slowed, so the need is estimated from the
collection's sizes and refused, with the memory needed and free, before anything is allocated.
The estimate was above the peak measured (the growth of the process's VmHWM over `train`) in each
of six runs: the demo at dim 300, 1,024 and 2,048 and window 512, DPDK at dim 300 and at dim 1,024
with window 32 (measured 118-727 MiB, estimated 272-898 MiB).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from expert_gui.core.errors import TrainingError, byte_size
from expert_gui.core.train.settings import TrainSettings

# Bytes per instance while the instances are made (instances.make_instances): per word of the
# window an int64 position, its in-document flag, the int32 id and the gathered copies (25); per
# instance its document, weight, start and counts in int64 and float64 (64).
_PER_WINDOW_WORD = 25
_PER_INSTANCE = 64
# Bytes per parameter: float32 weights, their gradients and the optimiser's two averages
# (Adadelta's E[g^2] and E[dx^2], Adam's moments), and the float64 draws of the initialisation.
_PER_PARAMETER = 20
# Bytes per score of a step's batch x candidate-chunk matrix: the scores, their exponentials and
# the backward pass's softmax, float32 each.
_PER_SCORE = 12
# Bytes per word of a step's windows and dimension: the window sum's backward pass repeats each
# window's gradient for each of its words (net.WindowSum), float32.
_PER_WINDOW_DIMENSION = 4
# What torch holds besides (its allocator's arenas, the autograd graph, thread workspaces): the
# peaks measured were 58-162 MiB above the sum of the parts.
_OVERHEAD = 256 << 20


@dataclass(frozen=True)
class MemoryNeed:
    """A run's peak memory in bytes, by what holds it."""

    instances: int
    parameters: int
    step: int

    @property
    def total(self) -> int:
        return self.instances + self.parameters + self.step + _OVERHEAD

    def describe(self) -> str:
        return (f"about {byte_size(self.total)} (instances {byte_size(self.instances)}, "
                f"parameters with their gradients and the optimiser's averages "
                f"{byte_size(self.parameters)}, one step {byte_size(self.step)}, torch's own "
                f"{byte_size(_OVERHEAD)})")


def memory_needed(n_words: int, n_people: int, n_instances: int,
                  settings: TrainSettings) -> MemoryNeed:
    """The peak memory of training `n_instances` windows over |V| = `n_words` and |C| =
    `n_people` with `settings`."""
    parameters = ((n_words + n_people) * settings.dim + n_people) * _PER_PARAMETER
    instances = n_instances * (settings.window * _PER_WINDOW_WORD + _PER_INSTANCE)
    batch = min(settings.batch_size, max(n_instances, 1))
    step = batch * (min(settings.candidate_chunk, max(n_people, 1)) * _PER_SCORE
                    + settings.window * settings.dim * _PER_WINDOW_DIMENSION)
    return MemoryNeed(instances, parameters, step)


def available_memory() -> int | None:
    """Bytes this process may still allocate: what the system has available (Linux's
    MemAvailable), within the process's own address-space limit (`ulimit -v`, `prlimit --as`);
    None where the platform does not say (then nothing is checked)."""
    free = _meminfo_available()
    limit = _address_space_left()
    known = [x for x in (free, limit) if x is not None]
    return min(known) if known else None


def check_memory(n_words: int, n_people: int, n_instances: int, settings: TrainSettings,
                 available: int | None = None, device_free: int | None = None) -> MemoryNeed:
    """Raise TrainingError when the run would need more memory than is `available` (by default
    `available_memory()`); the need otherwise. On a GPU (`device_free`: its free bytes) the
    instances and the parameters are made in the machine's memory, and all of it is held on
    the device."""
    need = memory_needed(n_words, n_people, n_instances, settings)
    free = available_memory() if available is None else available
    host = need.total if device_free is None else need.instances + need.parameters
    for what, needed, have in (("this machine", host, free), ("the GPU", need.total, device_free)):
        if have is not None and needed > have:
            raise TrainingError(
                f"training {n_instances:,} instances of {settings.window} words over "
                f"{n_words:,} words and {n_people:,} people with {settings.dim} dimensions needs "
                f"{need.describe()}; {what} has {byte_size(have)} free: lower the window, the "
                "dimensions, the batch size or the candidate chunk")
    return need


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _address_space_left() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        used = 0
    return max(soft - used, 0)
