"""Sharded fields (FSDP): a model whose fields FSDP2's ``fully_shard`` shards among
the ranks.

With ``SHAPESCRIPT_FSDP`` set (``shapescript run --fsdp``) the optimizer shards the
model's fields among the ranks (``_shard``): ``value_and_grad`` calls the model, so FSDP
gathers the fields before the function and reduce-scatters their averaged gradients into
the shards after backward; the optimizer steps the shards; a field read between steps
gathers them (``_ShardedFields``), and ``save`` gathers the full fields on rank 0
(``gathered``).

Only torch and the standard library are used, so ``shapescript.rt.standalone`` can
inline these helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .ranks import _broadcast_from_rank0

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .model import Model


def _is_sharded(m: object) -> bool:
    """Whether ``m``'s fields are sharded among the ranks (``_shard``)."""
    return getattr(type(m), "_ss_sharded", False)


class _ShardedFields:
    """Mixed into the class of a model whose fields FSDP2 shards (``_shard``).

    Between steps a field is a shard (a ``DTensor`` holding this rank's rows); while the
    model runs, FSDP puts the whole field in its place. ShapeScript's functions read
    fields directly (``m.w_e``) rather than through a ``forward()``, so:

    - ``forward(f, *args)`` is ``f(self, *args)``, and ``value_and_grad`` calls the model
      (``m(f, …)``): FSDP's hooks around it gather the fields before ``f`` and, in
      backward, reduce-scatter their gradients into the shards;
    - reading a field that is a shard (host code between steps: a report's accuracy, a
      prediction after training) gathers the fields first (``unshard``, a collective:
      every rank runs the same host code), and ``update`` puts the shards back before the
      optimizer steps them. FSDP's own reads (inside ``_fsdp``) see the shards.
    """

    _ss_sharded = True
    _ss_inside = 0

    def __setattr__(self, name: str, value: object) -> None:
        if self._ss_inside:
            # FSDP swapping a field's shard and its whole value
            torch.nn.Module.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)   # a model's own: `m.field = v` is set_field

    def forward(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return f(self, *args, **kwargs)

    def _ss_set_shard(self, name: str, value: torch.Tensor) -> None:
        """``m.field = v`` (``set_field``): this rank's rows of ``v`` into its shard, as
        FSDP cut them (``torch.chunk`` along the first axis); every rank runs the same
        host code, with the same ``v``."""
        with _fsdp(self):
            self.reshard()
            p = self._parameters[name]
            local, mesh = p.to_local(), p.device_mesh
            parts = torch.chunk(value.detach(), mesh.size(), dim=0)
            r = mesh.get_local_rank()
            if r < len(parts) and local.numel():
                with torch.no_grad():
                    local.copy_(parts[r].to(local.device, local.dtype))

    def __getattr__(self, name: str) -> torch.Tensor | torch.nn.Module:
        value = torch.nn.Module.__getattr__(self, name)
        if not self._ss_inside and isinstance(value, _dtensor_type()):
            with _fsdp(self):
                self.unshard()
            value = torch.nn.Module.__getattr__(self, name)
        return value


class _fsdp:
    """``with _fsdp(m):`` FSDP's machinery runs on ``m``: its reads of the fields get
    what is there, shards included."""

    __slots__ = ("m",)

    def __init__(self, m: Model) -> None:
        self.m = m

    def __enter__(self) -> None:
        self.m.__dict__["_ss_inside"] = self.m._ss_inside + 1

    def __exit__(self, *exc: object) -> None:
        self.m.__dict__["_ss_inside"] -= 1


_SHARDED_CLASSES: dict[type[Model], type[Model]] = {}


def _dtensor_type() -> type[torch.Tensor]:
    from torch.distributed.tensor import DTensor

    return DTensor


def _shard(m: Model) -> None:
    """Shards ``m``'s fields among the ranks with ``fully_shard``, in place, after
    setting them to rank 0's (as DDP does when it wraps a module)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    fields = [p for _, p in m._ss_fields()]
    _broadcast_from_rank0(fields)
    cls = type(m)
    sharded = _SHARDED_CLASSES.get(cls)
    if sharded is None:
        # Same name and module: messages name the model's own type.
        sharded = _SHARDED_CLASSES[cls] = type(cls.__name__, (_ShardedFields, cls), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "_ss_base": cls})
    m.__class__ = sharded
    device = fields[0].device if fields else torch.device("cpu")
    mesh = init_device_mesh(device.type, (torch.distributed.get_world_size(),))
    with _fsdp(m):
        fully_shard(m, mesh=mesh)


def gathered(m: Model) -> Model | None:
    """``m`` itself; for a sharded model, one of its own class holding the whole fields,
    gathered on rank 0 (every rank takes part; the others get ``None``)."""
    if not _is_sharded(m):
        return m
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    with _fsdp(m):
        m.reshard()
        full = get_model_state_dict(m, options=StateDictOptions(full_state_dict=True,
                                                                cpu_offload=True))
    if torch.distributed.get_rank() != 0:
        return None
    return type(m)._ss_base._ss_from_tensors(full)
