"""Optimizers: ``sgd(m, lr=…)`` and ``adamw(m, lr=…)`` make one (``torch.optim.SGD`` /
``torch.optim.AdamW`` over ``m``'s fields, with their defaults); ``update(m, grads, opt)``
takes one step, in place.

Under a process group of more than one process an optimizer starts every rank from rank
0's weights, or shards the fields among the ranks when the run asks for it
(``sharding.py``).

Only torch and the standard library are used, so ``shapescript.rt.standalone`` can
inline these helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .grads import _need_grads, _need_model
from .ranks import _broadcast_from_rank0, _fsdp_wanted, _process_group
from .schedules import _rate
from .sharding import _fsdp, _is_sharded, _shard

if TYPE_CHECKING:
    from .grads import Grads
    from .model import Model
    from .schedules import Rate


class Optimizer:
    """Optimizer state for one model: a ``torch.optim`` optimizer over its fields, the
    learning rate (a number or a schedule) and the number of updates taken."""

    __slots__ = ("model", "torch_optimizer", "lr", "steps")

    def __init__(self, model: Model, torch_optimizer: torch.optim.Optimizer, lr: Rate) -> None:
        self.model, self.torch_optimizer, self.lr, self.steps = model, torch_optimizer, lr, 0

    def __repr__(self) -> str:
        return (f"<{type(self.torch_optimizer).__name__} of {type(self.model).__name__}, "
                f"lr={self.lr!r}, {self.steps} steps>")


def _params(m: Model) -> list[torch.nn.Parameter]:
    return [p for _, p in m._ss_fields() if p.requires_grad]


def _start_together(m: Model) -> None:
    """Under a process group, ``m``'s fields set to rank 0's, as DDP does when it wraps a
    module, so every rank takes the same steps from the same weights; sharded among the
    ranks when the run asks for it (``_fsdp_wanted``)."""
    if _is_sharded(m):
        with _fsdp(m):
            m.reshard()         # the optimizer steps the shards
    elif _fsdp_wanted():
        _shard(m)
    elif _process_group() is not None:
        _broadcast_from_rank0([p for _, p in m._ss_fields()])


def sgd(m: Model, lr: Rate, momentum: float = 0.0, weight_decay: float = 0.0) -> Optimizer:
    """``torch.optim.SGD`` over ``m``'s fields; ``lr`` a number or a schedule."""
    _need_model(m, "sgd")
    _start_together(m)
    opt = torch.optim.SGD(_params(m), lr=_rate(lr, 0), momentum=momentum,
                          weight_decay=weight_decay)
    return Optimizer(m, opt, lr)


def adamw(m: Model, lr: Rate, weight_decay: float = 0.01, beta1: float = 0.9, beta2: float = 0.999, eps: float
          = 1e-8) -> Optimizer:
    """``torch.optim.AdamW`` over ``m``'s fields, with torch's defaults; ``lr`` a number or
    a schedule."""
    _need_model(m, "adamw")
    _start_together(m)
    opt = torch.optim.AdamW(_params(m), lr=_rate(lr, 0), betas=(beta1, beta2), eps=eps,
                            weight_decay=weight_decay)
    return Optimizer(m, opt, lr)


def update(m: Model, grads: Grads, opt: Optimizer) -> None:
    """One step of ``opt`` on ``m`` with ``grads``, in place; the learning rate is the
    schedule's at this step (the number of updates so far). Fields without a gradient
    are left alone, as torch leaves parameters whose ``.grad`` is ``None``."""
    _need_model(m, "update")
    _need_grads(grads, "update")
    if not isinstance(opt, Optimizer):
        raise TypeError(f"update needs optimizer state from sgd or adamw, not {type(opt).__name__}")
    if opt.model is not m:
        raise ValueError(f"update: this optimizer was made for another {type(opt.model).__name__}")
    if grads._ss_model is not m and type(grads._ss_model) is not type(m):
        raise TypeError(f"update: gradients of a {type(grads._ss_model).__name__} "
                        f"for a {type(m).__name__}")
    topt = opt.torch_optimizer
    if _is_sharded(m):
        with _fsdp(m):
            m.reshard()         # a field read since value_and_grad gathered them
    if callable(opt.lr):
        rate = _rate(opt.lr, opt.steps)
        for group in topt.param_groups:
            group["lr"] = rate
    values = grads._ss_values
    params = m._parameters
    used = []
    for name in grads._ss_names:
        p = params[name]
        g = values[name]
        if g is not None and p.requires_grad:
            p.grad = g
            used.append(p)
    try:
        topt.step()
    finally:
        for p in used:
            p.grad = None
    opt.steps += 1
