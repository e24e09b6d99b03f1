"""Typing rules of operators, conversions, constructors, reductions and patterns
(indexing is in ``check/indexing.py``).

The pure algebra lives in ``broadcast``, ``dtypes``, ``domains`` and ``patterns``;
this module combines them into result types and the records code generation needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shapescript.builtin_registry import BUILTINS_BY_NAME
from shapescript.check import broadcast as bc
from shapescript.check import domains as dm
from shapescript.check import dtypes as dt
from shapescript.check.fail import Fail
from shapescript.check.payloads import ClassLoss, Pattern, Select
from shapescript.check.result import BroadcastRes
from shapescript.check.sizes import Size
from shapescript.check.typeconv import SizeError
from shapescript.check.types import (
    INT_DTYPES, MASK, NOBOUND, REAL, Axis, Domain, ErrorType, HostType, PyType, TensorType,
    TupleType, Type, label_hits,
)
from shapescript.syntax import ast
from shapescript.vocab import CLASS_DOMAINS, HOST_DTYPE
from shapescript import error_codes as ec

_HOST_DTYPE = HOST_DTYPE


def prove_le(a: Size, b: Size) -> bool:
    return (b - a).provably_nonneg()


def fresh_unknown(next_id: Callable[[], int], prefix: str = "k") -> Size:
    """A new unknown size, numbered by the body's ``next_id`` (so numbering is per body)."""
    return Size.var(f"?{prefix}#{next_id()}")


# -- host arithmetic ------------------------------------------------------------
def host_arith(op: str, a: HostType, b: HostType) -> HostType:
    name = dt.result_dtype(op, a, b)
    value = None
    if a.value is not None and b.value is not None and op in ("+", "-", "*", "//", "%", "/"):
        try:
            value = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
                     "//": lambda x, y: x // y, "%": lambda x, y: x % y,
                     "/": lambda x, y: x / y}[op](a.value, b.value)
        except ZeroDivisionError:
            value = None
    dom = dm.binop_domain(op, a, b)
    return HostType(name, value, dom.kind)


# -- element-wise --------------------------------------------------------------------
def _operand_domain(x: TensorType | HostType) -> Any:
    return x if isinstance(x, HostType) else x.domain


def elementwise(op: str, a: Type, b: Type, role_of: bc.RoleOf | None = None
                ) -> tuple[Type, BroadcastRes | None]:
    assert isinstance(a, (TensorType, HostType)) and isinstance(b, (TensorType, HostType))
    res = bc.broadcast(a, b, role_of)
    if op in ("maximum", "minimum"):
        dtype = dt.result_dtype("+", a, b)
        da, db = _operand_domain(a), _operand_domain(b)
        fa = dm.host_domains(da) if isinstance(da, HostType) else dm.interval_view(da)
        fb = dm.host_domains(db) if isinstance(db, HostType) else dm.interval_view(db)
        if op == "maximum" and ("Pos" in fa or "Pos" in fb):
            dom = Domain("Pos")
        elif op == "maximum" and ("NonNeg" in fa or "NonNeg" in fb):
            dom = Domain("NonNeg")
        else:
            ja = da if isinstance(da, Domain) else Domain(_narrow(fa))
            jb = db if isinstance(db, Domain) else Domain(_narrow(fb))
            dom = dm.join(ja, jb, prove_le)
        if dtype in INT_DTYPES and dom.kind in ("Real",):
            dom = NOBOUND
    else:
        dtype = dt.result_dtype(op, a, b)
        dom = dm.binop_domain(op, _operand_domain(a), _operand_domain(b), dtype)
    if dtype == "bool":
        dom = MASK
    out = TensorType(res.axes, dtype, dom)
    plan = None
    if not (res.a_plan.is_identity and res.b_plan.is_identity):
        plan = BroadcastRes(res.a_plan, res.b_plan)
    return out, plan


def host_domain(h: HostType) -> Domain:
    """The narrowest interval domain a host number is known to lie in."""
    return Domain(_narrow(dm.host_domains(h)))


def _narrow(facts: frozenset[str]) -> str:
    for k in ("Pos", "Unit", "Signed", "NonNeg"):
        if k in facts:
            return k
    return "Real"


