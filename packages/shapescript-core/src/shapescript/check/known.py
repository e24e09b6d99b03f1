"""Conditions known when checking: an ``if`` on a ``const bool`` (``if tied:``), on a
comparison of consts, dims and literals (``if H == Hkv:``), or ``not``, ``and``, ``or``
of those. The branch such a condition rules out is still checked for types, so flipping
the const never reveals an error, but nothing else sees it: code generation leaves it
out, and the export and serving rules don't hold it to theirs.

Only names the checker resolved to a const or a dim count: a local holding a bool is
not known here, since a loop may change it."""

from __future__ import annotations

import operator
from typing import Any, Callable

from shapescript.check.resolutions import ConstName, DimName, KnownIf
from shapescript.syntax import ast

__all__ = ["known_value", "known_if", "live_bodies", "live_statement", "reachable"]

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}


def known_value(res: dict[ast.Node, Any], e: ast.Expr) -> int | float | bool | str | None:
    """The value of ``e`` when the checker knows it (``None`` otherwise), from the
    resolutions recorded for its names."""
    if isinstance(e, (ast.Bool, ast.Num)):
        return e.value
    if isinstance(e, (ast.Name, ast.Attr)):
        r = res.get(e)
        return r.value if isinstance(r, (ConstName, DimName)) else None
    if isinstance(e, ast.UnaryOp):
        v = known_value(res, e.operand)
        if v is None or isinstance(v, str):
            return None
        return (not v) if e.op == "not" else -v
    if isinstance(e, ast.BoolOp):
        a, b = known_value(res, e.left), known_value(res, e.right)
        if not isinstance(a, bool) or not isinstance(b, bool):
            return None
        return (a and b) if e.op == "and" else (a or b)
    if isinstance(e, ast.Compare):
        a, b = known_value(res, e.left), known_value(res, e.right)
        if a is None or b is None or isinstance(a, str) != isinstance(b, str):
            return None
        return _COMPARE[e.op](a, b)
    return None


def known_if(res: dict[ast.Node, Any], s: ast.If) -> KnownIf | None:
    """Which branches of ``s`` its known conditions rule out (branch ``i``, or
    ``len(s.branches)`` for ``else``), and the one they take if any; None when the first
    condition isn't known. The branches after the first unknown condition stay."""
    dead: set[int] = set()
    for i, br in enumerate(s.branches):
        v = known_value(res, br.cond)
        if not isinstance(v, bool):
            return KnownIf(None, frozenset(dead)) if dead else None
        if v:
            rest = set(range(i + 1, len(s.branches) + 1))
            return KnownIf(i, frozenset(dead | rest))
        dead.add(i)
    return KnownIf(len(s.branches) if s.orelse is not None else None, frozenset(dead))


def live_bodies(res: dict[ast.Node, Any], s: ast.If) -> list[tuple[ast.Stmt, ...]]:
    """The bodies of ``s`` its known conditions leave, ``else`` last."""
    k = res.get(s)
    dead = k.dead if isinstance(k, KnownIf) else frozenset()
    bodies = [br.body for i, br in enumerate(s.branches) if i not in dead]
    if s.orelse is not None and len(s.branches) not in dead:
        bodies.append(s.orelse)
    return bodies


def live_statement(res: dict[ast.Node, Any], s: ast.If) -> ast.If | tuple[ast.Stmt, ...]:
    """``s`` as code generation writes it: the body of the branch its known conditions
    take, when those before it are ruled out too; else ``s`` without the branches they
    rule out (``()`` when none is left)."""
    k = res.get(s)
    if not isinstance(k, KnownIf):
        return s
    n = len(s.branches)
    if k.taken is not None and all(i in k.dead for i in range(k.taken)):
        return s.orelse or () if k.taken == n else s.branches[k.taken].body
    branches = tuple(br for i, br in enumerate(s.branches) if i not in k.dead)
    orelse = s.orelse if n not in k.dead else None
    if not branches:
        return orelse or ()
    return ast.If(branches, orelse, s.span)


def reachable(res: dict[ast.Node, Any], body: tuple[ast.Stmt, ...]) -> tuple[ast.Stmt, ...]:
    """``body`` up to the ``if`` whose known conditions take a branch that returns: what
    follows it never runs."""
    for k, s in enumerate(body):
        if isinstance(s, ast.If):
            live = live_statement(res, s)
            if not isinstance(live, ast.If) and live and isinstance(live[-1], ast.Return):
                return body[:k + 1]
    return body
