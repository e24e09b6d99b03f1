"""Typing rules of indexing any axis: ``x[.., 0..k]`` (``..`` keeps an axis whole),
``x[..., i]`` (``...`` stands for the axes the other indices leave), ``x[i, 0..k]``, and
by label, ``x[D=0..k]``, ``x[n=i]``. A range slices its axis, its label the end's minus the
start's (``n - 1`` for ``0..n-1``), as a leading slice does; a host int removes its axis.
A mask or a gather is for the leading axes only (``indexing.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.builtins import label_of_size_expr
from shapescript.check.fail import Fail
from shapescript.check.indexing import index_range, slice_bounds
from shapescript.check.ops import fresh_unknown
from shapescript.check.resolutions import AxesIndex, AxisPick
from shapescript.check.types import (
    INT_DTYPES, Axis, Domain, ErrorType, HostType, PyType, TensorType, Type, label_hits,
)
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker

__all__ = ["is_axis_index", "axis_index"]


def is_axis_index(idx: tuple[object, ...]) -> bool:
    """Whether an index needs these rules: it names or skips an axis, or has a range
    beside another index (a lone range or ints are the leading axes' forms)."""
    if any(isinstance(i, (ast.WholeAxis, ast.RestAxes, ast.NamedIndex)) for i in idx):
        return True
    return len(idx) > 1 and any(isinstance(i, ast.Range) for i in idx)


def _placed(ck: ExprChecker, base: TensorType, e: ast.Index) -> dict[int, ast.Expr]:
    """Each indexed axis's position → what indexes it (``..`` left out: it keeps the axis)."""
    idx = e.indices
    named = [i for i in idx if isinstance(i, ast.NamedIndex)]
    out: dict[int, ast.Expr] = {}
    if named:
        if len(named) != len(idx):
            raise Fail(ec.E0410, "an index names every axis it indexes, or none",
                       "a named index beside a positional one", span=e.span,
                       help="write `x[D=0..k, n=i]`, or `x[.., i, 0..k]` by position")
        for i in named:
            hits = label_hits(base.axes, i.name, ck.body.role_of)
            if not hits:
                raise Fail(ec.E1001, f"`{base}` has no axis labelled `{i.name}`", "no such axis",
                           span=i.name_span, help="axes: " + " ".join(str(ax) for ax in base.axes))
            if len(hits) > 1:
                raise Fail(ec.E1002, f"the axis label `{i.name}` occurs {len(hits)} times in `{base}`",
                           "ambiguous axis", span=i.name_span,
                           help="index it by position: `x[.., 0..k]`")
            if hits[0] in out:
                raise Fail(ec.E0410, f"the axis `{i.name}` is indexed twice", "indexed again",
                           span=i.span)
            out[hits[0]] = i.value
        return out
    rests = [i for i in idx if isinstance(i, ast.RestAxes)]
    if len(rests) > 1:
        raise Fail(ec.E0410, "an index has at most one `...`", "a second `...`", span=rests[1].span)
    if len(idx) - len(rests) > base.rank:
        raise Fail(ec.E0406, f"{len(idx) - len(rests)} indices for a value with {base.rank} axes",
                   "too many indices", span=e.span)
    k = 0
    for i in idx:  # type: ignore[assignment]
        if isinstance(i, ast.RestAxes):
            k += base.rank - (len(idx) - 1)
            continue
        if not isinstance(i, ast.WholeAxis):
            out[k] = i  # type: ignore[assignment]
        k += 1
    return out


def _slice(ck: ExprChecker, axis: Axis, r: ast.Range) -> tuple[Axis, bool]:
    """The axis ``r`` cuts from ``axis``, and whether its bounds are checked at run time."""
    lo, hi = ck.expr_size(r.lo), ck.expr_size(r.hi)
    if lo is not None and hi is not None:
        label = label_of_size_expr(ck, r.hi, hi) - label_of_size_expr(ck, r.lo, lo)
        return Axis(hi - lo, label), slice_bounds(lo, hi, axis, r, ck)
    for x in (r.lo, r.hi):
        t = ck.expr(x)
        if isinstance(t, ErrorType):
            raise Fail.reported()
        if not isinstance(t, PyType) and not (isinstance(t, HostType) and t.name == "int"):
            raise Fail(ec.E0410, f"a slice's bounds are ints, not `{t}`", f"this is `{t}`", span=x.span)
    u = fresh_unknown(ck.body.next_id, "k")
    return Axis(u, u), True


def _pick(ck: ExprChecker, axis: Axis, i: ast.Expr) -> bool:
    """Whether the host index ``i`` of ``axis`` is checked at run time (E0406 when it is
    provably outside the axis)."""
    t: Type = ck.expr(i)
    if isinstance(t, ErrorType):
        raise Fail.reported()
    if isinstance(t, TensorType) and (t.axes or t.dtype not in INT_DTYPES):
        raise Fail(ec.E0410, "a mask or a tensor of indices picks from the leading axes only",
                   f"this is `{t}`", span=i.span,
                   help="index a later axis with an int or a range, or move it first with `rearrange`")
    if isinstance(t, HostType) and t.name != "int":
        raise Fail(ec.E0410, f"an index is an int, not `{t}`", f"this is `{t}`", span=i.span)
    n = axis.size
    v = t.value if isinstance(t, HostType) else None
    if v is not None and n.is_const and not -n.const_value <= v < n.const_value:  # type: ignore[operator]
        raise Fail(ec.E0406, f"index {v} is out of bounds for an axis of {n}", "out of bounds", span=i.span)
    if v is not None:
        return not (n - (v + 1) if v >= 0 else n + v).provably_nonneg()  # type: ignore[operator]
    top = index_range(ck, i)
    return not (top is not None and (n - top).provably_nonneg())


def axis_index(ck: ExprChecker, base: TensorType, e: ast.Index) -> Type:
    """The type of ``e``, an index of ``base`` by :func:`is_axis_index`'s forms; records an
    ``AxesIndex`` for code generation."""
    if base.has_variadic:
        raise Fail(ec.E0409, "indexing needs the rank of `...`", "a `[...]` value", span=e.value.span)
    placed = _placed(ck, base, e)
    axes: list[Axis] = []
    picks: list[AxisPick] = []
    removed: list[Axis] = []
    for k, axis in enumerate(base.axes):
        i = placed.get(k)
        if i is None:
            axes.append(axis)
        elif isinstance(i, ast.Range):
            cut, check = _slice(ck, axis, i)
            axes.append(cut)
            removed.append(axis)
            picks.append(AxisPick(k, i.lo, i.hi, check))
        else:
            check = _pick(ck, axis, i)
            removed.append(axis)
            picks.append(AxisPick(k, i, None, check))
    ck.res[e] = AxesIndex(tuple(picks))
    domain = base.domain
    if domain.over is not None and any(ax.label == domain.over for ax in removed):
        # Part of the class axis doesn't sum to 1 any more; none of it is a class axis.
        domain = Domain("Unit" if domain.kind == "Prob" else "Real")
    return TensorType(tuple(axes), base.dtype, domain)