def matmul(a: TensorType, b: TensorType, clash: bc.Clash | None = None
           ) -> tuple[TensorType, BroadcastRes]:
    res = bc.matmul(a, b, clash)
    dtype = dt.result_dtype("@", a, b)
    dom = dm.binop_domain("@", a.domain, b.domain, dtype)
    return TensorType(res.axes, dtype, dom), BroadcastRes(res.a_plan, res.b_plan)


def negate(a: TensorType) -> TensorType:
    dtype = dt.result_dtype("-", a)
    return TensorType(a.axes, dtype, dm.binop_domain("-", a.domain, None, dtype))


def where(m: Type, a: Type, b: Type, role_of: bc.RoleOf | None = None
          ) -> tuple[Type, Select]:
    for x in (m, a, b):
        if isinstance(x, PyType):
            raise Fail(ec.E0413, "the shape of this Python value is unknown", "in `where`",
                       help="assert its shape with `as [ … ]`")
    if not isinstance(a, (TensorType, HostType)) or not isinstance(b, (TensorType, HostType)):
        raise Fail(ec.E0410, "`where` takes a mask and two values", "")
    # x's axes first, then the mask's, then y's.
    first = bc.broadcast(a, m, role_of)
    mid = TensorType(first.axes, "bool", MASK)
    second = bc.broadcast(mid, b, role_of)
    axes = second.axes
    out_t = TensorType(axes, "bool", MASK)
    plans = [bc.broadcast(out_t, x, role_of) for x in (m, a, b)]
    if isinstance(a, HostType) and isinstance(b, HostType):
        # Two host numbers: the dtype a tensor of them would have.
        dtype = dt.promote_dtypes(TensorType((), _HOST_DTYPE[a.name], REAL),
                                  TensorType((), _HOST_DTYPE[b.name], REAL))
    else:
        dtype = dt.result_dtype("+", a, b)
    da = a.domain if isinstance(a, TensorType) else Domain(_narrow(dm.host_domains(a)))
    db = b.domain if isinstance(b, TensorType) else Domain(_narrow(dm.host_domains(b)))
    dom = dm.join(da, db, prove_le)
    mplan, aplan, bplan = (p.b_plan for p in plans)
    return TensorType(axes, dtype, dom), Select((mplan, aplan, bplan))


# -- domains and fits --------------------------------------------------------------
def join_domain(a: Domain, b: Domain) -> Domain:
    return dm.join(a, b, prove_le)


def domain_fits(t: Type, old: Type) -> bool:
    if isinstance(t, TensorType) and isinstance(old, TensorType):
        try:
            return dm.is_subdomain(t.domain, old.domain, prove_le, t.labels())
        except Fail:
            return False
    return True


def check_domain(at: TensorType, want: Domain, arg: Any, name: str, fn: str) -> None:
    have = at.domain
    if want.over is not None and have.over is not None and want.over != have.over:
        # A class-marked value through a class-axis operation over another axis.
        raise Fail(ec.E0704, f"`{fn}` works over `{want.over}` here, but its argument `{name}` "
                   f"is `{have}`", f"this is `{at}`", span=arg.span,
                   help=f"work over `{have.over}`, or first drop the marking: "
                        f"`(… as {_drop_marking(have)})`")
    try:
        ok = dm.is_subdomain(at.domain, want, prove_le, at.labels())
    except Fail as f:
        f.span = f.span or arg.span
        raise
    if not ok:
        raise Fail(ec.E0701, f"argument `{name}` of `{fn}` is `{at.domain}`, expected `{want}`",
                   f"this is `{at}`", span=arg.span,
                   help=_widen_help(at.domain, want))


def _drop_marking(d: Domain) -> str:
    return {"Prob": "Unit", "LogProb": "Real", "Logit": "Real"}.get(d.kind, "Real")


