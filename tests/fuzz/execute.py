"""The fuzzer's import-and-run stage: a clean program's generated module is imported, and
each function with a checked entry is called on random arguments of its declared shapes.

A program that checks must give a module that imports, and a call must either run or
stop with one of ShapeScript's run-time errors (``ShapeError``, ``DomainError``,
``DeviceError``: the argument checks, an ``as``, an extern's result) — any other
exception out of checked code is *unsound*. The outcome is ``None`` when both hold, else
``("import", detail)`` or ``("unsound", detail)``.

What isn't the compiler's doing is left out: a Python module the program imports (or
an ``extern fn`` of its own names) that isn't installed, a device line naming a device
this machine lacks, the Python values a program gets from ``import python`` (untyped
until an ``as``), whose calls may raise anything, and what the Python function of an
``extern fn`` the program declares itself raises: its declaration is the program's word
on that function (a mutant may declare ``gelu``'s ``approximate`` with a default torch
refuses). The prelude's externs are ShapeScript's own word, and stay checked. An
``OSError`` is the program's input and output (``load`` of a checkpoint it never saved).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import sys
import traceback
import types
from typing import Any

_SIZES = (1, 2, 3, 5)
# What the stage did, over the process: modules imported, functions called.
STATS = {"imported": 0, "called": 0}
# A declared shape larger than this (a mutant's `dim D = 99999999`) isn't called.
_MAX_ELEMENTS = 1 << 20


class _TooBig(Exception):
    pass


class _ExternRaised(Exception):
    """What the Python function of one of the program's own externs raised."""


def _guarded(fn: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - sorted out by the caller
            if _shapescript_error(err):
                raise
            raise _ExternRaised(f"{type(err).__name__}: {err}") from err
    return call


def _shapescript_error(err: BaseException) -> bool:
    from shapescript.errors import DeviceError, DomainError, ShapeError, ShapeScriptError

    return isinstance(err, (ShapeError, DomainError, DeviceError, ShapeScriptError))


def _from_python(err: BaseException, tb: str, python_modules: set[str]) -> bool:
    """Whether the exception came out of a Python value the program reached itself (an
    ``import python`` module's function or attribute, unchecked until an ``as``)."""
    obj = getattr(err, "obj", None) if isinstance(err, AttributeError) else None
    if isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] in python_modules:
        return True
    return any(f'"{m}' in tb or f"/{m}/" in tb or f"/{m}.py" in tb for m in python_modules)


