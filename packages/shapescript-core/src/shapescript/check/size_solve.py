"""Solving with sizes: exact division and one linear equation, as the shape rules that
infer a generic size (``n*k == 12`` gives ``k``) and check a reshape need them."""

from __future__ import annotations

from shapescript.check.monomials import divexact
from shapescript.check.sizes import ZERO, Size, coerce_size

__all__ = ["exact_div", "solve_linear"]


def exact_div(num: Size | int, den: Size | int) -> Size | None:
    """``num / den`` if ``den`` provably divides ``num`` (as polynomials over the
    atoms; for constants, as integers), else None (also for a zero ``den``)."""
    n = coerce_size(num)
    d = coerce_size(den)
    if n is None or d is None:
        raise TypeError("exact_div takes sizes or ints")
    if not d._d:
        return None
    if not n._d:
        return ZERO
    q = divexact(n._d, d._d)
    return None if q is None else Size(q)


def solve_linear(expr: Size, value: Size | int) -> tuple[str, Size] | None:
    """Solve ``expr == value`` for the one variable of a linear ``expr = a*n + c``:
    ``(n, (value - c)/a)`` when that division is provably exact, else None."""
    lin = expr.linear()
    if lin is None:
        return None
    n, a, c = lin
    v = coerce_size(value)
    if v is None:
        raise TypeError("solve_linear takes a size or an int value")
    q = exact_div(v - c, a)
    if q is None:
        return None
    return (n, q)
