"""Walking a checked function's tree for the serving rules: its nodes in source order
(a node the parser shares between two places is met in each), a call's arguments, and
the model field an expression reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shapescript.check.env import FnSig
from shapescript.check.result import CheckedModule
from shapescript.check.types import ModelType
from shapescript.syntax import ast

__all__ = ["body_nodes", "call_args", "children", "field_of", "walk"]


def children(node: Any) -> Iterator[Any]:
    """The nodes directly under ``node``, in field order (not inside nested tuples)."""
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


def walk(node: Any) -> Iterator[Any]:
    """``node`` and every node under it, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


def body_nodes(sig: FnSig) -> Iterator[Any]:
    """Every node of a function's body."""
    decl = sig.decl
    body = decl.body if isinstance(decl, ast.FnDecl) else ()
    for item in (body if isinstance(body, tuple) else (body,)):
        yield from walk(item)


def call_args(e: ast.Call) -> tuple[list[ast.Expr], dict[str, ast.Expr]]:
    """A call's positional arguments and its keywords."""
    pos = [a.value for a in e.args if a.name is None]
    kw = {a.name: a.value for a in e.args if a.name is not None}
    return pos, kw


def field_of(cm: CheckedModule, e: ast.Expr, model_names: set[str]) -> str | None:
    """``m.F`` with ``m`` the model: ``F``."""
    if isinstance(e, ast.Attr) and isinstance(e.value, ast.Name) and e.value.id in model_names:
        t = cm.types.get(id(e.value))
        if isinstance(t, ModelType):
            return e.attr
    return None
