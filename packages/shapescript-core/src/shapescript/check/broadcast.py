"""Broadcasting by axis label, ``@``, and positional fits.

``a ⊕ b`` has ``a``'s axes, then those of ``b``'s labels that ``a`` lacks, in ``b``'s
order. Shared labels need provably equal sizes (E0401); a label occurring a different
number of times in the operands is E0405; equal counts match in order. So
``[b n D] - [b n]`` is ``[b n D]`` and ``[D] * [b n D]`` is ``[D b n]``.

Each operand gets a ``Plan``: how to turn it into a tensor that torch broadcasts against
the result *by position*. A plan is a ``permute`` of the operand's own axes into result
order, then an index ``t[:, None, :]`` that inserts size-1 axes where the result has axes
the operand lacks. Leading new axes need nothing (torch prepends them), and trailing
``:`` are left out, so the common cases are free::

    [b n D] - [b n]    left: identity     right: t[:, :, None]
    [D] * [b n D]      left: t[:, None, None]   right: t.permute(2, 0, 1)

Host numbers and ``[]`` tensors broadcast to anything with an identity plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from shapescript.check.fail import Fail
from shapescript.check.sizes import Size
from shapescript.check.types import Axis, TensorType
from shapescript import error_codes as ec

__all__ = ["Broadcast", "Plan", "IDENTITY", "broadcast", "matmul", "check_fits", "role_fail",
           "Clash", "RoleOf"]

# Whether an axis labelled by the first label may stand for one labelled by the second
# when their sizes agree (``check.roles``); None: sizes alone decide.
Clash = Callable[[Size, Size], bool]
# A label's role, and whether it holds a name a pattern wrote (a local role), which
# broadcasting matches, failing its own label, by what it stands for (``check.roles``).
RoleOf = Callable[[Size], tuple[Size, bool]]


@dataclass(frozen=True, slots=True)
class Plan:
    """How codegen aligns one operand with the result.

    ``permute``: ``t.permute(*permute)`` first (None: the axes are already in order).
    ``index``: then ``t[...]`` with one entry per position, True for ``:`` (an existing
    axis, in order) and False for ``None`` (a new size-1 axis); None: no indexing.
    Leading ``None`` entries and trailing ``:`` entries are never emitted.
    """

    permute: tuple[int, ...] | None = None
    index: tuple[bool, ...] | None = None

    @property
    def is_identity(self) -> bool:
        return self.permute is None and self.index is None

    def subscript(self) -> str | None:
        """The indexing as Python source, e.g. ``":, :, None"`` (None: no indexing)."""
        if self.index is None:
            return None
        return ", ".join(":" if k else "None" for k in self.index)

    def apply(self, t: Any) -> Any:
        """Run the plan on a torch tensor (tests and the REPL; codegen emits the same)."""
        if self.permute is not None:
            t = t.permute(*self.permute)
        if self.index is not None:
            t = t[tuple(slice(None) if k else None for k in self.index)]
        return t


IDENTITY = Plan()


@dataclass(frozen=True, slots=True)
class Broadcast:
    """The result axes of ``a ⊕ b`` or ``a @ b`` and each operand's plan."""

    axes: tuple[Axis, ...]
    a_plan: Plan = IDENTITY
    b_plan: Plan = IDENTITY


def _fmt_axes(axes: Sequence[Axis]) -> str:
    return "[" + " ".join(str(a) for a in axes) + "]"


def _occurrences(labels: Sequence[Size]) -> list[int]:
    """For each position, how many earlier axes have the same label."""
    out = []
    for i, lab in enumerate(labels):
        out.append(sum(1 for x in labels[:i] if x == lab))
    return out


def _count(labels: Sequence[Size], lab: Size) -> int:
    return sum(1 for x in labels if x == lab)


def _plan(src_pos: list[int | None]) -> Plan:
    """A plan from, for each result position, which operand axis goes there (None: the
    operand lacks it). Every operand axis appears exactly once."""
    present = [p for p in src_pos if p is not None]
    permute = tuple(present) if present != sorted(present) else None
    # Leading absent positions need nothing: torch prepends size-1 axes.
    first = next((i for i, p in enumerate(src_pos) if p is not None), len(src_pos))
    flags = [p is not None for p in src_pos[first:]]
    while flags and flags[-1]:
        flags.pop()
    index = tuple(flags) if flags else None
    return Plan(permute, index)


