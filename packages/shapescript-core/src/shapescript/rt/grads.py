"""Gradients: ``value_and_grad(f, m, *args)`` and ``clip_norm(grads, max=…)``.

``value_and_grad`` gives ``f(m, *args)`` (a ``[]`` tensor) and a ``Grads`` holding the
gradient of each of ``m``'s fields; under a process group of more than one process both
are the mean over the ranks (an all-reduce per bucket), and for a model with sharded
fields FSDP's reduce-scatter averages them into the shards. ``clip_norm`` scales them as
``torch.nn.utils.clip_grad_norm_`` does.

Only torch and the standard library are used, so ``shapescript.rt.standalone`` can
inline these helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .model import Model
from .ranks import _average, _process_group
from .sharding import _fsdp, _is_sharded

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import TypeAlias

    from torch import Tensor

    Loss: TypeAlias = Callable[..., Tensor]  # f(m, *args, **kwargs): a [] tensor
    Args: TypeAlias = tuple[object, ...]     # f's other arguments
    Kwargs: TypeAlias = dict[str, object]


class Grads:
    """The gradients of a model's fields, as ``value_and_grad`` gives them.

    ``g.field`` is the gradient of that field (zeros when the function didn't use it);
    ``dict(g.items())`` gives them all (``None`` where unused).
    """

    __slots__ = ("_ss_model", "_ss_names", "_ss_values")

    def __init__(self, model: Model, values: Mapping[str, Tensor | None]) -> None:
        self._ss_model = model
        # ``values`` holds every field, in declaration order (``value_and_grad``'s).
        self._ss_values = values = dict(values)
        self._ss_names = tuple(values)

    def __getattr__(self, name: str) -> Tensor:
        if name.startswith("_ss_"):
            raise AttributeError(name)
        values = self._ss_values
        if name not in values:
            raise AttributeError(f"grads of {type(self._ss_model).__name__} have no field {name!r}")
        g = values[name]
        if g is None:
            g = torch.zeros_like(self._ss_model._parameters[name])
        if _is_sharded(self._ss_model):
            g = g.full_tensor()  # a shard: the whole gradient (a collective)
        return g

    def items(self) -> list[tuple[str, Tensor | None]]:
        """``(field, gradient or None)`` in declaration order."""
        return [(n, self._ss_values[n]) for n in self._ss_names]

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}: {'none' if g is None else tuple(g.shape)}" for n, g in self.items())
        return f"<grads of {type(self._ss_model).__name__}: {parts}>"


def _need_model(m: object, what: str) -> None:
    if not isinstance(m, Model):
        raise TypeError(f"{what} needs a ShapeScript model, not {type(m).__name__}")


def _need_grads(g: object, what: str) -> None:
    if not isinstance(g, Grads):
        raise TypeError(f"{what} needs gradients from value_and_grad, not {type(g).__name__}")


def _sharded_value_and_grad(f: Loss, m: Model, args: Args, kwargs: Kwargs) -> tuple[Tensor, Grads]:
    """``value_and_grad`` of a sharded model: the gradients are this rank's shards of the
    global batch's (FSDP's reduce-scatter averages them), the value the ranks' mean."""
    with _fsdp(m):
        m.reshard()             # a field read since the last step left them gathered
        with torch.enable_grad():
            value = m(f, *args, **kwargs)
            if not isinstance(value, torch.Tensor) or value.dim() != 0:
                raise TypeError("value_and_grad: the function must return a [] tensor, not "
                                + (f"shape {tuple(value.shape)}"
                                   if isinstance(value, torch.Tensor) else type(value).__name__))
            if value.requires_grad:
                value.backward()
    values = {}
    for n, p in m._ss_fields():
        values[n] = p.grad if p.requires_grad else None
        p.grad = None
    value = value.detach().clone()
    d = torch.distributed
    d.all_reduce(value)
    value.div_(d.get_world_size())
    return value, Grads(m, values)


