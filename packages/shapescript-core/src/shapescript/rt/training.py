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

The formulas are in ``docs/models.md``. Only torch and the standard library are used,
so ``shapescript.rt.standalone`` can inline these helpers.
"""

from __future__ import annotations

import math
import os

import torch

from .model import Model

# -- many processes -------------------------------------------------------------------

# Gradients travel in buckets of at most this many bytes, DDP's default (``bucket_cap_mb``).
_BUCKET_BYTES = 25 * 1024 * 1024


def _process_group():
    """``(rank, world size)`` of the default ``torch.distributed`` process group when one
    of more than one process is started, else ``None``."""
    d = torch.distributed
    if not (d.is_available() and d.is_initialized()):
        return None
    world = d.get_world_size()
    return (d.get_rank(), world) if world > 1 else None


def world_size():
    """The number of processes training together: the default process group's size, 1
    when none is started (``torchrun``, ``shapescript run --nproc-per-node``)."""
    d = torch.distributed
    return d.get_world_size() if d.is_available() and d.is_initialized() else 1


def rank():
    """This process's rank in the default process group, from 0; 0 when none is started."""
    d = torch.distributed
    return d.get_rank() if d.is_available() and d.is_initialized() else 0


def _fsdp_wanted():
    """Whether the run asks for sharded fields: ``SHAPESCRIPT_FSDP`` (``shapescript run
    --fsdp``) set, under a process group of more than one process."""
    return (os.environ.get("SHAPESCRIPT_FSDP", "") not in ("", "0")
            and _process_group() is not None)


def _all_ranks_output():
    """Whether every rank reports (``shapescript run --all-ranks``), not rank 0 alone."""
    return os.environ.get("SHAPESCRIPT_ALL_RANKS", "") not in ("", "0")


def _rank0_flag(ok, what):
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


def _broadcast_from_rank0(tensors):
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


def _average(value, wrt, grads, world):
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


# -- sharded fields (FSDP) --------------------------------------------------------------


def _is_sharded(m):
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

    def __setattr__(self, name, value):
        if self._ss_inside:
            # FSDP swapping a field's shard and its whole value
            torch.nn.Module.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)   # a model's own: `m.field = v` is set_field

    def forward(self, f, *args, **kwargs):
        return f(self, *args, **kwargs)

    def _ss_set_shard(self, name, value):
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

    def __getattr__(self, name):
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

    def __init__(self, m):
        self.m = m

    def __enter__(self):
        self.m.__dict__["_ss_inside"] = self.m._ss_inside + 1

    def __exit__(self, *exc):
        self.m.__dict__["_ss_inside"] -= 1


_SHARDED_CLASSES = {}


def _dtensor_type():
    from torch.distributed.tensor import DTensor

    return DTensor


def _shard(m):
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


def _sharded_value_and_grad(f, m, args, kwargs):
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


def gathered(m):
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


# -- gradients ------------------------------------------------------------------------


class Grads:
    """The gradients of a model's fields, as ``value_and_grad`` gives them.

    ``g.field`` is the gradient of that field (zeros when the function didn't use it);
    ``dict(g.items())`` gives them all (``None`` where unused).
    """

    __slots__ = ("_ss_model", "_ss_names", "_ss_values")

    def __init__(self, model, values):
        self._ss_model = model
        # ``values`` holds every field, in declaration order (``value_and_grad``'s).
        self._ss_values = values = dict(values)
        self._ss_names = tuple(values)

    def __getattr__(self, name):
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

    def items(self):
        """``(field, gradient or None)`` in declaration order."""
        return [(n, self._ss_values[n]) for n in self._ss_names]

    def __repr__(self):
        parts = ", ".join(f"{n}: {'none' if g is None else tuple(g.shape)}" for n, g in self.items())
        return f"<grads of {type(self._ss_model).__name__}: {parts}>"


def _need_model(m, what):
    if not isinstance(m, Model):
        raise TypeError(f"{what} needs a ShapeScript model, not {type(m).__name__}")


