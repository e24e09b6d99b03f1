"""Calls of ``fn`` and ``extern fn``: arguments to parameters, then unification.

A signature's generics are bound anew at each call, by position: first every bare
occurrence (``[b n D]`` binds ``b`` and ``n``), then linear forms solve what is still
unbound (``16gh`` on 48 columns gives ``gh = 3``), then every axis is compared.
``Size[K]`` and ``Axis[n]`` arguments bind before any tensor. The result type is the
return type with each generic replaced by the caller's size and label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from shapescript.check.env import AxisParam, FnSig, ParamSig, SizeParam
from shapescript.check.fail import Fail
from shapescript.check.sizes import Size, exact_div, solve_linear
from shapescript.check.types import (
    ERROR, Axis, Domain, ErrorType, HostType, ModelType, PyType, TensorType, TupleType,
    Type, is_float, is_int,
)
from shapescript.syntax import ast


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


def match_args(call: ast.Call, params: list[ParamSig], what: str) -> dict[str, ast.Arg]:
    """Map a call's arguments to parameter names (E0501, E0502)."""
    out: dict[str, ast.Arg] = {}
    positional = [a for a in call.args if a.name is None]
    if len(positional) > len(params):
        extra = positional[len(params)]
        raise Fail("E0501", f"{what} takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                   f"but {len(positional)} were given", "unexpected argument", span=extra.span)
    for p, a in zip(params, positional):
        out[p.name] = a
    names = {p.name for p in params}
    for a in call.args:
        if a.name is None:
            continue
        if a.name not in names:
            raise Fail("E0502", f"{what} has no parameter `{a.name}`", "unknown keyword",
                       help="parameters: " + ", ".join(f"`{p.name}`" for p in params), span=a.span)
        if a.name in out:
            raise Fail("E0502", f"argument `{a.name}` is given twice", "repeated", span=a.span)
        out[a.name] = a
    missing = [p.name for p in params if p.name not in out and p.default is None]
    if missing:
        names = ", ".join(f"`{m}`" for m in missing)
        raise Fail("E0501", f"{what} is missing the argument{'s' if len(missing) > 1 else ''} "
                   + names, f"{names} not given", span=call.span)
    return out


def expand(param: TensorType, arg: TensorType) -> list[tuple[Axis, Axis]] | None:
    """Pair a parameter's axes with an argument's; None if the ranks can't match.

    A parameter ``...`` takes the argument's extra axes (returned as the pair
    ``(variadic, Axis)`` entries).
    """
    p, a = param.axes, arg.axes
    vi = next((i for i, ax in enumerate(p) if ax.variadic), None)
    if vi is None:
        if arg.has_variadic:
            # An argument with `...` only fits a parameter with `...` in the same place.
            return None
        if len(p) != len(a):
            return None
        return list(zip(p, a))
    pre, post = p[:vi], p[vi + 1:]
    if len(a) < len(pre) + len(post):
        return None
    pairs = list(zip(pre, a[:len(pre)]))
    mid = a[len(pre):len(a) - len(post)]
    pairs += [(p[vi], ax) for ax in mid]
    pairs += list(zip(post, a[len(a) - len(post):]))
    return pairs


def bind_tensor_params(items: list[tuple[str, TensorType, TensorType, ast.Arg]], b: Binding,
                       generics: frozenset[str]) -> None:
    """Unify tensor parameters with tensor arguments (three passes, see module doc)."""
    paired: list[tuple[str, list[tuple[Axis, Axis]], ast.Arg, TensorType, TensorType]] = []
    for name, pt, at, arg in items:
        pairs = expand(pt, at)
        if pairs is None:
            if at.has_variadic and not pt.has_variadic:
                raise Fail("E0409", f"argument `{name}` needs a known rank", "its rank is `...`",
                           span=arg.span)
            raise Fail("E0402", f"argument `{name}` has rank {at.rank}, expected {pt.rank}",
                       f"this is `{at}`, the parameter is `{pt}`", span=arg.span)
        var = tuple(ax for p_, ax in pairs if p_.variadic)
        if pt.has_variadic:
            if b.variadic is None:
                b.variadic = var
            elif not same_axes(b.variadic, var):
                raise Fail("E0401", f"argument `{name}`: `...` differs from an earlier argument's",
                           f"`...` is [{' '.join(map(str, var))}] here but "
                           f"[{' '.join(map(str, b.variadic))}] before", span=arg.span)
        paired.append((name, [(p_, ax) for p_, ax in pairs if not p_.variadic], arg, pt, at))
    # 1. bare generics
    bound_by: dict[str, str] = dict(b.origin)  # generic -> the argument that bound it (messages)
    for name, pairs, _, _, _ in paired:
        for p_, ax in pairs:
            v = p_.size.var_name
            if v is not None and v in generics and v not in b.sizes:
                b.sizes[v] = (ax.size, _solve_label(v, p_.label, ax.label, ax.label))
                bound_by[v] = name
    # 2. linear forms
    for name, pairs, arg, _, _ in paired:
        for p_, ax in pairs:
            lin = p_.size.linear()
            if lin is None or lin[0] in b.sizes or lin[0] not in generics:
                continue
            sol = solve_linear(p_.size, ax.size)
            if sol is None:
                raise Fail("E0401", f"argument `{name}`: `{ax.size}` is not of the form `{p_.size}`",
                           f"can't solve `{lin[0]}` exactly", span=arg.span)
            b.sizes[lin[0]] = (sol[1], _solve_label(lin[0], p_.label, ax.label, sol[1]))
    # 3. compare every axis
    env = b.size_env()
    for name, pairs, arg, pt, at in paired:
        for i, (p_, ax) in enumerate(pairs):
            want = p_.size.substitute(env)
            if want.free_vars() - set(env) and any(not v.startswith("?") for v in want.free_vars()):
                # Unbound (only possible in externs' existential sizes): nothing to check.
                pass
            # (an unknown of the callee's own signature takes any size; one of the
            # caller's, bound to a generic, is a size like any other)
            if want != ax.size and not _unbound_existential(p_.size, env):
                v = p_.size.var_name
                if v is not None and v in generics:
                    first = Axis(*b.sizes[v])
                    raise Fail("E0401", f"sizes not provably equal: the generic `{v}` is "
                               f"{_axis_text(first)} in argument `{bound_by.get(v, 'an earlier argument')}` but "
                               f"{_axis_text(ax)} in `{name}`",
                               f"axis {i} of `{name}` is {_axis_text(ax)}", span=arg.span,
                               help=_same_name_help(first.size, ax.size)
                               or "the sizes of one generic axis must agree across the arguments")
                raise Fail("E0401", f"argument `{name}`: axis {i} is {_axis_text(ax)}, "
                           f"expected {_axis_text(Axis(want, p_.label))}",
                           f"this is `{at}`, the parameter is `{pt}`", span=arg.span,
                           help=_same_name_help(want, ax.size)
                           or "if the sizes are equal at run time, assert it with `as`")


def _solve_label(v: str, param_label: Size, label: Size, fallback: Size) -> Size:
    """The caller's label for generic ``v``, from a parameter axis labelled
    ``param_label`` and the argument's axis labelled ``label``.

    Labels keep dims as symbols, so ``[n*C]`` is labelled ``C*n`` even where ``C = 1``
    makes its size the bare ``n``: the argument's ``C*m`` then gives ``n`` the label ``m``,
    not ``C*m`` (which would label the result ``[n*C]`` as ``C*C*m``).

    >>> str(_solve_label("n", Size.var("C") * Size.var("n"), Size.var("C") * Size.var("m"), Size.var("m")))
    'm'
    """
    if param_label == Size.var(v):
        return label
    lsol = solve_linear(param_label, label)
    if lsol is not None and lsol[0] == v:
        return lsol[1]
    k = param_label.substitute({v: 1})
    if k * Size.var(v) == param_label and not (k.is_const and k.const_value == 0):
        q = exact_div(label, k)
        if q is not None:
            return q
    return fallback


def _axis_text(ax: Axis) -> str:
    """An axis for a message: its label, and its size when that reads differently
    (`` `D = 8` ``, as every message writes a size)."""
    return f"`{ax.written}`"


def _same_name_help(a: Size, b: Size) -> str | None:
    """For two unknowns written alike (`?s`) that are different sizes."""
    if a != b and str(a) == str(b) and any(v.startswith("?") for v in a.free_vars() | b.free_vars()):
        return (f"these are two unknowns both written `{a}`: a variable a loop changes gets "
                f"a new one each iteration, shared only with the others the loop changes alike")
    return None


def _unbound_existential(want: Size, env: dict[str, Size]) -> bool:
    return any(v.startswith("?") and v not in env for v in want.free_vars())


def same_axes(a: tuple[Axis, ...], b: tuple[Axis, ...]) -> bool:
    return len(a) == len(b) and all(x.size == y.size and x.label == y.label for x, y in zip(a, b))


def bind_dtype(pt: TensorType, at: TensorType, b: Binding, name: str, arg: ast.Arg,
               fn: str = "") -> None:
    if fn:
        name = f"{name}` of `{fn}"  # messages read "argument `x` of `f` …"
    want = pt.dtype
    if want in ("Float", "Int"):
        ok = is_float(at.dtype) if want == "Float" else is_int(at.dtype)
        if not ok:
            raise Fail("E0404", f"argument `{name}` is `{at.dtype}`, expected a "
                       f"{'float' if want == 'Float' else 'integer'} dtype",
                       f"this is `{at}`", span=arg.span,
                       help="convert it with `to f32`" if want == "Float" else None)
        if want in b.dclass and b.dclass[want] != at.dtype:
            raise Fail("E0404", f"argument `{name}` is `{at.dtype}` but an earlier argument is "
                       f"`{b.dclass[want]}`", "dtypes differ", span=arg.span,
                       help=f"convert it with `to {b.dclass[want]}`")
        b.dclass[want] = at.dtype
        return
    if at.dtype != want:
        raise Fail("E0404", f"argument `{name}` is `{at.dtype}`, expected `{want}`",
                   f"this is `{at}`", span=arg.span, help=f"convert it with `to {want}`")


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
        unbound = [v for v in size.free_vars() if v not in env and v in _callee_vars(t)]
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


def host_fits(at: Type, pt: HostType) -> bool:
    if isinstance(at, (ErrorType, PyType)):
        return True
    if not isinstance(at, HostType):
        return False
    if pt.name == at.name:
        return True
    if pt.name == "float" and at.name == "int":
        return True
    return at.name == "none"


def is_number(t: Type) -> bool:
    return isinstance(t, HostType) and t.name in ("int", "float", "bool")


def param_kind(p: ParamSig) -> str:
    t = p.type
    if isinstance(t, SizeParam):
        return "size"
    if isinstance(t, AxisParam):
        return "axis"
    if isinstance(t, TensorType):
        return "tensor"
    if isinstance(t, ModelType):
        return "model"
    return "host"


__all__ = ["Binding", "match_args", "expand", "bind_tensor_params", "bind_dtype",
           "subst_type", "subst_domain", "subst_label", "relabel", "relabel_axis", "host_fits", "is_number", "param_kind",
           "FnSig", "ERROR"]
