"""The source's side of the search: the forward function, compiled, run in f64 on random
weights while what it does is watched.

Running it answers what the search needs without reading the program's text: which
fields it reads, in the order it first reads them; how many attentions it runs, with
how many heads of what width; which norms it calls, with which eps; and its logits.

"In f64" means everything: the weights and the activations, and also what the source
computes in f32 on purpose (rotary angles from ``pos to f32``), since the search compares
logits to 1e-8 of their size. A ``TorchFunctionMode`` turns every floating dtype the
program asks for into f64 while it runs.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import types
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from shapescript_gguf.errors import CommandError

__all__ = ["Observation", "Source", "load_source", "observe", "random_fields"]


@dataclass
class Source:
    """A checked forward function of the serving form, compiled (without run-time checks)."""

    path: str
    fn: str
    forward: Any                   # the compiled function
    namespace: dict[str, Any]      # the compiled module's names
    model_name: str
    fields: dict[str, tuple[int, ...]]   # declaration order
    vocab: int                     # V of the ids' Index[V]
    positions: int | None          # P of the positions' Index[P]; None: no bound
    has_pos: bool

    def model_class(self) -> Any:
        """The model's class in the compiled module (for ``init`` and ``load``)."""
        found = self.namespace.get(self.model_name)
        if isinstance(found, type):
            return found
        for value in self.namespace.values():  # declared in an imported module
            if isinstance(value, types.ModuleType) and isinstance(
                    getattr(value, self.model_name, None), type):
                return getattr(value, self.model_name)
        raise ValueError(f"{self.path}: model {self.model_name} is not in the compiled module")


_COUNT = itertools.count(1)


def _static(size: Any) -> int | None:
    value = getattr(size, "const_value", None)
    return value if isinstance(value, int) else None


def load_source(path: str, fn: str | None = None) -> Source:
    """Check ``path``, find the forward function ``fn`` (default ``forward``) and compile
    it. Raises ``ShapeScriptError`` for a program with errors, ``ValueError`` for a
    function that isn't a language model's forward function, ``OSError`` for a file
    that can't be read."""
    from shapescript import api

    program = api.check_file(path)
    if not program.ok or program.main is None:
        raise api.shapescript_error(program.diagnostics, program.sources)
    env = program.main.env
    try:
        name = api.choose_function(env, path, fn or "forward", "--fn")
    except ValueError as err:
        raise CommandError(str(err)) from None
    sig = env.fns[name]
    where = f"{path}: `{name}`"
    params = sig.params
    model_type = params[0].type if params else None
    if model_type is None or type(model_type).__name__ != "ModelType":
        raise ValueError(f"{where} must take the model as its first parameter")
    info = None
    for module in program.modules.values():
        if module.env.path == model_type.module:
            info = module.env.models.get(model_type.name)
    if info is None:
        info = env.models.get(model_type.name)
    if info is None:
        raise ValueError(f"{where}: model {model_type.name} isn't found")
    fields: dict[str, tuple[int, ...]] = {}
    for fname, finfo in info.fields.items():
        dims = tuple(_static(a.size) for a in finfo.type.axes)
        if any(d is None for d in dims):
            raise ValueError(f"{where}: field {fname} has no static shape")
        fields[fname] = dims  # type: ignore[assignment]
    ids = params[1].type if len(params) > 1 else None
    vocab = None
    if ids is not None and type(ids).__name__ == "TensorType" and ids.domain.kind == "Index":
        vocab = _static(ids.domain.index)
    if vocab is None or ids.rank != 2:
        raise ValueError(f"{where}'s second parameter must be the token ids, [b n] Index[V] "
                         "with V a dim")
    has_pos, positions = False, None
    if len(params) > 2 and params[2].default is None:
        pos = params[2].type
        if type(pos).__name__ != "TensorType" or pos.rank != 2:
            raise ValueError(f"{where}'s third parameter must be the positions, [b n] of an "
                             "integer dtype")
        has_pos = True
        if pos.domain.kind == "Index":
            positions = _static(pos.domain.index)
    for extra in params[3 if has_pos else 2:]:
        if extra.default is None:
            raise ValueError(f"{where}: parameter `{extra.name}` needs a default; a serving "
                             "engine passes only the model, the token ids and their positions")

    out = api.compile_file(path, checks="never", value_checks="never")
    if out.python is None:
        raise api.shapescript_error(out.diagnostics, out.sources)
    module_name = f"_shapescript_gguf_{next(_COUNT)}"
    module = types.ModuleType(module_name)
    module.__file__ = os.path.abspath(path)
    sys.modules[module_name] = module
    try:
        exec(compile(out.python, path, "exec"), module.__dict__)
    finally:
        sys.modules.pop(module_name, None)
    forward = module.__dict__.get(name)
    if forward is None:  # a name Python reserves, renamed by the compiler
        forward = module.__dict__.get(name + "_")
    return Source(path, name, forward, module.__dict__, info.name, fields, vocab,
                  positions, has_pos)


