"""Typing rules of indexing: integer, slice, mask and gather indices, and the bounds a
slice needs checked at run time (E0406 when a bound is provably out of range)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapescript.check import domains as dm
from shapescript.check.builtins import label_of_size_expr
from shapescript.check.fail import Fail
from shapescript.check.ops import axis_words, fresh_unknown, prove_le
from shapescript.check.broadcast import role_fail
from shapescript.check.resolutions import GatherIndex, IntIndex, MaskIndex, SliceIndex
from shapescript.check.sizes import Size
from shapescript.check.types import (
    ERROR, INT_DTYPES, Axis, Domain, ErrorType, HostType, PyType, TensorType, Type,
)
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker

__all__ = ["slice_bounds", "index_range", "index"]


def slice_bounds(lo: Size, hi: Size, axis: Axis, r: Any, ck: ExprChecker | None = None) -> bool:
    """Whether ``x[lo..hi]`` needs a run-time check: E0406 when a bound is provably out
    of ``0 <= lo <= hi <= size``, ``False`` when all three are proven, else ``True``.

    Generics are at least 1 here, as everywhere in the prover; the run-time check covers
    what that can't (an axis of 0 rows, a generic the types don't relate to the axis).
    An end ``a*g + c`` checked against a static axis of ``N`` bounds ``g`` by
    ``(N - c) / a``, recorded in ``ck.body.max_sizes`` for exported programs' dynamic dims.
    """
    n = axis.size
    facts = ((Size.const(0), lo), (lo, hi), (hi, n))
    for a, b in facts:
        if (a - b).provably_pos():
            raise Fail(ec.E0406, f"the slice {lo}..{hi} is out of bounds for an axis of {n}",
                       "out of bounds", span=r.span)
    proven = all((b - a).provably_nonneg() for a, b in facts)
    lin = hi.linear()
    if not proven and ck is not None and n.is_const and lin is not None and lin[1] > 0 \
            and not lin[0].startswith("?"):
        g, coef, c = lin
        bound = (n.const_value - c) // coef  # type: ignore[operator]
        ck.body.max_sizes[g] = min(bound, ck.body.max_sizes.get(g, bound))
    return not proven


def index_range(ck: ExprChecker, i: ast.Expr) -> Size | None:
    """The end ``b`` of the range ``0 <= i < b`` a host index walks, when it is the
    variable of the innermost enclosing ``for i in a..b`` (``a >= 0``) or ``map``."""
    if not isinstance(i, ast.Name):
        return None
    var = ck.body.scope.get(i.id)
    if var is None or var.kind != "loop":
        return None
    best: tuple[int, Size | None] | None = None
    for s in ck.body.range_loops:
        if s.targets == (i.id,) and s.span.start <= i.span.start < s.span.end:
            assert isinstance(s.iter, ast.Range)  # the loops over a range only
            lo, hi = ck.expr_size(s.iter.lo), ck.expr_size(s.iter.hi)
            ok = lo is not None and hi is not None and lo.provably_nonneg()
            if best is None or s.span.start > best[0]:
                best = (s.span.start, hi if ok else None)
    for span, name, count in ck.body.map_params:
        if name == i.id and span.start <= i.span.start < span.end:
            if best is None or span.start > best[0]:
                best = (span.start, count)
    return None if best is None else best[1]


def index(ck: ExprChecker, base: TensorType, e: ast.Index) -> Type:
    """The type of ``base[...]``: the four forms of indexing (a slice, host ints, a mask,
    a gather), tried in that order."""
    idx = e.indices
    if base.has_variadic:
        raise Fail(ec.E0409, "indexing needs the rank of `...`", "a `[...]` value", span=e.value.span)
    if len(idx) == 1 and isinstance(idx[0], ast.Range):
        return _slice(ck, base, e, idx[0])
    ranges = [i for i in idx if isinstance(i, ast.Range)]
    if ranges:
        for i in idx:
            if not isinstance(i, ast.Range):
                ck.expr(i)  # type: ignore[arg-type]
        raise Fail(ec.E0410, "a slice `a..b` must be the only index", "a slice beside another index",
                   span=ranges[0].span,
                   help="slice the first axis alone, `x[a..b]`; reach other axes with `rearrange`")
    types = [ck.expr(i) for i in idx]  # type: ignore[arg-type]
    if any(isinstance(t, ErrorType) for t in types):
        return ERROR
    if all(isinstance(t, (HostType, PyType)) or (isinstance(t, TensorType) and not t.axes and t.dtype in INT_DTYPES)
           for t in types):
        return _host_ints(ck, base, e, types)
    if len(idx) != 1:
        raise Fail(ec.E0410, "index with one mask or one tensor of indices", "", span=e.span)
    t = types[0]
    if isinstance(t, TensorType) and t.dtype == "bool":
        return _mask(ck, base, e, t)
    if isinstance(t, TensorType) and t.dtype in INT_DTYPES:
        return _gather(ck, base, e, t)
    raise Fail(ec.E0410, f"can't index with `{t}`", f"this is `{t}`", span=idx[0].span)


def _slice(ck: ExprChecker, base: TensorType, e: ast.Index, r: ast.Range) -> Type:
    """``x[a..b]``: the first axis cut to ``b - a``, its bounds proven or checked."""
    lo = ck.expr_size(r.lo)
    hi = ck.expr_size(r.hi)
    if not base.axes:
        raise Fail(ec.E0406, "a `[]` value has no axis to slice", "", span=e.span)
    check = False
    if lo is not None and hi is not None:
        size = hi - lo
        lab = label_of_size_expr(ck, r.hi, hi) - label_of_size_expr(ck, r.lo, lo)
        check = slice_bounds(lo, hi, base.axes[0], r, ck)
        ax = Axis(size, lab)
    else:
        for x in (r.lo, r.hi):
            t = ck.expr(x)
            if isinstance(t, ErrorType):
                return ERROR
            if not isinstance(t, PyType) and not (isinstance(t, HostType) and t.name == "int"):
                raise Fail(ec.E0410, f"a slice's bounds are ints, not `{t}`", f"this is `{t}`",
                           span=x.span)
        u = fresh_unknown(ck.body.next_id, "k")
        ax = Axis(u, u)
        check = True
    ck.res[e] = SliceIndex(r.lo, r.hi, check)
    return TensorType((ax,) + base.axes[1:], base.dtype, base.domain)


def _host_ints(ck: ExprChecker, base: TensorType, e: ast.Index, types: list[Type]) -> Type:
    """``x[i, j]`` with host ints: the leading axes dropped, each index proven within its
    axis or checked at run time."""
    idx = e.indices
    for t, i in zip(types, idx):
        if isinstance(t, HostType) and t.name != "int":
            raise Fail(ec.E0410, f"an index is an int, not `{t}`", f"this is `{t}`", span=i.span)
    if len(idx) > base.rank:
        raise Fail(ec.E0406, f"{len(idx)} indices for a value with {base.rank} axes", "too many indices",
                   span=e.span)
    check = False
    for k, (t, i) in enumerate(zip(types, idx)):
        n = base.axes[k].size
        v = t.value if isinstance(t, HostType) else None  # an int (checked above)
        if v is None or not n.is_const:
            # A host int, or an axis whose size isn't known here: checked at run time,
            # unless the prover (generics >= 1) has the literal, or the range a loop or
            # `map` walks, within the axis.
            if v is not None:
                within = (n - (v + 1) if v >= 0 else n + v).provably_nonneg()  # type: ignore[operator]
            else:
                top = index_range(ck, i)  # type: ignore[arg-type]
                within = top is not None and (n - top).provably_nonneg()
            check = check or not within
        elif not -n.const_value <= v < n.const_value:  # type: ignore[operator]
            raise Fail(ec.E0406, f"index {v} is out of bounds for an axis of {n}", "out of bounds",
                       span=i.span)
    ck.res[e] = IntIndex(check)
    return TensorType(base.axes[len(idx):], base.dtype, base.domain)


def _mask(ck: ExprChecker, base: TensorType, e: ast.Index, t: TensorType) -> Type:
    """``x[mask]``: the mask's axes, matched to the leading ones, become one of unknown size."""
    at = e.indices[0].span
    if t.rank > base.rank:
        raise Fail(ec.E0402, f"the mask `{t}` has more axes than `{base}`",
                   f"{t.rank} axes, the value has {base.rank}", span=at,
                   help="a mask matches the value's leading axes by position")
    for k, (p, q) in enumerate(zip(t.axes, base.axes)):
        if p.size != q.size:
            raise Fail(ec.E0401, f"sizes not provably equal: the mask's axis {k} is "
                       f"`{axis_words(p)}` but the value's is `{axis_words(q)}`",
                       f"this is `{t}`", span=at,
                       help="a mask matches the value's leading axes by position")
    u = fresh_unknown(ck.body.next_id, "k")
    ck.res[e] = MaskIndex()
    return TensorType((Axis(u, u),) + base.axes[t.rank:], base.dtype, base.domain)


