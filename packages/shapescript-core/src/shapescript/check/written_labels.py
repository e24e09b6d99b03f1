"""The label an axis written as a size expression stands for, where a call names an axis
(`over=S/32`): labels are compared in their normal form, so `S/32`, `S / 32` and
`(S/32)` all find the axis a type wrote `S/32`."""

from __future__ import annotations

from shapescript.check.sizes import Size, size_op
from shapescript.syntax import ast

__all__ = ["computed_label"]


def computed_label(v: ast.Expr) -> Size | None:
    """The label of the size expression ``v`` (names, whole numbers, ``+ - * / //``);
    None when ``v`` is anything else. ``S / 32`` gives the label printed ``S/32``."""
    if isinstance(v, ast.Name):
        return Size.var(v.id)
    if isinstance(v, ast.Num):
        return Size.const(v.value) if isinstance(v.value, int) else None
    if isinstance(v, ast.NumName):
        return Size.var(v.name) * v.value
    if isinstance(v, ast.BinOp) and v.op in ("+", "-", "*", "/", "//"):
        a, b = computed_label(v.left), computed_label(v.right)
        return None if a is None or b is None else size_op(v.op, a, b)
    return None
