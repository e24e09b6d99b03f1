"""The operations built into the checker: what no extern signature can say.

Element-wise ``add sub mul div maximum minimum where`` (broadcast by label),
``matmul``, reductions with ``over=``, ``cross_entropy``, ``topk``, patterns,
``stack concat split``, ``map``, ``cumprod``, the constructors (``zeros[n D]``) and
``print``. The host-only training built-ins live in ``check.training``, ``pack`` and
``unpack`` in ``check.packing``.

Each built-in of the registry (``shapescript.builtin_registry``) has one type rule here
or in ``check.training``, registered with ``@rule(name, …)`` in ``RULES``; a family's
members share one (``@rule(*sorted(REDUCTION_NAMES))``), reading their entries. A rule is
a function of the body's expression checker (``check.exprs.ExprChecker``), the built-in's
name and the call: it types the arguments with ``ck.expr``, records what code generation
needs in ``ck.res`` (a ``BuiltinCall`` with a payload of ``check.payloads``) and returns
the call's type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shapescript.builtin_registry import (
    BUILTINS_BY_NAME, CONSTRUCTOR_NAMES, EINOPS_PATTERN_NAMES, ELEMENTWISE_OPS, REDUCTION_NAMES,
    SCAN_NAMES, Builtin,
)
from shapescript.check import domains, ops
from shapescript.check.fail import Fail
from shapescript.check.payloads import (
    Concat, Contraction, Elementwise, HostCall, MapOver, Reduction, Scan, Split, Stacked, TopK,
)
from shapescript.check.patterns import REDUCE_OPS
from shapescript.check.resolutions import BuiltinCall
from shapescript.check.result import BroadcastRes
from shapescript.check.scope import Var, check_local_name
from shapescript.check.sizes import Size, size_op
from shapescript.check.typeconv import SizeError
from shapescript.check.written_labels import computed_label
from shapescript.diagnostics import Diagnostic
from shapescript.check.types import (
    ERROR,
    INT,
    NOTHING,
    PY,
    Axis,
    Domain,
    ErrorType,
    HostType,
    PyType,
    TensorType,
    TupleType,
    Type,
    label_hits,
    size_text,
)
from shapescript.source import word_span
from shapescript.syntax import ast
from shapescript.vocab import DTYPE_CLASSES, DTYPES, HOST_DTYPE
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker

# A type rule: (expression checker, built-in name, call or constructor node) -> its type.
Rule = Callable[["ExprChecker", str, Any], Type]
# Built-in name -> its type rule; filled once, at import, by ``@rule`` (here, in
# ``check.training`` and in ``check.packing``), read-only after.
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register the decorated function as the type rule of the built-ins ``names``
    (each must be in the registry, and have one rule)."""
    def register(fn: Rule) -> Rule:
        for name in names:
            if name not in BUILTINS_BY_NAME:
                raise ValueError(f"{name!r} is not in the built-in registry")
            if name in RULES:
                raise ValueError(f"{name!r} has two type rules")
            RULES[name] = fn
        return fn
    return register


def split_args(e: ast.Call) -> tuple[list[ast.Arg], dict[str, ast.Arg]]:
    pos = [a for a in e.args if a.name is None]
    kw: dict[str, ast.Arg] = {}
    for a in e.args:
        if a.name is not None:
            if a.name in kw:
                raise Fail(ec.E0502, f"argument `{a.name}` is given twice", "repeated", span=a.span)
            kw[a.name] = a
    return pos, kw


def need(e: ast.Call, name: str, pos: list[ast.Arg], kw: dict[str, ast.Arg], n: int,
         allowed: tuple[str, ...] = (), required: tuple[str, ...] = ()) -> None:
    if len(pos) != n:
        raise Fail(ec.E0501, f"`{name}` takes {n} positional argument{'s' if n != 1 else ''}, "
                   f"{len(pos)} given", "wrong number of arguments", span=e.span)
    for k, a in kw.items():
        if k not in allowed:
            raise Fail(ec.E0502, f"`{name}` has no parameter `{k}`", "unknown keyword", span=a.span,
                       help=("parameters: " + ", ".join(f"`{x}`" for x in allowed)) if allowed else None)
    for r in required:
        if r not in kw:
            raise Fail(ec.E0501, f"`{name}` needs `{r}=`", f"missing `{r}=`", span=e.span)


