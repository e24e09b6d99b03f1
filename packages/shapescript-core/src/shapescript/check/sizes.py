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
is the constant monomial). Atoms are ``str`` (variables) or ``_Floor``; variables sort
before floor atoms, floor atoms by their normal forms.
"""

from __future__ import annotations

import re
from math import gcd
from typing import Callable, Mapping

from shapescript.check.fail import Fail

__all__ = ["Size", "SizeTooLarge", "solve_linear", "exact_div"]

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
        super().__init__("E0305", f"a size too large to compute with: {why}",
                         "this size", help="sizes are int64: keep them below 2**63, and "
                                           "products of sums short")


def _check_product(d: dict) -> None:
    if len(d) > MAX_TERMS:
        raise SizeTooLarge(f"its expansion has more than {MAX_TERMS:,} terms")
    for c in d.values():
        if not -MAX_COEFFICIENT < c < MAX_COEFFICIENT:
            raise SizeTooLarge("it is 2**63 or more")


class _Floor:
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
        if type(other) is _Floor:
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
        if type(other) is _Floor:
            return self.key() < other.key()
        if isinstance(other, str):
            return False
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if type(other) is _Floor:
            return self.key() > other.key()
        if isinstance(other, str):
            return True
        return NotImplemented

    def __le__(self, other: object) -> bool:
        return self == other or self.__lt__(other)

    def __ge__(self, other: object) -> bool:
        return self == other or self.__gt__(other)

    def __repr__(self) -> str:
        return f"_Floor({self.num!s}, {self.den!s})"

    def __reduce__(self):
        # Hashes of strings differ between processes: rebuild, never restore them.
        return (_Floor, (self.num, self.den))


# ---------------------------------------------------------------------------
# Monomials: sorted tuples of atoms.


def _mono_mul(m1: tuple, m2: tuple) -> tuple:
    if not m1:
        return m2
    if not m2:
        return m1
    if len(m1) == 1 and len(m2) == 1:
        a = m1[0]
        b = m2[0]
        return (b, a) if b < a else (a, b)
    return tuple(sorted(m1 + m2))


def _mono_div(m: tuple, d: tuple) -> tuple | None:
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


def _mono_gcd(m1: tuple, m2: tuple) -> tuple:
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


def _lead(d: dict) -> tuple:
    """The leading monomial in graded lex order (a monomial order): highest degree,
    then the smallest tuple (more of the earlier atoms)."""
    best = None
    for m in d:
        if best is None or len(m) > len(best) or (len(m) == len(best) and m < best):
            best = m
    return best  # type: ignore[return-value]


def _display_key(item: tuple) -> tuple:
    m = item[0]
    return (-len(m), m)


# ---------------------------------------------------------------------------
# Polynomial helpers on raw dicts.


def _neg_dict(d: dict) -> dict:
    return {m: -c for m, c in d.items()}


def _divexact(num: dict, den: dict) -> dict | None:
    """The polynomial quotient ``num / den`` if ``den`` divides ``num`` in Z[atoms],
    else None. ``den`` must be non-empty."""
    if len(den) == 1:
        ((dm, dc),) = den.items()
        q = {}
        for m, c in num.items():
            if c % dc:
                return None
            mq = _mono_div(m, dm)
            if mq is None:
                return None
            q[mq] = c // dc
        return q
    lm = _lead(den)
    lc = den[lm]
    r = dict(num)
    q: dict = {}
    steps = 0
    while r:
        steps += 1
        if steps > 10_000:  # cannot happen with a monomial order; be safe
            return None
        m = _lead(r)
        c = r[m]
        if c % lc:
            return None
        mq = _mono_div(m, lm)
        if mq is None:
            return None
        qc = c // lc
        q[mq] = q.get(mq, 0) + qc
        for dm, dc in den.items():
            pm = _mono_mul(mq, dm)
            v = r.get(pm, 0) - qc * dc
            if v:
                r[pm] = v
            else:
                r.pop(pm, None)
    return {m: c for m, c in q.items() if c}


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
        o = other if type(other) is Size else _coerce(other)
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
        return Size(_neg_dict(self._d))

    def __pos__(self) -> Size:
        return self

    def __sub__(self, other: Size | int) -> Size:
        if type(other) is int:
            return self.__add__(-other)
        o = other if type(other) is Size else _coerce(other)
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
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return o.__sub__(self)

    def __mul__(self, other: Size | int) -> Size:
        if type(other) is int:
            return self._scale(other)
        o = other if type(other) is Size else _coerce(other)
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
                m = _mono_mul(m1, m2)
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
        o = _coerce(other)
        if o is None:
            raise TypeError(f"cannot divide a size by {type(other).__name__}")
        if o == 1:
            return self
        return _floordiv(self._d, o._d)

    def __floordiv__(self, other: Size | int) -> Size:
        if _coerce(other) is None:
            return NotImplemented
        return self.floordiv(other)

    def __rfloordiv__(self, other: Size | int) -> Size:
        o = _coerce(other)
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
            fv = self._fv = frozenset(names)
        return fv

    def has_floor(self) -> bool:
        return any(type(a) is _Floor for m in self._d for a in m)

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
                    if v is None:
                        new = Size.var(a)
                    else:
                        new = v if type(v) is Size else _coerce(v)
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
            s = self._s = _fmt_sum(self, _src_atom, "/")
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

        return _fmt_sum(self, atom, "//")


ZERO = Size({})
_CONSTS: dict[int, Size] = {0: ZERO}
_VARS: dict[str, Size] = {}


def _coerce(x: object) -> Size | None:
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
        common = m if common is None else _mono_gcd(common, m)
        if not common:
            break
    if common:
        for m in nd:
            common = _mono_gcd(common, m)
            if not common:
                break
    if g != 1 or common:
        cm = common or ()
        nd = {_mono_div(m, cm): c // g for m, c in nd.items()}  # type: ignore[misc]
        dd = {_mono_div(m, cm): c // g for m, c in dd.items()}  # type: ignore[misc]
    # A positive leading coefficient in the denominator.
    if dd[_lead(dd)] < 0:
        nd = _neg_dict(nd)
        dd = _neg_dict(dd)
    if len(dd) == 1 and () in dd:
        dc = dd[()]
        if dc == 1:
            return Size(nd)
        if len(nd) == 1:
            ((m, c),) = nd.items()
            if not m:
                return Size.const(c // dc)
            # (x/a)/b = x/(a*b) for positive constants a, b
            if c == 1 and len(m) == 1 and type(m[0]) is _Floor:
                inner = m[0]
                ic = inner.den.const_value
                if ic is not None and ic > 0:
                    return _floordiv(inner.num._d, {(): ic * dc})
    elif len(dd) > 1:
        q = _divexact(nd, dd)
        if q is not None:
            return Size(q)
    return Size({(_Floor(Size(nd), Size(dd)),): 1})


def exact_div(num: Size | int, den: Size | int) -> Size | None:
    """``num / den`` if ``den`` provably divides ``num`` (as polynomials over the
    atoms; for constants, as integers), else None (also for a zero ``den``)."""
    n = _coerce(num)
    d = _coerce(den)
    if n is None or d is None:
        raise TypeError("exact_div takes sizes or ints")
    if not d._d:
        return None
    if not n._d:
        return ZERO
    q = _divexact(n._d, d._d)
    return None if q is None else Size(q)


def solve_linear(expr: Size, value: Size | int) -> tuple[str, Size] | None:
    """Solve ``expr == value`` for the one variable of a linear ``expr = a*n + c``:
    ``(n, (value - c)/a)`` when that division is provably exact, else None."""
    lin = expr.linear()
    if lin is None:
        return None
    n, a, c = lin
    v = _coerce(value)
    if v is None:
        raise TypeError("solve_linear takes a size or an int value")
    q = exact_div(v - c, a)
    if q is None:
        return None
    return (n, q)


# ---------------------------------------------------------------------------
# Printing. The source form uses the size grammar (no powers, no unary
# minus where a positive term can lead); Python uses the same shape with ``//``.


def _src_atom(name: str) -> str:
    # An unknown is numbered where it is made (`?k#5`) so that two never meet; a message
    # shows it as written.
    return name.partition("#")[0]


def _fmt_floor(f: _Floor, atom: Callable[[str], str], div: str) -> str:
    num = f.num
    nd = num._d
    ns = _fmt_sum(num, atom, div)
    if len(nd) > 1 or any(c < 0 for c in nd.values()):
        ns = f"({ns})"
    den = f.den
    dd = den._d
    ds = _fmt_sum(den, atom, div)
    simple = len(dd) == 1 and (
        (() in dd and dd[()] > 0)
        or any(c == 1 and len(m) == 1 and type(m[0]) is str for m, c in dd.items())
    )
    if not simple:
        ds = f"({ds})"
    return f"{ns}{div}{ds}"


def _fmt_term(m: tuple, c: int, atom: Callable[[str], str], div: str, lead: bool) -> str:
    """A term with its sign handled by the caller: formats ``abs(c) * m``; ``lead``
    means a leading minus will be written right before it."""
    k = -c if c < 0 else c
    if not m:
        return str(k)
    parts = [] if k == 1 else [str(k)]
    alone = k == 1 and len(m) == 1 and not lead
    for a in m:
        if type(a) is str:
            parts.append(atom(a))
        else:
            s = _fmt_floor(a, atom, div)
            parts.append(s if alone else f"({s})")
    return "*".join(parts)


def _fmt_sum(s: Size, atom: Callable[[str], str], div: str) -> str:
    d = s._d
    if not d:
        return "0"
    items = sorted(d.items(), key=_display_key)
    if items[0][1] < 0:
        for i, (_, c) in enumerate(items):
            if c > 0:
                items.insert(0, items.pop(i))
                break
    out = []
    for i, (m, c) in enumerate(items):
        if i == 0:
            t = _fmt_term(m, c, atom, div, lead=c < 0)
            out.append(f"-{t}" if c < 0 else t)
        else:
            out.append(" - " if c < 0 else " + ")
            out.append(_fmt_term(m, c, atom, div, lead=False))
    return "".join(out)
