"""What the exporters of a model share (``--hf``, ``--gguf``, and ``.pt2`` with
``--weights``): the model of a forward function, its weights, and the source run once.

    source = load_model_source("llama.ss", "forward")       # checked and compiled
    model = make_weights(source, weights=None, seed=0)     # as Llama.init(seed=0) does
    tensors = cast_fields(model, "bfloat16")              # matrices in the dtype asked for
    logits = source.run(model, *example_inputs(source))    # the source's own forward
    calls = count_attentions(source, model)                # each attention's scale, in order

Errors of the command (a missing file, a checkpoint without the model) raise
``ModelExportError`` with a message for an ``error:`` line; errors in the program raise
``ShapeScriptError`` with its diagnostics.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import types
from dataclasses import dataclass, field
from typing import Any
from shapescript.api import error_codes as ec

__all__ = ["AttentionCall", "ModelExportError", "ModelSource", "DTYPES", "cast_fields",
           "count_attentions", "example_inputs", "load_model_source", "make_weights",
           "torch_dtype"]

DTYPES = ("float32", "bfloat16", "float16")
_COUNT = itertools.count(1)


class ModelExportError(ValueError):
    """A command error of a model export (exit code 2): bad options, a missing or wrong
    ``--weights`` file."""


@dataclass
class ModelSource:
    """A checked ``.ss`` file, the forward function of a model in it, compiled."""

    path: str
    fn: str
    program: Any                       # the checked program (``shapescript.api.Program``)
    sig: Any                           # the function's ``FnSig``
    model_name: str
    model_class: Any                   # the compiled model class (``M.init``, ``load``)
    fields: dict[str, tuple[tuple[int, ...], str]]   # name -> (shape, dtype), declared order
    forward: Any                       # the compiled function (no run-time checks)
    namespace: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def params(self) -> list[Any]:
        """The function's parameters after the model."""
        return list(self.sig.params[1:])

    def run(self, model: Any, *args: Any, **kwargs: Any) -> Any:
        """The source's forward function on ``model`` (the compiled model class's value,
        or any object with its fields as attributes)."""
        import torch

        with torch.no_grad():
            return self.forward(model, *args, **kwargs)


def weight_options() -> list[Any]:
    """``--weights`` and ``--seed``: the model of a function that takes it first. Every
    target that exports a model declares these same options (the command shows them once)."""
    import click

    return [
        click.Option(["--weights"], metavar="FILE", default=None,
                     help="For a function that takes the model first: a checkpoint written "
                          "by save, whose first model of that type is used (default: new "
                          "weights from --seed)."),
        click.Option(["--seed"], type=int, default=None,
                     help="The seed of new weights, as M.init(seed=…) draws them "
                          "(default: 0)."),
    ]


def serving_options() -> list[Any]:
    """``weight_options()`` and what a serving export adds: ``--dtype``, ``--tokenizer``,
    ``--max-len`` (``--hf`` and ``--gguf`` alike)."""
    import click

    return weight_options() + [
        click.Option(["--dtype"], type=click.Choice(list(DTYPES)), default="float32",
                     show_default=True,
                     help="The dtype of the weights (GGUF: of its matrices; 1-D tensors stay "
                          "float32)."),
        click.Option(["--tokenizer"], metavar="DIR", default=None,
                     help="A Hugging Face tokenizer folder: copied into an --hf folder; its "
                          "byte-level BPE tokenizer.json written into a GGUF file (default: "
                          "token ids, or tokens <|N|> in GGUF)."),
        click.Option(["--max-len", "max_len"], type=click.IntRange(min=1), default=None,
                     help="The context length (default: P of the positions' Index[P], or "
                          "4096; GGUF gpt2: its position table's rows)."),
        click.Option(["--allow-nonfinite", "allow_nonfinite"], is_flag=True, default=False,
                     help="Write weights that are NaN or infinite (in the checkpoint, or "
                          "once in --dtype) rather than refusing them."),
    ]


def _static(size: Any) -> int | None:
    value = getattr(size, "const_value", None)
    return value if getattr(size, "is_const", False) and isinstance(value, int) else None