def checked_args(e: ast.Call, name: str, *, check_required: bool = True,
                 ) -> tuple[list[ast.Arg], dict[str, ast.Arg]]:
    """The positional and keyword arguments of a call of the built-in ``name``, checked
    against the arity and keywords its registry entry declares (E0501, E0502)."""
    pos, kw = split_args(e)
    entry: Builtin = BUILTINS_BY_NAME[name]
    need(e, name, pos, kw, len(entry.params), allowed=entry.keywords,
         required=entry.required if check_required else ())
    return pos, kw


def over_labels(a: ast.Arg) -> list[tuple[str, ast.Expr]]:
    """The labels of an ``over=`` argument: a name, a size expression (``S/32``) or a
    parenthesised group of names."""
    v = a.value
    if isinstance(v, ast.Name):
        return [(v.id, v)]
    if _dotted(v):
        return [(f"{v.value.id}.{v.attr}", v)]  # type: ignore[union-attr]
    if isinstance(v, ast.TupleExpr) and v.items and all(isinstance(x, ast.Name) or _dotted(x)
                                                        for x in v.items):
        return [(x.id if isinstance(x, ast.Name) else f"{x.value.id}.{x.attr}", x)  # type: ignore[union-attr]
                for x in v.items]
    computed = computed_label(v)
    if computed is not None:
        return [(str(computed), v)]
    raise Fail(ec.E0403, "`over=` takes an axis name or a group of names, not an expression",
               "not an axis name", span=v.span,
               help="reduce an axis labelled by an expression with a pattern, or relabel it with an annotation")


def _dotted(v: ast.Expr) -> bool:
    """``layers.D``: the label of a dim of an imported module."""
    return isinstance(v, ast.Attr) and isinstance(v.value, ast.Name)


def find_axis(t: TensorType, label: str, node: ast.Expr, role_of: Any = None) -> int:
    hits = label_hits(t.axes, label, role_of)
    if not hits:
        if t.has_variadic:
            raise Fail(ec.E0409, f"`{label}` isn't an axis outside `...` of `{t}`", "needs the rank of `...`",
                       span=node.span)
        raise Fail(ec.E0403, f"`{t}` has no axis labelled `{label}`", "unknown axis label", span=node.span,
                   help="axes: " + " ".join(str(ax) for ax in t.axes))
    if len(hits) > 1:
        raise Fail(ec.E0405, f"the axis label `{label}` occurs {len(hits)} times in `{t}`",
                   "ambiguous axis label", span=node.span,
                   help="reduce with a pattern instead, e.g. `reduce(x, b c h w -> b c, sum)`")
    i = hits[0]
    vi = next((k for k, ax in enumerate(t.axes) if ax.variadic), None)
    return i - len(t.axes) if vi is not None and i > vi else i


