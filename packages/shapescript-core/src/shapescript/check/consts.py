"""Named constants: ``const eps = 1e-6``.

A const is a host value known before the program runs: an ``int``, a ``float``, a
``bool`` or a ``str``. Its right-hand side is a literal, a dim (its size), another const
(of this file or an imported one, ``layers.eps``), or arithmetic on those (``+ - * / //
% **``, a unary ``-``, ``not``, with Python's rules: ``/`` is true division). The
declaration pass evaluates every const once, in dependency order (a const on the current
path is a cycle), so the checker sees each use as the literal it stands for, and code
generation writes the value.

A const is not a size: a size is a ``dim``, which the checker reasons about
symbolically. Using one where a size is expected is E0306 (``size_error``); a
right-hand side that isn't such an expression, a cycle, a division by zero or a value
out of range is E0307.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, TypeGuard, Union

from shapescript.check.domains import literal_domain
from shapescript.check.env import ModuleEnv
from shapescript.check.types import STR, HostType, Type
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript import error_codes as ec

Value = Union[int, float, bool, str]

_ARITH = {"+", "-", "*", "/", "//", "%", "**"}
_I64 = (-2 ** 63, 2 ** 63)


class ConstError(Exception):
    """A const's value that can't be computed (already reported)."""


def size_error_parts(name: str, value: Value | None) -> tuple[str, str, str]:
    """E0306's message, label and help for the const ``name`` written as a size."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        help_ = (f"a size is a `dim`: declare `dim {name.rsplit('.', 1)[-1]} = {value}` "
                 "to use it in shapes")
    elif _simple_fraction(value) is not None:
        # A fraction of a size (`rotary_pct = 0.25`): the division says it in whole numbers.
        q = _simple_fraction(value)
        assert q is not None
        by = f"/ {q.denominator}" if q.numerator == 1 else f"* {q.numerator} / {q.denominator}"
        help_ = (f"a size is a whole number: write a fraction of a size as a division the "
                 f"checker evaluates, `Dh {by}` for `Dh * {value!r}`")
    else:
        help_ = "a size is a whole number given by a `dim`, a literal or a generic axis"
    shown = "" if value is None else f" (= {value!r})"
    return (f"`{name}` is a const{shown}, not a size", "a host value where a size is expected",
            help_)


def _simple_fraction(value: Value | None) -> Fraction | None:
    """``value`` as a fraction of small whole numbers (0.25 is 1/4), when it is one and
    isn't whole; None for anything else (an epsilon, a bool, an int)."""
    if not isinstance(value, float) or not 0 < value or value == int(value):
        return None
    q = Fraction(value).limit_denominator(64)
    return q if q.numerator > 0 and abs(float(q) - value) < 1e-9 else None


def size_error(name: str, value: Value | None, span: Span) -> Diagnostic:
    """E0306: the const ``name`` written where a size is expected."""
    msg, label, help_ = size_error_parts(name, value)
    return Diagnostic.error(ec.E0306, msg, span, label, help=help_)


def const_literal(env: ModuleEnv, e: ast.Expr) -> ast.Expr | None:
    """The literal a const ``e`` (``eps``, ``layers.eps``) stands for, at ``e``'s place;
    None when ``e`` names no evaluated const."""
    value: Value | None = None
    if isinstance(e, ast.Name):
        value = env.const_value(e.id)
    elif isinstance(e, ast.Attr) and isinstance(e.value, ast.Name) and not e.attr.startswith("_"):
        value = env.const_value(e.attr, e.value.id)
    if value is None:
        return None
    if isinstance(value, bool):
        return ast.Bool(value, e.span)
    if isinstance(value, str):
        return ast.Str(value, e.span)
    return ast.Num(value, repr(value), e.span)


