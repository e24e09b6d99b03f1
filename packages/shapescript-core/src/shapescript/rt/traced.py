"""The helpers of modules generated for export (``codegen/export.py``), as source text.

Everything below the marker line is copied into each export module, which needs only
torch and einops; this file is never imported by the compiler (tests import it to call
the helpers directly). Every name starts with ``_ss_ex_`` so none can clash with the
generated code's. The helpers:

- ``_ss_ex_if`` / ``_ss_ex_for``: an ``if`` or ``for i in a..b`` whose blocks codegen
  turned into functions of the values they may assign. A condition known while tracing
  (a Python bool, or a size fact torch can decide) runs one branch in Python; a ``[]
  Mask`` or a condition on a dynamic size is a ``torch.cond``. Ends known while tracing
  unroll the loop; otherwise it is a ``torch.while_loop``. Host values carried through
  either are 0-d tensors (book ch. 17, "Control flow in exported programs").
- ``_ss_ex_as``: an ``as`` while tracing: ``torch._check`` per axis, ``?k`` at least 0,
  the domain as ``aten._assert_async.msg`` (DECISIONS §21).
- ``_ss_ex_dims``/``_ss_ex_example``/``_ss_ex_export``/``_ss_ex_main``: the export step.
"""

from __future__ import annotations

import torch as _ss_torch

# ---- inlined below ----


try:  # ShapeScript's error class when it is importable (DECISIONS §25)
    from shapescript.rt import errors as _ss_ex_errors

    class ShapeError(_ss_ex_errors.ShapeError):
        """A tensor's rank, sizes or dtype don't fit its type."""
except (ImportError, AttributeError):
    class ShapeError(ValueError):
        """A tensor's rank, sizes or dtype don't fit its type."""


def _ss_ex_static_bool(c):
    """``c`` as a Python bool if it is known while tracing, else None."""
    if isinstance(c, bool):
        return c
    if isinstance(c, _ss_torch.SymBool):
        from torch.fx.experimental.symbolic_shapes import statically_known_true
        if statically_known_true(c):
            return True
        if statically_known_true(_ss_torch.sym_not(c)):
            return False
        return None
    if isinstance(c, _ss_torch.Tensor):
        return None
    return bool(c)