def _gather(ck: ExprChecker, base: TensorType, e: ast.Index, t: TensorType) -> Type:
    """``table[ids]``: rows gathered by indices whose ``Index`` bound is the table's rows."""
    if not base.axes:
        raise Fail(ec.E0406, "a `[]` value can't be indexed", "", span=e.span)
    v = base.axes[0].size
    want = Domain("Index", index=v)
    if t.domain.kind != "Index" or not dm.is_subdomain(t.domain, want, prove_le):
        have = "have no bound" if t.domain.kind != "Index" else f"are `{t.domain}`"
        rows = base.axes[0].label
        target = TensorType(t.axes, t.dtype, Domain("Index", index=rows))
        raise Fail(ec.E0701, f"the indices {have}, but the table has `{axis_words(base.axes[0])}` rows",
                   f"this is `{t}`", span=e.indices[0].span,
                   help=f"assert the bound with `as {target}`, checked at run time")
    bound, rows_axis = t.domain.index_label, base.axes[0]
    if bound is not None and t.domain.index == v and bound != rows_axis.label \
            and ck.body.clash(bound, rows_axis.label):
        # Indices of one role into rows of another, equal only in value.
        raise role_fail(Axis(v, bound), rows_axis, f"the indices are `Index[{bound}]` where the "
                        f"table's rows are `{rows_axis.label}`")
    ck.res[e] = GatherIndex()
    return TensorType(t.axes + base.axes[1:], base.dtype, base.domain)