def load_model_source(path: str, fn: str | None = "forward", *, option: str = "--fn") -> ModelSource:
    """Check and compile ``path``, and find the model the function ``fn`` takes first.

    Raises ``OSError`` for a file that can't be read, ``ShapeScriptError`` for a program
    with errors, a function that doesn't take a model first (E3306) or that an export
    can't hold (E17xx: Python, host-only operations), and
    ``ModelExportError`` for a function that doesn't exist."""
    from shapescript import api

    program = api.check_file(path)
    if not program.ok or program.main is None:
        raise api.shapescript_error(program.diagnostics, program.sources)
    env = program.main.env
    try:
        name = api.choose_function(env, path, fn or "forward", option)
    except ValueError as err:
        raise ModelExportError(str(err)) from None
    sig = env.fns[name]
    # A model's type (checked by its class's name: the core's types stay inside the core).
    model_type: Any = sig.params[0].type if sig.params else None
    if type(model_type).__name__ != "ModelType":
        diags = [d for d in api.serving_diagnostics(program, name) if d.code == ec.E3306]
        raise api.shapescript_error(diags, program.sources)
    # Checked as an exported function is, but that the model may be passed around and
    # its fields read.
    extra = [d for d in api.export_diagnostics(env, name, model_first=True) if d.is_error]
    if extra:
        raise api.shapescript_error(extra, program.sources)
    info = None
    for checked in program.modules.values():
        if checked.env.path == model_type.module:
            info = checked.env.models.get(model_type.name)
    info = info or env.models.get(model_type.name)
    if info is None:  # the checker resolved the type, so this is a bug
        raise AssertionError(f"model {model_type.name} of {path} not found")
    fields: dict[str, tuple[tuple[int, ...], str]] = {}
    for fname, finfo in info.fields.items():
        dims = tuple(_static(a.size) for a in finfo.type.axes)
        if any(d is None for d in dims):
            raise ModelExportError(f"{path}: field {model_type.name}.{fname} has no static shape")
        fields[fname] = (dims, finfo.type.dtype)  # type: ignore[assignment]
    out = api.compile_file(path, checks="never", value_checks="never")
    if out.python is None:
        raise api.shapescript_error(out.diagnostics, out.sources)
    module_name = f"_shapescript_model_export_{next(_COUNT)}"
    module = types.ModuleType(module_name)
    module.__file__ = os.path.abspath(path)
    sys.modules[module_name] = module
    # Its `import python` modules may sit beside it, as `shapescript run` finds them.
    folder = os.path.dirname(os.path.abspath(path))
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        exec(compile(out.python, path, "exec"), module.__dict__)
    finally:
        sys.modules.pop(module_name, None)
        if added and folder in sys.path:
            sys.path.remove(folder)
    ns = module.__dict__
    forward = ns.get("_unchecked_" + name) or ns.get(name)
    model_class = _find_class(ns, model_type.name)
    return ModelSource(path, name, program, sig, model_type.name, model_class, fields,
                       forward, ns)


def _find_class(ns: dict[str, Any], name: str) -> Any:
    found = ns.get(name)
    if isinstance(found, type):
        return found
    for value in ns.values():  # declared in an imported module
        if isinstance(value, types.ModuleType) and isinstance(getattr(value, name, None), type):
            return getattr(value, name)
    raise AssertionError(f"model class {name} is not in the compiled module")


def make_weights(source: ModelSource, *, weights: Any = None, seed: int = 0,
                 allow_nonfinite: bool = False) -> Any:
    """The model to export: ``weights`` (a checkpoint path, whose first model of the
    forward function's type is used, or a model value of that type), else new weights
    made from ``seed`` as ``M.init(seed=…)`` makes them. A field with a NaN or an
    infinity is a ``ModelExportError`` naming it, unless ``allow_nonfinite``."""
    model = _make_weights(source, weights, seed)
    if not allow_nonfinite:
        where = f"--weights {os.fspath(weights)}: " if isinstance(weights, (str, os.PathLike)) \
            else ""
        check_finite({name: p for name, p in model._ss_fields()}, where)
    return model


def check_finite(tensors: dict[str, Any], where: str = "", dtype: str | None = None) -> None:
    """Raises ``ModelExportError`` naming the first tensor of ``tensors`` with a NaN or an
    infinity (``dtype``: the dtype they were cast to, which made them so). Every exporter
    of weights calls it before it writes anything (``--allow-nonfinite`` skips it)."""
    import torch

    for name, t in tensors.items():
        if not t.is_floating_point():
            continue
        t = t.detach()
        bad = ~torch.isfinite(t)
        count = int(bad.sum())
        if count:
            nan = int(torch.isnan(t).sum())
            kinds = " and ".join(k for k, n in (("NaN", nan), ("infinite", count - nan)) if n)
            cast = f" once cast to {dtype}" if dtype is not None else ""
            raise ModelExportError(
                f"{where}weight `{name}` has {count} {kinds} value{'s' if count > 1 else ''}"
                f"{cast} (of {t.numel()}); --allow-nonfinite writes them anyway")


def _make_weights(source: ModelSource, weights: Any, seed: int) -> Any:
    from shapescript import api

    cls = source.model_class
    if weights is None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ModelExportError(f"--seed must be a whole number, not {seed!r}")
        return cls.init(seed=seed, device="cpu")
    if isinstance(weights, (str, os.PathLike)):
        path = os.fspath(weights)
        if not os.path.isfile(path):
            raise ModelExportError(f"--weights {path}: no such file")
        try:
            return api.load_checkpoint(path, cls, device="cpu")
        except (ValueError, OSError, api.ShapeError) as err:
            raise ModelExportError(f"--weights {path}: {err}") from None
    if type(weights).__name__ != source.model_name or not hasattr(weights, "_ss_fields"):
        raise ModelExportError(f"weights must be a {source.model_name} or a checkpoint path, "
                               f"not {type(weights).__name__}")
    return weights


