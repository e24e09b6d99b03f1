"""Sizes an `if` proves equal: in the branch of `if i == o:` the generic axis `i` is `o`.

A block with a residual only when widths agree (`if i == o: return h + x`) needs the
checker to know, inside the branch, what the condition says. The condition is read for
equalities between a generic axis of the signature and a size (another generic, a dim, an
expression of them), joined by `and`; in the branch each such generic is replaced, in size
and in label, by the other side, in every variable's type and in the return type. So
`x: [b i]` is `[b o]` there, and `h + x` broadcasts by the label `o` it now shares with `h`.
Nothing changes after the `if`: the other branches, and what follows, know nothing more.
"""

from __future__ import annotations

from collections.abc import Callable

from shapescript.check.scope import Scope, Var
from shapescript.check.sizes import Size
from shapescript.check.types import Axis, Domain, TensorType, TupleType, Type
from shapescript.check.written_labels import computed_label
from shapescript.syntax import ast

__all__ = ["Narrowing", "equalities", "narrow_scope", "narrow_type", "unnarrow", "widen_scope"]

# A generic's name -> (the size it is in the branch, its label there).
Narrowing = dict[str, tuple[Size, Size]]


def equalities(cond: ast.Expr, generics: frozenset[str] | set[str],
               size_of: Callable[[ast.Expr], Size | None]) -> Narrowing:
    """What ``cond`` proves in its branch: for each ``g == s`` (or ``s == g``) joined by
    ``and``, where ``g`` is a generic axis of the signature and ``s`` a size
    (``size_of``: the body's reading of an expression as a size), ``g`` is ``s``. The left
    side is replaced when both are generics (`if i == o` makes `i` into `o`)."""
    out: Narrowing = {}
    if isinstance(cond, ast.BoolOp) and cond.op == "and":
        out.update(equalities(cond.left, generics, size_of))
        out.update(equalities(cond.right, generics, size_of))
        return out
    if not (isinstance(cond, ast.Compare) and cond.op == "=="):
        return out
    for g, other in ((cond.left, cond.right), (cond.right, cond.left)):
        if not (isinstance(g, ast.Name) and g.id in generics):
            continue
        size, label = size_of(other), computed_label(other)
        if size is None or label is None or g.id in size.free_vars():
            continue
        out[g.id] = (size, label)
        break
    return out


def narrow_type(t: Type, eqs: Narrowing) -> Type:
    """``t`` with each narrowed generic replaced by what the branch knows it is."""
    if not eqs:
        return t
    if isinstance(t, TupleType):
        return TupleType(tuple(narrow_type(x, eqs) for x in t.items))
    if not isinstance(t, TensorType):
        return t
    sizes = {g: s for g, (s, _) in eqs.items()}
    labels = {g: lab for g, (_, lab) in eqs.items()}
    axes = tuple(ax if ax.variadic else Axis(ax.size.substitute(sizes),
                                             ax.label.substitute(labels), alias=ax.alias)
                 for ax in t.axes)
    d = t.domain
    if d.over is not None:
        d = Domain(d.kind, over=d.over.substitute(labels))
    elif d.index is not None:
        d = Domain(d.kind, index=d.index.substitute(sizes))
    return TensorType(axes, t.dtype, d)


def narrow_scope(scope: Scope, eqs: Narrowing) -> dict[str, tuple[Var, Var]]:
    """Every variable of ``scope`` narrowed, in place (the branch's own copy): name ->
    (its narrowed variable, the one it replaced), for ``widen_scope``."""
    changed: dict[str, tuple[Var, Var]] = {}
    for name, v in list(scope.vars.items()):
        t = narrow_type(v.type, eqs)
        if t != v.type:
            scope.vars[name] = changed.setdefault(name, (Var(t, v.span, v.kind), v))[0]
    return changed


def widen_scope(scope: Scope, changed: dict[str, tuple[Var, Var]]) -> None:
    """After the branch: the variables it didn't assign get their own types back, so the
    branches merge as if nothing had been narrowed (one it assigned keeps its new type)."""
    for name, (narrowed, original) in changed.items():
        if scope.vars.get(name) is narrowed:
            scope.vars[name] = original


def unnarrow(outs: list[tuple[Scope, bool]], proved: list[Narrowing]) -> None:
    """Before the branches merge: a variable a narrowed branch assigned takes the type
    another branch gives it, where that type, narrowed, is its own (`y = h + x` under
    `if i == o` is `[b o]`, and `y = h` in the `else` is `[b o]` too); the merge then
    compares types in the terms of the whole function."""
    for (scope, _), eqs in zip(outs, proved):
        if not eqs:
            continue
        for name, v in list(scope.vars.items()):
            for (other, returned), theirs in zip(outs, proved):
                w = other.vars.get(name)
                if (other is scope or returned or theirs or w is None
                        or narrow_type(w.type, eqs) != v.type):
                    continue
                scope.vars[name] = Var(w.type, v.span, v.kind)
                break
