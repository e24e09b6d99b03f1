"""Roles: what an axis *is*, beyond how long it is.

Every dim is a role. ``dim C = 16`` and ``dim S = 16`` are two roles that happen to have
one size, so a value whose axis is ``S`` never fits where ``C`` is declared (E0414),
though the sizes agree: equal by coincidence is not equal. A dim defined by an
expression is a name for that expression (``dim Dh = D / H`` *is* ``D/H``), so an axis
labelled ``D/H`` takes ``Dh``: equal by definition is equal. ``dim Dout ~ D`` declares a
role of its own with ``D``'s size (a square weight's output, say).

A label's *role* is the label with every dim that an expression defines replaced by
that expression, down to the dims declared by a number or by ``~``, and every name a
pattern wrote for an axis (a *local role*, ``t`` in ``b n d, b t d -> b n t``) replaced by
what it matched. Two axes of one size clash when their roles differ and both name a
dim: a number, a generic axis or an unknown size has no role to clash with.

Roles compare as rational expressions of the dims: a division that the dims' values make
exact is a true quotient, so merging a split ``(h d)`` back gives ``H*(D/H)``, which is
``D`` when ``H`` divides ``D`` (as the size check already knows it does).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from shapescript.check.env import ModuleEnv
from shapescript.check.monomials import Floor
from shapescript.check.sizes import Size
from shapescript.syntax import ast

__all__ = ["Roles", "roles_of"]


class Roles:
    """The roles of one file's dims (its own, imported, and ``module.D``)."""

    def __init__(self, env: ModuleEnv) -> None:
        self.env = env
        # label atom -> its role, in this file's labels (None: not a dim)
        self._atoms: dict[str, Size | None] = {}

    def is_dim(self, atom: str) -> bool:
        return self.atom(atom) is not None

    def atom(self, name: str) -> Size | None:
        """The role of the label atom ``name``, or None when it names no dim."""
        if name in self._atoms:
            return self._atoms[name]
        self._atoms[name] = None  # a cycle (reported by the declarations) stays a name
        found = self.env.dim_origin(name) if not name.startswith("?") else None
        role: Size | None = None
        if found is not None:
            origin, orig = found
            decl = origin.dim_decls.get(orig)
            role = Size.var(name)
            if decl is not None and decl.size is not None and not decl.new_role:
                expr = _label_of(decl.size)
                if expr is not None and expr.free_vars():
                    # In the declaring file's labels, then in this file's.
                    labels = self.env.labels_from(origin)
                    if labels:
                        expr = expr.substitute(labels)
                    role = self.role(expr)
        self._atoms[name] = role
        return role

    def role(self, label: Size, local: Mapping[str, Size] | None = None) -> Size:
        """``label`` with defined dims expanded and local roles replaced by what they
        matched."""
        fv = label.free_vars()
        if not fv:
            return label
        env: dict[str, Size] = {}
        for v in fv:
            if local and v in local:
                env[v] = self.role(local[v])
                continue
            r = self.atom(v)
            if r is not None and r != Size.var(v):
                env[v] = r
        return label.substitute(env) if env else label

    def names_dim(self, role: Size) -> bool:
        return any(self.is_dim(v) for v in role.free_vars())

    def clash(self, have: Size, want: Size, local: Mapping[str, Size] | None = None
              ) -> bool:
        """Whether an axis labelled ``have`` may not stand where ``want`` is declared
        (their sizes agree: the caller checked). Both must name a dim and differ."""
        if have == want:
            return False
        rh, rw = self.role(have, local), self.role(want, local)
        if rh == rw or not (self.names_dim(rh) and self.names_dim(rw)):
            return False
        return self.rational(rh) != self.rational(rw)

    def value(self, s: Size) -> int | None:
        """The value of a size made of dims only; None otherwise."""
        env: dict[str, int] = {}
        for v in s.free_vars():
            found = self.env.dim_origin(v)
            if found is None or found[1] not in found[0].dims:
                return None
            env[v] = found[0].dims[found[1]]
        try:
            return s.evaluate(env)
        except ZeroDivisionError:
            return None

    def rational(self, s: Size) -> _Rational:
        """``s`` as a sum of terms ``c * prod(atom**k)``, ``k`` of either sign: a floor
        division whose value is exact and whose denominator is one term becomes a true
        quotient; any other stays an opaque atom."""
        out: dict[tuple, Fraction] = {}
        for mono, c in s._d.items():
            terms: _Rational = {(): Fraction(c)}
            for a in mono:
                terms = _mul(terms, self._atom_form(a))
            for m, k in terms.items():
                k += out.get(m, 0)
                if k:
                    out[m] = k
                else:
                    out.pop(m, None)
        return out

    def _atom_form(self, a: object) -> _Rational:
        if type(a) is Floor:
            num, den = self.value(a.num), self.value(a.den)
            if num is not None and den and num % den == 0:
                inv = _inverse(self.rational(a.den))
                if inv is not None:
                    return _mul(self.rational(a.num), inv)
            return {((repr(a), 1),): Fraction(1)}
        return {((a, 1),): Fraction(1)}


_Rational = dict  # monomial (sorted (atom, exponent) pairs) -> Fraction


def _mul(a: _Rational, b: _Rational) -> _Rational:
    out: dict[tuple, Fraction] = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            exps: dict[str, int] = dict(ma)
            for atom, k in mb:
                exps[atom] = exps.get(atom, 0) + k
            m = tuple(sorted((x, k) for x, k in exps.items() if k))
            c = out.get(m, 0) + ca * cb
            if c:
                out[m] = c
            else:
                out.pop(m, None)
    return out


def _inverse(a: _Rational) -> _Rational | None:
    """``1/a`` when ``a`` is one term; None otherwise."""
    if len(a) != 1:
        return None
    ((m, c),) = a.items()
    return {tuple((x, -k) for x, k in m): 1 / c}


def roles_of(env: ModuleEnv) -> Roles:
    """The file's ``Roles``, made once per environment."""
    r = env.roles
    if r is None:
        r = env.roles = Roles(env)
    return r


def _label_of(e: ast.SizeExpr) -> Size | None:
    """A dim's right-hand side as a label (dims kept as names); None for what a dim
    can't hold (already reported by the declarations)."""
    if isinstance(e, ast.SizeInt):
        return Size.const(e.value)
    if isinstance(e, ast.SizeName):
        return Size.var(f"{e.module}.{e.name}" if e.module else e.name)
    if isinstance(e, ast.SizeBin):
        a, b = _label_of(e.left), _label_of(e.right)
        if a is None or b is None:
            return None
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        return None if b == 0 else a.floordiv(b)
    if isinstance(e, ast.SizeProd):
        out = Size.const(1)
        for item in e.items:
            v = _label_of(item)
            if v is None:
                return None
            out = out * v
        return out
    return None