def torch_dtype(name: str) -> Any:
    """``float32``/``bfloat16``/``float16`` as a torch dtype; ModelExportError otherwise."""
    import torch

    if name not in DTYPES:
        raise ModelExportError(f"--dtype must be one of {', '.join(DTYPES)}, not {name!r}")
    return getattr(torch, name)


def cast_fields(model: Any, dtype: str) -> dict[str, Any]:
    """The model's fields by name, floating ones in ``dtype``, on the CPU, contiguous."""
    target = torch_dtype(dtype)
    out = {}
    for name, p in model._ss_fields():
        t = p.detach().to("cpu")
        if t.is_floating_point():
            t = t.to(target)
        out[name] = t.contiguous()
    return out


def example_inputs(source: ModelSource, *, batch: int = 2, length: int = 7,
                   seed: int = 0) -> list[Any]:
    """Example arguments after the model, made from the parameters' types: integer
    tensors in their ``Index`` bounds (positions counting from 0 along the last axis),
    float tensors standard normal; generics are ``batch`` (the first one met) and
    ``length`` (the others), and an axis ``a*n + c`` is that of its generic ``n``.
    Parameters with defaults are left out."""
    import torch
    from shapescript import api

    g = torch.Generator().manual_seed(seed)
    sizes: dict[str, int] = {}
    out = []
    for p in source.params:
        if p.default is not None:
            break
        t = p.type
        if type(t).__name__ != "TensorType" or t.has_variadic:
            raise ModelExportError(f"{source.path}: parameter `{p.name}` of `{source.fn}` "
                                   "isn't a tensor with a shape")
        shape = []
        for a in t.axes:
            c = _static(a.size)
            lin = a.size.linear() if c is None else None
            if lin is not None:  # a*n + c: n is a generic's example size
                var, k, off = lin
                c = k * sizes.setdefault(var, batch if not sizes else length) + off
            elif c is None:
                var = a.size.var_name or str(a.size)
                c = sizes.setdefault(var, batch if not sizes else length)
            shape.append(c)
        names = api.vocab.TORCH_DTYPE_NAMES
        dtype = getattr(torch, names.get(t.dtype, names["f32"]))
        if dtype.is_floating_point:
            out.append(torch.randn(shape, generator=g).to(dtype))
        elif dtype == torch.bool:
            out.append(torch.rand(shape, generator=g) > 0.5)
        else:
            bound = _static(t.domain.index) if t.domain.kind == "Index" else None
            if "pos" in p.name and len(shape) >= 1:
                x = torch.arange(shape[-1]).expand(*shape).clone()
                out.append(x.clamp(max=(bound or 2 ** 31) - 1).to(dtype))
            else:
                out.append(torch.randint(0, bound or 100, shape, generator=g).to(dtype))
    return out


@dataclass
class AttentionCall:
    """One call of ``scaled_dot_product_attention``: its scale (None: torch's default),
    the shapes of its query and key, and the ``.ss`` file and line that made it (which
    of the source's attention calls it was)."""

    scale: float | None
    query: tuple[int, ...]
    key: tuple[int, ...]
    site: tuple[str, int] | None = None

    @property
    def effective_scale(self) -> float:
        return self.scale if self.scale is not None else 1 / math.sqrt(self.query[-1])


def _ss_site() -> tuple[str, int] | None:
    """The ``.ss`` file and line of the innermost compiled source running: the generated
    code keeps each statement on its source line."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.endswith(".ss"):
            return os.path.abspath(name), frame.f_lineno
        frame = frame.f_back
    return None


def count_attentions(source: ModelSource, model: Any, args: list[Any] | None = None) -> list[AttentionCall]:
    """The attentions the forward function runs on ``args`` (default: example inputs),
    in order, each with its scale: what ``num_hidden_layers`` and ``attention_scales``
    are made of."""
    import torch
    import torch.nn.functional as F
    from torch.overrides import TorchFunctionMode

    calls: list[AttentionCall] = []

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, a=(), kw=None):  # noqa: ANN001
            kw = kw or {}
            if func is F.scaled_dot_product_attention:
                q = a[0] if a else kw["query"]
                k = a[1] if len(a) > 1 else kw["key"]
                scale = kw.get("scale", a[6] if len(a) > 6 else None)
                calls.append(AttentionCall(None if scale is None else float(scale),
                                           tuple(q.shape), tuple(k.shape), _ss_site()))
            return func(*a, **kw)

    with Watch():
        source.run(model, *(args if args is not None else example_inputs(source)))
    del torch
    return calls
