"""Monomials and raw polynomials: the arithmetic under ``Size``'s normal form.

A monomial is a sorted tuple of atoms (repeated for powers; ``()`` is the constant
monomial); a raw polynomial is a dict from monomials to non-zero integer coefficients.
Atoms are variable names (``str``) or floor atoms; all that is asked of them here is
that they are hashable and totally ordered, with variables before floor atoms.
"""

from __future__ import annotations

from typing import Any

# A ``Size`` (check/sizes.py imports this module, so it is not imported back).
Size = Any

__all__ = [
    "Floor", "mono_mul", "mono_div", "mono_gcd", "leading", "display_key", "neg_dict", "divexact",
]


class Floor:
    """The opaque atom ``floor(num/den)``; ``num`` and ``den`` are normalised ``Size``s
    with no common content and ``den`` not constant 1 (or a non-dividing constant)."""

    __slots__ = ("num", "den", "_h", "_k", "_fv")

    def __init__(self, num: Size, den: Size) -> None:
        self.num = num
        self.den = den
        self._h = hash(("/", num, den))
        self._k: tuple | None = None
        self._fv: frozenset[str] | None = None

    def key(self) -> tuple:
        k = self._k
        if k is None:
            k = self._k = (self.num._skey(), self.den._skey())
        return k

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is Floor:
            return self._h == other._h and self.num == other.num and self.den == other.den
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._h

    def free_vars(self) -> frozenset[str]:
        fv = self._fv
        if fv is None:
            fv = self._fv = self.num.free_vars() | self.den.free_vars()
        return fv

    # Variables (str) sort before floor atoms; floor atoms by their keys.
    def __lt__(self, other: object) -> bool:
        if type(other) is Floor:
            return self.key() < other.key()
        if isinstance(other, str):
            return False
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if type(other) is Floor:
            return self.key() > other.key()
        if isinstance(other, str):
            return True
        return NotImplemented

    def __le__(self, other: object) -> bool:
        return self == other or self.__lt__(other)

    def __ge__(self, other: object) -> bool:
        return self == other or self.__gt__(other)

    def __repr__(self) -> str:
        return f"Floor({self.num!s}, {self.den!s})"

    def __reduce__(self):
        # Hashes of strings differ between processes: rebuild, never restore them.
        return (Floor, (self.num, self.den))



def mono_mul(m1: tuple, m2: tuple) -> tuple:
    if not m1:
        return m2
    if not m2:
        return m1
    if len(m1) == 1 and len(m2) == 1:
        a = m1[0]
        b = m2[0]
        return (b, a) if b < a else (a, b)
    return tuple(sorted(m1 + m2))


def mono_div(m: tuple, d: tuple) -> tuple | None:
    """``m / d`` if the multiset ``d`` is contained in ``m``, else None."""
    if not d:
        return m
    out = []
    i = 0
    n = len(d)
    for a in m:
        if i < n and a == d[i]:
            i += 1
        elif i < n and d[i] < a:
            return None  # d[i] is missing from m
        else:
            out.append(a)
    if i < n:
        return None
    return tuple(out)


def mono_gcd(m1: tuple, m2: tuple) -> tuple:
    out = []
    i = j = 0
    while i < len(m1) and j < len(m2):
        a = m1[i]
        b = m2[j]
        if a == b:
            out.append(a)
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return tuple(out)


def leading(d: dict) -> tuple:
    """The leading monomial in graded lex order (a monomial order): highest degree,
    then the smallest tuple (more of the earlier atoms)."""
    best = None
    for m in d:
        if best is None or len(m) > len(best) or (len(m) == len(best) and m < best):
            best = m
    return best  # type: ignore[return-value]


def display_key(item: tuple) -> tuple:
    m = item[0]
    return (-len(m), m)


# ---------------------------------------------------------------------------
# Polynomial helpers on raw dicts.


def neg_dict(d: dict) -> dict:
    return {m: -c for m, c in d.items()}


def divexact(num: dict, den: dict) -> dict | None:
    """The polynomial quotient ``num / den`` if ``den`` divides ``num`` in Z[atoms],
    else None. ``den`` must be non-empty."""
    if len(den) == 1:
        ((dm, dc),) = den.items()
        q: dict = {}
        for m, c in num.items():
            if c % dc:
                return None
            mq = mono_div(m, dm)
            if mq is None:
                return None
            q[mq] = c // dc
        return q
    lm = leading(den)
    lc = den[lm]
    r = dict(num)
    q = {}
    steps = 0
    while r:
        steps += 1
        if steps > 10_000:  # cannot happen with a monomial order; be safe
            return None
        m = leading(r)
        c = r[m]
        if c % lc:
            return None
        mq = mono_div(m, lm)
        if mq is None:
            return None
        qc = c // lc
        q[mq] = q.get(mq, 0) + qc
        for dm, dc in den.items():
            pm = mono_mul(mq, dm)
            v = r.get(pm, 0) - qc * dc
            if v:
                r[pm] = v
            else:
                r.pop(pm, None)
    return {m: c for m, c in q.items() if c}