def _widen_help(have: Domain, want: Domain) -> str:
    if have.kind == "Unit" and want.kind == "Signed":
        return "convert it with `to Signed` (2x - 1)"
    if have.kind == "Signed" and want.kind == "Unit":
        return "convert it with `to Unit` ((x + 1) / 2)"
    if have.kind == "Int" and want.kind == "Index":
        return f"assert the bound with `as … {want}`, checked at run time"
    if want.kind in ("Prob", "LogProb") and have.kind in ("Logit", "Real"):
        fn = "softmax" if want.kind == "Prob" else "log_softmax"
        return f"use `{fn}(…, over={want.over})`, or assert it with `as … {want}`, checked at run time"
    return f"assert it with `as … {want}`, checked at run time"


def check_fits(t: TensorType, want: TensorType, what: str, node: Any,
               clash: bc.Clash | None = None) -> None:
    if len(t.axes) == len(want.axes) and any(a.size.var_name and a.size.var_name.startswith("?")
                                             for a in want.axes):
        # A `?` size in a declared type accepts any size.
        want = TensorType(tuple(Axis(v.size, v.label) if (a.size.var_name or "").startswith("?") else a
                                for a, v in zip(want.axes, t.axes)), want.dtype, want.domain)
    try:
        bc.check_fits(t, want, what, clash)
    except Fail as f:
        f.span = f.span or node.span
        raise
    if want.dtype not in ("Float", "Int") and t.dtype != want.dtype:
        raise Fail(ec.E0404, f"dtypes differ: {what} is `{want.dtype}`, this is `{t.dtype}`",
                   f"this is `{t}`", span=node.span, help=f"convert it with `to {want.dtype}`")
    try:
        ok = dm.is_subdomain(t.domain, want.domain, prove_le, t.labels())
    except Fail as f:
        f.span = f.span or node.span
        raise
    if not ok:
        raise Fail(ec.E0701, f"the domain is too wide: {what} is `{want.domain.with_values()}`, "
                   f"this is `{t.domain.with_values()}`",
                   f"this is `{t}`", span=node.span, help=_widen_help(t.domain, want.domain))


def check_assert(a: TensorType, target: TensorType) -> None:
    if not target.has_variadic and not a.has_variadic and a.rank != target.rank:
        raise Fail(ec.E0402, f"`as` can't change the rank: this is `{a}`, not `{target}`",
                   f"{a.rank} axes, `as` says {target.rank}",
                   help="reshape with `rearrange`")
    if a.dtype != target.dtype and target.dtype not in ("Float", "Int"):
        raise Fail(ec.E0703, f"`as` can't change the dtype from `{a.dtype}` to `{target.dtype}`",
                   f"this is `{a}`", help=f"convert it with `to {target.dtype}`")


# -- conversions -----------------------------------------------------------------------
def convert(a: TensorType, te: ast.TensorTypeExpr) -> tuple[TensorType, list[tuple]]:
    if te.alias is not None and te.shape is None and te.dtype is None and te.domain is None:
        raise Fail(ec.E0702, f"`{te.alias}` is not a dtype or a domain", "not a conversion target",
                   span=te.span, help="`to` takes a dtype (`to f32`), a domain (`to Unit`) or both")
    if te.shape is not None or te.alias is not None:
        raise Fail(ec.E0702, "`to` converts a dtype or a domain, not a shape", "a shape",
                   span=te.span, help="assert a shape with `as`, or reshape with `rearrange`")
    target_domain = None
    if te.domain is not None:
        target_domain = _domain_of(te.domain, a)
    dtype, domain, steps = dm.convert(a.dtype, a.domain, te.dtype, target_domain, prove_le)
    return TensorType(a.axes, dtype, domain), list(steps)


def _domain_of(d: ast.DomainExpr, a: TensorType) -> Domain:
    if d.name in CLASS_DOMAINS:
        if d.over is None:
            raise Fail(ec.E0705, f"`{d.name}` needs a class axis", "no class axis", span=d.span,
                       help=f"name it: `{d.name} over C`")
        lab = Size.var(d.over)
        n = sum(1 for ax in a.axes if ax.label == lab)
        if n != 1:
            raise Fail(ec.E0705, f"the class axis `{d.over}` is {'absent from' if n == 0 else 'repeated in'} "
                       f"`{a}`", f"`over {d.over}` names no single axis", span=d.span,
                       help="name an axis the value has exactly once")
        return Domain(d.name, over=lab)
    if d.name == "Index":
        raise Fail(ec.E0702, "`to` can't give an `Index` bound", "",
                   span=d.span, help="assert it with `as … Index[C]`, checked at run time")
    return Domain(d.name)