def _size_fail(lab: Size, sa: Size, sb: Size, left: str = "left operand",
               right: str = "right") -> Fail:
    return Fail(
        ec.E0401,
        f"sizes not provably equal: `{lab}` is {sa} in the {left} but {sb} in the {right}",
        f"`{lab}` is {sa} here but {sb} there",
        help="if they are equal at run time, assert it with `as`; if these are different "
             "axes, give one another label with `rearrange` or an annotation")


def _is_host_or_scalar(x: object) -> bool:
    return not isinstance(x, TensorType) or x.rank == 0


def _by_role(mine: list[Size], other: list[Size], role_of: RoleOf) -> list[Size]:
    """``mine`` with each label holding a local role that ``other`` lacks replaced by the
    label of ``other`` of its role, if ``mine`` lacks that one: ``k`` (matched on ``D/2``)
    meets an axis ``D/2``."""
    out = list(mine)
    spare: dict[Size, Size] | None = None
    for i, lab in enumerate(mine):
        if lab in other:
            continue
        role, local = role_of(lab)
        if not local:
            continue
        if spare is None:
            spare = {role_of(x)[0]: x for x in other if x not in mine}
        hit = spare.get(role)
        if hit is not None:
            out[i] = hit
    return out


def _align(a_axes: Sequence[Axis], b_axes: Sequence[Axis], what: str = "operand",
           role_of: RoleOf | None = None,
           ) -> tuple[tuple[Axis, ...], list[int | None], list[int | None]]:
    """The label broadcast of two axis lists: result axes and, per result position, the
    index of the axis of ``a`` / ``b`` that lands there."""
    la = [x.label for x in a_axes]
    lb = [x.label for x in b_axes]
    if role_of is not None and la != lb:
        la = _by_role(la, lb, role_of)
        lb = _by_role(lb, la, role_of)
    for lab in la + lb:
        ca, cb = _count(la, lab), _count(lb, lab)
        if ca and cb and ca != cb:
            raise Fail(
                ec.E0405,
                f"the label `{lab}` occurs {ca} time{'s' * (ca != 1)} in the left {what} but "
                f"{cb} time{'s' * (cb != 1)} in the right",
                f"`{lab}` is repeated unevenly",
                help="relabel the axes with `rearrange` or an annotation so each label "
                     "pairs with one axis")
    occ_a, occ_b = _occurrences(la), _occurrences(lb)
    b_for_a: list[int | None] = []
    for i, lab in enumerate(la):
        j = next((j for j, x in enumerate(lb) if x == lab and occ_b[j] == occ_a[i]), None)
        b_for_a.append(j)
        if j is not None and a_axes[i].size != b_axes[j].size:
            raise _size_fail(lab, a_axes[i].size, b_axes[j].size, f"left {what}")
    extra = [j for j, lab in enumerate(lb) if not any(x == lab for x in la)]
    for i, j in ((i, j) for i, k in enumerate(b_for_a) if k is None for j in extra):
        # `x[1..n] - x[0..n]` broadcasts an `n - 1` axis against an `n` one into two axes:
        # labels that differ by a number are one axis off by some rows, never meant apart.
        gap = la[i] - lb[j]
        if la[i].free_vars() and gap.is_const and gap.const_value != 0:
            raise Fail(ec.E0401, f"sizes not provably equal: the left {what}'s axis `{la[i]}` and "
                       f"the right's `{lb[j]}` differ by {abs(gap.const_value)}",  # type: ignore[arg-type]
                       f"`{la[i]}` against `{lb[j]}`",
                       help="slice both to the same rows; if they are different axes, give one "
                            "another label with `rearrange` or an annotation")
    axes = tuple(a_axes) + tuple(b_axes[j] for j in extra)
    a_pos: list[int | None] = list(range(len(la))) + [None] * len(extra)
    b_pos: list[int | None] = b_for_a + extra  # type: ignore[operator]
    return axes, a_pos, b_pos


