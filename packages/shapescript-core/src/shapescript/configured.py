"""A module compiled with some of its dims set from outside: ``load_module(path, dims=…)``.

A model file fixes its sizes with ``dim`` declarations (``dim D = 64``). To build another
configuration (GPT-2 small or medium) without editing the file, ``load_module`` replaces
the values of the named dims in the source and compiles that: the whole file is checked
again for the new sizes, so a configuration the code can't take (``D`` not divisible by
``H``) is the same diagnostic it would be written in the file, and every size the program
computes from the dims (``dim Dh = D / H``) follows.

The replacement keeps every line where it was, so diagnostics and tracebacks point at the
file as written.
"""

from __future__ import annotations

import os
import types
from typing import Mapping

__all__ = ["load_module", "source_with_dims"]


def source_with_dims(src: str, path: str, dims: Mapping[str, int]) -> str:
    """``src`` with the value of each ``dim`` named in ``dims`` replaced.

    Raises ``ValueError`` for a name the file declares no size dim of (an alias such as
    ``dim Tokens = [b n D]`` has no value to set), a value that isn't a positive int,
    and a file that doesn't parse.

    >>> source_with_dims("dim D = 64\\ndim H = D / 16\\n", "m.ss", {"D": 32})
    'dim D = 32\\ndim H = D / 16\\n'
    """
    from shapescript.syntax import ast
    from shapescript.syntax.parser import parse

    for name, value in dims.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"dims: `{name}` must be a positive int, not {value!r}")
    module, diags = parse(src, path)
    if module is None or any(d.severity == "error" for d in diags):
        raise ValueError(f"{path} doesn't parse: check it with `shapescript check`")
    found: dict[str, tuple[int, int]] = {}
    declared: list[str] = []
    settable: list[str] = []
    for decl in module.decls:
        if isinstance(decl, ast.DimDecl):
            declared.append(decl.name)
            if decl.size is not None:
                settable.append(decl.name)
            if decl.name in dims and decl.size is not None:
                found[decl.name] = (decl.size.span.start, decl.size.span.end)
    missing = [n for n in dims if n not in found]
    if missing:
        name = missing[0]
        why = "an alias of a type, not a size" if name in declared else "no dim of that name"
        sizes = [n for n in settable if n not in dims]
        raise ValueError(f"dims: {os.path.basename(path)} has {why}: `{name}`"
                         + (f" (its dims: {', '.join(sizes)})" if sizes else ""))
    out = src
    # From the end, so the offsets before each replacement stay right.
    for name, (start, end) in sorted(found.items(), key=lambda kv: -kv[1][0]):
        out = out[:start] + str(dims[name]) + out[end:]
    return out


def load_module(path: str | os.PathLike, dims: Mapping[str, int] | None = None, *,
                checks: str | None = None, value_checks: str | None = None) -> types.ModuleType:
    """The ShapeScript file ``path`` compiled and run as a new module, with the dims in
    ``dims`` set to those values (checked again for them).

    Raises ``ShapeScriptError`` (the rendered diagnostics) when it doesn't compile,
    ``ValueError`` for a dim it doesn't declare, and ``OSError`` when it can't be read.
    Modules it imports are found as the import hook finds them (``shapescript.install()``,
    with their folder on ``sys.path``), with their own dims. ``checks`` and
    ``value_checks`` default to the import hook's settings (``install``, then
    ``SHAPESCRIPT_CHECKS`` and ``SHAPESCRIPT_VALUE_CHECKS``, then ``always`` and ``debug``).

    >>> import shapescript  # doctest: +SKIP
    >>> gpt2 = shapescript.load_module("examples/gpt2.ss", dims={"D": 128, "L": 4})  # doctest: +SKIP
    """
    from shapescript import compiler
    from shapescript.errors import ShapeScriptError
    from shapescript.importer import render_diagnostics
    from shapescript.source import read_source

    from shapescript.rt import config

    checks = checks or config.checks_mode()
    value_checks = value_checks or config.value_checks_mode()
    path = os.fspath(path)
    src = read_source(path)
    if dims:
        src = source_with_dims(src, path, dims)
    out = compiler.compile_source(src, path, checks=checks, value_checks=value_checks)
    errors = [d for d in out.diagnostics if d.severity == "error"]
    if out.python is None or errors:
        raise ShapeScriptError(render_diagnostics(out.diagnostics, out.sources),
                               out.diagnostics, out.sources)
    name = os.path.splitext(os.path.basename(path))[0]
    mod = types.ModuleType(name)
    mod.__file__ = path
    exec(compiler.to_code(out, path), mod.__dict__)
    return mod
