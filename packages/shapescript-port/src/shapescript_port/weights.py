"""The written model's weights, taken from the source's by key: a field stacked over the
blocks is the blocks' tensors stacked along a new first axis, a GPT-2 ``Conv1D`` weight is
transposed to ``[out in]``. Every tensor is a float32 copy: the port never shares
storage with the source."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class _Keyed(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def transpose(self) -> bool: ...

    @property
    def stacked(self) -> bool: ...


def gather(state: dict[str, Any], fields: Sequence[_Keyed], blocks: int) -> dict[str, Any]:
    """The tensor of each field, by name, from the source's ``state`` dict."""
    import torch

    def one(key: str, transpose: bool) -> Any:
        t = state[key].detach().to("cpu", torch.float32)
        return (t.t() if transpose else t).contiguous().clone()

    out = {}
    for f in fields:
        if f.stacked:
            out[f.name] = torch.stack([one(f.key.format(l=i), f.transpose) for i in range(blocks)])
        else:
            out[f.name] = one(f.key, f.transpose)
    return out
