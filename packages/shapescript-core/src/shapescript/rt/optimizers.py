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

import torch

from .grads import _need_grads, _need_model
from .ranks import _broadcast_from_rank0, _fsdp_wanted, _process_group
from .schedules import _rate
from .sharding import _fsdp, _is_sharded, _shard


class Optimizer:
    """Optimizer state for one model: a ``torch.optim`` optimizer over its fields, the
    learning rate (a number or a schedule) and the number of updates taken."""

    __slots__ = ("model", "torch_optimizer", "lr", "steps")

    def __init__(self, model, torch_optimizer, lr):
        self.model, self.torch_optimizer, self.lr, self.steps = model, torch_optimizer, lr, 0

    def __repr__(self):
        return (f"<{type(self.torch_optimizer).__name__} of {type(self.model).__name__}, "
                f"lr={self.lr!r}, {self.steps} steps>")


def _params(m):
    return [p for _, p in m._ss_fields() if p.requires_grad]


def _start_together(m):
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


def sgd(m, lr, momentum=0.0, weight_decay=0.0):
    """``torch.optim.SGD`` over ``m``'s fields; ``lr`` a number or a schedule."""
    _need_model(m, "sgd")
    _start_together(m)
    opt = torch.optim.SGD(_params(m), lr=_rate(lr, 0), momentum=momentum,
                          weight_decay=weight_decay)
    return Optimizer(m, opt, lr)


def adamw(m, lr, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    """``torch.optim.AdamW`` over ``m``'s fields, with torch's defaults; ``lr`` a number or
    a schedule."""
    _need_model(m, "adamw")
    _start_together(m)
    opt = torch.optim.AdamW(_params(m), lr=_rate(lr, 0), betas=(beta1, beta2), eps=eps,
                            weight_decay=weight_decay)
    return Optimizer(m, opt, lr)


def update(m, grads, opt):
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
