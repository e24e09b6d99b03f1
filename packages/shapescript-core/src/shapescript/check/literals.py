"""Literal numbers as the checker reads them where a call needs a value, not a type
(``-1`` included)."""

from __future__ import annotations

from shapescript.syntax import ast

__all__ = ["literal_int", "literal_number"]


def literal_number(e: ast.Expr) -> float | None:
    if isinstance(e, ast.Num) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and e.op == "-":
        v = literal_number(e.operand)
        return None if v is None else -v
    return None


def literal_int(e: ast.Expr) -> int | None:
    """The value of an integer literal, negative ones included (``-1``)."""
    if isinstance(e, ast.Num) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and e.op == "-":
        v = literal_int(e.operand)
        return None if v is None else -v
    return None
