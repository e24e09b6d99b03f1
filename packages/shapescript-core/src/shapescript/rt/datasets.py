"""Datasets: ``shuffle(data, seed=…)`` and ``batches(data, size=…)``.

Under a process group of more than one process, ``batches`` gives each rank its shard of
every batch, and ``shuffle`` without a seed uses rank 0's order.

Only torch and the standard library are used, so ``shapescript.rt.standalone`` can
inline these helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .ranks import _broadcast_from_rank0, _process_group

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import TypeAlias

    # What ``shuffle`` and ``batches`` take: a tensor, tensors sharing their first axis, a dataset.
    _Data: TypeAlias = "torch.Tensor | Iterable[torch.Tensor] | Dataset"


class Dataset:
    """Tensors sharing their first axis (``shuffle``'s result); ``single`` when it was
    one tensor rather than a tuple."""

    __slots__ = ("items", "single")

    def __init__(self, items: Iterable[torch.Tensor], single: bool = False) -> None:
        self.items, self.single = tuple(items), single

    def __len__(self) -> int:
        return int(self.items[0].shape[0])

    def __repr__(self) -> str:
        return f"<dataset of {len(self)}: " + ", ".join(str(tuple(t.shape)) for t in self.items) + ">"


def _dataset(data: _Data, what: str) -> Dataset:
    if isinstance(data, Dataset):
        return data
    single = isinstance(data, torch.Tensor)
    items = (data,) if single else tuple(data)
    if not items or not all(isinstance(t, torch.Tensor) and t.dim() >= 1 for t in items):
        raise TypeError(f"{what} needs a tensor or a tuple of tensors sharing their first axis")
    n = items[0].shape[0]
    for t in items[1:]:
        if t.shape[0] != n:
            raise ValueError(f"{what}: the tensors have different first axes: "
                             + ", ".join(str(int(t.shape[0])) for t in items))
    return Dataset(items, single)


def shuffle(data: _Data, seed: int | None = None) -> Dataset:
    """The dataset in a random order: one permutation of the first axis, applied to every
    tensor. ``seed`` (an int) makes it deterministic, drawn from a CPU
    ``torch.Generator(seed)``; without one, torch's default generator is used (rank 0's,
    under a process group: every rank gets its order)."""
    ds = _dataset(data, "shuffle")
    n = len(ds)
    if seed is None:
        perm = torch.randperm(n)
        if _process_group() is not None:
            if torch.distributed.get_backend() == "nccl":
                perm = perm.to(torch.device("cuda", torch.cuda.current_device()))
            _broadcast_from_rank0([perm])
            perm = perm.cpu()
    else:
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(int(seed)))
    return Dataset([t[perm.to(t.device)] for t in ds.items], ds.single)


class Batches:
    """``batches(data, size=…)``: consecutive slices of ``size`` along the first axis, the
    last one smaller when ``size`` doesn't divide the length; each a tuple of tensors (a
    tensor for a one-tensor dataset).

    Under a process group of ``w`` processes, rank ``r`` gets the ``r``-th of ``w`` equal
    consecutive shards of each of those batches, so the ranks together see the same
    global batches as one process. ``w`` must divide ``size`` and the last batch's length
    (``ValueError`` saying so, when ``batches`` is called)."""

    __slots__ = ("data", "size", "rank", "world")

    def __init__(self, data: _Data, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"batches: size must be an int ≥ 1, not {size!r}")
        self.data, self.size = _dataset(data, "batches"), size
        group = _process_group()
        self.rank, self.world = group if group is not None else (0, 1)
        w, last = self.world, len(self.data) % size
        if size % w:
            raise ValueError(f"batches: a batch of size={size} doesn't divide among {w} "
                             f"processes; each takes size / world_size() of every batch: "
                             f"make size a multiple of {w}, or run on a number of processes "
                             f"that divides {size}")
        if last % w:
            raise ValueError(f"batches: the last batch, {last} of the {len(self.data)} items "
                             f"after batches of {size}, doesn't divide among {w} processes: "
                             f"make the dataset's length a multiple of {w} "
                             f"(e.g. {len(self.data) - last % w} items), or size one that "
                             f"leaves a multiple of {w}")

    def __len__(self) -> int:
        return -(-len(self.data) // self.size)

    def __iter__(self) -> Iterator[torch.Tensor | tuple[torch.Tensor, ...]]:
        items, size = self.data.items, self.size
        n = len(self.data)
        r, w = self.rank, self.world
        for i in range(0, n, size):
            if w > 1:
                part = min(size, n - i) // w
                lo, hi = i + r * part, i + (r + 1) * part
            else:
                lo, hi = i, i + size
            if len(items) == 1:
                yield items[0][lo:hi]
            else:
                yield tuple(t[lo:hi] for t in items)


def batches(data: _Data, size: int) -> Batches:
    """The dataset in batches of ``size`` (see ``Batches``)."""
    return Batches(data, size)
