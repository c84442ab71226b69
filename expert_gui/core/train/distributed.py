"""Training on several processes under `torchrun` (DistributedDataParallel).

Every process builds the same instances and the same initial model from the seed, takes every
`world_size`-th instance of each batch, and DDP all-reduces the gradients, so all processes step
identically and the result matches one process with the same batch. gloo on CPU, NCCL on CUDA.
Outside torchrun, `context()` is a single process and nothing here does anything.
"""

from __future__ import annotations

import atexit
import os
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class DistContext:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.world_size > 1


def context() -> DistContext:
    """This process's place in a torchrun launch (started here on first use)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistContext()
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
        atexit.register(_leave, dist)
    return DistContext(dist.get_rank(), dist.get_world_size(),
                       int(os.environ.get("LOCAL_RANK", "0")))


def _leave(dist) -> None:
    """Destroy the group while the interpreter is alive: gloo's threads left to the
    interpreter's teardown abort the process ("terminate called without an active exception",
    seen in CI as a failed torchrun)."""
    if dist.is_initialized():
        dist.destroy_process_group()


def device_for(ctx: DistContext, device: torch.device) -> torch.device:
    """Each process on a node gets its own GPU."""
    if ctx.active and device.type == "cuda":
        return torch.device("cuda", ctx.local_rank)
    return device


def wrap(net: torch.nn.Module, ctx: DistContext, device: torch.device) -> torch.nn.Module:
    if not ctx.active:
        return net
    from torch.nn.parallel import DistributedDataParallel

    ids = [device.index] if device.type == "cuda" else None
    return DistributedDataParallel(net, device_ids=ids)


def mean(value: torch.Tensor, ctx: DistContext) -> torch.Tensor:
    """The mean of a tensor over processes (the value itself in one process), left on
    the device: on NCCL the all-reduce is queued like any kernel, so the host does not wait."""
    if not ctx.active:
        return value
    import torch.distributed as dist

    value = value.double()
    dist.all_reduce(value)
    return value / ctx.world_size
