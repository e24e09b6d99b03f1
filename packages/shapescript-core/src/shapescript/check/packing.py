"""``pack`` and ``unpack``: einops' ``pack``/``unpack`` with checked shapes.

``pack((a, b), b * d)`` joins tensors that agree on the axes the pattern names: each
element's axes between the names before ``*`` and the names after it (any number, none
included) are flattened into one, and the elements are joined along it. The packed axis
is a size expression, the sum of each element's product (``1 + n``, ``h*w + 1``),
labelled so.

``unpack(x, b * d -> b d, b n d, n=N)`` is the inverse: the pattern after ``->`` gives
each part's axes, the pattern's names around ``*`` then the part's own axes. A part's own
names are dims, the signature's generic axes, keyword sizes, or one unknown name, whose
size is what the other parts leave of the packed axis (divided by the sizes beside it). The sizes must provably
add up to the packed axis (E0605); with an unknown, the run-time call checks that they do.
The result is a tuple, one tensor per part.

Problems are pattern errors: E0603 (an element has fewer axes than the pattern names),
E0602 (a part without the pattern's names), E0605 (a name that doesn't fit its axis, or
sizes that don't add up), E0604 (more than one unknown), and
E0401/E0404 for elements that disagree on a shared axis or a dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.domains import join
from shapescript.check.fail import Fail
from shapescript.check.builtins import label_of_size_expr, rule, tensor_arg
from shapescript.check.payloads import Pack, Unpack
from shapescript.check.resolutions import BuiltinCall
from shapescript.check.sizes import Size
from shapescript.check.types import (
    ERROR,
    Axis,
    ErrorType,
    TensorType,
    TupleType,
    Type,
)
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker


def _split(pat: ast.PackPattern) -> tuple[list[ast.PatName], list[ast.PatName]] | None:
    """The names before and after the ``*`` (None: malformed, reported by the parser)."""
    stars = [k for k, t in enumerate(pat.axes) if type(t) is ast.PatStar]
    if len(stars) != 1:
        return None
    k = stars[0]
    return list(pat.axes[:k]), list(pat.axes[k + 1:])  # type: ignore[arg-type]


def _sum(sizes: list[Size]) -> Size:
    out = Size.const(0)
    for s in sizes:
        out = out + s
    return out


def _prod(sizes: list[Size]) -> Size:
    out = Size.const(1)
    for s in sizes:
        out = out * s
    return out


def _pattern_of(e: ast.Call, name: str) -> ast.PackPattern:
    pat = e.pattern
    if type(pat) is not ast.PackPattern:
        example = "b * d" if name == "pack" else "b * d -> b d, b n d"
        raise Fail(ec.E0601, f"`{name}` needs a pattern", "no pattern in this call",
                   help=f"write it after the tensor{'s' if name == 'pack' else ''}: "
                        f"`{name}(x, {example})`")
    return pat


def _fit(c: ExprChecker, name: ast.PatName, axis: Axis, who: str) -> None:
    """A pattern name that is a dim or a generic must be its axis's size (E0605)."""
    dims = c.env.all_dims()
    want: Size | None = None
    desc = ""
    if name.name in dims:
        want = Size.const(dims[name.name])
        desc = f"the dim `{name.name}` is {dims[name.name]}"
    elif c.sig is not None and name.name in c.sig.generics:
        want = Size.var(name.name)
        desc = f"`{name.name}` is a generic axis of this signature"
    if want is not None and axis.size != want:
        raise Fail(ec.E0605, f"{desc} but {who}'s axis is `{axis.label}`"
                   + ("" if str(axis.size) == str(axis.label) else f" = {axis.size}"),
                   f"`{name.name}` here", span=name.span,
                   help="check the pattern's names against the type's axes")