def _tensor(spec: Any, env: dict[str, int], rng: random.Random) -> Any:
    import torch

    shape = []
    for ax in spec.axes:
        if ax == "...":
            continue
        if isinstance(ax, int):
            shape.append(ax)
        elif isinstance(ax, str):
            shape.append(env.setdefault(ax, rng.choice(_SIZES)))
        elif isinstance(ax, tuple) and ax[0] == "?":
            shape.append(rng.choice(_SIZES))
        elif isinstance(ax, tuple) and ax[0] == "lin":
            _, v, a, c = ax[:4]
            n = env.setdefault(v, rng.choice(_SIZES))
            shape.append(max(a * n + c, 0))
        elif isinstance(ax, tuple) and ax[0] == "expr":
            try:
                shape.append(max(int(ax[2](env)), 0))
            except Exception:  # noqa: BLE001 - a size of generics not bound yet
                shape.append(rng.choice(_SIZES))
        else:
            shape.append(rng.choice(_SIZES))
    numel = 1
    for n in shape:
        numel *= n
    if numel > _MAX_ELEMENTS:
        raise _TooBig()
    g = torch.Generator().manual_seed(rng.randrange(1 << 30))
    dtype = spec.dtype
    if dtype in ("bool",) or spec.domain == "Mask":
        return torch.rand(shape, generator=g) > 0.5
    if dtype in ("Int", "i64", "i32", "i16", "i8", "u8"):
        bound = 3
        dom = spec.domain
        index = getattr(dom, "index", None)
        if isinstance(index, int) and index > 0:
            bound = index
        elif isinstance(index, str) and env.get(index):
            bound = env[index]
        t = torch.randint(0, bound, shape, generator=g)
        return t.to({"Int": torch.int64}.get(dtype, getattr(torch, {
            "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8"}[dtype])))
    t = torch.rand(shape, generator=g)
    if spec.domain in ("Prob",) or getattr(spec.domain, "kind", None) == "Prob":
        t = t / t.sum(-1, keepdim=True).clamp_min(1e-6) if t.dim() else t
    if dtype in ("f64", "f16", "bf16"):
        t = t.to({"f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}[dtype])
    return t


def _arguments(specs: tuple, rng: random.Random) -> list[Any] | None:
    from shapescript.rt.specs import HostSpec, ModelSpec, TensorSpec

    env: dict[str, int] = {}
    args: list[Any] = []
    for spec in specs:
        if spec is None:
            return None            # a parameter the checks don't describe (a Python value)
        if isinstance(spec, TensorSpec):
            args.append(None if spec.optional and rng.random() < 0.3 else _tensor(spec, env, rng))
        elif isinstance(spec, HostSpec):
            py = spec.pytype
            kinds = py if isinstance(py, tuple) else (py,)
            if spec.binds is not None:
                args.append(env.setdefault(spec.binds, rng.choice(_SIZES)))
            elif int in kinds:
                args.append(rng.choice((1, 2, 3)))
            elif float in kinds:
                args.append(rng.choice((0.5, 1.0, 2.0)))
            elif bool in kinds:
                args.append(rng.random() < 0.5)
            elif str in kinds:
                args.append("s")
            else:
                return None
        elif isinstance(spec, ModelSpec):
            total = 0
            for field in getattr(spec.cls, "_ss_field_specs", ()):
                numel = 1
                for ax in field.axes:
                    numel *= ax if isinstance(ax, int) else 1
                total += numel
            if total > _MAX_ELEMENTS:
                raise _TooBig()
            args.append(spec.cls.init(seed=rng.randrange(100), device="cpu"))
        else:
            return None
    return args


def import_and_run(code: types.CodeType, path: str, python_modules: set[str],
                   seed: int, extern_targets: frozenset[str] = frozenset()
                   ) -> tuple[str, str] | None:
    """Imports the module ``code`` (compiled from ``path``) and calls its checked entries
    (see the module's doc); ``python_modules``: the ones its ``import python`` names;
    ``extern_targets``: the functions its own ``extern fn``s name (a mutant of the
    prelude declares the prelude's externs itself)."""
    module = types.ModuleType(f"_ss_fuzz_{seed}")
    module.__file__ = path
    sink = io.StringIO()
    # The `.ss` files it imports are beside it, as when Python imports it from there.
    folder = os.path.dirname(os.path.abspath(path))
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            return _import_and_run(module, code, python_modules, seed, extern_targets)
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
        # A device line is process-wide: the next program starts without this one's.
        from shapescript.rt.device import reset_devices

        reset_devices()


def _import_and_run(module: types.ModuleType, code: types.CodeType, python_modules: set[str],
                    seed: int, extern_targets: frozenset[str]) -> tuple[str, str] | None:
    try:
        exec(code, module.__dict__)
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] in python_modules:
            return None        # the program imports a module this machine lacks
        return "import", _detail(err)
    except Exception as err:  # noqa: BLE001 - what the stage looks for
        if _shapescript_error(err):
            return None        # a device line naming a device this machine lacks …
        tb = traceback.format_exc()
        if _from_python(err, tb, python_modules):
            return None
        obj = getattr(err, "obj", None) if isinstance(err, AttributeError) else None
        if isinstance(obj, types.ModuleType) and f"{obj.__name__}.{err.name}" in extern_targets:
            return None        # an extern the program declares names what isn't there
        return "import", _detail(err)
    STATS["imported"] += 1
    rng = random.Random(seed)
    ns = module.__dict__
    for key in [k for k in ns if k.startswith("_ss_x") and callable(ns[k])]:
        ns[key] = _guarded(ns[key])  # the program's own externs (see the module's doc)
    for name in sorted(ns):
        check = ns.get(f"_ss_check_{name}")
        fn = ns[name]
        if check is None or not callable(fn) or not hasattr(check, "specs"):
            continue
        try:
            args = _arguments(check.specs, rng)
        except Exception:  # noqa: BLE001 - too big, or on a device this machine lacks
            continue
        if args is None:
            continue
        try:
            check(tuple(args), True, True)
        except Exception:  # noqa: BLE001 - arguments the entry refuses: not a call
            continue
        STATS["called"] += 1
        try:
            fn(*args)
        except (_ExternRaised, OSError):
            continue
        except Exception as err:  # noqa: BLE001 - what the stage looks for
            if _shapescript_error(err):
                continue
            tb = traceback.format_exc()
            if _from_python(err, tb, python_modules):
                continue
            return "unsound", f"{name}: {_detail(err)}\n{tb}"
    return None


def _detail(err: BaseException) -> str:
    tb = traceback.format_exception(err)
    frames = [ln.strip() for ln in tb if ln.strip().startswith("File ")]
    return f"{type(err).__name__}: {str(err)[:200]} at {frames[-1] if frames else '?'}"
