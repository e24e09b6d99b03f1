"""E1708: a division whose divisor the checker knows is 0.

Python raises ``ZeroDivisionError`` for a number divided by 0 (and torch for a tensor of
whole numbers under ``//`` or ``%``); when the divisor is a dim, a const, a literal or
sizes that cancel (``n - n``), the checker reports it before the program runs.
"""

from __future__ import annotations

from typing import Any

from shapescript.check.fail import Fail
from shapescript.check.types import HostType, TensorType, Type
from shapescript.syntax import ast
from shapescript.vocab import FLOAT_DTYPES
from shapescript import error_codes as ec

__all__ = ["check_divisor"]


def check_divisor(ck: Any, op: str, a: Type, b: HostType, node: ast.Expr) -> None:
    """Raises E1708 when ``a op b`` (``op`` one of ``/ // %``, ``node`` the expression)
    divides by a ``b`` known to be 0 and would raise when it runs; ``ck``: the
    expression checker (``expr_size`` reads the divisor as a size)."""
    if not _raises_on_zero(op, a) or not _is_zero(ck, b, node):
        return
    right = getattr(node, "right", node)
    raise Fail(ec.E1708, f"division by zero: the divisor of `{op}` is 0 here", "this is 0",
               span=right.span,
               help="its value is known before the program runs; divide by a size that "
                    "can't be 0, or leave the division out")


def _raises_on_zero(op: str, a: Type) -> bool:
    """Whether ``a op 0`` raises when it runs: a host number divided by 0 does, and so
    does a tensor of whole numbers under ``//`` or ``%`` (a float tensor gives inf/NaN)."""
    if isinstance(a, HostType):
        return a.name in ("int", "float", "bool")
    if isinstance(a, TensorType) and op in ("//", "%"):
        return a.dtype not in FLOAT_DTYPES and a.dtype != "Float"
    return False


def _is_zero(ck: Any, b: HostType, node: ast.Expr) -> bool:
    """Whether the divisor ``b`` (the right side of ``node``) is 0 before the program
    runs: a known number, or sizes that cancel."""
    if b.value is not None:
        return not isinstance(b.value, bool) and b.value == 0
    right = getattr(node, "right", None)
    if b.name != "int" or not isinstance(right, ast.BinOp):
        return False
    try:
        size = ck.expr_size(right)
    except (ZeroDivisionError, ValueError, Fail):
        return False
    return size is not None and size.is_const and size.const_value == 0