@rule("pack")
def check_pack(c: ExprChecker, name: str, e: ast.Call) -> Type:
    from shapescript.check.builtins import need, split_args

    pos, kw = split_args(e)
    need(e, "pack", pos, kw, 1)
    pat = _pattern_of(e, "pack")
    t = c.expr(pos[0].value)
    sides = _split(pat)
    if isinstance(t, ErrorType) or sides is None:
        return ERROR
    if not isinstance(t, TupleType) or not t.items:
        raise Fail(ec.E0408, "`pack` takes a tuple of tensors", f"this is `{t}`",
                   span=pos[0].span, help="write the tensors in parentheses: `pack((a, b), b * d)`")
    left, right = sides
    nl, nr = len(left), len(right)
    first: TensorType | None = None
    parts: list[Size] = []
    labels: list[Size] = []
    domain = None
    for k, item in enumerate(t.items):
        if isinstance(item, ErrorType):
            return ERROR
        if not isinstance(item, TensorType):
            raise Fail(ec.E0408, f"element {k} of `pack`'s tuple is `{item}`, not a tensor",
                       "not a tensor", span=pos[0].span)
        if item.has_variadic:
            raise Fail(ec.E0409, f"`pack` needs the rank of element {k}, `{item}`",
                       "its rank is unknown", span=pos[0].span,
                       help="give it a type without `...` with `as`")
        if item.rank < nl + nr:
            raise Fail(ec.E0603, f"the pattern names {nl + nr} axes around `*`, but element {k} "
                       f"is `{item}`, of rank {item.rank}", "too few axes", span=pat.span,
                       help="each element has the pattern's axes, and any number in place of `*`")
        outer = item.axes[:nl] + item.axes[item.rank - nr:]
        for pn, ax in zip(left + right, outer):
            _fit(c, pn, ax, f"element {k}")
        if first is None:
            first = item
            domain = item.domain
        else:
            if item.dtype != first.dtype:
                raise Fail(ec.E0404, f"element {k} of `pack`'s tuple is `{item.dtype}`, element 0 "
                           f"is `{first.dtype}`", "dtypes differ", span=pos[0].span,
                           help=f"convert it first: `to {first.dtype}`")
            ref = first.axes[:nl] + first.axes[first.rank - nr:]
            for pn, ax, ax0 in zip(left + right, outer, ref):
                if ax.size != ax0.size:
                    raise Fail(ec.E0401, f"`{pn.name}` is `{ax0.label}` in element 0 but "
                               f"`{ax.label}` in element {k}", "sizes not provably equal",
                               span=pn.span)
            domain = join(domain, item.domain)  # type: ignore[arg-type]
        middle = item.axes[nl:item.rank - nr]
        parts.append(_prod([a.size for a in middle]))
        labels.append(_prod([a.label for a in middle]))
    assert first is not None and domain is not None
    named = [Axis(ax.size, ax.label, alias=n.name)
             for n, ax in zip(left + right, first.axes[:nl] + first.axes[first.rank - nr:])]
    packed = Axis(_sum(parts), _sum(labels))
    out = TensorType(tuple(named[:nl]) + (packed,) + tuple(named[nl:]), first.dtype, domain)
    c.res[e] = BuiltinCall("pack", Pack(nl, nr))
    return out


@rule("unpack")
def check_unpack(c: ExprChecker, name: str, e: ast.Call) -> Type:
    """The parts are typed, then the one unknown part solved from the packed axis, then
    checked against it, each step reading the last one's sizes."""
    from shapescript.check.builtins import split_args

    pos, kw = split_args(e)
    if len(pos) != 1:
        raise Fail(ec.E0501, f"`unpack` takes 1 positional argument, {len(pos)} given",
                   "wrong number of arguments", span=e.span)
    pat = _pattern_of(e, "unpack")
    x = tensor_arg(c, pos[0], "unpack")
    sides = _split(pat)
    if x is None or sides is None or not pat.parts:
        return ERROR
    left, right = sides
    nl, nr = len(left), len(right)
    if x.has_variadic:
        raise Fail(ec.E0409, f"`unpack` needs the rank of `{x}`", "its rank is unknown",
                   span=pos[0].span, help="give it a type without `...` with `as`")
    if x.rank != nl + nr + 1:
        raise Fail(ec.E0603, f"the pattern has {nl + nr + 1} axes, but the input is `{x}`, of "
                   f"rank {x.rank}", "ranks differ", span=pat.span)
    outer = x.axes[:nl] + x.axes[nl + 1:]
    for pn, ax in zip(left + right, outer):
        _fit(c, pn, ax, "the input")
    star = x.axes[nl]
    own = _own_names(pat, left, right)
    used = {n.name for part in own for n in part}
    for name, a in kw.items():
        if name not in used:
            raise Fail(ec.E0502, f"the keyword `{name}` names no axis of a part", "unknown keyword",
                       span=a.span, help="remove it, or use the name in a part")
    sized = _part_sizes(c, own, kw)
    if sized is None:
        return ERROR
    known, unknown = sized
    solved = _solve(own, known, unknown, star)
    sizes = {**known, **solved}
    total = _sum([_prod([sizes[n.name][0] for n in p]) for p in own])
    if not unknown and total != star.size:
        raise Fail(ec.E0605, f"the parts add up to `{total}`, but the packed axis is "
                   f"`{star.label}`" + ("" if str(star.label) == str(star.size) else f" = {star.size}"),
                   "sizes don't add up", span=pat.span,
                   help="the parts' sizes must add up to the packed axis; "
                        "assert the axis with `as` if they do at run time")
    outs = []
    shapes: list[list[Size | None]] = []
    for part in own:
        axes = [Axis(ax.size, ax.label, alias=n.name) for n, ax in zip(left, x.axes[:nl])]
        shape: list[Size | None] = []
        for n in part:
            s, lab = sizes[n.name]
            axes.append(Axis(s, lab, alias=n.name))
            shape.append(None if n.name in solved else s)
        axes += [Axis(ax.size, ax.label, alias=n.name) for n, ax in zip(right, x.axes[nl + 1:])]
        outs.append(TensorType(tuple(axes), x.dtype, x.domain))
        shapes.append(shape)
    c.res[e] = BuiltinCall("unpack", Unpack(nl, nr, tuple(tuple(s) for s in shapes)))
    return TupleType(tuple(outs))