def broadcast(a: TensorType | Any, b: TensorType | Any, role_of: RoleOf | None = None
              ) -> Broadcast:
    """The element-wise broadcast of ``a ⊕ b`` by label.

    A host number (any non-``TensorType``) or a ``[]`` tensor broadcasts to anything.
    With ``role_of``, a label holding a local role matches by its role (``_by_role``).
    Values with ``...`` axes: identical axes on both sides, or ``b``'s (non-``...``)
    axes equal to ``a``'s last ones, broadcast with identity plans; anything else
    is E0409.

    >>> from shapescript.check.types import REAL
    >>> ax = lambda name: Axis(Size.var(name), Size.var(name))
    >>> bc = broadcast(TensorType((ax("b"), ax("n"), ax("D")), "f32", REAL),
    ...                TensorType((ax("b"), ax("n")), "f32", REAL))
    >>> [str(a) for a in bc.axes], bc.b_plan.subscript()
    (['b', 'n', 'D'], ':, :, None')
    """
    if _is_host_or_scalar(b):
        return Broadcast(a.axes if isinstance(a, TensorType) else ())
    if _is_host_or_scalar(a):
        return Broadcast(b.axes)
    if a.has_variadic or b.has_variadic:
        if a.axes == b.axes:
            return Broadcast(a.axes)
        if not b.has_variadic and b.rank <= a.rank and a.axes[a.rank - b.rank:] == b.axes \
                and all(not x.variadic for x in a.axes[a.rank - b.rank:]):
            return Broadcast(a.axes)
        raise Fail(ec.E0409,
                   f"can't broadcast `{_fmt_axes(a.axes)}` with `{_fmt_axes(b.axes)}`: "
                   "it needs the rank of `...`",
                   "`...` has an unknown rank",
                   help="give both operands the same axes, or write the axes out "
                        "instead of `...`")
    axes, a_pos, b_pos = _align(a.axes, b.axes, role_of=role_of)
    return Broadcast(axes, _plan(a_pos), _plan(b_pos))


def role_fail(have: Axis, want: Axis, head: str | None = None) -> Fail:
    """E0414: an axis of one role where another is declared, their sizes equal.
    ``head`` says where (default: "`S` where `C` is declared")."""
    head = head or f"`{have.label}` where `{want.label}` is declared"
    return Fail(
        ec.E0414,
        f"{head}; they are equal only in value ({have.size})",
        f"`{have.label}` here, `{want.label}` expected",
        help=f"if `{have.label}` is meant as `{want.label}`, say so with `as`; if one is made "
             "from the other, define it so" + _define_hint(have.label, want.label))


def _define_hint(have: Size, want: Size) -> str:
    """`` (`dim Dl = D/H`)``: the declaration that makes one role the other's name."""
    for name, other in ((want.var_name, have), (have.var_name, want)):
        if name is not None and "." not in name:
            return f" (`dim {name} = {other}`)"
    return ""


def matmul(a: TensorType, b: TensorType, clash: Clash | None = None) -> Broadcast:
    """``a @ b``: contracts ``a``'s last axis with ``b``'s second-to-last (or only) one;
    leading axes broadcast by label; rank-1 operands act as in torch.

    The result has ``a``'s leading labels (then ``b``'s that ``a`` lacks), ``a``'s
    second-to-last axis and ``b``'s last. The plans align the leading (batch) axes only;
    codegen emits ``torch.matmul(plan_a(a), plan_b(b))``.

    >>> from shapescript.check.types import REAL
    >>> ax = lambda name: Axis(Size.var(name), Size.var(name))
    >>> mm = matmul(TensorType((ax("b"), ax("D")), "f32", REAL), TensorType((ax("D"), ax("C")), "f32", REAL))
    >>> [str(a) for a in mm.axes], mm.a_plan.is_identity, mm.b_plan.is_identity
    (['b', 'C'], True, True)
    """
    if a.rank == 0 or b.rank == 0:
        which = "left" if a.rank == 0 else "right"
        raise Fail(ec.E0402, f"`@` needs at least one axis on each side; the {which} operand "
                   "has none", "a `[]` value", help="multiply by it with `*`")
    ka, kb = a.axes[-1], (b.axes[-2] if b.rank >= 2 else b.axes[0])
    if ka.variadic or kb.variadic:
        raise Fail(ec.E0409, "`@` needs the contracted axes written out, not `...`",
                   "`...` has an unknown rank")
    if ka.size != kb.size:
        raise Fail(
            ec.E0401,
            f"sizes not provably equal: `@` contracts {_axis_text(ka)} of the left "
            f"operand with {_axis_text(kb)} of the right",
            f"`{ka.written}` against `{kb.written}`",
            help="`a @ b` contracts the last axis of `a` with the second-to-last of `b`; "
                 "use `einsum` to contract other axes, or `as` if they are equal at run time")
    if clash is not None and ka.label != kb.label and clash(ka.label, kb.label):
        raise role_fail(ka, kb, f"`@` contracts `{ka.label}` of the left operand with "
                                f"`{kb.label}` of the right")
    if a.rank == 1 and b.rank == 1:
        return Broadcast(())
    if a.rank == 1:
        return Broadcast(b.axes[:-2] + b.axes[-1:])
    if b.rank == 1:
        return Broadcast(a.axes[:-1])
    lead_a, lead_b = a.axes[:-2], b.axes[:-2]
    tail = (a.axes[-2], b.axes[-1])
    if any(x.variadic for x in lead_a + lead_b):
        if not lead_b or lead_a == lead_b:
            return Broadcast(lead_a + tail)
        if not lead_a:
            return Broadcast(lead_b + tail)
        raise Fail(ec.E0409, "`@` needs the batch axes of both operands to be the same `...`",
                   "`...` has an unknown rank",
                   help="write the axes out instead of `...`")
    axes, a_pos, b_pos = _align(lead_a, lead_b, "operand's batch axes")
    a_pos = a_pos + [len(lead_a), len(lead_a) + 1]
    b_pos = b_pos + [len(lead_b), len(lead_b) + 1]
    pa, pb = _plan(a_pos), _plan(b_pos)
    return Broadcast(axes + tail, pa, pb)