def axis_words(ax: Axis) -> str:
    label, size = str(ax.label), str(ax.size)
    return label if label == size else f"{label}` = `{size}"


# -- constructors ------------------------------------------------------------------------
CTOR_DOMAIN = {"zeros": "NonNeg", "ones": "Pos", "eye": "Unit", "rand": "Unit", "randn": "Real"}


def constructor(name: str, axes: tuple[Axis, ...], dtype: str | None, fill: Type | None,
                e: ast.Constructor) -> TensorType:
    if name == "causal":
        if len(axes) != 2:
            raise Fail(ec.E0402, f"`causal` makes a square mask, not one of {len(axes)} "
                       f"ax{'is' if len(axes) == 1 else 'es'}", "not two axes", span=e.span,
                       help="write `causal[n n]`")
        _causal_window(fill, e)
        return TensorType(axes, dtype or "bool", MASK)
    if e.keyword is not None:
        what = "its value by position" if name == "full" else "no value"
        raise Fail(ec.E0501, f"`{name}` takes {what}, not `{e.keyword}=`", f"`{e.keyword}=`",
                   span=e.fill.span if e.fill is not None else e.span,
                   help="only `causal` takes a value by name: `causal[n n](window=W)`")
    if name == "arange":
        if len(axes) != 1:
            raise Fail(ec.E0402, f"`arange` makes one axis, not {len(axes)}", "not one axis",
                       span=e.span, help="write `arange[n]`")
        d = dtype or "i64"
        dom = Domain("Index", index=axes[0].size) if d in INT_DTYPES else Domain("NonNeg")
        return TensorType(axes, d, dom)
    if name == "full":
        if fill is None:
            raise Fail(ec.E0501, "`full` needs its value", "no value", span=e.span,
                       help="write the value after the axes, e.g. `full[n n](-1e9)`")
        if isinstance(fill, ErrorType):
            return TensorType(axes, dtype or "f32", REAL)
        if not isinstance(fill, HostType) or fill.name not in ("int", "float", "bool"):
            raise Fail(ec.E0410, "`full`'s value is a host number", f"this is `{fill}`", span=e.span)
        d = dtype or HOST_DTYPE[fill.name]
        if d == "bool":
            return TensorType(axes, d, MASK)
        facts = dm.host_domains(fill)
        k = _narrow(facts)
        return TensorType(axes, d, Domain(k) if d not in INT_DTYPES else NOBOUND)
    if fill is not None:
        raise Fail(ec.E0501, f"`{name}` takes no value", "a value", span=e.span,
                   help="a tensor of one value is `full[…](v)`")
    if name == "eye" and len(axes) != 2:
        raise Fail(ec.E0402, f"`eye` makes a square matrix, not one of {len(axes)} "
                   f"ax{'is' if len(axes) == 1 else 'es'}", "not two axes", span=e.span,
                   help="write `eye[n n]`")
    d = dtype or "f32"
    if d in INT_DTYPES:
        return TensorType(axes, d, NOBOUND)
    if d == "bool":
        return TensorType(axes, d, MASK)
    return TensorType(axes, d, Domain(CTOR_DOMAIN[name]))


def _causal_window(fill: Type | None, e: ast.Constructor) -> None:
    """``causal[n m](window=W)``: each query sees itself and the W - 1 keys before it. An
    unnamed value would be ignored, so it is an error rather than a guess."""
    if e.fill is None:
        return
    if e.keyword != "window":
        given = f"`{e.keyword}=`" if e.keyword is not None else "a value"
        raise Fail(ec.E0501, f"`causal` takes only a window, `window=W`, not {given}", given,
                   span=e.fill.span,
                   help="a sliding window of W positions is `causal[n n](window=W)`")
    if isinstance(fill, ErrorType):
        return
    if not isinstance(fill, HostType) or fill.name != "int":
        raise Fail(ec.E0410, "`causal`'s window is a host whole number",
                   f"this is `{fill}`", span=e.fill.span,
                   help="write a number, a dim or a const: `causal[n n](window=4096)`")