def _need_grads(g, what):
    if not isinstance(g, Grads):
        raise TypeError(f"{what} needs gradients from value_and_grad, not {type(g).__name__}")


def value_and_grad(f, m, *args, **kwargs):
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


def _takes_grad(x):
    """Whether an argument is, or holds at its top level, a tensor or a model that takes a
    gradient."""
    if isinstance(x, torch.Tensor):
        return x.requires_grad
    if isinstance(x, torch.nn.Module):
        return any(p.requires_grad for p in x.parameters())
    if isinstance(x, (tuple, list)):
        return any(_takes_grad(v) for v in x)
    return False


def _gradients(value, wrt, args, kwargs):
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


def clip_norm(grads, max):
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


# -- schedules ------------------------------------------------------------------------


def _rate(lr, step):
    return float(lr(step)) if callable(lr) else float(lr)


class Cosine:
    """``cosine(steps, lr=…, min=0.0)``: at update ``k`` (from 0),
    ``min + (lr - min) * (1 + cos(pi * min(k, steps) / steps)) / 2``."""

    __slots__ = ("steps", "lr", "min")

    def __init__(self, steps, lr, min=0.0):
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(f"cosine: steps must be an int ≥ 1, not {steps!r}")
        self.steps, self.lr, self.min = steps, lr, min

    def __call__(self, step):
        lo, hi = _rate(self.min, step), _rate(self.lr, step)
        t = min(step, self.steps) / self.steps
        return lo + (hi - lo) * (1 + math.cos(math.pi * t)) / 2

    def __repr__(self):
        return f"cosine({self.steps}, lr={self.lr!r}, min={self.min!r})"


class Warmup:
    """``warmup(steps, s)``: at update ``k < steps``, ``s(0) * (k + 1) / steps``; after,
    ``s(k - steps)`` (``s`` starts when the warm-up ends)."""

    __slots__ = ("steps", "then")

    def __init__(self, steps, then):
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"warmup: steps must be an int ≥ 0, not {steps!r}")
        self.steps, self.then = steps, then

    def __call__(self, step):
        if step < self.steps:
            return _rate(self.then, 0) * (step + 1) / self.steps
        return _rate(self.then, step - self.steps)

    def __repr__(self):
        return f"warmup({self.steps}, {self.then!r})"


def cosine(steps, lr, min=0.0):
    """A cosine schedule from ``lr`` down to ``min`` over ``steps`` updates, then ``min``."""
    return Cosine(steps, lr, min)


def warmup(steps, schedule):
    """A linear warm-up over ``steps`` updates to ``schedule``'s first rate, then
    ``schedule`` from its start (a number is a constant schedule)."""
    return Warmup(steps, schedule)


# -- optimizers -----------------------------------------------------------------------


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


# -- datasets -------------------------------------------------------------------------


class Dataset:
    """Tensors sharing their first axis (``shuffle``'s result); ``single`` when it was
    one tensor rather than a tuple."""

    __slots__ = ("items", "single")

    def __init__(self, items, single=False):
        self.items, self.single = tuple(items), single

    def __len__(self):
        return int(self.items[0].shape[0])

    def __repr__(self):
        return f"<dataset of {len(self)}: " + ", ".join(str(tuple(t.shape)) for t in self.items) + ">"


def _dataset(data, what):
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


def shuffle(data, seed=None):
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

    def __init__(self, data, size):
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

    def __len__(self):
        return -(-len(self.data) // self.size)

    def __iter__(self):
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


def batches(data, size):
    """The dataset in batches of ``size`` (see ``Batches``)."""
    return Batches(data, size)


__all__ = [
    "Grads", "value_and_grad", "clip_norm", "Cosine", "Warmup", "cosine", "warmup",
    "Optimizer", "sgd", "adamw", "update", "Dataset", "Batches", "shuffle", "batches",
    "world_size", "rank", "gathered",
]
