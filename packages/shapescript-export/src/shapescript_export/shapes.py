"""The dynamic shapes and example inputs of a function being exported, from its
signature's types (shared by every export target: the examples are what a target
traces and verifies with).

Per tensor parameter and axis: a literal or dim-made size is static; a generic axis is a
``torch.export.Dim`` shared wherever it appears; a size linear in one generic axis with a
positive coefficient (``16gh``, ``(gh 16)``, ``n+1``) is a derived dim; anything else is
``Dim.AUTO``. Each Dim's least value makes every size derived from it at least 1. Each
generic gets an example size that no other size of the signature shares.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from math import ceil
from typing import Any

from shapescript.api import FnSig, Size, TensorType, domain_of, vocab
from shapescript.api import python_name as pyname

__all__ = ["ParamShape", "SignatureShapes", "signature_shapes"]


@dataclass
class ParamShape:
    """One tensor parameter: per axis ``("static", n)``, ``("dim", name)``,
    ``("derived", name, a, c)`` or ``("auto", size)``; its example sizes."""

    name: str
    axes: list[tuple]
    example: tuple[int, ...]
    dtype: str
    domain: tuple | None  # (kind, over position, bound Size or None, text)
    where: str


@dataclass
class SignatureShapes:
    params: list[ParamShape]
    mins: dict[str, int]             # each generic's least value
    examples: dict[str, int]         # each generic's example size
    names: dict[str, str]            # each generic's Dim name (``?k`` is ``k``)
    maxes: dict[str, int] = field(default_factory=dict)  # bounds from the body's checks


def _axis_kind(s: Size) -> tuple:
    if s.is_const:
        return ("static", s.const_value)
    v = s.var_name
    if v is not None:
        return ("dim", v)
    lin = s.linear()
    if lin is not None and lin[1] > 0:
        return ("derived", lin[0], lin[1], lin[2])
    return ("auto", s)


def signature_shapes(sig: FnSig, env_path: str, max_sizes: dict[str, int] | None = None,
                     fixed_sizes: dict[str, int] | None = None) -> SignatureShapes:
    """The dynamic shapes and example sizes of ``sig``'s tensor parameters;
    ``max_sizes`` bounds generics from above (the body's run-time checks), and a generic
    of ``fixed_sizes`` has that one size (a pattern's keyword pins it): its axes are
    static, since torch.export refuses a dynamic dim that a check specialises."""
    base = os.path.basename(env_path)
    fixed = fixed_sizes or {}
    raw: list[tuple[str, TensorType, Any]] = []
    for p, dp in zip(sig.params, sig.decl.params):
        if isinstance(p.type, TensorType):
            t = p.type
            if fixed:
                t = replace(t, axes=tuple(a if a.variadic else
                                          replace(a, size=a.size.substitute(fixed))
                                          for a in t.axes))
            raw.append((pyname(p.name), t, dp))
    order: dict[str, None] = {}
    statics: set[int] = set()
    mins: dict[str, int] = {}
    sized: list[Size] = []
    for _, t, _ in raw:
        for a in t.axes:
            kind = _axis_kind(a.size)
            if kind[0] == "static":
                statics.add(kind[1])
                continue
            sized.append(a.size)
            for v in sorted(a.size.free_vars()):
                order.setdefault(v, None)
            if kind[0] == "dim":
                mins[kind[1]] = max(mins.get(kind[1], 0), 1)
            elif kind[0] == "derived":
                _, v, aa, c = kind
                mins[v] = max(mins.get(v, 0), max(0, ceil((1 - c) / aa)))
    if isinstance(sig.ret, TensorType):
        statics |= {a.size.const_value for a in sig.ret.axes
                    if not a.variadic and a.size.is_const and a.size.const_value is not None}
    for v in order:
        mins.setdefault(v, 1)
    maxes = {v: m for v, m in (max_sizes or {}).items() if v in order}
    examples = _example_sizes(list(order), mins, statics, sized, maxes) | fixed
    names: dict[str, str] = {}
    for v in order:
        stem = re.sub(r"\W", "_", v.lstrip("?").split("#")[0]) or "d"
        stem = stem if stem.isidentifier() else "d_" + stem
        name, k = stem, 1
        while name in names.values():
            name, k = f"{stem}_{k}", k + 1
        names[v] = name
    params = []
    for name, t, dp in raw:
        axes = [_axis_kind(a.size) for a in t.axes]
        ex = tuple(a.size.evaluate(examples) for a in t.axes)
        dtype = vocab.DTYPE_CLASSES.get(t.dtype, t.dtype)
        params.append(ParamShape(name, axes, ex, dtype, domain_of(t),
                                 f"{base}:{dp.span.line}:{dp.span.col}"))
    return SignatureShapes(params, mins, examples, names, maxes)


def _example_sizes(names: list[str], mins: dict[str, int], statics: set[int],
                   sized: list[Size], maxes: dict[str, int] | None = None) -> dict[str, int]:
    """An example size per generic, each at least 2 and its least value, such that every
    non-static size of the signature differs from every static one and from every other
    size that isn't provably equal to it, so torch can't mistake one axis for another."""
    env: dict[str, int] = {}
    for v in names:
        cand = max(2, mins.get(v, 1))
        top = (maxes or {}).get(v)
        for _ in range(10_000):
            env[v] = cand
            if _distinct(env, statics, sized) or (top is not None and cand >= top):
                break
            cand += 1
        if top is not None and env[v] > top:  # a bound below 2: the example keeps to it
            env[v] = max(top, mins.get(v, 1))
    return env


def _distinct(env: dict[str, int], statics: set[int], sized: list[Size]) -> bool:
    seen: dict[int, Size] = {}
    for s in sized:
        if not s.free_vars() <= env.keys():
            continue
        try:
            val = s.evaluate(env)
        except ZeroDivisionError:
            return False
        if val < 1 or val in statics:
            return False
        other = seen.get(val)
        if other is not None and other != s:
            return False
        seen[val] = s
    return True
