"""Symbolic sizes: the normal forms the size prover compares.

A ``Size`` is a polynomial with integer coefficients whose *atoms* are variables
(generic axes, dims kept symbolic in labels, unknowns ``?k``) and opaque floor terms
``floor(num/den)`` whose ``num`` and ``den`` are themselves normal forms. Two sizes are
equal (``==``) iff their normal forms are, which means "provably equal".

Normalisation of a floor division ``num/den`` (``Size.floordiv``):

* the integer content and the common monomial factor of ``num`` and ``den`` cancel
  (``(4n + 8)/4 = n + 2``, ``(k*e)/k = e``, ``(4n + 6)/4 = (2*n + 3)/2``);
* the sign is moved so that ``den``'s leading coefficient is positive;
* a constant by a constant is Python's ``//``; a denominator that divides the numerator
  as a polynomial gives the quotient (``(n*n - 1)/(n - 1) = n + 1``);
* ``(x/a)/b`` with positive constants ``a``, ``b`` is ``x/(a*b)``;
* anything else is an opaque atom: ``(n/2)*2`` is not ``n``, ``(h - 3)/2 + 1`` stays
  as it is until ``h`` is known.

Every rule is an identity wherever the denominators are non-zero, so ``evaluate`` of a
normal form equals evaluating the written expression with Python ints.

Representation: a dict from monomials to non-zero integer coefficients, never mutated
after construction. A monomial is a sorted tuple of atoms (repeated for powers; ``()``
is the constant monomial). Atoms are ``str`` (variables) or ``Floor``; variables sort
before floor atoms, floor atoms by their normal forms.
"""

from __future__ import annotations

import re
from math import gcd
from typing import Callable, Mapping

from shapescript.check.fail import Fail
from shapescript.check.monomials import (
    Floor, divexact, leading, mono_div, mono_gcd, mono_mul, neg_dict,
)
from shapescript.check.size_text import format_sum, src_atom
from shapescript import error_codes as ec

__all__ = ["Size", "SizeTooLarge", "ZERO", "coerce_size", "size_op"]

# A product whose normal form has more terms than this, or a coefficient beyond what a
# tensor's size can be (int64), is refused: left alone, a chain of squares
# (`dim D1 = D0*D0`, `dim D2 = D1*D1` …) or a product of long sums grows exponentially
# and the checker would never finish; and every term of a size is spelled out in the
# run-time checks generated for it, so even a few hundred make a module slow to compile.
MAX_TERMS = 128
MAX_COEFFICIENT = 2**63


class SizeTooLarge(Fail):
    """E0305: a size whose normal form is too large to compute with."""

    def __init__(self, why: str) -> None:
        super().__init__(ec.E0305, f"a size too large to compute with: {why}",
                         "this size", help="sizes are int64: keep them below 2**63, and "
                                           "products of sums short")


def _check_product(d: dict) -> None:
    if len(d) > MAX_TERMS:
        raise SizeTooLarge(f"its expansion has more than {MAX_TERMS:,} terms")
    for c in d.values():
        if not -MAX_COEFFICIENT < c < MAX_COEFFICIENT:
            raise SizeTooLarge("it is 2**63 or more")


_SIMPLE_PY = re.compile(r"[\w.]+(?:\[[^\[\]]*\])*")


# ---------------------------------------------------------------------------