def value_and_grad(f: Loss, m: Model, *args: object, **kwargs: object) -> tuple[Tensor, Grads]:
    """``(f(m, *args), grads)``: the value, detached, and the gradient of each of ``m``'s
    fields that requires one (``_gradients``: the fields' ``.grad`` are left as they
    were). ``f`` must return a ``[]`` tensor.

    Under a process group of more than one process, both are the mean over the ranks
    (each rank having its shard of the global batch): the global batch's."""
    _need_model(m, "value_and_grad")
    if _is_sharded(m):
        return _sharded_value_and_grad(f, m, args, kwargs)
    fields = m._ss_fields()
    if torch.is_grad_enabled():
        value = f(m, *args, **kwargs)
    else:
        with torch.enable_grad():
            value = f(m, *args, **kwargs)
    if not isinstance(value, torch.Tensor) or value.dim() != 0:
        raise TypeError("value_and_grad: the function must return a [] tensor, not "
                        + (f"shape {tuple(value.shape)}" if isinstance(value, torch.Tensor)
                           else type(value).__name__))
    wrt = [p for _, p in fields if p.requires_grad]
    if wrt and value.requires_grad:
        gs = iter(_gradients(value, wrt, args, kwargs))
    else:
        gs = iter([None] * len(wrt))
    value = value.detach()
    group = _process_group()
    if group is not None and wrt:
        value, got = _average(value, wrt, list(gs), group[1])
        gs = iter(got)
    values = {n: (next(gs) if p.requires_grad else None) for n, p in fields}
    return value, Grads(m, values)


def _takes_grad(x: object) -> bool:
    """Whether an argument is, or holds at its top level, a tensor or a model that takes a
    gradient."""
    if isinstance(x, torch.Tensor):
        return x.requires_grad
    if isinstance(x, torch.nn.Module):
        return any(p.requires_grad for p in x.parameters())
    if isinstance(x, (tuple, list)):
        return any(_takes_grad(v) for v in x)
    return False


def _gradients(value: Tensor, wrt: Sequence[Tensor], args: Args, kwargs: Kwargs) -> Sequence[Tensor | None]:
    """The gradients of ``value`` with respect to ``wrt`` (``None`` where unused), with
    nothing left in any ``.grad``.

    ``value.backward()`` is cheaper than ``torch.autograd.grad(value, wrt)``, which first
    searches the graph for the paths to ``wrt`` (1–4% of a backward pass, the spotter's),
    but it fills the ``.grad`` of every tensor in the graph that takes a gradient. So it
    is used when the arguments hold nothing but the model that takes a gradient, with the
    fields' own ``.grad`` put back afterwards; a tensor that takes a gradient and that the
    function reads from elsewhere (a Python module's) gets a ``.grad``, as under
    ``loss.backward()``."""
    if any(_takes_grad(a) for a in args) or any(_takes_grad(v) for v in kwargs.values()):
        return torch.autograd.grad(value, wrt, allow_unused=True)
    saved = [p.grad for p in wrt]
    for p in wrt:
        p.grad = None
    try:
        value.backward()
        return [p.grad for p in wrt]
    finally:
        for p, g in zip(wrt, saved):
            p.grad = g


def clip_norm(grads: Grads, max: float) -> Grads:
    """``grads`` scaled so that their total L2 norm is at most ``max``: each times
    ``min(1, max / (norm + 1e-6))``, as ``torch.nn.utils.clip_grad_norm_`` does; a new
    ``Grads`` (the argument is unchanged)."""
    _need_grads(grads, "clip_norm")
    present = [g for _, g in grads.items() if g is not None]
    if not present:
        return grads
    norms = [torch.linalg.vector_norm(g, 2.0) for g in present]
    device = present[0].device
    total = torch.linalg.vector_norm(torch.stack([n.to(device) for n in norms]), 2.0)
    coef = torch.clamp(float(max) / (total + 1e-6), max=1.0)
    values = {n: (None if g is None else g * coef.to(g.device)) for n, g in grads.items()}
    return Grads(grads._ss_model, values)
