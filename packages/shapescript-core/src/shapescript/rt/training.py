"""The host-only training built-ins at run time.

- ``value_and_grad(f, m, *args)``: ``f(m, *args)`` (a ``[]`` tensor) and a ``Grads``
  holding the gradient of each of ``m``'s fields;
- ``sgd(m, lr=…)``, ``adamw(m, lr=…)``: an ``Optimizer`` (``torch.optim.SGD`` /
  ``torch.optim.AdamW`` over ``m``'s parameters, with their defaults); ``lr=`` is a number
  or a schedule, which each ``update`` advances one step;
- ``update(m, grads, opt)``: one optimizer step, in place;
- ``clip_norm(grads, max=…)``: ``grads`` scaled as ``torch.nn.utils.clip_grad_norm_``
  scales them;
- schedules ``cosine(steps, lr=…, min=0.0)`` and ``warmup(steps, schedule)``;
- datasets: ``shuffle(data, seed=…)`` and ``batches(data, size=…)``;
- many processes: ``world_size()``, ``rank()``.

``report`` and ``sink`` are in ``report.py``; starting the process group, in
``distributed.py``.

Under a ``torch.distributed`` process group of more than one process, each built-in keeps
its meaning for the global batch (``docs/training.md``): ``batches`` gives each rank its
shard of every batch, ``value_and_grad`` averages the gradients and the value over the
ranks (an all-reduce per bucket, DDP's arithmetic), ``shuffle`` without a seed uses rank
0's order, and an optimizer starts every rank from rank 0's weights.

With ``SHAPESCRIPT_FSDP`` set (``shapescript run --fsdp``) the optimizer shards the
model's fields among the ranks instead, with FSDP2's ``fully_shard`` (``_shard``):
``value_and_grad`` calls the model, so FSDP gathers the fields before the function and
reduce-scatters their averaged gradients into the shards after backward; the optimizer
steps the shards; a field read between steps gathers them (``_ShardedFields``), and
``save`` gathers the full fields on rank 0 (``gathered``).

Each concept is a module of its own, and this one gathers their public names (as
``shapescript.rt`` does): ``grads.py`` (``value_and_grad``, ``clip_norm``),
``optimizers.py`` (``sgd``, ``adamw``, ``update``), ``schedules.py``, ``datasets.py``,
``ranks.py`` (``world_size``, ``rank`` and the collectives the others share) and
``sharding.py`` (FSDP). The formulas are in ``docs/models.md``. Those modules use only
torch and the standard library, so ``shapescript.rt.standalone`` can inline their helpers.
"""

from __future__ import annotations

from .datasets import Batches, Dataset, batches, shuffle
from .grads import Grads, clip_norm, value_and_grad
from .optimizers import Optimizer, adamw, sgd, update
from .ranks import rank, world_size
from .schedules import Cosine, Warmup, cosine, warmup
from .sharding import gathered

__all__ = [
    "Grads", "value_and_grad", "clip_norm", "Cosine", "Warmup", "cosine", "warmup",
    "Optimizer", "sgd", "adamw", "update", "Dataset", "Batches", "shuffle", "batches",
    "world_size", "rank", "gathered",
]