def check_fits(value: TensorType, declared: TensorType, what: str = "the value",
               clash: Clash | None = None) -> None:
    """A positional check against a declared type (argument, return, ``as``, annotation):
    the same rank (E0402) and provably equal sizes, axis by axis (E0401). ``what`` names
    the value in messages ("the argument `x`", "the return value").

    When the value's labels are the declared ones in another order, the E0401 help
    suggests swapping the operands of the element-wise operation that made it, or a
    ``rearrange`` (``s * x`` is ``[D b n]``, not ``[b n D]``). With ``clash``, an axis of
    the right size but another role is E0414.
    """
    va, da = value.axes, declared.axes
    if len(va) != len(da):
        raise Fail(ec.E0402,
                   f"ranks differ: {what} is `{_fmt_axes(da)}`, with {len(da)} "
                   f"ax{'is' if len(da) == 1 else 'es'}, but this is `{_fmt_axes(va)}`, with "
                   f"{len(va)}",
                   f"{len(va)} ax{'is' if len(va) == 1 else 'es'}, expected {len(da)}")
    for i, (v, d) in enumerate(zip(va, da)):
        if v.variadic or d.variadic:
            if v.variadic and d.variadic:
                continue
            raise Fail(ec.E0409, f"{what} is `{_fmt_axes(da)}`, but the rank of this "
                       f"`{_fmt_axes(va)}` is unknown" if v.variadic else
                       f"{what} is `{_fmt_axes(da)}`, whose `...` this `{_fmt_axes(va)}` can't fill",
                       "`...` has an unknown rank" if v.variadic else "a known rank",
                       help="a `[...]` value allows only element-wise operations, patterns "
                            "with `...` and reductions over named axes")
        if v.size == d.size:
            if clash is not None and v.label != d.label and clash(v.label, d.label):
                raise role_fail(v, d, f"axis {i} is `{v.label}` where {what} declares "
                                      f"`{d.label}`")
            continue
        help = "if they are equal at run time, assert it with `as`"
        vl, dl = [x.label for x in va], [x.label for x in da]
        if vl != dl and all(_count(vl, x) == _count(dl, x) for x in vl + dl):
            src = " ".join(str(x) for x in vl)
            dst = " ".join(str(x) for x in dl)
            help = (f"the axes are `{_fmt_axes(da)}` in another order: an element-wise "
                    "operation puts its left operand's axes first, so swap its operands "
                    f"(`x * s`, not `s * x`), or write `rearrange(…, {src} -> {dst})`")
        raise Fail(
            ec.E0401,
            f"sizes not provably equal: axis {i} is {_axis_text(v)}, but {what} "
            f"`{_fmt_axes(da)}` has {_axis_text(d)}",
            f"`{_fmt_axes(va)}` here", help=help)


def _axis_text(ax: Axis) -> str:
    """An axis for a message: its label, and its size when that reads differently
    (`` `D = 8` ``, as every message writes a size)."""
    return f"`{ax.written}`"