def _ss_ex_static_int(v):
    """``v`` as a Python int if it is a number while tracing, else None."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, _ss_torch.SymInt):
        return v.node.maybe_as_int()
    return None


def _ss_ex_device(values):
    for v in values:
        if isinstance(v, _ss_torch.Tensor):
            return v.device
    return None


def _ss_ex_tensor(v, like=None, device=None):
    """A host value carried through a ``torch.cond`` or ``torch.while_loop``: a 0-d
    tensor (of ``like``'s dtype when given, so a loop keeps its carried dtypes)."""
    if isinstance(v, _ss_torch.Tensor):
        if like is not None and v.dtype != like.dtype:
            v = v.to(like.dtype)
        return v.clone(memory_format=_ss_torch.contiguous_format)
    if like is not None:
        return _ss_torch.full((), v, dtype=like.dtype, device=like.device)
    if isinstance(v, (bool, _ss_torch.SymBool)):
        dtype = _ss_torch.bool
    elif isinstance(v, (int, _ss_torch.SymInt)):
        dtype = _ss_torch.int64
    else:
        dtype = _ss_torch.get_default_dtype()
    return _ss_torch.full((), v, dtype=dtype, device=device)


def _ss_ex_branch(fn, device):
    # A torch.cond branch may not return its inputs (aliasing) and both must agree on
    # strides: every output is a fresh contiguous tensor.
    def branch(*operands):
        return tuple(_ss_ex_tensor(v, device=device) for v in fn(*operands))
    return branch


def _ss_ex_if(cond, then_fn, else_fn, operands):
    """``if cond`` whose branches are functions of ``operands`` giving the values the
    ``if`` binds, as a tuple."""
    known = _ss_ex_static_bool(cond)
    if known is not None:
        return tuple((then_fn if known else else_fn)(*operands))
    device = _ss_ex_device((cond,) + tuple(operands))
    carried = tuple(_ss_ex_tensor(v, device=device) for v in operands)
    if isinstance(cond, _ss_torch.Tensor) and cond.dim() != 0:
        cond = cond.reshape(())
    out = _ss_torch.cond(cond, _ss_ex_branch(then_fn, device),
                         _ss_ex_branch(else_fn, device), carried)
    return tuple(out)


def _ss_ex_for(lo, hi, body, carried):
    """``for i in lo..hi`` whose body is a function of ``i`` and ``carried`` giving the
    new ``carried``: unrolled when both ends are numbers, else a ``torch.while_loop``."""
    a, b = _ss_ex_static_int(lo), _ss_ex_static_int(hi)
    carried = tuple(carried)
    if a is not None and b is not None:
        for i in range(a, b):
            carried = tuple(body(i, *carried))
        return carried
    device = _ss_ex_device(carried)
    start = _ss_ex_tensor(lo, _ss_torch.zeros((), dtype=_ss_torch.int64, device=device))
    init = (start,) + tuple(_ss_ex_tensor(v, device=device) for v in carried)

    def cond_fn(i, *values):
        return i < hi

    def body_fn(i, *values):
        out = tuple(body(i, *values))
        return (i + 1,) + tuple(_ss_ex_tensor(v, like) for v, like in zip(out, values))

    return tuple(_ss_torch.while_loop(cond_fn, body_fn, init)[1:])


def _ss_ex_pick(x, index):
    """``x[i, j, …]`` for host indices, any of which may be a 0-d tensor (a loop's ``i``
    in a ``torch.while_loop``): those select with ``index_select``."""
    if not any(isinstance(i, _ss_torch.Tensor) for i in index):
        return x[index]
    for i in index:
        if isinstance(i, _ss_torch.Tensor):
            i = i.reshape(1).to(_ss_torch.int64)
            i = _ss_torch.where(i < 0, i + x.shape[0], i)
            x = x.index_select(0, i).squeeze(0)
        else:
            x = x[i]
    return x


def _ss_ex_hint(size):
    """A size's value for the example inputs, or None (a data-dependent size)."""
    if isinstance(size, _ss_torch.SymInt):
        return size.node.hint if size.node.has_hint() else None
    return size


def _ss_ex_unbacked(size):
    if not isinstance(size, _ss_torch.SymInt):
        return False
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    return bool(free_unbacked_symbols(size))


_SS_EX_BOUNDS = {
    "NonNeg": (0, None, True), "Pos": (0, None, False), "Unit": (0, 1, True),
    "Signed": (-1, 1, True), "Prob": (0, 1, True), "LogProb": (None, 0, True),
    "Index": (0, None, True),
}


def _ss_ex_domain_ok(x, kind, over, bound):
    """A 0-d bool tensor: whether ``x``'s values are in the domain (as
    ``shapescript.rt.domains``: exact bounds, sums within ``max(1e-4, n·eps)``)."""
    lo, hi, lo_incl = _SS_EX_BOUNDS[kind]
    if kind == "Index" and bound is not None:
        hi = bound - 1
    v = x.to(_ss_torch.uint8) if x.dtype == _ss_torch.bool else x
    ok = None
    if lo is not None:
        ok = ((v >= lo) if lo_incl else (v > lo)).all()
    if hi is not None:
        ok = (v <= hi).all() if ok is None else ok & (v <= hi).all()
    if kind in ("Prob", "LogProb") and over is not None:
        acc = _ss_torch.float64 if x.dtype == _ss_torch.float64 else _ss_torch.float32
        eps = _ss_torch.finfo(x.dtype if x.is_floating_point() else acc).eps
        tol = _ss_torch.sym_max(1e-4, x.shape[over] * eps)
        xa = x.to(acc)
        total = xa.sum(dim=over) if kind == "Prob" else _ss_torch.logsumexp(xa, dim=over)
        target = 1.0 if kind == "Prob" else 0.0
        ok = ok & ((total - target).abs() <= tol).all()
    return ok


def _ss_ex_assert_domain(x, kind, over, bound, message):
    """A value check in the program: ``aten._assert_async`` raises ``RuntimeError`` with
    ``message`` when it fails."""
    _ss_torch.ops.aten._assert_async.msg(_ss_ex_domain_ok(x, kind, over, bound), message)


def _ss_ex_as(x, sizes, where, written, domain=None, shapes=True, values=True):
    """``x as T`` in an exported program: ``sizes`` holds each axis's size (a number or
    a size while tracing), or ``"?k"`` for an unknown size; ``domain`` is ``(kind, over,
    bound, text)``. Shape checks become ``torch._check`` facts (those on data-dependent
    sizes stay even when ``shapes`` is off: tracing needs them)."""
    if not isinstance(x, _ss_torch.Tensor):
        raise TypeError(f"{where}: expected a tensor {written}, got {type(x).__name__}")
    if sizes is not None and x.dim() != len(sizes):
        raise ShapeError(f"{where}: expected {written}, got rank {x.dim()} "
                         f"(shape {tuple(x.shape)})")
    unknown = {}
    for axis, (have, want) in enumerate(zip(x.shape, sizes or ())):
        if isinstance(want, str):
            if want in unknown:
                if shapes or _ss_ex_unbacked(have):
                    _ss_torch._check(have == unknown[want])
            else:
                unknown[want] = have
                _ss_torch._check(have >= 0)
        elif shapes or _ss_ex_unbacked(have):
            h, w = _ss_ex_hint(have), _ss_ex_hint(want)
            if h is not None and w is not None and h != w:
                # torch would fail too, with "2 not in VR[5, 5]": say what it means.
                raise ShapeError(
                    f"{where}: expected {written}, but axis {axis} is {h} for the example "
                    f"inputs, not {w}: in an exported program `as` can't fix a size that "
                    "comes from the program's inputs")
            _ss_torch._check(have == want)
    if values and domain is not None:
        kind, over, bound, text = domain
        _ss_ex_assert_domain(x, kind, over, bound, f"{where}: expected {text}")
    return x


# -- the export step -------------------------------------------------------------------

_SS_EX_DTYPES = {
    "bool": _ss_torch.bool, "u8": _ss_torch.uint8, "i8": _ss_torch.int8,
    "i16": _ss_torch.int16, "i32": _ss_torch.int32, "i64": _ss_torch.int64,
    "f16": _ss_torch.float16, "bf16": _ss_torch.bfloat16, "f32": _ss_torch.float32,
    "f64": _ss_torch.float64, "Float": _ss_torch.float32, "Int": _ss_torch.int64,
}


def _ss_ex_dims(mins):
    """One ``torch.export.Dim`` per generic axis: ``{name: Dim(name, min=m)}``."""
    from torch.export import Dim
    return {name: Dim(name, min=m) for name, m in mins.items()}


def _ss_ex_example(shape, dtype, domain, device, gen):
    """An example input: ``shape``, ``dtype`` (ShapeScript's name) and values in
    ``domain`` (``(kind, over, bound)`` or None)."""
    dt = _SS_EX_DTYPES[dtype]
    kind, over, bound = domain if domain is not None else ("Real", None, None)
    if dt == _ss_torch.bool:
        x = _ss_torch.rand(shape, generator=gen) > 0.5
    elif not dt.is_floating_point:
        hi = bound if kind == "Index" and bound is not None else (
            256 if dt == _ss_torch.uint8 else 10)
        x = _ss_torch.randint(0, max(int(hi), 1), shape, generator=gen, dtype=dt)
    else:
        x = _ss_torch.randn(shape, generator=gen)
        if kind in ("NonNeg", "Unit"):
            x = _ss_torch.rand(shape, generator=gen)
        elif kind == "Pos":
            x = _ss_torch.rand(shape, generator=gen) + 0.5
        elif kind == "Signed":
            x = _ss_torch.rand(shape, generator=gen) * 2 - 1
        elif kind == "Prob":
            x = _ss_torch.softmax(x, dim=over)
        elif kind == "LogProb":
            x = _ss_torch.log_softmax(x, dim=over)
        x = x.to(dt)
    return x.to(device)


def _ss_ex_refuses_one(ep):
    """Whether a run-time assert of ``ep`` refuses 1 for a size of its inputs: an
    operation that treats 1 specially (a reshape across a permutation, a matmul with a
    transposed operand) adds ``Ne(n, 1)`` even with ``backed_size_oblivious``, and with
    deferred asserts that doesn't fail the export but the program."""
    check = _ss_torch.ops.aten._assert_scalar.default
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target is not check:
            continue
        arg = node.args[0]
        val = arg.meta.get("val") if hasattr(arg, "meta") else None
        if not isinstance(val, _ss_torch.SymBool):
            continue
        shape_env = val.node.shape_env
        expr = val.node.expr
        env = getattr(shape_env, "backed_var_to_val", None)  # torch 2.13's name
        if env is None:
            env = shape_env.var_to_val
        symbols = expr.free_symbols
        if not symbols or any(sym not in env for sym in symbols):
            continue  # a data-dependent size: not about the inputs
        base = {sym: env[sym] for sym in symbols}
        for sym in symbols:
            try:
                if not bool(expr.xreplace({**base, sym: 1})):
                    return True
            except TypeError:
                continue
    return False


def _ss_ex_export(module, args, dynamic_shapes):
    """``torch.export.export`` with torch's ``backed_size_oblivious`` setting, so that
    generic axes can be 1, and without it if that fails or gives a program that refuses
    1 anyway (book ch. 17). Relations between sizes are run-time asserts in the program
    (``prefer_deferred_runtime_asserts_over_guards``), which AOTInductor checks too."""
    import torch.fx.experimental._config as fx_config

    def export():
        return _ss_torch.export.export(module, args, dynamic_shapes=dynamic_shapes,
                                       prefer_deferred_runtime_asserts_over_guards=True)

    oblivious = None
    try:
        with fx_config.patch(backed_size_oblivious=True):
            oblivious = export()
        if not _ss_ex_refuses_one(oblivious):
            return oblivious
    except Exception:
        pass
    try:
        return export()
    except Exception:
        if oblivious is not None:
            return oblivious
        raise


def _ss_ex_replace(tmp, path):
    import os
    try:
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _ss_ex_temp(path):
    import os
    folder = os.path.dirname(os.path.abspath(path))
    # torch wants the name to end with .pt2
    return os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp.pt2")


def _ss_ex_find_cxx():
    """The C++ compiler AOTInductor will run, or None when there is none."""
    import os
    import shutil
    name = os.environ.get("CXX")
    if name:
        return shutil.which(name)
    for cand in ("c++", "g++", "clang++"):
        found = shutil.which(cand)
        if found:
            return found
    return None


_SS_EX_NO_CXX = ("--aoti needs a C++ compiler, and none was found (looked for $CXX, c++, "
                 "g++ and clang++ on PATH); install one, or export without --aoti")


class _SSExportError(Exception):
    """An error of the export step that isn't torch's (no C++ compiler, …)."""


def _ss_ex_save(ep, path, aoti=False):
    """Writes ``ep`` to ``path``: the ``.pt2`` program, or with ``aoti`` an AOTInductor
    package. Nothing is left at ``path`` when it fails."""
    tmp = _ss_ex_temp(path)
    if aoti:
        if _ss_ex_find_cxx() is None:
            raise _SSExportError(_SS_EX_NO_CXX)
        import torch._inductor
        try:
            torch._inductor.aoti_compile_and_package(ep, package_path=tmp)
        except BaseException:
            import os
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    else:
        try:
            _ss_torch.export.save(ep, tmp)
        except BaseException:
            import os
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    _ss_ex_replace(tmp, path)
    return path


def _ss_ex_location(err, filenames, line_map, ss_file):
    """``(file, line, column)`` of the innermost frame of ``err`` (or of the errors it
    came from) in this module's functions, mapped to the ``.ss`` source; else None."""
    import traceback
    seen = set()
    best = None
    e = err
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        for fr in traceback.extract_tb(e.__traceback__):
            if fr.filename in filenames and fr.lineno is not None:
                ss = line_map.get(fr.lineno)
                if ss is not None:
                    best = ss
        e = e.__cause__ or e.__context__
    if best is None:
        return None
    return (ss_file, best[0], best[1])


def _ss_ex_main(export_program, save, ss_file, fn_name, default_output, locate):
    """``python MODULE [-o OUT.pt2] [--aoti]``: exports and writes the program. An error
    from torch prints its message and the ``.ss`` location, and exits 1."""
    import argparse
    import json
    import sys
    import traceback

    p = argparse.ArgumentParser(description=f"Export {fn_name} from {ss_file} with "
                                            "torch.export.")
    p.add_argument("-o", "--output", default=default_output,
                   help=f"where to write the program (default: {default_output})")
    p.add_argument("--aoti", action="store_true",
                   help="write an AOTInductor package (needs a C++ compiler)")
    p.add_argument("--devices", default=None, help="the device of the example inputs")
    p.add_argument("--error-json", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    try:
        if args.aoti and _ss_ex_find_cxx() is None:  # before tracing, which takes a while
            raise _SSExportError(_SS_EX_NO_CXX)
        ep = export_program(args.devices)
        save(ep, args.output, args.aoti)
    except Exception as err:
        where = locate(err)
        kind = "" if isinstance(err, _SSExportError) else f"{type(err).__name__}: "
        message = kind + str(err)
        if args.error_json:
            with open(args.error_json, "w", encoding="utf-8") as f:
                json.dump({"message": message, "location": where,
                           "torch": not isinstance(err, _SSExportError),
                           "traceback": traceback.format_exc()}, f)
        else:
            print(f"error: could not export `{fn_name}`: {message}", file=sys.stderr)
            if where is not None:
                print(f" --> {where[0]}:{where[1]}:{where[2]}", file=sys.stderr)
        sys.exit(1)