@dataclass
class Observation:
    """What the source did on one call."""

    logits: torch.Tensor                         # [n, V], f64
    reads: list[str]                             # fields, in the order first read
    attentions: list[tuple[int, int, int, int]]  # (heads, key heads, n, head width) each
    norms: list[tuple[str, float | None]] = field(default_factory=list)  # (kind, eps)


def random_fields(fields: dict[str, tuple[int, ...]], seed: int = 0) -> dict[str, torch.Tensor]:
    """Random f64 values for every field: matrices scaled by the square root of their
    last axis, so activations stay of order one; vectors around one, so a norm's weight
    and a bias both matter."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, shape in fields.items():
        t = torch.randn(shape, generator=g, dtype=torch.float64)
        if len(shape) >= 2 and shape[-1] > 0:
            t = t / math.sqrt(shape[-1])
        else:
            t = 1.0 + 0.5 * t
        out[name] = t
    return out


class _Fields:
    """The model, as the forward function sees it: each field read is recorded."""

    def __init__(self, tensors: dict[str, torch.Tensor]) -> None:
        object.__setattr__(self, "_ss_tensors", tensors)
        object.__setattr__(self, "_ss_reads", [])

    def __getattr__(self, name: str) -> torch.Tensor:
        tensors = object.__getattribute__(self, "_ss_tensors")
        key = name if name in tensors else name.rstrip("_")
        if key not in tensors:
            raise AttributeError(name)
        reads = object.__getattribute__(self, "_ss_reads")
        if key not in reads:
            reads.append(key)
        return tensors[key]


def _f64(value: Any) -> Any:
    if isinstance(value, torch.dtype) and value.is_floating_point:
        return torch.float64
    return value


_TO_F64 = {torch.Tensor.float, torch.Tensor.half, torch.Tensor.bfloat16}


class _Watch(TorchFunctionMode):
    """Every floating dtype asked for becomes f64; attentions and norms are recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.attentions: list[tuple[int, int, int, int]] = []
        self.norms: list[tuple[str, float | None]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
        kwargs = {k: _f64(v) for k, v in (kwargs or {}).items()}
        args = tuple(_f64(a) for a in args)
        if func in _TO_F64:
            func = torch.Tensor.double
        if func is F.scaled_dot_product_attention:
            q, k = args[0], args[1] if len(args) > 1 else kwargs["key"]
            if q.dim() == 4 and k.dim() == 4:
                self.attentions.append((q.shape[1], k.shape[1], q.shape[2], q.shape[3]))
        elif func is F.rms_norm:
            self.norms.append(("rms_norm", kwargs.get("eps", args[3] if len(args) > 3 else None)))
        elif func is F.layer_norm:
            self.norms.append(("layer_norm", kwargs.get("eps", args[4] if len(args) > 4 else 1e-5)))
        elif func is F.group_norm:
            self.norms.append(("group_norm", None))
        return func(*args, **kwargs)


def observe(source: Source, values: dict[str, torch.Tensor], ids: torch.Tensor,
            pos: torch.Tensor) -> Observation:
    """Run the forward function on one sequence (``ids``, ``pos``: ``[n]``) with these
    f64 field values, in f64, and record what it does."""
    model = _Fields(values)
    args = [model, ids[None]] + ([pos[None]] if source.has_pos else [])
    old = torch.get_default_dtype()
    watch = _Watch()
    torch.set_default_dtype(torch.float64)
    try:
        with torch.no_grad(), watch:
            logits = source.forward(*args)
    finally:
        torch.set_default_dtype(old)
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3:
        raise ValueError(f"{source.path}: `{source.fn}` must return logits [b n V]")
    reads = list(object.__getattribute__(model, "_ss_reads"))
    return Observation(logits[0].to(torch.float64), reads, watch.attentions, watch.norms)