def _own_names(pat: ast.PackPattern, left: list[ast.PatName],
               right: list[ast.PatName]) -> list[list[ast.PatName]]:
    """Each part's own names, in the place of ``*`` between the pattern's (E0602 when a
    part isn't the pattern's names around its own)."""
    nl, nr = len(left), len(right)
    outer_names = {n.name for n in left + right}
    own: list[list[ast.PatName]] = []
    for k, part in enumerate(pat.parts):
        names = [n.name for n in part]
        ok = (len(part) >= nl + nr and names[:nl] == [n.name for n in left]
              and names[len(part) - nr:] == [n.name for n in right])
        mine = list(part[nl:len(part) - nr]) if ok else []
        clash = next((n for n in mine if n.name in outer_names), None)
        if not ok or clash is not None:
            around = " ".join([n.name for n in left] + ["…"] + [n.name for n in right])
            raise Fail(ec.E0602, f"part {k} of `unpack` must be `{around}`: the pattern's names "
                       "around `*`, in order, with the part's own axes in its place",
                       "not the pattern's names" if clash is None else f"`{clash.name}` twice",
                       span=part[0].span if part else pat.span,
                       help="write each part as the pattern with `*` replaced by its axes")
        own.append(mine)
    return own


_Sizes = dict[str, tuple[Size, Size]]  # a part's name → its size and label


def _part_sizes(c: ExprChecker, own: list[list[ast.PatName]], kw: dict[str, ast.Arg]
                ) -> tuple[_Sizes, list[ast.PatName]] | None:
    """The parts' names whose sizes are known (keywords, dims, generics), and the unknown
    ones (E0604 when more than one); None after an argument's error."""
    dims = c.env.all_dims()
    known: _Sizes = {}
    unknown: list[ast.PatName] = []
    for part in own:
        for n in part:
            if n.name in known:
                continue
            if any(u.name == n.name for u in unknown):
                unknown.append(n)  # an unknown written twice: E0604 below
                continue
            if n.name in kw:
                v = kw[n.name].value
                s = c.expr_size(v)
                if s is None:
                    c.const_not_size(v)
                    vt = c.expr(v)
                    if isinstance(vt, ErrorType):
                        return None
                    raise Fail(ec.E0304, f"`{n.name}=` takes a size expression", f"this is `{vt}`",
                               span=v.span, help="use literals, dims and the signature's generics")
                known[n.name] = (s, label_of_size_expr(c, v, s))
            elif n.name in dims:
                known[n.name] = (Size.const(dims[n.name]), Size.var(n.name))
            elif c.sig is not None and n.name in c.sig.generics:
                c.body.used_generics.add(n.name)
                known[n.name] = (Size.var(n.name), Size.var(n.name))
            else:
                unknown.append(n)
    if len(unknown) > 1:
        names = sorted({u.name for u in unknown})
        raise Fail(ec.E0604, "`unpack` can solve one size from the packed axis, not "
                   + (" and ".join(f"`{u}`" for u in names) if len(names) > 1
                      else f"`{names[0]}` in two places"),
                   "sizes unknown", span=unknown[-1].span,
                   help="give the others as keywords (`n=4`), or use dims or the signature's axes")
    return known, unknown


def _solve(own: list[list[ast.PatName]], known: _Sizes, unknown: list[ast.PatName],
           star: Axis) -> _Sizes:
    """The one unknown name's size: what the other parts leave of the packed axis,
    divided by the sizes beside it in its part (checked to divide exactly when the
    program runs)."""
    if not unknown:
        return {}
    u = unknown[0]
    part = next(p for p in own if any(n is u for n in p))
    others = [_prod([known[n.name][0] for n in p]) for p in own if p is not part]
    other_labels = [_prod([known[n.name][1] for n in p]) for p in own if p is not part]
    beside = [known[n.name] for n in part if n is not u]
    if any(b[0] == Size.const(0) for b in beside):
        raise Fail(ec.E0604, f"`{u.name}` can't be solved beside an axis of size 0",
                   "sizes unknown", span=u.span, help=f"give `{u.name}` as a keyword")
    return {u.name: ((star.size - _sum(others)).floordiv(_prod([b[0] for b in beside])),
                     (star.label - _sum(other_labels)).floordiv(_prod([b[1] for b in beside])))}
