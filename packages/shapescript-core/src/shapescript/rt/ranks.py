"""The processes training together, as the training built-ins see them.

``world_size()`` and ``rank()`` read the default ``torch.distributed`` process group
(``distributed.py`` starts it); the rest is what the built-ins share under a group of
more than one process: whether the run asks for sharded fields (``SHAPESCRIPT_FSDP``) or
for every rank's output (``SHAPESCRIPT_ALL_RANKS``), rank 0 telling the others how a step
went, setting every rank's tensors to rank 0's, and averaging gradients over the ranks
(DDP's arithmetic, ``docs/training.md``).

Only torch and the standard library are used, so ``shapescript.rt.standalone`` can
inline these helpers.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import TypeAlias

    from torch import Tensor

    _Grad: TypeAlias = "Tensor | None"  # a field's gradient, None where it has none

# Gradients travel in buckets of at most this many bytes, DDP's default (``bucket_cap_mb``).
_BUCKET_BYTES = 25 * 1024 * 1024


def _process_group() -> tuple[int, int] | None:
    """``(rank, world size)`` of the default ``torch.distributed`` process group when one
    of more than one process is started, else ``None``."""
    d = torch.distributed
    if not (d.is_available() and d.is_initialized()):
        return None
    world = d.get_world_size()
    return (d.get_rank(), world) if world > 1 else None


def world_size() -> int:
    """The number of processes training together: the default process group's size, 1
    when none is started (``torchrun``, ``shapescript run --nproc-per-node``)."""
    d = torch.distributed
    return d.get_world_size() if d.is_available() and d.is_initialized() else 1


def rank() -> int:
    """This process's rank in the default process group, from 0; 0 when none is started."""
    d = torch.distributed
    return d.get_rank() if d.is_available() and d.is_initialized() else 0


def _fsdp_wanted() -> bool:
    """Whether the run asks for sharded fields: ``SHAPESCRIPT_FSDP`` (``shapescript run
    --fsdp``) set, under a process group of more than one process."""
    return (os.environ.get("SHAPESCRIPT_FSDP", "") not in ("", "0")
            and _process_group() is not None)


def _all_ranks_output() -> bool:
    """Whether every rank reports (``shapescript run --all-ranks``), not rank 0 alone."""
    return os.environ.get("SHAPESCRIPT_ALL_RANKS", "") not in ("", "0")


def _rank0_flag(ok: bool | None, what: str) -> None:
    """Rank 0 tells the others whether ``what`` went well, ``ok`` (a broadcast, also the
    barrier they wait at; the others pass ``None``); a rank other than 0 raises when it
    didn't."""
    d = torch.distributed
    flag = torch.tensor([1 if ok else 0], dtype=torch.int32)
    if d.get_backend() == "nccl":
        flag = flag.to(torch.device("cuda", torch.cuda.current_device()))
    d.broadcast(flag, src=0)
    if not int(flag.item()):
        raise RuntimeError(f"rank 0 failed to {what}; its own error says why")


def _broadcast_from_rank0(tensors: Iterable[Tensor]) -> None:
    """Every rank's ``tensors`` set, in place, to rank 0's: one broadcast per dtype and
    device (a collective costs far more than the copies in and out of one buffer)."""
    d = torch.distributed
    groups = {}
    for t in tensors:
        groups.setdefault((t.dtype, t.device), []).append(t)
    with torch.no_grad():
        for same in groups.values():
            buf = torch.cat([t.detach().reshape(-1) for t in same])
            d.broadcast(buf, src=0)
            for t, part in zip(same, torch.split(buf, [t.numel() for t in same])):
                t.detach().copy_(part.view(t.shape))


def _average(value: Tensor, wrt: Sequence[Tensor], grads: Sequence[_Grad], world: int) -> tuple[Tensor, list[_Grad]]:
    """``value`` and ``grads`` (``None`` where a field has none) averaged over the ranks:
    one all-reduce (a sum, then ``/ world``) per bucket of at most ``_BUCKET_BYTES`` of
    one dtype and device. A field has a gradient afterwards when some rank had one (zeros
    stand in for the others')."""
    d = torch.distributed
    flat = [torch.zeros_like(p) if g is None else g for p, g in zip(wrt, grads)]
    # The value and one "has a gradient" flag per field ride along in a bucket of their
    # dtype and device, so a step costs no extra collective.
    extra = torch.tensor([0.0] + [0.0 if g is None else 1.0 for g in grads],
                         device=value.device)
    extra[:1].copy_(value.detach().reshape(1))
    buckets = []                          # [(dtype, device), [tensor, …], bytes]
    for t in flat + [extra]:
        size = t.numel() * t.element_size()
        key = (t.dtype, t.device)
        b = next((b for b in reversed(buckets) if b[0] == key), None)
        if b is None or (b[2] + size > _BUCKET_BYTES and b[1]):
            b = [key, [], 0]
            buckets.append(b)
        b[1].append(t)
        b[2] += size
    sends = [torch.cat([t.reshape(-1) for t in b[1]]) for b in buckets]
    if len(sends) == 1:
        d.all_reduce(sends[0])
    else:
        for w in [d.all_reduce(t, async_op=True) for t in sends]:
            w.wait()
    means = {}
    for b, t in zip(buckets, sends):
        t.div_(world)
        for src, part in zip(b[1], torch.split(t, [x.numel() for x in b[1]])):
            means[id(src)] = part.view(src.shape)
    got = means[id(extra)]
    has = got[1:].tolist()
    out = [means[id(t)] if h > 0 else None for t, h in zip(flat, has)]
    return got[0].to(value.dtype), out
