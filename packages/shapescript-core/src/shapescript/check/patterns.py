"""Static checking of einops patterns.

``check_pattern`` binds a pattern's names to its inputs' axes by position, solves groups,
builds the output type and the exact string and keywords codegen passes to einops::

    rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P)
    # img: [b 1 S S] (S = 16, P = 4): gh = gw = S/P = 4
    # out: [b (gh gw) (p1 p2 c)], sizes b 16 16, labels b (S/P)*(S/P) P*P

Names:

- a dim's name constrains its axis to the dim's size (E0605), and is passed to einops;
- one of the enclosing signature's generics constrains its axis to that generic;
- a keyword size (``p1=P``) binds its name;
- any other name is local to the pattern: it takes the size of its axis, or is solved by
  exact division inside a group. Its *label* is the expression it was solved to, with
  dims symbolic: ``k`` from ``(k two)`` on a ``D`` axis, ``two=2``, is
  labelled ``D/2``; a bare local takes its axis's label.

A group is labelled by the product of its members' labels. Integer literals other than
1 become generated names (``(k 2)`` is ``(k ss_2)`` with ``ss_2=2``): not
``_ss_2``, as einops rejects axis names that start or end with ``_``, so the generated
names are ``ss_<n>`` (``ss_<n>_<k>`` for the k-th ``n`` on one side), renamed away from
any name the pattern already uses. The i-th literal ``n`` of the input side matches the
i-th ``n`` of the output side.

Tuples are the caller's business: it stacks a tuple of equal tensors into
one input with a new first axis of the tuple's length (labelled by it) and passes that.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

from shapescript.builtin_registry import EINOPS_REDUCE_OPS, family
from shapescript.check.domains import interval_view, reduction_domain
from shapescript.check.dtypes import reduction_dtype
from shapescript.check.broadcast import Clash, role_fail
from shapescript.check.fail import Fail
from shapescript.check.pattern_results import PatternResult, RuntimeCheck
from shapescript.check.pattern_terms import (
    Renamer, Term, check_unique, convert_side, fmt_axes, side_text, syntax_error, user_names,
)
from shapescript.check.size_solve import exact_div
from shapescript.check.sizes import Size
from shapescript.check.types import (
    NOBOUND, REAL, Axis, Domain, INT_DTYPES, TensorType, size_text,
)
from shapescript.syntax import ast
from shapescript.vocab import CLASS_DOMAINS
from shapescript import error_codes as ec

__all__ = ["PatternResult", "RuntimeCheck", "REDUCE_OPS", "check_pattern"]

# ``reduce(x, pattern, op)``'s operations: the reductions einops has.
REDUCE_OPS = EINOPS_REDUCE_OPS
KINDS = family("pattern")
# An einsum names its axes with one letter each: a-z and A-Z.
EINSUM_NAMES = 52
ONE = Size.const(1)


class _Checker:
    def __init__(self, kind: str, inputs: list[TensorType], kw: dict[str, tuple[Size, Size]],
                 dims: dict[str, int], generics: frozenset[str],
                 unknowns: Callable[[], int], clash: Clash | None = None) -> None:
        self.kind = kind
        self.clash = clash
        self.unknowns = unknowns
        self.inputs = inputs
        self.kw = kw
        self.dims = dims
        self.generics = generics
        # name -> (size, label, origin): origin "dim", "generic", "kw", "literal", "local"
        self.known: dict[str, tuple[Size, Size, str]] = {}
        self.bound: dict[str, tuple[Size, Size]] = {}
        self.bound_in: dict[str, int] = {}  # the input that bound each name first
        self.in_group_names: set[str] = set()
        self.checks: list[RuntimeCheck] = []
        self.ell: tuple[Axis, ...] | None = None
        self.input_axes_names: list[list[tuple[Axis, list[str]]]] = []
        # Output names that label their axes (local roles): name -> (size, matched label)
        self.locals: dict[str, tuple[Size, Size]] = {}
        # The labels of each group's members, in order: split on the input side, merged
        # on the output side (``(h d)`` merged back as ``(d h)`` is another layout).
        self.splits: list[tuple[Size, ...]] = []
        self.merges: list[tuple[Size, ...]] = []

    def seed(self, all_terms: list[Term]) -> None:
        # In order of appearance (a dict, not a set): the keywords einops is given follow
        # it, so the generated code is the same in every process.
        names = dict.fromkeys(n for t in all_terms for n in t.names())
        for t in all_terms:
            for item in ([t] if t.kind != "group" else list(t.items)):
                if item.kind == "name" and item.literal is not None:
                    c = Size.const(item.literal)
                    self.known[item.name] = (c, c, "literal")
        for n in names:
            if n in self.known:
                continue
            if n in self.dims:
                self.known[n] = (Size.const(self.dims[n]), Size.var(n), "dim")
            elif n in self.generics:
                self.known[n] = (Size.var(n), Size.var(n), "generic")
        for n, (size, label) in self.kw.items():
            if n not in names:
                raise Fail(ec.E0502, f"the keyword `{n}` names no axis of the pattern",
                           "unknown keyword", help="remove it, or use the name in the pattern")
            prev = self.known.get(n)
            if prev is not None and prev[0] != size:
                raise Fail(ec.E0605, f"`{n}` is `{size_text(prev[0], prev[1])}` but its keyword "
                           f"says `{size_text(size, label)}`", f"`{n}={label}`")
            if prev is None or prev[2] != "dim":
                self.known[n] = (size, label, "kw")

    def _misfit(self, name: str, size: Size, axis: Axis) -> Fail:
        origin = self.known[name][2] if name in self.known else "local"
        desc = {"dim": f"the dim `{name}` is {size}",
                "generic": f"`{name}` is a generic axis of this signature",
                "kw": f"`{name}` is {size} by its keyword",
                "literal": f"`{size}` is {size}"}.get(origin, f"`{name}` is {size}")
        where = (f"its axis is `{axis.label}`" if str(axis.size) == str(axis.label)
                 else f"its axis `{axis.label}` has size {axis.size}")
        return Fail(ec.E0605, f"{desc} but {where}",
                    f"`{name}` here" if origin == "generic" else f"`{axis.label}` is {axis.size}",
                    help="check the pattern's axis order against the input's type; "
                         "a name that is a dim or a generic must fit its axis")

    def bind_name(self, name: str, axis: Axis, at: tuple[int, int] = (0, 0)) -> None:
        if name in self.known:
            size = self.known[name][0]
            if size != axis.size and self.known[name][2] == "kw" and _open(axis.size, size):
                # A keyword size for an axis the types leave open (`a=2` on a generic `p`):
                # checked when the call runs, as einops checks it; the axis stays `p`.
                what = f"`{name}={self.known[name][1]}` needs axis `{axis.label}` to be {size}"
                self.checks.append(RuntimeCheck(*at, axis.size, size, what, "has_size"))
                self.bound.setdefault(name, (axis.size, axis.label))
                return
            if size != axis.size:
                raise self._misfit(name, size, axis)
            label = self.known[name][1]
            if self.known[name][2] == "dim" and self._clashes(axis.label, label):
                raise role_fail(axis, Axis(size, label),
                                f"the pattern's `{name}` is on an axis `{axis.label}`")
            self.bound.setdefault(name, (size, label))
            return
        if name in self.bound:
            size, label = self.bound[name]
            if size != axis.size and ONE in (size, axis.size) and self.kind == "einsum" \
                    and self.bound_in.get(name) != at[0]:
                # An axis of size 1 broadcasts against another input's, as torch's einsum does.
                self.bound[name] = (size, label) if axis.size == ONE else (axis.size, axis.label)
                return
            if size != axis.size:
                raise Fail(ec.E0401, f"sizes not provably equal: `{name}` is "
                           f"`{size_text(size, label)}` in one place but `{axis.written}` "
                           "in another", f"`{name}` is `{axis.written}` here",
                           help="use different names for different axes, or `as`")
            if self._clashes(axis.label, label):
                raise role_fail(axis, Axis(size, label),
                                f"`{name}` is `{label}` in one place but `{axis.label}` in "
                                "another")
            return
        self.bound[name] = (axis.size, axis.label)
        self.bound_in[name] = at[0]

    def _clashes(self, have: Size, want: Size) -> bool:
        return self.clash is not None and have != want and self.clash(have, want)

    def bind_group(self, i: int, pos: int, g: Term, axis: Axis) -> None:
        k_size, k_label = ONE, ONE
        unknown: list[str] = []
        for m in g.items:
            if m.kind == "one":
                continue
            self.in_group_names.add(m.name)
            if m.name in self.known:
                s, lab, _ = self.known[m.name]
            elif m.name in self.bound:
                s, lab = self.bound[m.name]
            else:
                unknown.append(m.name)
                continue
            k_size, k_label = k_size * s, k_label * lab
        gs = g.src()
        if not unknown:
            keyword = any(self.known.get(m.name, (0, 0, ""))[2] == "kw" for m in g.items)
            if k_size != axis.size and keyword and _open(axis.size, k_size):
                # Keyword sizes for a group on an axis the types leave open: as `bind_name`.
                what = f"`{gs}` needs axis `{axis.label}` to be {size_text(k_size, k_label)}"
                self.checks.append(RuntimeCheck(i, pos, axis.size, k_size, what, "has_size"))
            elif k_size != axis.size:
                raise Fail(ec.E0605, f"the group `{gs}` is `{size_text(k_size, k_label)}` but "
                           f"its axis is `{axis.written}`",
                           f"`{k_label}` against `{axis.label}`",
                           help="check the pattern's axis order and its keyword sizes")
            for m in g.items:
                if m.kind == "name":
                    self.bound.setdefault(m.name, self.known[m.name][:2]
                                          if m.name in self.known else self.bound[m.name])
            return
        if len(unknown) > 1:
            raise Fail(ec.E0604, f"the group `{gs}` has {len(unknown)} unknown sizes "
                       f"({', '.join('`' + u + '`' for u in unknown)}) on the axis "
                       f"`{axis.written}`", "not solvable",
                       help=f"give all but one as keywords, e.g. `{unknown[-1]}=…`")
        u = unknown[0]
        if k_size == 0:
            raise Fail(ec.E0604, f"the group `{gs}` has a member of size 0", "not solvable")
        q = exact_div(axis.size, k_size)
        if q is None:
            if _provably_inexact(axis.size, k_size):
                raise Fail(ec.E0604, f"the group `{gs}` doesn't divide its axis exactly: "
                           f"`{axis.written}` is not a multiple of `{size_text(k_size, k_label)}`",
                           f"`{axis.label}` / `{k_label}`",
                           help="choose sizes whose product is the axis's size")
            q = axis.size.floordiv(k_size)
            self.checks.append(RuntimeCheck(
                i, pos, axis.size, k_size,
                f"`{gs}` needs axis `{axis.label}` to be a multiple of "
                f"`{size_text(k_size, k_label)}`"))
        ql = exact_div(axis.label, k_label)
        if ql is None:
            ql = axis.label.floordiv(k_label)
        self.bound[u] = (q, ql)
        for m in g.items:
            if m.kind == "name" and m.name in self.known:
                self.bound.setdefault(m.name, self.known[m.name][:2])

    def bind_input(self, i: int, side: tuple[Term, ...], t: TensorType) -> None:
        axes = t.axes
        e = next((j for j, x in enumerate(side) if x.kind == "ell"), None)
        nth = ("first", "second", "third", "fourth")
        where = (f"{nth[i] if i < len(nth) else str(i + 1) + 'th'} input "
                 if len(self.inputs) > 1 else "input ")
        if e is None:
            if any(a.variadic for a in axes):
                raise Fail(ec.E0409, f"the pattern `{side_text(side)}` needs the rank of the "
                           f"{where}`{fmt_axes(axes)}`", "`...` has an unknown rank",
                           help="add `...` to the pattern for the axes `...` stands for")
            if len(axes) != len(side):
                raise Fail(ec.E0603, f"the pattern `{side_text(side)}` has {_axes_n(len(side))} "
                           f"but the {where}`{fmt_axes(axes)}` has {len(axes)}",
                           f"{_axes_n(len(side))}, the {where}has {len(axes)}",
                           help="write one name, group or `1` per axis, or `...` for several")
            pairs = [(j, side[j], axes[j]) for j in range(len(side))]
            ell_axes: tuple[Axis, ...] | None = None
        else:
            pre, post = side[:e], side[e + 1:]
            if len(pre) + len(post) > len(axes):
                raise Fail(ec.E0603, f"the pattern `{side_text(side)}` needs at least "
                           f"{len(pre) + len(post)} axes but the {where}`{fmt_axes(axes)}` has "
                           f"{len(axes)}", "too few axes")
            n = len(axes)
            ell_axes = axes[len(pre): n - len(post)]
            if any(a.variadic for a in axes[:len(pre)] + axes[n - len(post):]):
                raise Fail(ec.E0409, f"the pattern `{side_text(side)}` needs the rank of the "
                           f"{where}`{fmt_axes(axes)}`", "`...` has an unknown rank")
            pairs = [(j, pre[j], axes[j]) for j in range(len(pre))]
            pairs += [(j - len(post), post[j], axes[n - len(post) + j]) for j in range(len(post))]
            if self.ell is None:
                self.ell = ell_axes
            elif len(self.ell) != len(ell_axes) or any(
                    x.size != y.size or x.variadic != y.variadic
                    for x, y in zip(self.ell, ell_axes)):
                raise Fail(ec.E0401, "sizes not provably equal: `...` stands for "
                           f"`{fmt_axes(self.ell)}` in input 1 but `{fmt_axes(ell_axes)}` "
                           f"in input {i + 1}", "`...` differs")
        names_per_axis: list[tuple[Axis, list[str]]] = []
        for pos, term, axis in pairs:
            if term.kind == "one":
                if axis.size != ONE:
                    raise Fail(ec.E0605, f"`1` in the pattern but axis `{axis.label}` has size "
                               f"{axis.size}", f"`{axis.label}` is {axis.size}")
            elif term.kind == "name":
                self.bind_name(term.name, axis, (i, pos))
            else:
                self.bind_group(i, pos, term, axis)
            names_per_axis.append((axis, term.names()))
        if ell_axes is not None:
            names_per_axis.extend((a, ["..."]) for a in ell_axes)
        self.input_axes_names.append(names_per_axis)
        for _, term, _ in pairs:
            members = [m.name for m in term.items if m.kind == "name"]
            if term.kind == "group" and len(members) > 1:
                self.splits.append(tuple(self.bound[n][1] for n in members))

    def out_axis(self, term: Term, input_names: set[str], has_ell: bool) -> list[Axis]:
        if term.kind == "one":
            return [Axis(ONE, ONE)]
        if term.kind == "ell":
            if not has_ell:
                raise Fail(ec.E0602, "`...` is on the right side of the pattern only",
                           "`...` on one side")
            assert self.ell is not None
            return list(self.ell)
        if term.kind == "name":
            size, label = self.out_name(term, input_names)
            written = term.written or term.name
            if term.literal is None and term.name not in self.known \
                    and Size.var(written) != label:
                # A name as written is the axis's label: a local role, standing for what
                # it matched (``t`` in ``b n d, b t d -> b n t`` is its own axis).
                self.locals[written] = (size, label)
                return [Axis(size, Size.var(written), False, written)]
            return [Axis(size, label)]
        size, label = ONE, ONE
        unknown = False
        members = [m.name for m in term.items if m.kind == "name"]
        if len(members) > 1 and all(n in input_names for n in members):
            self.merges.append(tuple(self.bound[n][1] for n in members))
        for m in term.items:
            if m.kind == "ell":
                if not has_ell:
                    raise Fail(ec.E0602, "`...` is on the right side of the pattern only",
                               "`...` on one side")
                assert self.ell is not None
                for a in self.ell:
                    if a.variadic:
                        # `(...)` of axes of unknown rank: one axis of unknown size.
                        unknown = True
                        continue
                    size, label = size * a.size, label * a.label
            elif m.kind == "name":
                s, lab = self.out_name(m, input_names)
                size, label = size * s, label * lab
        if unknown:
            size = label = Size.var(f"?k#g{self.unknowns()}")
        return [Axis(size, label)]

    def out_name(self, term: Term, input_names: set[str]) -> tuple[Size, Size]:
        n = term.name
        if n in input_names:
            return self.bound[n]
        shown = term.src()
        if self.kind == "repeat":
            if n in self.known:
                return self.known[n][:2]
            raise Fail(ec.E0602, f"`{n}` is a new axis of `repeat` without a size",
                       "no size", help=f"give its size as a keyword: `{n}=…`")
        if self.kind == "rearrange" and term.literal is not None:
            raise Fail(ec.E0602, f"`{shown}` is on the right side of the pattern only",
                       f"`{shown}` on one side",
                       help="in `rearrange`, a number other than 1 is a named axis: write "
                            "it on both sides, or use `repeat` to make a new axis")
        help = {"rearrange": "`rearrange` only moves axes: use `repeat` to add one",
                "reduce": "`reduce` only removes axes: use `repeat` to add one",
                "einsum": "every output name of `einsum` must name an input axis"}[self.kind]
        raise Fail(ec.E0602, f"`{shown}` is on the right side of the pattern only",
                   f"`{shown}` on one side", help=help)


def _axes_n(n: int) -> str:
    return f"{n} axis" if n == 1 else f"{n} axes"


def _open(size: Size, keyword: Size) -> bool:
    """Whether an axis of ``size`` (generic or unknown, not ``keyword`` ± a constant) may be
    ``keyword`` when the program runs."""
    return bool(size.free_vars()) and (size - keyword).const_value is None


def _provably_inexact(num: Size, den: Size) -> bool:
    d = den.const_value
    if d is None or d == 0:
        return False
    n = num.const_value
    if n is not None:
        return n % d != 0
    lin = num.linear()
    if lin is not None:
        _, a, c = lin
        return a % d == 0 and c % d != 0
    return False


def _fix_class(d: Domain, axes: tuple[Axis, ...],
               local: dict[str, tuple[Size, Size]] | None = None) -> Domain:
    """A class domain survives only with exactly one axis labelled by its class axis
    (under the name the output wrote for it, if it wrote one)."""
    if d.kind not in CLASS_DOMAINS:
        return d
    for name, (_, matched) in (local or {}).items():
        if matched == d.over and sum(1 for a in axes if not a.variadic and a.label == d.over) == 0:
            d = Domain(d.kind, over=Size.var(name))
            break
    if sum(1 for a in axes if not a.variadic and a.label == d.over) == 1:
        return d
    return Domain("Unit") if d.kind == "Prob" else REAL


def check_pattern(kind: str, pattern: ast.Pattern, inputs: list[TensorType],
                  kw_sizes: dict[str, tuple[Size, Size]] | None = None,
                  dims: dict[str, int] | None = None,
                  generics: frozenset[str] = frozenset(),
                  reduce_op: str | None = None,
                  unknowns: Callable[[], int] | None = None,
                  clash: Clash | None = None) -> PatternResult:
    """Check ``kind`` (``rearrange reduce repeat einsum``) with ``pattern`` on ``inputs``.

    ``kw_sizes``: keyword sizes, name → ``(size, label)`` (already converted by the
    checker). ``dims``: the module's dims, name → value. ``generics``: the enclosing
    signature's generic names. ``reduce_op``: ``reduce``'s operation. ``unknowns``: numbers
    the unknown size of a group over axes of unknown rank (the body checker's numbering, so
    that two bodies, or two checks of one, give the same names; a count of its own if none).
    ``clash``: whether an axis's label may not stand for another's of the same size
    (``check.roles``): a dim, or a name written twice, on axes of two roles is E0414.

    Errors: E0601 syntax (a name twice on one side, nested groups, two ``...``, numbers or
    groups in ``einsum``), E0602 a name on one side only or an unknown ``reduce``
    operation, E0603 rank mismatch, E0604 a group not solvable exactly, E0605 a dim,
    generic, keyword or literal that doesn't fit its axis, E0401 one name on axes of
    different sizes, E0404 ``einsum`` of different dtypes, E0409 ``...`` axes without a
    rank, E0411 ``reduce(…, mean)`` of integers, E0502 a keyword naming no axis, E0704
    ``reduce`` of a class domain not over its class axis.

    >>> from shapescript.source import NO_SPAN
    >>> from shapescript.check.types import REAL, Axis
    >>> names = "b c h w".split()
    >>> images = TensorType(tuple(Axis(Size.var(x), Size.var(x)) for x in names), "f32", REAL)
    >>> pat = ast.Pattern(((tuple(ast.PatName(x, NO_SPAN) for x in names)),), (ast.PatName("b", NO_SPAN),), NO_SPAN)
    >>> r = check_pattern("reduce", pat, [images], {}, {}, frozenset(names), reduce_op="max")
    >>> r.einops_pattern, [str(a) for a in r.out.axes]
    ('b c h w -> b', ['b'])
    """
    if kind not in KINDS:
        raise ValueError(f"unknown pattern kind {kind!r}")
    kw_sizes = dict(kw_sizes or {})
    dims = dims or {}
    _check_call(kind, pattern, inputs, kw_sizes, reduce_op)
    in_sides, out_side = _sides(kind, pattern)

    c = _Checker(kind, inputs, kw_sizes, dims, generics,
                 unknowns if unknowns is not None else count(1).__next__, clash)
    c.seed([t for s in in_sides for t in s] + list(out_side))
    for i, (terms, x) in enumerate(zip(in_sides, inputs)):
        c.bind_input(i, terms, x)

    input_names = {n for s in in_sides for t in s for n in t.names()}
    has_ell = any(t.kind == "ell" for s in in_sides for t in s)
    out_has_ell = any(t.kind == "ell" or any(m.kind == "ell" for m in t.items)
                      for t in out_side)
    out_names = {n for t in out_side for n in t.names()}
    out_axes: list[Axis] = []
    for term in out_side:
        out_axes.extend(c.out_axis(term, input_names, has_ell))
    axes = tuple(out_axes)

    # Names (and `...`) that the output drops.
    order = list(dict.fromkeys(n for s in in_sides for t in s for n in t.names()))
    dropped = [n for n in order if n not in out_names]
    if has_ell and not out_has_ell:
        dropped.append("...")
    if dropped and kind in ("rearrange", "repeat"):
        literals = {t.name: t.literal for s in in_sides for t0 in s
                    for t in [t0, *t0.items] if t.literal is not None}
        shown = str(literals.get(dropped[0], dropped[0]))
        help = ("`rearrange` keeps every axis: use `reduce` to remove one"
                if kind == "rearrange" else "`repeat` can't remove axes: use `reduce` first")
        raise Fail(ec.E0602, f"`{shown}` is on the left side of the pattern only",
                   f"`{shown}` on one side", help=help)
    reduced = tuple(ax.label for per_input in c.input_axes_names for ax, ns in per_input
                    if any(n in dropped for n in ns))
    dtype, domain = _dtype_domain(kind, inputs, reduce_op, reduced)
    domain = _fix_class(domain, axes, c.locals)

    text, kwargs = _einops_call(kind, c, in_sides, out_side, input_names | out_names)
    return PatternResult(TensorType(axes, dtype, domain), text, kwargs, tuple(c.checks),
                         reduced, c.locals, _case_pitfalls(c, dims), tuple(c.splits),
                         tuple(c.merges))


def _einops_call(kind: str, c: _Checker, in_sides: list[tuple[Term, ...]],
                 out_side: tuple[Term, ...], names: set[str]) -> tuple[str, dict[str, Size]]:
    """The pattern as einops reads it, and the sizes einops needs as keywords."""
    input_names = {n for s in in_sides for t in s for n in t.names()}
    kwargs: dict[str, Size] = {}
    if kind != "einsum":
        for n, (size, _, origin) in c.known.items():
            if origin == "generic" and n in input_names and n not in c.in_group_names:
                continue  # einops reads it from the input's shape
            if n in names:
                kwargs[n] = size
    if kind == "einsum":
        text = ", ".join(" ".join(t.text() for t in s) for s in in_sides)
    else:
        text = " ".join(t.text() for t in in_sides[0])
    text += " -> " + " ".join(t.text() for t in out_side)
    return text, kwargs


def _check_call(kind: str, pattern: ast.Pattern, inputs: list[TensorType],
                kw_sizes: dict[str, tuple[Size, Size]], reduce_op: str | None) -> None:
    """What the call gives beside the pattern: ``reduce``'s operation, ``einsum``'s lack of
    keyword sizes, and as many operands as the pattern has inputs."""
    if kind == "reduce" and reduce_op not in REDUCE_OPS:
        raise Fail(ec.E0602, f"`{reduce_op}` is not a `reduce` operation" if reduce_op
                   else "`reduce` needs an operation", "unknown operation",
                   help="use one of " + ", ".join(f"`{o}`" for o in REDUCE_OPS))
    if kind == "einsum" and kw_sizes:
        raise Fail(ec.E0502, f"`einsum` takes no keyword sizes (`{next(iter(kw_sizes))}`)",
                   "unknown keyword")
    if kind != "einsum" and len(pattern.inputs) != 1:
        raise syntax_error(f"`{kind}` takes one input pattern, not {len(pattern.inputs)}",
                           "one input expected")
    if len(pattern.inputs) != len(inputs):
        raise Fail(ec.E0603, f"the pattern has {len(pattern.inputs)} inputs but "
                   f"{len(inputs)} operands are given", "number of inputs")


def _sides(kind: str, pattern: ast.Pattern) -> tuple[list[tuple[Term, ...]], tuple[Term, ...]]:
    """The pattern's input sides and output side as terms, renamed for einops, each side's
    names once (E0601); at most 52 names in ``einsum`` (E0606)."""
    taken = set(user_names(pattern.output))
    for side in pattern.inputs:
        taken |= set(user_names(side))
    if kind == "einsum" and len(taken) > EINSUM_NAMES:
        # torch (and einops after it) name each axis with one ASCII letter.
        raise Fail(ec.E0606, f"`einsum` with {len(taken)} axis names, more than {EINSUM_NAMES}",
                   f"{len(taken)} names", help="contract in steps, or merge axes with "
                   "`rearrange` first (`b (h w) c` for `b h w c`)")
    ren = Renamer(taken)
    in_sides = [convert_side(s, ren, kind, False) for s in pattern.inputs]
    out_side = convert_side(pattern.output, ren, kind, True)
    if kind != "einsum":
        check_unique(in_sides[0], "left")
    check_unique(out_side, "right")
    return in_sides, out_side


def _dtype_domain(kind: str, inputs: list[TensorType], reduce_op: str | None,
                  reduced: tuple[Size, ...]) -> tuple[str, Domain]:
    """The result's dtype and domain: a reduction's, a contraction's, else the input's."""
    first = inputs[0]
    dtype, domain = first.dtype, first.domain
    if kind == "reduce" and reduced:
        op = reduce_op or "sum"
        dtype = reduction_dtype(op, first.dtype)
        domain = reduction_domain(op, first.domain, dtype, check_over=True, over=reduced)
    elif kind == "einsum":
        dtypes = {t.dtype for t in inputs}
        if len(dtypes) > 1:
            shown = ", ".join(f"`{t.dtype}`" for t in inputs)
            raise Fail(ec.E0404, f"dtypes differ: `einsum` of {shown}", "dtypes differ",
                       help=f"convert the operands to one dtype with `to`, e.g. `to {first.dtype}`")
        if dtype == "bool":
            raise Fail(ec.E0404, "`einsum` of masks", "`bool`",
                       help="convert with `to f32` first")
        if len(inputs) > 1 or reduced:
            if dtype in INT_DTYPES or dtype == "Int":
                domain = NOBOUND
            elif all("NonNeg" in interval_view(t.domain) for t in inputs):
                domain = Domain("NonNeg")
            else:
                domain = REAL
    return dtype, domain


def _case_pitfalls(c: _Checker, dims: dict[str, int]) -> tuple[tuple[str, str], ...]:
    """In a pattern that names dims, a name that differs from one only by case (``k``
    beside ``dim K``) matched bare on an axis of another size: it reads as the dim but is
    a new axis, which takes any size, where the dim would have been checked. A name
    solved in a group (``d`` in ``(h d)``), or one on an axis of the dim's size, is the
    usual idiom; so is any name in a pattern that names no dim (``c`` in ``b c h w``)."""
    if not dims or not any(origin == "dim" for _, _, origin in c.known.values()):
        return ()
    out = []
    for n, (size, _) in c.bound.items():
        if n in c.known or n in c.in_group_names:
            continue
        # The spellings a dim differing only by case takes in practice (`K`, `Dh`, `DH`):
        # a lookup each, where a map of every dim by case would cost each pattern.
        d = next((v for v in (n.upper(), n.capitalize(), n.swapcase(), n.lower())
                  if v != n and v in dims), None)
        if d is None or size == dims[d]:
            continue
        out.append((f"`{n}` is a new axis, not the dim `{d}`: it matched an axis of size "
                    f"`{size}`, and `{d}` is {dims[d]}",
                    f"write `{d}` to constrain the axis to the dim, or a name that isn't "
                    f"`{d}` in another case for a new axis"))
    return tuple(out)
