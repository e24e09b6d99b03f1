"""The runtime's source text without its type annotations, as generated code inlines it.

The runtime is annotated for the type checker; the copies of its helpers in generated
modules (``standalone.py``, the traced modules' helpers) are not: an annotation there
would need its names imported into every generated module, and the copies are
byte-for-byte what they were before the runtime was annotated. ``unannotated`` removes,
by the positions the parser gives them, a parameter's annotation (``x: int = 1`` becomes
``x=1``, the unannotated form), a return annotation (``) -> T:`` becomes ``):``), a
variable's annotation (``x: T = v`` becomes ``x = v``) and ``# type: ignore`` comments.
Everything else, comments and layout included, is kept.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

__all__ = ["unannotated"]

_IGNORE = re.compile(r"[ \t]*# type: ignore(\[[^\]\n]*\])?[^\n]*")


def unannotated(source: str) -> str:
    """``source`` (whole statements) without its annotations and ``# type: ignore``
    comments. An annotated name without a value (``x: int``) has no unannotated form:
    a ``ValueError``."""
    tree = ast.parse(source)
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    lines = source.splitlines(keepends=True)

    def at(lineno: int, col: int) -> int:
        # The parser's columns count UTF-8 bytes.
        return starts[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    def end_of(node: ast.expr) -> int:
        return at(node.end_lineno or node.lineno, node.end_col_offset or 0)

    cuts: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            cuts += _signature_cuts(source, node, at, end_of)
        elif isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise ValueError(f"line {node.lineno}: `{ast.unparse(node)}` declares a "
                                 "name without a value; give it one")
            a = end_of(node.target)
            b = source.index("=", end_of(node.annotation)) + 1
            while source[b] in " \t":
                b += 1
            cuts.append((a, b, " = "))
    out = []
    last = 0
    for a, b, text in sorted(cuts):
        out.append(source[last:a])
        out.append(text)
        last = b
    out.append(source[last:])
    return _IGNORE.sub("", "".join(out))


def _signature_cuts(source: str, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                    at: Callable[[int, int], int], end_of: Callable[[ast.expr], int]
                    ) -> list[tuple[int, int, str]]:
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults: dict[int, ast.expr] = {}
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        defaults[id(arg)] = default
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
        if kw_default is not None:
            defaults[id(arg)] = kw_default
    every = positional + ([args.vararg] if args.vararg else []) + args.kwonlyargs + \
        ([args.kwarg] if args.kwarg else [])
    cuts = []
    for arg in every:
        if arg.annotation is None:
            continue
        a = at(arg.lineno, arg.col_offset) + len(arg.arg)
        if id(arg) in defaults:  # `x: int = 1` -> `x=1`
            b = source.index("=", end_of(arg.annotation)) + 1
            while source[b] in " \t":
                b += 1
            cuts.append((a, b, "="))
        else:
            cuts.append((a, end_of(arg.annotation), ""))
    if fn.returns is not None:
        arrow = source.rindex("->", 0, at(fn.returns.lineno, fn.returns.col_offset))
        while source[arrow - 1] in " \t":
            arrow -= 1
        cuts.append((arrow, end_of(fn.returns), ""))
    return cuts