class ConstEvaluator:
    """Evaluates the consts of one file (``run``), reporting through ``report``."""

    def __init__(self, env: ModuleEnv, report: Callable[[Diagnostic], None],
                 dim: Callable[[str], int | None]) -> None:
        self.env = env
        self.report = report
        self.dim = dim  # the declaration pass's dim evaluation (in dependency order)
        self.state: dict[str, int] = {}  # 1 visiting, 2 done

    def err(self, msg: str, span: Span, label: str, help: str | None = None) -> ConstError:
        self.report(Diagnostic.error(ec.E0307, msg, span, label, help=help))
        return ConstError()

    def run(self) -> None:
        for name in self.env.const_decls:
            self.const(name)

    def const(self, name: str) -> Value | None:
        env = self.env
        decl = env.const_decls[name]
        state = self.state.get(name)
        if state == 2:
            return env.consts.get(name)
        if state == 1:
            self.state[name] = 2
            raise self.err(f"the consts form a cycle through `{name}`", decl.name_span,
                           f"`{name}` depends on itself",
                           help="give one of them a value that doesn't use the others")
        self.state[name] = 1
        try:
            value = self.value(decl.value)
            if isinstance(value, float) and not math.isfinite(value):
                raise self.err(f"const `{name}` is {value}", decl.value.span,
                               "not a finite number", help="floats (f64) reach about 1.8e308")
            if isinstance(value, int) and not isinstance(value, bool) \
                    and not _I64[0] <= value < _I64[1]:
                raise self.err(f"const `{name}` doesn't fit in 64 bits", decl.value.span,
                               "out of range", help="integers run from -2**63 to 2**63 - 1")
            env.consts[name] = value
        except ConstError:
            env.poisoned.add(name)  # reported: its uses are silent errors
        finally:
            self.state[name] = 2
        return env.consts.get(name)

    def name(self, e: ast.Name) -> Value:
        env = self.env
        if e.id in env.const_decls:
            v = self.const(e.id)
            if v is None:
                raise ConstError  # its own declaration failed, reported there
            return v
        if e.id in env.dim_decls:
            d = self.dim(e.id)
            if d is None:
                raise ConstError
            return d
        if e.id in env.imported:
            sub, orig = env.imported[e.id]
            if orig in sub.consts:
                return sub.consts[orig]
            if orig in sub.dims:
                return sub.dims[orig]
        if e.id in env.poisoned:
            raise ConstError
        raise self.err(f"unknown name `{e.id}` in a const", e.span, "not a const or a dim",
                       help="a const's value may use numbers, dims and other consts")

    def attr(self, e: ast.Attr) -> Value:
        if isinstance(e.value, ast.Name) and e.value.id in self.env.ssmods:
            sub = self.env.ssmods[e.value.id]
            if not e.attr.startswith("_"):
                if e.attr in sub.consts:
                    return sub.consts[e.attr]
                if e.attr in sub.dims:
                    return sub.dims[e.attr]
            if e.attr in sub.poisoned:
                raise ConstError
            raise self.err(f"`{e.value.id}.{e.attr}` is not a public const or dim of "
                           f"`{e.value.id}`", e.span, "not a const or a dim")
        if isinstance(e.value, ast.Name) and e.value.id in self.env.poisoned:
            raise ConstError
        return self.not_constant(e)

    def not_constant(self, e: ast.Expr) -> Value:
        raise self.err("a const's value must be known before the program runs", e.span,
                       "not a constant expression",
                       help="use numbers, strings, `true`/`false`, dims and other consts, "
                            "with arithmetic; compute anything else in a function")

    def value(self, e: ast.Expr) -> Value:
        if isinstance(e, ast.Num):
            return e.value
        if isinstance(e, (ast.Str, ast.Bool)):
            return e.value
        if isinstance(e, ast.Name):
            return self.name(e)
        if isinstance(e, ast.Attr):
            return self.attr(e)
        if isinstance(e, ast.UnaryOp):
            v = self.value(e.operand)
            if e.op == "-" and _number(v):
                return -v
            if e.op == "not" and isinstance(v, bool):
                return not v
            raise self.err(f"`{e.op}` can't apply to {_kind(v)}", e.span, "in this const")
        if isinstance(e, ast.BinOp) and e.op in _ARITH:
            a, b = self.value(e.left), self.value(e.right)
            if not (_number(a) and _number(b)):
                raise self.err(f"`{e.op}` on {_kind(a)} and {_kind(b)} in a const", e.span,
                               "numbers only")
            try:
                return _apply(e.op, a, b)
            except ZeroDivisionError:
                raise self.err("division by zero in a const", e.span, "this divides by 0")
            except (OverflowError, ValueError):
                raise self.err("this const's value is out of range", e.span, "out of range")
        return self.not_constant(e)


def _number(v: Value) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _kind(v: Value) -> str:
    return {bool: "a bool", str: "a string", int: "an int", float: "a float"}[type(v)]


def _apply(op: str, a: int | float, b: int | float) -> int | float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "//":
        return a // b
    if op == "%":
        return a % b
    if isinstance(a, int) and isinstance(b, int) and b >= 0 and abs(a) > 1 and b > 64:
        raise OverflowError  # beyond 64 bits anyway; don't build a huge int
    r = a ** b
    if isinstance(r, complex):
        raise ValueError
    return r


def const_type(v: int | float | bool | str) -> Type:
    """The type of a const's value: a host value, with its literal's domain."""
    if isinstance(v, bool):
        return HostType("bool", v)
    if isinstance(v, str):
        return STR
    return HostType("int" if isinstance(v, int) else "float", v, literal_domain(v))