# -- reductions and friends ----------------------------------------------------------------
def reduction(name: str, t: TensorType, positions: list[int] | None,
              labels: list[tuple[str, Any]] | None, e: ast.Call) -> TensorType:
    over = None if positions is None else [t.axes[p].label for p in positions]
    dtype = dt.reduction_dtype(name, t.dtype)
    rule = BUILTINS_BY_NAME[name].domain_rule
    axis_size = t.axes[positions[0]].size if positions and rule == "index" else None
    count = None
    if rule == "spread" and not t.has_variadic:
        count = Size.const(1)
        for i, ax in enumerate(t.axes):
            if positions is None or i in {p % len(t.axes) for p in positions}:
                count = count * ax.size
    dom = dm.reduction_domain(name, t.domain, t.dtype, axis_size, check_over=True, over=over,
                              count=count)
    if positions is None:
        axes: tuple[Axis, ...] = ()
        if t.has_variadic:
            axes = ()
    else:
        drop = {p % len(t.axes) for p in positions}
        axes = tuple(ax for i, ax in enumerate(t.axes) if i not in drop)
    if dtype == "bool":
        dom = MASK
    return TensorType(axes, dtype, dom)


def scan(name: str, t: TensorType, dim: int) -> TensorType:
    """The type of the scan ``name`` (``cumprod``) of ``t`` along axis ``dim``: the same
    axes; the dtype and domain of its entry's rules, as a reduction's (``cumprod``: a
    product's, integers and masks give ``i64`` as in torch), with no class-axis rule
    (each running product is a product of the values before it: ``Pos`` stays ``Pos``,
    ``Unit`` and ``Prob`` give ``Unit``)."""
    dtype = dt.reduction_dtype(name, t.dtype)
    dom = dm.reduction_domain(name, t.domain, t.dtype)
    return TensorType(t.axes, dtype, dom)


def cross_entropy(logits: TensorType, y: TensorType, c: int, yarg: Any) -> ClassLoss:
    if logits.dtype not in ("f16", "bf16", "f32", "f64"):
        raise Fail(ec.E0411, f"`cross_entropy` needs float logits, not `{logits.dtype}`", "")
    dm.check_class_over(logits.domain, [logits.axes[c].label], "cross_entropy")
    rest = [ax for i, ax in enumerate(logits.axes) if i != c % len(logits.axes)]
    if y.dtype not in INT_DTYPES:
        raise Fail(ec.E0404, f"the labels are `{y.dtype}`, expected an integer `Index`",
                   f"this is `{y}`", span=yarg.span,
                   help="labels are class indices: `[" + " ".join(str(a) for a in rest)
                        + f"] Index[{logits.axes[c].label}]`")
    want = Domain("Index", index=logits.axes[c].size)
    if not dm.is_subdomain(y.domain, want, prove_le):
        target = TensorType(y.axes, y.dtype, Domain("Index", index=logits.axes[c].label))
        have = "have no bound" if y.domain.kind != "Index" else f"are `{y.domain}`"
        raise Fail(ec.E0701, f"the labels {have}, expected `Index[{logits.axes[c].label}]`",
                   f"this is `{y}`", span=yarg.span,
                   help=f"assert the bound with `as {target}`, checked at run time")
    # y has the logits' other axes, by label.
    ylabels = [ax.label for ax in y.axes]
    perm = []
    for ax in rest:
        hits = [i for i, lab in enumerate(ylabels) if lab == ax.label]
        if len(hits) != 1 or y.axes[hits[0]].size != ax.size:
            raise Fail(ec.E0401, f"the labels `{y}` don't have the logits' other axes "
                       f"[{' '.join(str(a) for a in rest)}]", "", span=yarg.span)
        perm.append(hits[0])
    if len(y.axes) != len(rest):
        raise Fail(ec.E0402, f"the labels `{y}` have {len(y.axes)} axes, expected {len(rest)}", "",
                   span=yarg.span)
    return ClassLoss(c % len(logits.axes), None if perm == sorted(perm) else tuple(perm))


