"""Calls of ``fn`` and ``extern fn``: arguments to parameters, then unification.

A signature's generics are bound anew at each call, by position: first every bare
occurrence (``[b n D]`` binds ``b`` and ``n``), then linear forms solve what is still
unbound (``16gh`` on 48 columns gives ``gh = 3``), then every axis is compared.
``Size[K]`` and ``Axis[n]`` arguments bind before any tensor. The result type is the
return type with each generic replaced by the caller's size and label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapescript.check import ops
from shapescript.check.binding import Binding, relabel, subst_domain, subst_type
from shapescript.check.broadcast import Clash, role_fail
from shapescript.check.env import AxisParam, FnSig, ParamSig, SizeParam
from shapescript.check.exports import HOST_EXTERNS, extern_in_torch
from shapescript.check.builtins import label_of_size_expr
from shapescript.check.call_rules import one_of_rule, prelude_rules
from shapescript.check.fail import Fail
from shapescript.check.literals import literal_int
from shapescript.check.ops import fresh_unknown
from shapescript.check.resolutions import (
    ArgVal, AxisName, ConstArg, DefaultArg, ExprArg, ExternCall, FnCall,
)
from shapescript.check.size_solve import exact_div, solve_linear
from shapescript.check.sizes import Size
from shapescript.check.written_labels import computed_label
from shapescript.check.types import (
    ERROR, INT, NOTHING, Axis, ErrorType, HostType, ModelType, PyType, TensorType, Type, is_float,
    is_int, label_hits,
)
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker


def match_args(call: ast.Call, params: list[ParamSig], what: str) -> dict[str, ast.Arg]:
    """Map a call's arguments to parameter names (E0501, E0502)."""
    out: dict[str, ast.Arg] = {}
    positional = [a for a in call.args if a.name is None]
    if len(positional) > len(params):
        extra = positional[len(params)]
        raise Fail(ec.E0501, f"{what} takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                   f"but {len(positional)} were given", "unexpected argument", span=extra.span)
    for p, a in zip(params, positional):
        out[p.name] = a
    names = {p.name for p in params}
    for a in call.args:
        if a.name is None:
            continue
        if a.name not in names:
            raise Fail(ec.E0502, f"{what} has no parameter `{a.name}`", "unknown keyword",
                       help=("parameters: " + ", ".join(f"`{p.name}`" for p in params)) if params
                       else f"{what} takes no arguments", span=a.span)
        if a.name in out:
            raise Fail(ec.E0502, f"argument `{a.name}` is given twice", "repeated", span=a.span)
        out[a.name] = a
    missing = [p.name for p in params if p.name not in out and p.default is None]
    if missing:
        listed = ", ".join(f"`{m}`" for m in missing)
        raise Fail(ec.E0501, f"{what} is missing the argument{'s' if len(missing) > 1 else ''} "
                   + listed, f"{listed} not given", span=call.span)
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
                       generics: frozenset[str], clash: Clash | None = None) -> None:
    """Unify tensor parameters with tensor arguments (three passes, see module doc)."""
    paired: list[tuple[str, list[tuple[Axis, Axis]], ast.Arg, TensorType, TensorType]] = []
    for name, pt, at, arg in items:
        pairs = expand(pt, at)
        if pairs is None:
            if at.has_variadic and not pt.has_variadic:
                raise Fail(ec.E0409, f"argument `{name}` needs a known rank", "its rank is `...`",
                           span=arg.span)
            raise Fail(ec.E0402, f"argument `{name}` has rank {at.rank}, expected {pt.rank}",
                       f"this is `{at}`, the parameter is `{pt}`", span=arg.span)
        var = tuple(ax for p_, ax in pairs if p_.variadic)
        if pt.has_variadic:
            if b.variadic is None:
                b.variadic = var
            elif not same_axes(b.variadic, var):
                raise Fail(ec.E0401, f"argument `{name}`: `...` differs from an earlier argument's",
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
                raise Fail(ec.E0401, f"argument `{name}`: `{ax.size}` is not of the form `{p_.size}`",
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
                    raise Fail(ec.E0401, f"sizes not provably equal: the generic `{v}` is "
                               f"{_axis_text(first)} in argument `{bound_by.get(v, 'an earlier argument')}` but "
                               f"{_axis_text(ax)} in `{name}`",
                               f"axis {i} of `{name}` is {_axis_text(ax)}", span=arg.span,
                               help=_same_name_help(first.size, ax.size)
                               or "the sizes of one generic axis must agree across the arguments")
                raise Fail(ec.E0401, f"argument `{name}`: axis {i} is {_axis_text(ax)}, "
                           f"expected {_axis_text(Axis(want, p_.label))}",
                           f"this is `{at}`, the parameter is `{pt}`", span=arg.span,
                           help=_same_name_help(want, ax.size)
                           or "if the sizes are equal at run time, assert it with `as`")
            if clash is not None and ax.label != p_.label and not p_.label.free_vars() & generics \
                    and clash(ax.label, p_.label):
                # Generics match by size; a dim of the signature is a role.
                f = role_fail(ax, p_, f"axis {i} of the argument `{name}` is `{ax.label}` "
                                      f"where the parameter declares `{p_.label}`")
                f.span = arg.span
                raise f


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
            raise Fail(ec.E0404, f"argument `{name}` is `{at.dtype}`, expected a "
                       f"{'float' if want == 'Float' else 'integer'} dtype",
                       f"this is `{at}`", span=arg.span,
                       help="convert it with `to f32`" if want == "Float" else None)
        if want in b.dclass and b.dclass[want] != at.dtype:
            raise Fail(ec.E0404, f"argument `{name}` is `{at.dtype}` but an earlier argument is "
                       f"`{b.dclass[want]}`", "dtypes differ", span=arg.span,
                       help=f"convert it with `to {b.dclass[want]}`")
        b.dclass[want] = at.dtype
        return
    if at.dtype != want:
        raise Fail(ec.E0404, f"argument `{name}` is `{at.dtype}`, expected `{want}`",
                   f"this is `{at}`", span=arg.span, help=f"convert it with `to {want}`")


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


class CallChecker:
    """Checks the calls of ``fn`` and ``extern fn`` in one body: owned by the body's
    expression checker (``ck``), which types the arguments and holds the records it
    writes; the export sites it finds go to the body (``ck.body``)."""

    def __init__(self, ck: ExprChecker) -> None:
        self.ck = ck

    def call(self, sig: FnSig, e: ast.Call) -> Type:
        """The type of the call ``e`` of ``sig``, its resolution recorded.

        The arguments are matched, then ``Size`` arguments bind, then ``Axis`` ones, then
        tensors (sizes, then dtypes, then domains), each pass reading the binding the one
        before built."""
        what = f"`{sig.name}`"
        if sig.is_extern and sig.extern in HOST_EXTERNS:
            self.ck.body.host_only(e, f"`{sig.name}()`")
        elif sig.is_extern and not extern_in_torch(sig.extern or ""):
            self.ck.body.extern_sites.append((ec.E1702, e.span,
                                              "extern fn outside torch, called by an exported function",
                                              f"`{sig.name}` is `{sig.extern}`"))
        try:
            matched = match_args(e, sig.params, what)
        except Fail:
            for arg in e.args:
                if not isinstance(arg.value, ast.Lambda):
                    self.ck.expr(arg.value)
            raise
        b = Binding()
        types: dict[str, Type] = {}
        # Axis and Size arguments are bare labels and sizes, not evaluated.
        for p in sig.params:
            a = matched.get(p.name)
            if a is None or isinstance(p.type, (AxisParam, SizeParam)):
                continue
            types[p.name] = self.ck.expr(a.value)
        failed = any(isinstance(t, ErrorType) for t in types.values())
        self.bind_sizes(sig, matched, b)
        if sig.one_of:
            one_of_rule(sig, matched, e, types)
        prelude_rules(sig, matched, e)
        axis_positions = self.axis_positions(sig, matched, types, b)
        # A signature of another module names its dims by that module's labels.
        labels = self.ck.env.labels_from(sig.module) if sig.module is not None else {}
        tensors, argvals = self.argvals(sig, matched, types, b, axis_positions, labels)
        if failed:
            self.record_call(sig, e, matched, argvals)
            return ERROR if sig.ret is None or not isinstance(sig.ret, TensorType) else self.fallback_ret(sig, b)
        try:
            bind_tensor_params(tensors, b, sig.generics | _existentials(sig), self.ck.body.clash)
        except ZeroDivisionError:
            raise self.zero_divisor(sig, e) from None
        for name, pt, at, a in tensors:
            bind_dtype(pt, at, b, name, a, sig.name)
        for name, pt, at, a in tensors:
            want = subst_domain(pt.domain, b)
            ops.check_domain(at, want, a, name, sig.name)
        # Host numbers for tensor parameters: the dtype the parameter (or its class) says.
        for p in sig.params:
            av = argvals.get(p.name)
            if isinstance(av, ExprArg) and av.wrap in ("Float", "Int"):
                argvals[p.name] = ExprArg(av.node, wrap=b.dclass.get(av.wrap, "f32" if av.wrap == "Float" else "i64"))
        self.record_call(sig, e, matched, argvals)
        if sig.ret is None:
            return NOTHING
        try:
            return subst_type(relabel(sig.ret, labels), b, self.ck.body.next_id)
        except ZeroDivisionError:
            raise self.zero_divisor(sig, e) from None

    def bind_sizes(self, sig: FnSig, matched: dict[str, ast.Arg], b: Binding) -> None:
        """``Size`` arguments bind their names: a static value given, else the default."""
        for p in sig.params:
            a = matched.get(p.name)
            if isinstance(p.type, SizeParam) and a is not None and not sig.is_extern:
                # A `fn`'s `n: Size` binds its generic to the size the caller gives.
                b.sizes[p.type.name] = self.size_arg(a)
                b.origin[p.type.name] = p.name
            elif isinstance(p.type, SizeParam) and a is not None:
                generic = self.generic_size(a.value)
                if generic is not None:
                    # A generic axis's size at this call (`groups=e`): passed as its value.
                    b.sizes[p.type.name] = (generic, generic)
                    continue
                v = self.ck.static_size(a.value)
                b.sizes[p.type.name] = (Size.const(v), Size.const(v))
                self.ck.types[a.value] = HostType("int", v)
            elif isinstance(p.type, SizeParam) and p.default is not None:
                # An omitted `Size` takes its default, in the types too (`padding=0`).
                d = literal_int(p.default)
                if d is not None:
                    b.sizes[p.type.name] = (Size.const(d), Size.const(d))

    def axis_positions(self, sig: FnSig, matched: dict[str, ast.Arg], types: dict[str, Type],
                       b: Binding) -> dict[str, Any]:
        """An ``Axis[n]`` parameter → the position(s) its argument names in the first
        tensor argument."""
        first_tensor = next((p for p in sig.params if isinstance(p.type, TensorType)), None)
        axis_positions: dict[str, Any] = {}
        for p in sig.params:
            a = matched.get(p.name)
            if isinstance(p.type, AxisParam) and a is not None:
                if first_tensor is None or first_tensor.name not in types:
                    raise Fail(ec.E1001, "no tensor to find the axis in", "", span=a.span)
                axis_positions[p.name] = self.axis_arg(p.type, a, types[first_tensor.name],
                                                       first_tensor, b, sig)
        return axis_positions

    def argvals(self, sig: FnSig, matched: dict[str, ast.Arg], types: dict[str, Type],
                b: Binding, axis_positions: dict[str, Any], labels: dict[str, Any]
                ) -> tuple[list[tuple[str, TensorType, TensorType, ast.Arg]], dict[str, ArgVal]]:
        """Each argument as the call passes it, checked against its parameter's kind; the
        tensor arguments beside their parameters' types, to bind."""
        tensors: list[tuple[str, TensorType, TensorType, ast.Arg]] = []
        argvals: dict[str, ArgVal] = {}
        for p in sig.params:
            a = matched.get(p.name)
            pt = relabel(p.type, labels) if labels and isinstance(p.type, TensorType) else p.type
            if a is None:
                continue
            if isinstance(pt, SizeParam) and (not sig.is_extern or not b.sizes[pt.name][0].is_const):
                argvals[p.name] = ExprArg(a.value)  # a generic's size, known when it runs
                continue
            if isinstance(pt, (SizeParam, AxisParam)):
                argvals[p.name] = ConstArg(axis_positions.get(p.name) if isinstance(pt, AxisParam)
                                           else b.sizes[pt.name][0].const_value)
                continue
            at = types[p.name]
            if isinstance(pt, TensorType):
                if isinstance(at, TensorType):
                    tensors.append((p.name, pt, at, a))
                    argvals[p.name] = ExprArg(a.value)
                elif isinstance(at, PyType):
                    raise Fail(ec.E0413, "the shape of this Python value is unknown",
                               f"parameter `{p.name}` of `{sig.name}` is `{p.written or pt}`",
                               span=a.value.span, help=f"assert its shape with `as {p.written or pt}`")
                elif is_number(at):
                    argvals[p.name] = ExprArg(a.value, wrap=pt.dtype)
                elif isinstance(at, ErrorType):
                    argvals[p.name] = ExprArg(a.value)
                else:
                    raise Fail(ec.E0410, f"argument `{p.name}` of `{sig.name}` is a tensor, not `{at}`",
                               f"this is `{at}`", span=a.span)
            elif isinstance(pt, HostType):
                if isinstance(at, TensorType):
                    raise Fail(ec.E0410, f"argument `{p.name}` of `{sig.name}` is `{pt}`, not a tensor",
                               f"this is `{at}`", span=a.span)
                if not host_fits(at, pt):
                    raise Fail(ec.E0404, f"argument `{p.name}` of `{sig.name}` is `{pt}`, not `{at}`",
                               f"this is `{at}`", span=a.span)
                argvals[p.name] = ExprArg(a.value)
            elif isinstance(pt, ModelType):
                if not isinstance(at, (ModelType, ErrorType)) or (isinstance(at, ModelType) and at.name != pt.name):
                    raise Fail(ec.E0404, f"argument `{p.name}` of `{sig.name}` is a `{pt.name}`, not `{at}`",
                               f"this is `{at}`", span=a.span)
                argvals[p.name] = ExprArg(a.value)
            else:
                argvals[p.name] = ExprArg(a.value)
        return tensors, argvals

    def size_arg(self, a: ast.Arg) -> tuple[Size, Size]:
        """The size and label a ``fn``'s ``n: Size`` parameter takes from its argument: a
        size expression (dims, the caller's generics, literals) as the types write it, or
        any other host ``int`` as a new unknown, which the callee's body holds for any size."""
        t = self.ck.expr(a.value)
        if isinstance(t, ErrorType):
            raise Fail.reported()
        if not isinstance(t, PyType) and not (isinstance(t, HostType) and t.name == "int"):
            raise Fail(ec.E0410, f"a `Size` argument is a whole number, not `{t}`", f"this is `{t}`",
                       span=a.value.span,
                       help="give a size: a literal, a dim, or a generic axis of this function")
        size = self.ck.expr_size(a.value)
        v = literal_int(a.value)
        if v is not None and v < 0:
            size = Size.const(v)
        if size is None:
            u = fresh_unknown(self.ck.body.next_id, "k")
            return u, u
        if (-size).provably_pos():
            raise Fail(ec.E0406, f"the size `{size}` is negative", "a negative size", span=a.value.span)
        return size, label_of_size_expr(self.ck, a.value, size)

    def zero_divisor(self, sig: FnSig, e: ast.Call) -> Fail:
        """A signature whose sizes divide by a size this call makes 0 (``stride=0``)."""
        return Fail(ec.E0302, f"with these arguments, a size in `{sig.name}`'s signature divides "
                    "by zero", "a divisor is 0 here", span=e.span,
                    help="give the `Size` arguments values that keep every size a whole number")

    def fallback_ret(self, sig: FnSig, b: Binding) -> Type:
        return ERROR

    def record_call(self, sig: FnSig, e: ast.Call, matched: dict[str, ast.Arg],
                    argvals: dict[str, ArgVal]) -> None:
        if sig.is_extern:
            pos: list[ArgVal] = []
            kw: list[tuple[str, ArgVal]] = []
            for i, p in enumerate(sig.params):
                a = matched.get(p.name)
                if a is None:
                    if p.default is not None:
                        kw.append((p.name, DefaultArg(p.default)))
                    continue
                av = argvals.get(p.name, ExprArg(a.value))
                if a.name is None:
                    pos.append(av)
                else:
                    kw.append((p.name, av))
            self.ck.res[e] = ExternCall(sig, tuple(pos), tuple(kw))
        else:
            args: list[ArgVal] = []
            for p in sig.params:
                a = matched.get(p.name)
                if a is None:
                    assert p.default is not None  # matched: only a defaulted one is left out
                    args.append(DefaultArg(p.default))
                else:
                    args.append(argvals.get(p.name, ExprArg(a.value)))
            self.ck.res[e] = FnCall(sig, tuple(args))

    def generic_size(self, e: ast.Expr) -> Size | None:
        """A ``Size[K]`` argument written with the signature's generic axes (``e``,
        ``2*e``): that size, typed as the host ``int`` it is at run time; None for anything
        else (a literal or a dim is static; the rest is E1003)."""
        s = self.ck.expr_size(e)
        if s is None or s.is_const or any(n.startswith("?") for n in s.free_vars()):
            return None
        t = self.ck.expr(e)
        return s if isinstance(t, HostType) and t.name == "int" else None

    def axis_arg(self, p: AxisParam, a: ast.Arg, t: Type, tensor_param: Any, b: Binding,
                 sig: FnSig) -> Any:
        """The position of the axis an ``Axis[n]``/``Axes[n]`` argument names."""
        def label_of(x: ast.Expr) -> str | None:
            if isinstance(x, ast.Name):
                return x.id
            if isinstance(x, ast.Attr) and isinstance(x.value, ast.Name):
                return f"{x.value.id}.{x.attr}"  # a dim of an imported module
            computed = computed_label(x)  # an axis written `S/32`
            return None if computed is None else str(computed)

        names: list[Any]
        if label_of(a.value) is not None:
            names = [a.value]
        elif isinstance(a.value, ast.TupleExpr) and p.many and all(label_of(x) is not None for x in a.value.items):
            names = list(a.value.items)
        else:
            raise Fail(ec.E1001, "an axis argument is a bare axis name", "not an axis name",
                       span=a.value.span, help="write the axis's label, e.g. `over=D`")
        if not isinstance(t, TensorType):
            if isinstance(t, ErrorType):
                return 0
            raise Fail(ec.E1001, f"`{tensor_param.name}` is not a tensor, so `{label_of(names[0])}` names no axis",
                       "", span=a.value.span)
        positions = []
        for n in names:
            text = label_of(n)
            assert text is not None  # each name is a label (above)
            hits = label_hits(t.axes, text, self.ck.body.role_of)
            if not hits:
                raise Fail(ec.E1001, f"`{t}` has no axis labelled `{text}`", "no such axis",
                           span=n.span, help="axes: " + " ".join(str(ax) for ax in t.axes))
            if len(hits) > 1:
                raise Fail(ec.E1002, f"the axis label `{text}` occurs {len(hits)} times in `{t}`",
                           "ambiguous axis", span=n.span,
                           help="give the axes names of their own, as `nudge` does: `[b c h w]`")
            i = hits[0]
            vi = next((k for k, ax in enumerate(t.axes) if ax.variadic), None)
            if vi is not None and i < vi:
                pos = i
            elif vi is not None:
                pos = i - len(t.axes)
            else:
                pos = i
            ax = t.axes[i]
            dim = sig.module.dim_size(p.name) if sig.module else None
            if dim is not None:
                if ax.size != Size.const(dim):
                    raise Fail(ec.E1001, f"`{p}` wants an axis of size `{p.name} = {dim}`, but "
                               f"`{text}` is `{ax.written}`", "wrong size", span=n.span,
                               help=f"`Axis[{p.name}]` means an axis of size {p.name}; use a new name for any axis")
            else:
                b.sizes.setdefault(p.name, (ax.size, ax.label))
                b.origin.setdefault(p.name, f"{a.name or 'over'}=")
            positions.append(pos)
            self.ck.types[n] = INT
            self.ck.res[n] = AxisName(pos)
        self.ck.types[a.value] = INT
        return positions if p.many else positions[0]


def _existentials(sig: FnSig) -> frozenset[str]:
    out: set[str] = set()
    for p in sig.params:
        if isinstance(p.type, TensorType):
            for ax in p.type.axes:
                out |= {v for v in ax.size.free_vars() if v.startswith("?")}
    return frozenset(out)


__all__ = ["CallChecker", "literal_int", "match_args", "expand", "bind_tensor_params", "bind_dtype",
           "host_fits", "is_number", "param_kind", "FnSig", "ERROR"]
