"""The export step's helpers (``program.py``), as source text.

Everything below the marker line is copied into each export module, after the traced
functions; the module needs only torch and einops. Tests import this file to call the
helpers directly. Above the marker are the names the copy is given from ShapeScript
itself (``program.py`` writes them out): the dtype tables of ``shapescript.vocab`` and
the atomic writer of ``shapescript.files``.

- ``_ss_ex_dims``/``_ss_ex_example``: the ``torch.export.Dim`` of each generic axis and
  the example inputs;
- ``_ss_ex_export``: ``torch.export.export``, with ``backed_size_oblivious`` first;
- ``_ss_ex_save``: the ``.pt2`` or AOTInductor package, written atomically;
- ``_ss_ex_location``/``_ss_ex_main``: the ``.ss`` location of an error; the module's
  command line (``python MODULE -o OUT.pt2 [--aoti]``).
"""

from __future__ import annotations

import torch as _ss_torch

from shapescript.api import WriteError as _ss_ex_WriteError
from shapescript.api import atomic_write_with as _ss_ex_atomic_write_with
from shapescript.api import vocab as _ss_ex_vocab

_SS_EX_TORCH_NAMES = _ss_ex_vocab.TORCH_DTYPE_NAMES
_SS_EX_CLASSES = _ss_ex_vocab.DTYPE_CLASSES

# ---- inlined below ----

_SS_EX_DTYPES = {k: getattr(_ss_torch, v) for k, v in _SS_EX_TORCH_NAMES.items()}
_SS_EX_DTYPES.update({k: _SS_EX_DTYPES[v] for k, v in _SS_EX_CLASSES.items()})


def _ss_ex_dims(mins, maxes=None):
    """One ``torch.export.Dim`` per generic axis: ``{name: Dim(name, min=m, max=M)}``,
    ``M`` where the body's checks bound the axis (a slice of a static axis), else none."""
    from torch.export import Dim
    maxes = maxes or {}
    return {name: Dim(name, min=m, max=maxes.get(name)) for name, m in mins.items()}


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
    1 anyway. Relations between sizes are run-time asserts in the program
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
    import io

    # Into memory first: torch's zip writer ends the process (std::terminate) when a
    # write to a file fails, as on a full disk; Python's write raises an OSError, which
    # the atomic writer reports as the output's.
    buffer = io.BytesIO()
    if aoti:
        if _ss_ex_find_cxx() is None:
            raise _SSExportError(_SS_EX_NO_CXX)
        import torch._inductor

        torch._inductor.aoti_compile_and_package(ep, package_path=buffer)
    else:
        _ss_torch.export.save(ep, buffer)

    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(buffer.getbuffer())

    _ss_ex_atomic_write_with(path, write, suffix=".tmp.pt2")
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
    p.add_argument("--error-fd", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    import signal

    def stop(signum, frame):
        # Unwinds through the atomic writer, which removes its temporary file.
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        if args.aoti and _ss_ex_find_cxx() is None:  # before tracing, which takes a while
            raise _SSExportError(_SS_EX_NO_CXX)
        ep = export_program(args.devices)
        save(ep, args.output, args.aoti)
    except _ss_ex_WriteError as err:
        # The output can't be written (a full disk …): an error of the command, exit 2.
        if args.error_fd is not None:
            with open(args.error_fd, "w", encoding="utf-8", closefd=True) as f:
                json.dump({"write": [err.errno, err.strerror]}, f)
        else:
            print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except Exception as err:
        where = locate(err)
        kind = "" if isinstance(err, _SSExportError) else f"{type(err).__name__}: "
        message = kind + str(err)
        if args.error_fd is not None:
            with open(args.error_fd, "w", encoding="utf-8", closefd=True) as f:
                json.dump({"message": message, "location": where,
                           "torch": not isinstance(err, _SSExportError),
                           "traceback": traceback.format_exc()}, f)
        else:
            print(f"error: could not export `{fn_name}`: {message}", file=sys.stderr)
            if where is not None:
                print(f" --> {where[0]}:{where[1]}:{where[2]}", file=sys.stderr)
        sys.exit(1)
