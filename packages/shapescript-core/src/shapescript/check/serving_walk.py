"""Walking a checked function's tree for the serving rules: its nodes in source order (a
node the parser shares between two places is met in each) and its returns, leaving out
what can't run (the branches a known condition rules out, check/known.py, and what follows
a branch it takes that returns); a call's arguments, and the model field an expression
reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shapescript.check.env import FnSig
from shapescript.check.known import live_bodies, live_statement, reachable
from shapescript.check.result import CheckedModule
from shapescript.check.types import ModelType
from shapescript.syntax import ast

__all__ = ["body_nodes", "call_args", "children", "field_of", "returns_of", "walk"]


def children(node: Any, res: dict[ast.Node, Any] | None = None) -> Iterator[Any]:
    """The nodes directly under ``node``; with ``res``, only the branches that can run."""
    if res is not None and isinstance(node, ast.If) and node in res:
        # A branch a const rules out (`if tied:`) is no part of what an engine runs.
        for body in live_bodies(res, node):
            yield from reachable(res, body)
        return
    for name in getattr(node, "__dataclass_fields__", {}):
        if name == "span":
            continue
        v = getattr(node, name)
        if isinstance(v, tuple):
            for x in v:
                if hasattr(x, "__dataclass_fields__"):
                    yield x
        elif hasattr(v, "__dataclass_fields__"):
            yield v


def walk(node: Any, res: dict[ast.Node, Any] | None = None) -> Iterator[Any]:
    """``node`` and every node under it, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n, res))))


def body_nodes(sig: FnSig, cm: CheckedModule) -> Iterator[Any]:
    """Every node of ``sig``'s body that can run."""
    decl = sig.decl
    body = decl.body if isinstance(decl, ast.FnDecl) else ()
    for item in (reachable(cm.res, body) if isinstance(body, tuple) else (body,)):
        yield from walk(item, cm.res)


def returns_of(body: tuple[ast.Stmt, ...], res: dict[ast.Node, Any]) -> list[ast.Return]:
    """The returns of ``body`` that can run (not those a const rules out, nor those after
    a branch a const takes that returns)."""
    found: list[ast.Return] = []
    for s in reachable(res, body):
        if isinstance(s, ast.Return):
            found.append(s)
        elif isinstance(s, ast.If):
            live = live_statement(res, s)
            if not isinstance(live, ast.If):
                found += returns_of(live, res)
                continue
            for b in live_bodies(res, s):
                found += returns_of(b, res)
        elif isinstance(s, (ast.For, ast.With)):
            found += returns_of(s.body, res)
    return found


def call_args(e: ast.Call) -> tuple[list[ast.Expr], dict[str, ast.Expr]]:
    """A call's positional arguments and its keywords."""
    pos = [a.value for a in e.args if a.name is None]
    kw = {a.name: a.value for a in e.args if a.name is not None}
    return pos, kw


def field_of(cm: CheckedModule, e: ast.Expr, model_names: set[str]) -> str | None:
    """``m.F`` with ``m`` the model: ``F``."""
    if isinstance(e, ast.Attr) and isinstance(e.value, ast.Name) and e.value.id in model_names:
        t = cm.types.get(e.value)
        if isinstance(t, ModelType):
            return e.attr
    return None
