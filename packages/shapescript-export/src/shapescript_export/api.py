"""``shapescript.export``: check a file, generate its export module, trace it here.

The steps the command shares (``prepare``): read and check the file (its errors raise
``ShapeScriptError``), choose the function (``ValueError`` when it is missing, or when
``fn`` is omitted and the file doesn't have exactly one ``export fn``), check an
unmarked function as an exported one (E17xx), and generate the module (the core's
``generate_traced`` and this package's export step). ``export`` then runs that module
in this Python.
"""

from __future__ import annotations

import contextlib
import itertools
import linecache
import os
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from shapescript_export.errors import ExportError

__all__ = ["Prepared", "export", "prepare", "run_in_process"]


@dataclass
class Prepared:
    """A checked file and the source of its export module."""

    path: str
    fn: str
    source: str
    line: int            # the function's declaration, where no better location is known
    column: int
    sources: dict[str, str]


def prepare(path: str, fn: str | None = None, *, checks: str = "always",
            value_checks: str = "debug", devices: str | None = None,
            option: str = "fn=") -> Prepared:
    """Check ``path`` and generate the export module of ``fn`` (see the module doc)."""
    from shapescript.api import (check_file, choose_function, device_name,
                                 export_diagnostics, generate_traced, internal_error,
                                 shapescript_error)

    from shapescript_export.program import export_module_source

    for name, mode in (("checks", checks), ("value_checks", value_checks)):
        if mode not in ("always", "debug", "never"):
            raise ValueError(f"{name} must be always, debug or never, not {mode!r}")
    if devices is not None:
        device_name(devices)  # ValueError when it isn't a device
    program = check_file(path)
    if not program.ok or program.main is None:
        raise shapescript_error(program.diagnostics, program.sources)
    env = program.main.env
    fn = choose_function(env, path, fn, option)
    extra = export_diagnostics(env, fn)
    if any(d.is_error for d in extra):
        raise shapescript_error(extra, program.sources)
    try:
        traced = generate_traced(program, fn, checks=checks, value_checks=value_checks,
                                 devices=devices, path=path)
        source = export_module_source(traced, env.fns[fn], env.path)
    except Exception as err:  # a code generator bug: one diagnostic
        raise shapescript_error([internal_error(path, err)], program.sources) from err
    decl = env.fns[fn].decl
    return Prepared(path, fn, source, decl.span.line, decl.span.col, program.sources)


_COUNT = itertools.count(1)


@contextlib.contextmanager
def load_module(prep: Prepared) -> Iterator[dict[str, Any]]:
    """Runs the export module's source as a fresh module (nothing is traced yet), and
    gives its namespace.

    It is compiled under a name of its own, whose lines ``linecache`` knows, so that a
    traceback shows the generated code; its errors get the ``.ss`` location as a note.
    While in use it is in ``sys.modules``, where Dynamo (which traces ``torch.cond``'s
    and ``torch.while_loop``'s functions) looks up their globals.
    """
    filename = f"<shapescript export {os.path.basename(prep.path)}:{prep.fn}>"
    linecache.cache[filename] = (len(prep.source), None, prep.source.splitlines(True),
                                 filename)
    name = f"_shapescript_export_{next(_COUNT)}_{prep.fn}"
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(compile(prep.source, filename, "exec"), module.__dict__)
        yield module.__dict__
    finally:
        sys.modules.pop(name, None)


def _location_note(ns: dict[str, Any], prep: Prepared, err: BaseException) -> str:
    where = ns["_ss_locate"](err)
    if where is None:
        where = (prep.path, prep.line, prep.column)
    return f"while exporting `{prep.fn}` at {where[0]}:{where[1]}:{where[2]}"


def run_in_process(prep: Prepared, output: str | None = None, aoti: bool = False) -> Any:
    """Traces the prepared module here: the ``ExportedProgram``, also written to
    ``output`` when given."""
    with load_module(prep) as ns:
        try:
            ep = ns["export_program"]()
        except Exception as err:
            err.add_note(_location_note(ns, prep, err))
            raise
        if output is not None:
            save_program(ns, ep, output, aoti)
    return ep


def save_program(ns: dict[str, Any], ep: Any, output: str, aoti: bool = False) -> None:
    """Writes ``ep`` with the loaded export module ``ns``'s ``save`` (the ``.pt2``, or an
    AOTInductor package), its own errors as ``ExportError``, an output it can't write as ``WriteError``."""
    from shapescript.api import WriteError

    try:
        ns["save"](ep, output, aoti)
    except ns["_SSExportError"] as err:
        raise ExportError(str(err)) from None
    except ns["_ss_ex_WriteError"] as err:  # the module's copy of the writer's error
        raise WriteError(err.errno, err.strerror, err.filename) from None


def export(path: str, fn: str | None = None, output: str | None = None, *, aoti: bool = False,
           checks: str = "always", value_checks: str = "debug",
           devices: str | None = None, weights: Any = None, seed: int | None = None) -> Any:
    """See ``shapescript_export.export``."""
    if aoti and output is None:
        raise ValueError("aoti=True needs an output path for the AOTInductor package")
    from shapescript_export.model_program import export_model, takes_model

    if takes_model(path, fn):
        return export_model(path, fn, output, weights=weights, seed=seed or 0, aoti=aoti,
                            checks=checks, value_checks=value_checks, devices=devices)
    if weights is not None or seed is not None:
        raise ValueError(f"weights= and seed= need a function that takes the model first "
                         f"(`{fn}` doesn't)")
    prep = prepare(path, fn, checks=checks, value_checks=value_checks, devices=devices)
    if aoti:
        from shapescript_export.runner import find_cxx

        if find_cxx() is None:  # before tracing, which takes a while
            raise ExportError("aoti=True needs a C++ compiler, and none was found (looked "
                              "for $CXX, c++, g++ and clang++ on PATH)")
    return run_in_process(prep, output, aoti)