def stack_tuple(t: TupleType, arg: Any) -> TensorType:
    items = t.items
    if not items or not all(isinstance(x, TensorType) for x in items):
        raise Fail(ec.E0408, "a tuple of tensors is needed here", f"this is `{t}`", span=arg.span)
    first = items[0]
    for x in items[1:]:
        assert isinstance(x, TensorType) and isinstance(first, TensorType)
        if x.dtype != first.dtype or x.domain != first.domain or len(x.axes) != len(first.axes) or \
                any(p.size != q.size or p.label != q.label for p, q in zip(x.axes, first.axes)):
            raise Fail(ec.E0408, "the tuple's tensors differ", f"`{first}` and `{x}`", span=arg.span,
                       help="stacking needs the same sizes, dtype, domain and labels")
    n = Size.const(len(items))
    assert isinstance(first, TensorType)
    return TensorType((Axis(n, n),) + first.axes, first.dtype, first.domain)


def concat(t: TupleType, lab: str, node: Any, arg: Any, role_of: bc.RoleOf | None = None
           ) -> tuple[TensorType, int]:
    items = t.items
    if not all(isinstance(x, TensorType) for x in items):
        raise Fail(ec.E0408, "`concat` takes a tuple of tensors", f"this is `{t}`", span=arg.span)
    first = items[0]
    assert isinstance(first, TensorType)
    hits = label_hits(first.axes, lab, role_of)
    if len(hits) != 1:
        if not hits:
            raise Fail(ec.E0403, f"`{first}` has no axis labelled `{lab}`", "unknown axis label",
                       span=node.span, help="axes: " + " ".join(str(ax) for ax in first.axes))
        raise Fail(ec.E0405, f"the axis label `{lab}` occurs {len(hits)} times in `{first}`",
                   "ambiguous axis label", span=node.span,
                   help="give the axes labels of their own with an annotation, then concatenate")
    i = hits[0]
    total = Size.const(0)
    tl = Size.const(0)
    for x in items:
        assert isinstance(x, TensorType)
        if len(x.axes) != len(first.axes) or x.dtype != first.dtype:
            raise Fail(ec.E0408, "the tuple's tensors differ", f"`{first}` and `{x}`", span=arg.span)
        for j, (p, q) in enumerate(zip(x.axes, first.axes)):
            if j != i and p.size != q.size:
                raise Fail(ec.E0401, f"the tensors differ on axis {j}, which isn't `{lab}`: "
                           f"`{q.written}` and `{p.written}`",
                           f"`{first}` and `{x}`", span=arg.span,
                           help="every axis but the one concatenated along must agree")
        total = total + x.axes[i].size
        tl = tl + x.axes[i].label
    axes = list(first.axes)
    axes[i] = Axis(total, tl)
    dom = first.domain
    for x in items[1:]:
        dom = dm.join(dom, x.domain, prove_le)  # type: ignore[union-attr, arg-type]
    return TensorType(tuple(axes), first.dtype, dom), i


# -- patterns ---------------------------------------------------------------------------------
def pattern(name: str, pat: ast.Pattern, inputs: list[TensorType],
            kw_sizes: dict[str, tuple[Size, Size]], env: Any, generics: frozenset[str],
            reduce_op: str | None, stacked: bool = False,
            unknowns: Callable[[], int] | None = None, clash: bc.Clash | None = None,
            ) -> tuple[Any, Pattern]:
    """The checked pattern (``check.patterns.PatternResult``) and what codegen needs
    (``stacked``: the operand is a tuple, stacked first)."""
    from shapescript.check import patterns as pt

    r = pt.check_pattern(name, pat, inputs, kw_sizes, env.all_dims(), generics, reduce_op,
                         unknowns, clash)
    return r, Pattern(r.einops_pattern, tuple(r.einops_kwargs.items()), r.runtime_checks,
                      reduce_op, stacked)


__all__ = ["SizeError", "host_arith", "elementwise", "matmul", "negate", "where", "join_domain",
           "domain_fits", "check_domain", "check_fits", "check_assert", "convert", "constructor",
           "reduction", "scan", "cross_entropy", "stack_tuple", "concat", "pattern",
           "prove_le", "fresh_unknown", "axis_words"]