class Size:
    """An immutable, hashable size normal form. Build with ``Size.const``/``Size.var``
    and the operators ``+ - *`` (with ``Size`` or ``int``) and ``floordiv`` (also ``//``).

    ``==`` means "same normal form" (provably equal); a constant size also equals the
    ``int`` it holds (and hashes like it).
    """

    __slots__ = ("_d", "_h", "_fv", "_k", "_s")

    def __init__(self, d: dict) -> None:
        # Internal: ``d`` maps monomials to non-zero ints and is never mutated after.
        self._d = d
        self._h: int | None = None
        self._fv: frozenset[str] | None = None
        self._k: tuple | None = None
        self._s: str | None = None

    # -- construction -------------------------------------------------------

    @staticmethod
    def const(v: int) -> Size:
        if type(v) is not int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"a size constant must be an int, not {type(v).__name__}")
            v = int(v)
        s = _CONSTS.get(v)
        if s is None:
            s = Size({(): v} if v else {})
            if -64 <= v <= 1024:
                _CONSTS[v] = s
        return s

    @staticmethod
    def var(name: str) -> Size:
        s = _VARS.get(name)
        if s is None:
            if not isinstance(name, str) or not name:
                raise ValueError(f"a size variable needs a non-empty name, not {name!r}")
            s = Size({(name,): 1})
            if len(_VARS) < 100_000:
                _VARS[name] = s
        return s

    # -- arithmetic ---------------------------------------------------------

    def __add__(self, other: Size | int) -> Size:
        if type(other) is int:
            if not other:
                return self
            d = dict(self._d)
            c = d.get((), 0) + other
            if c:
                d[()] = c
            else:
                del d[()]
            return Size(d)
        o = other if type(other) is Size else coerce_size(other)
        if o is None:
            return NotImplemented
        od = o._d
        if not od:
            return self
        if not self._d:
            return o
        d = dict(self._d)
        for m, c in od.items():
            c += d.get(m, 0)
            if c:
                d[m] = c
            else:
                del d[m]
        return Size(d)

    __radd__ = __add__

    def __neg__(self) -> Size:
        if not self._d:
            return self
        return Size(neg_dict(self._d))

    def __pos__(self) -> Size:
        return self

    def __sub__(self, other: Size | int) -> Size:
        if type(other) is int:
            return self.__add__(-other)
        o = other if type(other) is Size else coerce_size(other)
        if o is None:
            return NotImplemented
        if o is self:
            return ZERO
        od = o._d
        if not od:
            return self
        d = dict(self._d)
        for m, c in od.items():
            c = d.get(m, 0) - c
            if c:
                d[m] = c
            else:
                del d[m]
        return Size(d)

    def __rsub__(self, other: Size | int) -> Size:
        o = coerce_size(other)
        if o is None:
            return NotImplemented
        return o.__sub__(self)

    def __mul__(self, other: Size | int) -> Size:
        if type(other) is int:
            return self._scale(other)
        o = other if type(other) is Size else coerce_size(other)
        if o is None:
            return NotImplemented
        a = self._d
        b = o._d
        if not a or not b:
            return ZERO
        if len(b) == 1 and () in b:
            return self._scale(b[()])
        if len(a) == 1 and () in a:
            return o._scale(a[()])
        d: dict = {}
        for m1, c1 in a.items():
            for m2, c2 in b.items():
                m = mono_mul(m1, m2)
                c = d.get(m, 0) + c1 * c2
                if c:
                    d[m] = c
                else:
                    del d[m]
        _check_product(d)
        return Size(d)

    __rmul__ = __mul__

    def _scale(self, k: int) -> Size:
        if k == 1:
            return self
        if k == 0 or not self._d:
            return ZERO
        d = {m: c * k for m, c in self._d.items()}
        _check_product(d)
        return Size(d)

    def floordiv(self, other: Size | int) -> Size:
        """Floor division (size-context ``/``), normalised as the module doc says.
        Raises ``ZeroDivisionError`` for a denominator that is the constant 0."""
        o = coerce_size(other)
        if o is None:
            raise TypeError(f"cannot divide a size by {type(other).__name__}")
        if o == 1:
            return self
        return _floordiv(self._d, o._d)

    def __floordiv__(self, other: Size | int) -> Size:
        if coerce_size(other) is None:
            return NotImplemented
        return self.floordiv(other)

    def __rfloordiv__(self, other: Size | int) -> Size:
        o = coerce_size(other)
        if o is None:
            return NotImplemented
        return o.floordiv(self)

    # -- comparison ---------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is Size:
            return self._d == other._d
        if type(other) is int:
            d = self._d
            if not d:
                return other == 0
            return len(d) == 1 and d.get(()) == other
        if isinstance(other, Size):
            return self._d == other._d
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        h = self._h
        if h is None:
            d = self._d
            if not d:
                h = 0
            elif len(d) == 1 and () in d:
                h = hash(d[()])  # equal to the int it holds
            else:
                h = hash(frozenset(d.items()))
            self._h = h
        return h

    def _skey(self) -> tuple:
        k = self._k
        if k is None:
            k = self._k = tuple(sorted(self._d.items()))
        return k

    def sort_key(self) -> tuple:
        """A total, deterministic ordering key (for sorting sizes in messages)."""
        return self._skey()

    # -- inspection ---------------------------------------------------------

    @property
    def is_const(self) -> bool:
        d = self._d
        return not d or (len(d) == 1 and () in d)

    @property
    def const_value(self) -> int | None:
        d = self._d
        if not d:
            return 0
        if len(d) == 1:
            return d.get(())
        return None

    @property
    def var_name(self) -> str | None:
        """The name if this size is exactly one variable, else None."""
        d = self._d
        if len(d) == 1:
            for m, c in d.items():
                if c == 1 and len(m) == 1 and type(m[0]) is str:
                    return m[0]
        return None

    def free_vars(self) -> frozenset[str]:
        fv = self._fv
        if fv is None:
            names: set[str] = set()
            for m in self._d:
                for a in m:
                    if type(a) is str:
                        names.add(a)
                    else:
                        names |= a.free_vars()
            if len(names) == 1:  # one shared set a name: a large file has many sizes
                (name,) = names
                fv = _ONE_VAR.get(name)
                if fv is None:
                    fv = frozenset(names)
                    if len(_ONE_VAR) < 100_000:
                        _ONE_VAR[name] = fv
            else:
                fv = _NO_VARS if not names else frozenset(names)
            self._fv = fv
        return fv

    def has_floor(self) -> bool:
        return any(type(a) is Floor for m in self._d for a in m)

    def linear(self) -> tuple[str, int, int] | None:
        """``(n, a, c)`` if this is ``a*n + c`` with one variable ``n``, ``a != 0`` and
        no floor terms; else None."""
        d = self._d
        if not d or len(d) > 2:
            return None
        name = None
        a = 0
        c = 0
        for m, k in d.items():
            if not m:
                c = k
            elif len(m) == 1 and type(m[0]) is str and name is None:
                name = m[0]
                a = k
            else:
                return None
        if name is None:
            return None
        return (name, a, c)

    def lower_bound(self) -> int | None:
        """A lower bound, taking variables ``?k`` to be >= 0 and other variables >= 1;
        None unless every non-constant term has a positive coefficient (``n - 1`` has
        the bound 0, ``n - k`` none)."""
        total = 0
        for m, c in self._d.items():
            if c < 0 and m:
                return None
            v = c
            # Every factor is >= 0, so the term is at least the product of the bounds.
            for a in m:
                if type(a) is str:
                    if a.startswith("?"):
                        v = 0
                else:
                    lb = a.num.lower_bound()
                    if lb is None or lb < 0:
                        return None
                    dv = a.den.const_value
                    if dv is not None and dv > 0:
                        v *= lb // dv
                    else:
                        dl = a.den.lower_bound()
                        if dl is None or dl < 1:
                            return None
                        v = 0
            total += v
        return total

    def provably_nonneg(self) -> bool:
        lb = self.lower_bound()
        return lb is not None and lb >= 0

    def provably_pos(self) -> bool:
        lb = self.lower_bound()
        return lb is not None and lb >= 1

    # -- substitution and evaluation ---------------------------------------

    def substitute(self, env: Mapping[str, Size | int]) -> Size:
        """Replace variables by sizes (or ints) and re-normalise."""
        fv = self.free_vars()
        if not fv or not any(n in env for n in fv):
            return self
        # Fast path: every variable gets an int, so the result is a constant.
        for n in fv:
            if type(env.get(n)) is not int:
                break
        else:
            return Size.const(self.evaluate(env))  # type: ignore[arg-type]
        kept: dict = {}
        changed: list[Size] = []
        for m, c in self._d.items():
            touched = False
            for a in m:
                if a in env if type(a) is str else any(n in env for n in a.free_vars()):
                    touched = True
                    break
            if not touched:
                kept[m] = c
                continue
            t: Size = Size.const(c)
            for a in m:
                if type(a) is str:
                    v = env.get(a)
                    new: Size | None
                    if v is None:
                        new = Size.var(a)
                    else:
                        new = v if type(v) is Size else coerce_size(v)
                        if new is None:
                            raise TypeError(f"cannot substitute {type(v).__name__} for {a}")
                else:
                    new = a.num.substitute(env).floordiv(a.den.substitute(env))
                t = t * new
            changed.append(t)
        total = Size(kept) if kept else ZERO
        for t in changed:
            total = total + t
        return total

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value under ``env`` (KeyError for a missing variable, ZeroDivisionError
        for a zero denominator)."""
        total = 0
        for m, c in self._d.items():
            for a in m:
                if type(a) is str:
                    c *= env[a]
                else:
                    c *= a.num.evaluate(env) // a.den.evaluate(env)
            total += c
        return total

    # -- printing -----------------------------------------------------------

    def __str__(self) -> str:
        s = self._s
        if s is None:
            s = self._s = format_sum(self, src_atom, "/")
        return s

    def __repr__(self) -> str:
        return f"Size({str(self)!r})"

    def __reduce__(self):
        # Hashes of strings differ between processes: rebuild, never restore them.
        return (Size, (self._d,))

    def __copy__(self) -> Size:
        return self

    def __deepcopy__(self, memo: dict) -> Size:
        return self

    def to_python(self, name_of: Callable[[str], str]) -> str:
        """A Python expression computing this size; floor division is ``//`` and
        ``name_of`` maps a variable to a Python expression."""

        def atom(name: str) -> str:
            e = name_of(name)
            return e if _SIMPLE_PY.fullmatch(e) else f"({e})"

        return format_sum(self, atom, "//")


ZERO = Size({})
_CONSTS: dict[int, Size] = {0: ZERO}
_VARS: dict[str, Size] = {}
_ONE_VAR: dict[str, frozenset[str]] = {}
_NO_VARS: frozenset[str] = frozenset()


def size_op(op: str, a: Size, b: Size) -> Size | None:
    """``a op b`` for a size expression's ``+ - *`` and its ``/``, ``//`` (floor
    division); None for a division by the constant 0.

    >>> str(size_op("*", Size.var("n"), Size.const(2))), size_op("/", Size.var("n"), Size.const(0))
    ('2*n', None)
    """
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b.is_const and b.const_value == 0:
        return None
    return a.floordiv(b)


def coerce_size(x: object) -> Size | None:
    if type(x) is Size:
        return x
    if type(x) is int:
        return Size.const(x)
    if isinstance(x, Size):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return Size.const(int(x))
    return None


def _floordiv(nd: dict, dd: dict) -> Size:
    if not dd:
        raise ZeroDivisionError("size division by zero")
    if not nd:
        return ZERO
    # Both constant: Python's floor division.
    if len(dd) == 1 and () in dd:
        dc = dd[()]
        if dc == 1:
            return Size(nd)
        if len(nd) == 1 and () in nd:
            return Size.const(nd[()] // dc)
    # Cancel the integer content and the common monomial factor.
    g = 0
    for c in dd.values():
        g = gcd(g, c)
    if g != 1:
        for c in nd.values():
            g = gcd(g, c)
            if g == 1:
                break
    common: tuple | None = None
    for m in dd:
        common = m if common is None else mono_gcd(common, m)
        if not common:
            break
    if common:
        for m in nd:
            common = mono_gcd(common, m)
            if not common:
                break
    if g != 1 or common:
        cm = common or ()
        nd = {mono_div(m, cm): c // g for m, c in nd.items()}
        dd = {mono_div(m, cm): c // g for m, c in dd.items()}
    # A positive leading coefficient in the denominator.
    if dd[leading(dd)] < 0:
        nd = neg_dict(nd)
        dd = neg_dict(dd)
    if len(dd) == 1 and () in dd:
        dc = dd[()]
        if dc == 1:
            return Size(nd)
        if len(nd) == 1:
            ((m, c),) = nd.items()
            if not m:
                return Size.const(c // dc)
            # (x/a)/b = x/(a*b) for positive constants a, b
            if c == 1 and len(m) == 1 and type(m[0]) is Floor:
                inner = m[0]
                ic = inner.den.const_value
                if ic is not None and ic > 0:
                    return _floordiv(inner.num._d, {(): ic * dc})
    elif len(dd) > 1:
        q = divexact(nd, dd)
        if q is not None:
            return Size(q)
    return Size({(Floor(Size(nd), Size(dd)),): 1})
