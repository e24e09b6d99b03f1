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

import math
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
    """A forward function of the serving form, checked and compiled (without run-time
    checks) by the model exporters' shared ``load_model_source``."""

    path: str
    fn: str
    forward: Any                   # the compiled function
    model: Any                     # the shared ``ModelSource``
    fields: dict[str, tuple[int, ...]]   # declaration order
    vocab: int                     # V of the ids' Index[V]
    positions: int | None          # P of the positions' Index[P]; None: no bound
    has_pos: bool
    window: int | None = None      # W of the attentions' causal[n n](window=W), if any

    def model_class(self) -> Any:
        """The model's class in the compiled module (for ``init`` and ``load``)."""
        return self.model.model_class


def _static(size: Any) -> int | None:
    value = getattr(size, "const_value", None)
    return value if isinstance(value, int) else None


def load_source(path: str, fn: str | None = None) -> Source:
    """Check ``path``, find the forward function ``fn`` (default ``forward``), check the
    serving rules (E3301–E3308, errors here) and compile it. Raises ``ShapeScriptError``
    for a program with errors, ``CommandError`` for a function that isn't there,
    ``OSError`` for a file that can't be read."""
    from shapescript import api
    from shapescript_export.model_export import ModelExportError, load_model_source

    try:
        model = load_model_source(path, fn or "forward")
    except ModelExportError as err:
        raise CommandError(str(err)) from None
    # A sliding window is allowed (one size: E3308 otherwise); which layers have it is
    # seen when the function runs.
    form = api.serving_form(model.program, model.fn)
    serving = [d for d in form.diagnostics if d.is_error]
    if serving:
        raise api.shapescript_error(serving, model.program.sources)
    window = next((w for w in form.windows.values() if w is not None), None)
    params = model.sig.params
    ids = params[1].type
    vocab = _static(ids.domain.index)
    has_pos = len(params) > 2 and params[2].default is None
    positions = None
    if has_pos and params[2].type.domain.kind == "Index":
        positions = _static(params[2].type.domain.index)
    if vocab is None:  # the serving rules make V a dim
        raise AssertionError(f"{path}: the ids' vocabulary isn't static")
    fields = {name: shape for name, (shape, _dtype) in model.fields.items()}
    return Source(path, model.fn, model.forward, model, fields, vocab, positions, has_pos,
                  window)


@dataclass
class Observation:
    """What the source did on one call."""

    logits: torch.Tensor                         # [n, V], f64
    reads: list[str]                             # fields, in the order first read
    attentions: list[tuple[int, int, int, int]]  # (heads, key heads, n, head width) each
    norms: list[tuple[str, float | None]] = field(default_factory=list)  # (kind, eps)
    # Each attention's sliding window, as its mask shows it (None: plain causal).
    windows: tuple[int | None, ...] = ()
    # Where in the source the first embedding and the first activation were computed, and
    # the line that calls the first block's second norm (where its input is chosen: a
    # parallel or a sequential residual): "embedding" / "activation" / "residual" ->
    # "path:line", for refusals to point at.
    sites: dict[str, str] = field(default_factory=dict)


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


_SITES = {F.embedding: "embedding", F.gelu: "activation", F.silu: "activation"}
_NORMS = {F.rms_norm, torch.rms_norm, F.layer_norm, torch.layer_norm}


def _mask_window(mask: Any) -> int | None:
    """The sliding window a boolean attention mask ``[… n n]`` shows: the keys the last
    query sees (None: all before it, or no mask)."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.dim() < 2:
        return None
    last = mask.reshape(-1, *mask.shape[-2:])[0, -1]
    seen = torch.nonzero(last).flatten()
    if len(seen) == 0 or int(seen[0]) == 0:
        return None
    return int(last.shape[0] - seen[0])


class _Watch(TorchFunctionMode):
    """Every floating dtype asked for becomes f64; attentions (with their windows) and
    norms are recorded, and with the source's ``path``, the lines of its first embedding
    and activation and of the call that reaches its second norm (the compiled functions
    keep the ``.ss`` file's name and line numbers)."""

    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.attentions: list[tuple[int, int, int, int]] = []
        self.windows: list[int | None] = []
        self.norms: list[tuple[str, float | None]] = []
        self.path = path
        self.sites: dict[str, str] = {}

    def _site(self, kind: str, caller: bool = False) -> None:
        """Records the source's line running now as ``kind`` (``caller``: the line that
        called the function running it, where there is one)."""
        frames: list[types.FrameType] = []
        frame: types.FrameType | None = sys._getframe(2)
        while frame is not None and len(frames) < (2 if caller else 1):
            if frame.f_code.co_filename == self.path:
                frames.append(frame)
            frame = frame.f_back
        if frames:
            self.sites[kind] = f"{self.path}:{frames[-1].f_lineno}"

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = {k: _f64(v) for k, v in (kwargs or {}).items()}
        args = tuple(_f64(a) for a in args)
        if func in _TO_F64:
            func = torch.Tensor.double
        kind = _SITES.get(func)
        if kind is not None and self.path is not None and kind not in self.sites:
            self._site(kind)
        if func in _NORMS and len(self.norms) == 1 and self.path is not None:
            self._site("residual", caller=True)
        if func is F.scaled_dot_product_attention:
            q, k = args[0], args[1] if len(args) > 1 else kwargs["key"]
            if q.dim() == 4 and k.dim() == 4:
                self.attentions.append((q.shape[1], k.shape[1], q.shape[2], q.shape[3]))
                mask = kwargs.get("attn_mask", args[3] if len(args) > 3 else None)
                self.windows.append(_mask_window(mask))
        elif func is F.rms_norm or func is torch.rms_norm:
            eps = kwargs.get("eps", args[3] if len(args) > 3 else None)
            self.norms.append(("rms_norm", eps))
        elif func is F.layer_norm or func is torch.layer_norm:
            eps = kwargs.get("eps", args[4] if len(args) > 4 else 1e-5)
            self.norms.append(("layer_norm", eps))
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
    watch = _Watch(source.path)
    torch.set_default_dtype(torch.float64)
    try:
        with torch.no_grad(), watch:
            logits = source.forward(*args)
    except Exception as err:  # the program's own failure, on values it was checked for
        raise ValueError(f"{source.path}: running `{source.fn}` in f64 on random weights "
                         f"failed: {type(err).__name__}: {err}") from err
    finally:
        torch.set_default_dtype(old)
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3:
        raise ValueError(f"{source.path}: `{source.fn}` must return logits [b n V]")
    reads = list(object.__getattribute__(model, "_ss_reads"))
    return Observation(logits[0].to(torch.float64), reads, watch.attentions, watch.norms,
                       tuple(watch.windows), watch.sites)
