"""What a call binds, and putting it into types.

A call of a generic signature binds each generic to a size and a label in the caller's
terms (``Binding``); the result type, the parameter types and their domains are the
signature's with those substituted (``subst_type``), and a field of a model instance has
its labels renamed the same way (``relabel``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from shapescript.check.sizes import Size
from shapescript.check.types import Axis, Domain, TensorType, TupleType, Type

__all__ = ["Binding", "subst_label", "subst_domain", "subst_type", "relabel", "relabel_axis"]


@dataclass(slots=True)
class Binding:
    """What one call bound: generic → (size, label) in the caller's terms."""

    sizes: dict[str, tuple[Size, Size]] = field(default_factory=dict)
    variadic: tuple[Axis, ...] | None = None
    dclass: dict[str, str] = field(default_factory=dict)
    # generic → what bound it before the tensors did (an `over=` argument), for messages
    origin: dict[str, str] = field(default_factory=dict)

    def size_env(self) -> dict[str, Size]:
        return {k: v[0] for k, v in self.sizes.items()}

    def label_env(self) -> dict[str, Size]:
        return {k: v[1] for k, v in self.sizes.items()}


def subst_label(s: Size, b: Binding) -> Size:
    return s.substitute(b.label_env()) if s.free_vars() & b.sizes.keys() else s


def subst_domain(d: Domain, b: Binding) -> Domain:
    if d.over is not None:
        return Domain(d.kind, over=subst_label(d.over, b))
    if d.index is not None:
        return Domain(d.kind, index=d.index.substitute(b.size_env()))
    return d


def subst_type(t: Type, b: Binding, fresh_id: Callable[[], int] | None = None) -> Type:
    """The callee's type ``t`` in the caller's terms (a return type or a param).

    With ``fresh_id`` (the caller's numbering), an axis size the binding leaves
    unknown becomes a new unknown of the caller (an existential result)."""
    if isinstance(t, TupleType):
        return TupleType(tuple(subst_type(x, b, fresh_id) for x in t.items))
    if not isinstance(t, TensorType):
        return t
    env = b.size_env()
    lenv = b.label_env()
    axes: list[Axis] = []
    fresh: dict[str, Size] = {}
    for ax in t.axes:
        if ax.variadic:
            if b.variadic is not None:
                axes.extend(b.variadic)
            continue
        size = ax.size.substitute(env) if ax.size.free_vars() else ax.size
        label = ax.label.substitute(lenv) if ax.label.free_vars() & lenv.keys() else ax.label
        # Sorted: fresh sizes are numbered in the same order in every process.
        unbound = sorted(v for v in size.free_vars() if v not in env and v in _callee_vars(t))
        if unbound and fresh_id is not None:
            for v in unbound:
                if v not in fresh:
                    fresh[v] = Size.var(f"?{v.lstrip('?')}#{fresh_id()}")
            size = size.substitute(fresh)
            label = label.substitute(fresh)
        axes.append(Axis(size, label))
    dtype = t.dtype
    if dtype in ("Float", "Int"):
        dtype = b.dclass.get(dtype, "f32" if dtype == "Float" else "i64")
    return TensorType(tuple(axes), dtype, subst_domain(t.domain, b))


def relabel(t: Type, labels: dict[str, Size]) -> Type:
    """``t`` with its dim labels renamed by ``labels`` (``ModuleEnv.labels_from``): a
    type written in another module, in the terms of the file that uses it."""
    if not labels:
        return t
    if isinstance(t, TupleType):
        return TupleType(tuple(relabel(x, labels) for x in t.items))
    if not isinstance(t, TensorType):
        return t
    axes = tuple(relabel_axis(ax, labels) for ax in t.axes)
    d = t.domain
    if d.over is not None and d.over.free_vars() & labels.keys():
        d = Domain(d.kind, over=d.over.substitute(labels))
    return TensorType(axes, t.dtype, d)


def relabel_axis(ax: Axis, labels: dict[str, Size]) -> Axis:
    if ax.variadic or not ax.label.free_vars() & labels.keys():
        return ax
    return Axis(ax.size, ax.label.substitute(labels))


def _callee_vars(t: TensorType) -> frozenset[str]:
    out: set[str] = set()
    for ax in t.axes:
        if not ax.variadic:
            out |= ax.size.free_vars()
    return frozenset(out)
