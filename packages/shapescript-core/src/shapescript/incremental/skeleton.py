"""What the other bodies see of a file's declarations: all but a ``fn``'s body. While a
file's skeleton is unchanged, the incremental checker keeps its environment."""

from __future__ import annotations

from typing import Any

from shapescript.syntax import ast


def skeleton_of(decls: tuple[Any, ...]) -> tuple[Any, ...]:
    """What the other bodies see of some declarations: all but a ``fn``'s body, with
    positions left out (identity for the declarations kept from the last parse)."""
    out: list[Any] = []
    for d in decls:
        if isinstance(d, ast.FnDecl):
            out.append(("fn", d.name, d.export, _shape(d.params), _shape(d.ret),
                        isinstance(d.body, tuple)))
        else:
            out.append(("decl", id(d)))
    return tuple(out)


def _shape(node: Any) -> Any:
    """A node's structure without positions, to compare signatures."""
    if isinstance(node, tuple):
        return tuple(_shape(x) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return (type(node).__name__,) + tuple(
            _shape(getattr(node, f)) for f in node.__dataclass_fields__
            if f not in ("span", "name_span", "target_spans"))
    return node