def builtin(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    """The type of a call of the built-in ``name``, by its registered rule; a
    host-only built-in is a site an exported function may not reach (E1704)."""
    entry = BUILTINS_BY_NAME[name]
    if entry.host_only:
        ck.body.host_only(e, f"`{name}`")
    t = RULES[name](ck, name, e)
    if entry.host_only and e not in ck.res:
        ck.res[e] = BuiltinCall(name, HostCall())
    return t


def tensor_arg(ck: ExprChecker, a: ast.Arg, fn: str, what: str = "argument") -> TensorType | None:
    t = ck.expr(a.value)
    if isinstance(t, ErrorType):
        return None
    if isinstance(t, PyType):
        raise Fail(ec.E0413, "the shape of this Python value is unknown",
                   f"`{fn}` needs a tensor", span=a.value.span,
                   help="assert its shape with `as [ … ]`")
    if not isinstance(t, TensorType):
        raise Fail(ec.E0410, f"the {what} of `{fn}` is a tensor, not `{t}`", f"this is `{t}`",
                   span=a.value.span)
    return t


# -- element-wise ------------------------------------------------------------
@rule(*ELEMENTWISE_OPS)
def b_elementwise(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    a = ck.expr(pos[0].value)
    b = ck.expr(pos[1].value)
    if isinstance(a, ErrorType) or isinstance(b, ErrorType):
        return ERROR
    op = ELEMENTWISE_OPS[name]
    if op in ("maximum", "minimum"):
        for x, arg in ((a, pos[0]), (b, pos[1])):
            if isinstance(x, PyType):
                raise Fail(ec.E0413, "the shape of this Python value is unknown", f"`{name}` needs a tensor",
                           span=arg.value.span, help="assert its shape with `as [ … ]`")
        if not isinstance(a, TensorType) and not isinstance(b, TensorType):
            raise Fail(ec.E0410, f"`{name}` needs a tensor", "two host values", span=e.span)
        t, plan = ops.elementwise(op, a, b, ck.body.role_of)
    else:
        t = ck.binop(op, a, b, e)
        plan = _plan(ck, e)
    ck.res[e] = BuiltinCall(name, Elementwise(op, plan))
    return t


def _plan(ck: ExprChecker, e: ast.Call) -> BroadcastRes | None:
    """The broadcasting plan ``ck.binop``/``ck.matmul`` recorded for the call, if any."""
    plan = ck.res.get(e)
    return plan if isinstance(plan, BroadcastRes) else None


@rule("matmul")
def b_matmul(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    a = ck.expr(pos[0].value)
    b = ck.expr(pos[1].value)
    if isinstance(a, ErrorType) or isinstance(b, ErrorType):
        return ERROR
    t = ck.matmul(a, b, e)
    plan = _plan(ck, e)
    ck.res[e] = BuiltinCall("matmul", Contraction(plan))
    return t


@rule("where")
def b_where(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    m = ck.expr(pos[0].value)
    a = ck.expr(pos[1].value)
    b = ck.expr(pos[2].value)
    if any(isinstance(x, ErrorType) for x in (m, a, b)):
        return ERROR
    if isinstance(m, TensorType) and m.dtype != "bool":
        raise Fail(ec.E0804, f"`where` needs a mask, not `{m}`", f"this is `{m}`", span=pos[0].span)
    t, select = ops.where(m, a, b, ck.body.role_of)
    ck.res[e] = BuiltinCall("where", select)
    return t


# -- reductions -----------------------------------------------------------------
@rule(*sorted(REDUCTION_NAMES))
def b_reduction(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    """A reduction (``sum(x, over=A)``): the axes it names, then ``ops.reduction`` by the
    entry's dtype and domain rules."""
    # `argmax`/`argmin` need `over=`: checked after the operand, whose mistake comes first.
    entry = BUILTINS_BY_NAME[name]
    pos, kw = checked_args(e, name, check_required=False)
    t = tensor_arg(ck, pos[0], name)
    if t is None:
        return ERROR
    labels = over_labels(kw["over"]) if "over" in kw else None
    positions: list[int] | None = None
    if labels is not None:
        positions = [find_axis(t, lab, node, ck.body.role_of) for lab, node in labels]
        for lab, node in labels:
            ck.types[node] = INT
        if entry.one_axis and len(positions) != 1:
            raise Fail(ec.E0403, f"`{name}` takes one axis", "", span=kw["over"].span)
    elif "over" in entry.required:
        raise Fail(ec.E0501, f"`{name}` needs `over=`", "missing `over=`", span=e.span)
    out = ops.reduction(name, t, positions, labels, e)
    ck.res[e] = BuiltinCall(name, Reduction(None if positions is None else tuple(positions)))
    return out


@rule("cross_entropy")
def b_cross_entropy(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    logits = tensor_arg(ck, pos[0], "cross_entropy")
    y = tensor_arg(ck, pos[1], "cross_entropy")
    labels = over_labels(kw["over"])
    if logits is None or y is None:
        return ERROR
    if len(labels) != 1:
        raise Fail(ec.E0403, "`cross_entropy` takes one class axis", "", span=kw["over"].span)
    lab, node = labels[0]
    ck.types[node] = INT
    c = find_axis(logits, lab, node, ck.body.role_of)
    ck.res[e] = BuiltinCall("cross_entropy", ops.cross_entropy(logits, y, c, pos[1]))
    return TensorType((), logits.dtype, Domain("NonNeg"))


@rule("topk")
def b_topk(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    t = tensor_arg(ck, pos[0], "topk")
    k = ck.static_size(pos[1].value)
    labels = over_labels(kw["over"])
    if t is None:
        return ERROR
    lab, node = labels[0]
    ck.types[node] = INT
    i = find_axis(t, lab, node, ck.body.role_of)
    ax = t.axes[i]
    kk = Size.const(k)
    if k < 0 or (kk - ax.size).provably_pos():
        raise Fail(ec.E0406, f"`topk` takes {k} of the axis `{ax.written}`",
                   "more than the axis has", span=pos[1].value.span,
                   help=f"take at most `{ax.written}`")
    # An axis the prover can't compare with k (a generic) is checked at run time.
    check = not (ax.size - kk).provably_nonneg()
    axes = list(t.axes)
    # The new axis is labelled as `k` is written (`topk(x, A, over=E)` gives an axis `A`).
    axes[i] = Axis(kk, label_of_size_expr(ck, pos[1].value, kk))
    vals = TensorType(tuple(axes), t.dtype, domains.selected_domain(t.domain))
    idx = TensorType(tuple(axes), "i64", Domain("Index", index=ax.size))
    ck.res[e] = BuiltinCall("topk", TopK(k, i, check, str(ax.label)))
    return TupleType((vals, idx))


# -- scans ----------------------------------------------------------------------
@rule(*sorted(SCAN_NAMES))
def b_scan(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    """``cumprod(x, over=A)``: the running product along ``A``; same axes, the dtype
    and domain of a product (``ops.scan``)."""
    pos, kw = checked_args(e, name)
    t = tensor_arg(ck, pos[0], name)
    labels = over_labels(kw["over"])
    if t is None:
        return ERROR
    if len(labels) != 1:
        raise Fail(ec.E0403, f"`{name}` takes one axis", "", span=kw["over"].span)
    lab, node = labels[0]
    ck.types[node] = INT
    dim = find_axis(t, lab, node, ck.body.role_of)
    out = ops.scan(name, t, dim)
    ck.res[e] = BuiltinCall(name, Scan(dim))
    return out


# -- patterns ---------------------------------------------------------------------
@rule(*sorted(EINOPS_PATTERN_NAMES))
def b_pattern(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    if e.pattern is None:
        if name == "einsum" and ck.source[e.func.span.end:e.func.span.end + 1] == "(":
            # `einsum(…)` without `: pattern`: the parser reported it (E0601).
            ck.args_only(e)
            return ERROR
        raise Fail(ec.E0601, f"`{name}` needs a pattern such as `b n d -> b d`", "no pattern",
                   span=e.span)
    assert isinstance(e.pattern, ast.Pattern)  # `pack` and `unpack` have rules of their own
    if name == "einsum" and not e.pattern.output and not any(e.pattern.inputs):
        # `einsum(a, b: )`: the parser reported the missing pattern (E0601).
        ck.args_only(e)
        return ERROR
    pos, kw = split_args(e)
    n_inputs = len(e.pattern.inputs) if name == "einsum" else 1
    operands = pos[:e.pattern_pos]
    rest = pos[e.pattern_pos:]
    if name != "einsum" and len(operands) != 1:
        raise Fail(ec.E0501, f"`{name}` takes one tensor before its pattern", "", span=e.span)
    if name == "einsum" and len(operands) != n_inputs:
        raise Fail(ec.E0601, f"the pattern has {n_inputs} input{'s' if n_inputs != 1 else ''} "
                   f"but `einsum` got {len(operands)} operand{'s' if len(operands) != 1 else ''}",
                   f"{n_inputs} input{'s' if n_inputs != 1 else ''}", span=e.pattern.span,
                   help="write one input per operand, separated by commas: `einsum(a, b: i j, j k -> i k)`")
    reduce_op = None
    if name == "reduce":
        if len(rest) != 1 or not isinstance(rest[0].value, ast.Name):
            raise Fail(ec.E0602, "`reduce` needs an operation after its pattern",
                       "missing operation", span=e.span,
                       help="add one of `sum`, `mean`, `max`, `min`, `prod`: "
                            "`reduce(x, b h w -> b, max)`")
        reduce_op = rest[0].value.id
        if reduce_op not in REDUCE_OPS:
            raise Fail(ec.E0602, f"unknown `reduce` operation `{reduce_op}`", "not an operation",
                       span=rest[0].span,
                       help="use one of " + ", ".join(f"`{o}`" for o in REDUCE_OPS))
    elif rest:
        raise Fail(ec.E0501, f"`{name}` takes no argument after its pattern but keyword sizes",
                   "unexpected argument", span=rest[0].span)
    inputs: list[TensorType] = []
    stacked = False
    for a in operands:
        t = ck.expr(a.value)
        if isinstance(t, ErrorType):
            return ERROR
        if isinstance(t, TupleType) and name != "einsum":
            t = ops.stack_tuple(t, a)
            stacked = True
        if isinstance(t, PyType):
            raise Fail(ec.E0413, "the shape of this Python value is unknown", f"`{name}` needs a tensor",
                       span=a.value.span, help="assert its shape with `as [ … ]`")
        if not isinstance(t, TensorType):
            raise Fail(ec.E0410, f"`{name}` needs a tensor, not `{t}`", f"this is `{t}`", span=a.span)
        inputs.append(t)
    kw_sizes: dict[str, tuple[Size, Size]] = {}
    for k, a in kw.items():
        s = ck.expr_size(a.value)
        if s is None:
            ck.const_not_size(a.value)
            t = ck.expr(a.value)
            if isinstance(t, ErrorType):
                return ERROR
            raise Fail(ec.E0304, f"the size `{k}=` must be a size expression",
                       f"this is `{t}`, not a size",
                       span=a.value.span, help="use literals, dims and the signature's generics")
        label = label_of_size_expr(ck, a.value, s)
        kw_sizes[k] = (s, label)
    r, pattern = ops.pattern(name, e.pattern, inputs, kw_sizes, ck.env,
                             ck.sig.generics if ck.sig else frozenset(), reduce_op, stacked,
                             ck.body.next_id, ck.body.clash)
    for msg, help_ in r.warnings:
        ck.body.report(Diagnostic.warning(ec.E0417, msg, e.pattern.span,
                                          "a new axis name", help=help_))
    ck.body.group_order(r.splits, r.merges, e.pattern)
    ck.body.pin_sizes(r.runtime_checks, e.span)
    out = ck.body.name_local_roles(r.out, r.locals)
    ck.res[e] = BuiltinCall(name, pattern)
    return out


def label_of_size_expr(ck: ExprChecker, node: ast.Expr, size: Size) -> Size:
    if isinstance(node, ast.Name):
        return Size.var(node.id)
    if isinstance(node, ast.BinOp):
        a = label_of_size_expr(ck, node.left, size)
        b = label_of_size_expr(ck, node.right, size)
        label = size_op(node.op, a, b)
        # A label with a zero divisor (its size was proved non-zero) is the size itself.
        return size if label is None else label
    # A leaf's own label: a literal is itself, `16gh` is `16*gh`. (Returning the whole
    # expression's size here would label `n + 1` as `2*n`: each leaf `n`, `1` as `n`.)
    if isinstance(node, ast.Num) and isinstance(node.value, int):
        return Size.const(node.value)
    if isinstance(node, ast.NumName):
        return Size.var(node.name) * node.value
    leaf = ck.expr_size(node)
    return size if leaf is None else leaf


# -- stacking -------------------------------------------------------------------
@rule("stack")
def b_stack(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    t = ck.expr(pos[0].value)
    if isinstance(t, ErrorType):
        return ERROR
    if not isinstance(t, TupleType):
        raise Fail(ec.E0408, "`stack` takes a tuple of tensors", f"this is `{t}`", span=pos[0].span)
    out = ops.stack_tuple(t, pos[0])
    ck.res[e] = BuiltinCall("stack", Stacked())
    return out


@rule("concat")
def b_concat(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    t = ck.expr(pos[0].value)
    if isinstance(t, ErrorType):
        return ERROR
    if not isinstance(t, TupleType) or not t.items:
        raise Fail(ec.E0408, "`concat` takes a tuple of tensors", f"this is `{t}`", span=pos[0].span)
    lab, node = over_labels(kw["over"])[0]
    ck.types[node] = INT
    out, dim = ops.concat(t, lab, node, pos[0], ck.body.role_of)
    ck.res[e] = BuiltinCall("concat", Concat(dim))
    return out


@rule("split")
def b_split(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    t = tensor_arg(ck, pos[0], "split")
    if t is None:
        return ERROR
    lab, node = over_labels(kw["over"])[0]
    ck.types[node] = INT
    i = find_axis(t, lab, node, ck.body.role_of)
    sv = kw["sizes"].value
    items = sv.items if isinstance(sv, ast.TupleExpr) else (sv,)
    sizes: list[tuple[Size, Size]] = []
    for it in items:
        s = ck.expr_size(it)
        if s is None:
            ck.const_not_size(it)
            it_t = ck.expr(it)
            if isinstance(it_t, ErrorType):
                return ERROR
            raise Fail(ec.E0304, "`sizes=` takes size expressions", f"this is `{it_t}`, not a size",
                       span=it.span, help="use literals, dims and the signature's generics")
        sizes.append((s, label_of_size_expr(ck, it, s)))
    total, total_label = Size.const(0), Size.const(0)
    for s, label in sizes:
        total, total_label = total + s, total_label + label
    if total != t.axes[i].size:
        raise Fail(ec.E0401, f"the sizes add up to `{size_text(total, total_label)}`, but the "
                   f"axis `{lab}` is `{t.axes[i].size}`", "sizes don't add up",
                   span=kw["sizes"].span)
    outs = []
    for s, label in sizes:
        axes = list(t.axes)
        axes[i] = Axis(s, label)
        outs.append(TensorType(tuple(axes), t.dtype, t.domain))
    ck.res[e] = BuiltinCall("split", Split(i, tuple(s for s, _ in sizes)))
    return TupleType(tuple(outs))


# -- map ----------------------------------------------------------------------------
@rule("map")
def b_map(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = checked_args(e, name)
    count = ck.expr_size(pos[0].value)
    if count is None:
        ck.const_not_size(pos[0].value)
        t = ck.expr(pos[0].value)
        if isinstance(t, ErrorType):
            return ERROR
        raise Fail(ec.E0304, "`map` counts over a size, not a value", f"this is `{t}`, not a size",
                   span=pos[0].value.span,
                   help="count over a dim, a generic axis, a literal or a size expression "
                        "of them: `C |> map(c => …)`")
    ck.types[pos[0].value] = INT
    lam = pos[1].value
    if not isinstance(lam, ast.Lambda) or len(lam.params) != 1:
        raise Fail(ec.E0503, "`map` takes a lambda of one parameter", "not a lambda",
                   span=pos[1].span, help="write `C |> map(c => …)`")
    label = label_of_size_expr(ck, pos[0].value, count)
    ck.body.map_params.append((lam.span, lam.params[0], count))
    saved = ck.body.scope
    ck.body.scope = saved.copy()
    check_local_name(lam.params[0], word_span(ck.source, lam.span, lam.params[0]), ck.env, ck.sig)
    ck.body.scope.bind(lam.params[0], Var(HostType("int", None, "NonNeg"), lam.span, "loop"))
    try:
        body = ck.expr(lam.body)
    finally:
        ck.body.scope = saved
    ck.types[lam] = body
    if isinstance(body, ErrorType):
        return ERROR
    axis = Axis(count, label)
    if isinstance(body, TensorType):
        out = TensorType((axis,) + body.axes, body.dtype, body.domain)
    elif isinstance(body, HostType) and body.name in ("int", "float", "bool"):
        dt = HOST_DTYPE[body.name]
        dom = Domain("Mask") if body.name == "bool" else (Domain("Int") if body.name == "int" else Domain("Real"))
        out = TensorType((axis,), dt, dom)
    else:
        raise Fail(ec.E0410, f"`map`'s lambda gives `{body}`, not a tensor or number", "",
                   span=lam.body.span)
    ck.body.map_sites.append((e, count))
    ck.res[e] = BuiltinCall("map", MapOver(count, lam.params[0], lam.body))
    return out


# -- constructors ------------------------------------------------------------
@rule(*CONSTRUCTOR_NAMES)
def b_constructor(ck: ExprChecker, name: str, e: ast.Constructor) -> Type:
    """``zeros[b n D]``, ``full[n](v)`` …: the shape, then ``ops.constructor``."""
    tb = ck.type_builder("constructor")
    try:
        axes = tb.axes(e.shape)
    except SizeError:
        return ERROR
    for ax in axes:
        if ax.variadic:
            raise Fail(ec.E0409, f"`{e.name}[...]` needs a known rank", "`...`")
        ck.body.used_generics |= ax.size.free_vars() & (ck.sig.generics if ck.sig else set())
    fill_t = ck.expr(e.fill) if e.fill is not None else None
    if e.dtype is not None and e.dtype not in DTYPES and e.dtype not in DTYPE_CLASSES:
        raise Fail.reported()  # `ones[n]xyz`: E0101 from the parser; nothing follows
    t = ops.constructor(e.name, axes, e.dtype, fill_t, e)
    return t


# -- host -------------------------------------------------------------------------------
@rule("print")
def b_print(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    # Any number of values, but no keyword: Python's `sep=`/`end=` are not offered, and a
    # keyword nothing reads would be dropped without a word.
    need(e, name, [], {a.name: a for a in e.args if a.name is not None}, 0)
    for a in e.args:
        ck.expr(a.value)
    return NOTHING


__all__ = ["builtin", "tensor_arg", "label_of_size_expr", "RULES", "rule", "Any", "PY"]
