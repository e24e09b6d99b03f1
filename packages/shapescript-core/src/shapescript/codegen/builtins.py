"""Built-in operations to torch and einops calls.

Each built-in of the registry (``shapescript.builtin_registry``) has one emitter here,
registered with ``@emits(name, …)`` in ``EMITTERS``; it ``match``es the payload its type
rule handed it (``check.payloads``: the call's resolution's ``data``; None for a
constructor, whose type says it all) and returns Python source. A family's members share
one emitter, told apart by their registry entries (``torch``, ``torch_pair`` …).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from shapescript.builtin_registry import ARITH_OPS, BUILTINS_BY_NAME, ELEMENTWISE_OPS, family
from shapescript.check.payloads import (
    ClassLoss, Concat, Contraction, Elementwise, MapOver, Pack, Pattern, Reduction, Scan, Select,
    Split, Stacked, TopK, Unpack,
)
from shapescript.check.resolutions import BuiltinCall
from shapescript.check.result import BroadcastRes
from shapescript.check.sizes import Size
from shapescript.check.types import HostType, TensorType
from shapescript.codegen.keepdim import keeps
from shapescript.codegen.names import T, dtype_expr, pyname
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.exprs import ExprGen

def positional(e: ast.Call) -> list[ast.Expr]:
    return [a.value for a in e.args if a.name is None]


def dims_arg(dims: Sequence[int]) -> str:
    return str(dims[0]) if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")"


# An emitter: (expression generator, the call's resolution, the call) -> Python source.
Emitter = Callable[["ExprGen", Any, Any], str]
# Built-in name -> its emitter; filled once, at import, by ``@emits`` (read-only after).
EMITTERS: dict[str, Emitter] = {}


def emits(*names: str) -> Callable[[Emitter], Emitter]:
    """Register the decorated function as the emitter of the built-ins ``names``."""
    def register(fn: Emitter) -> Emitter:
        for name in names:
            if name not in BUILTINS_BY_NAME:
                raise ValueError(f"{name!r} is not in the built-in registry")
            if name in EMITTERS:
                raise ValueError(f"{name!r} has two emitters")
            EMITTERS[name] = fn
        return fn
    return register


def gen_builtin(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    """The Python expression of a call of a built-in, by its registered emitter."""
    return EMITTERS[res.name](g, res, e)


def _mismatch(res: BuiltinCall) -> NoReturn:
    # A rule and its emitter disagree on the payload: a compiler bug, reported as one.
    raise TypeError(f"`{res.name}`'s emitter got {type(res.data).__name__} from its rule")


def _planned(g: "ExprGen", plan: BroadcastRes | None, e: ast.Call, *,
             keepdims: bool = False) -> tuple[str, str]:
    """The two operands of a binary built-in, aligned by the checker's broadcast plan
    (keepdims: an operand kept with keepdim=True is in place already)."""
    args = positional(e)
    a, b = g.expr(args[0]), g.expr(args[1])
    if plan is not None:
        if keepdims:
            a, b = g.plan(a, plan.left, args[0]), g.plan(b, plan.right, args[1])
        else:
            a, b = g.plan(a, plan.left), g.plan(b, plan.right)
    return a, b


@emits(*ELEMENTWISE_OPS)
def _elementwise(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Elementwise(op, plan) if op in ARITH_OPS:
            a, b = _planned(g, plan, e, keepdims=True)
            return f"({a} {op} {b})"
        case Elementwise(op, plan):
            # torch.maximum/minimum: a host number on either side is a clamp.
            args = positional(e)
            a, b = _planned(g, plan, e)
            ta, tb = g.cm.types.get(args[0]), g.cm.types.get(args[1])
            clamp = "clamp_min" if op == "maximum" else "clamp_max"
            if isinstance(tb, HostType):
                return f"{T}.{clamp}({a}, {b})"
            if isinstance(ta, HostType):
                return f"{T}.{clamp}({b}, {a})"
            return f"{T}.{op}({a}, {b})"
    _mismatch(res)


@emits(*family("contraction"))
def _matmul(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Contraction(plan):
            a, b = _planned(g, plan, e)
            return f"{T}.matmul({a}, {b})"
    _mismatch(res)


@emits(*family("select"))
def _where(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Select(plans):
            m, a, b = (g.plan(g.expr(x), plan) for x, plan in zip(positional(e), plans))
            return f"{T}.where({m}, {a}, {b})"
    _mismatch(res)


@emits(*family("reduction"))
def _reduction(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Reduction(dims):
            return reduction(g, res.name, positional(e)[0], dims, id(e) in g.keepdims.reductions)
    _mismatch(res)


@emits(*family("scan"))
def _scan(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Scan(dim):
            torch_name = BUILTINS_BY_NAME[res.name].torch
            return f"{T}.{torch_name}({g.expr(positional(e)[0])}, dim={dim})"
    _mismatch(res)


@emits("cross_entropy")
def _cross_entropy(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case ClassLoss(dim, yperm):
            args = positional(e)
            logits, y = g.expr(args[0]), g.expr(args[1])
            if yperm:
                y = f"{y}.permute({', '.join(map(str, yperm))})"
            return f"{g.ctx.rt_helper('cross_entropy')}({logits}, {y}, {dim})"
    _mismatch(res)


@emits("topk")
def _topk(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case TopK(k, dim, check, label):
            x = g.expr(positional(e)[0])
            if check:
                what = f"`topk` takes {k} along `{label}`"
                x = g.guarded(f"{g.ctx.rt_helper('at_least')}({x}, {dim}, {k}, "
                              f"{g.where(e.span)!r}, {what!r})", x)
            return f"{T}.topk({x}, {k}, dim={dim})"
    _mismatch(res)


@emits(*family("pattern"))
def _pattern(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Pattern() as data:
            return pattern(g, res.name, e, data)
    _mismatch(res)


@emits("stack")
def _stack(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Stacked():
            return f"{T}.stack({g.expr(positional(e)[0])})"
    _mismatch(res)


@emits("concat")
def _concat(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Concat(dim):
            return f"{T}.cat({g.expr(positional(e)[0])}, dim={dim})"
    _mismatch(res)


@emits("split")
def _split(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Split(dim, sizes):
            shown = ", ".join(g.size(s) for s in sizes)
            return f"{T}.split({g.expr(positional(e)[0])}, [{shown}], dim={dim})"
    _mismatch(res)


@emits("pack")
def _pack(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Pack(left, right):
            return f"{g.ctx.rt_helper('pack')}({g.expr(positional(e)[0])}, {left}, {right})"
    _mismatch(res)


@emits("unpack")
def _unpack(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case Unpack(left, right, shapes):
            shown = ", ".join("(" + "".join(("None" if s is None else g.size(s)) + ", "
                                            for s in shape) + ")" for shape in shapes)
            return (f"{g.ctx.rt_helper('unpack')}({g.expr(positional(e)[0])}, {left}, "
                    f"{right}, ({shown},), {g.where(e.span)!r})")
    _mismatch(res)


@emits(*family("map"))
def _map(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    match res.data:
        case MapOver() as data:
            return gen_map(g, e, data)
    _mismatch(res)


@emits(*family("host"))
def _print(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return f"print({', '.join(g.expr(a.value) for a in e.args)})"


@emits(*family("constructor"))
def gen_constructor(g: "ExprGen", res: None, e: ast.Constructor) -> str:
    t = g.cm.types.get(e)
    assert isinstance(t, TensorType)
    shape = [g.size(ax.size) for ax in t.axes]
    dev = g.ctx.device_expr()
    dt = dtype_expr(t.dtype)
    tup = "(" + ", ".join(shape) + ("," if len(shape) == 1 else "") + ")"
    if e.name == "causal":
        mask = f"{T}.ones({tup}, dtype={T}.bool, device={dev}).tril()"
        if e.fill is not None:  # window=W: the query itself and the W - 1 keys before it
            mask += f".triu(1 - ({g.expr(e.fill)}))"
        return mask
    if e.name == "arange":
        return f"{T}.arange({shape[0]}, dtype={dt}, device={dev})"
    if e.name == "eye":
        return f"{T}.eye({shape[0]}, {shape[1]}, dtype={dt}, device={dev})"
    if e.name == "full":
        assert e.fill is not None
        return f"{T}.full({tup}, {g.expr(e.fill)}, dtype={dt}, device={dev})"
    return f"{T}.{e.name}({tup}, dtype={dt}, device={dev})"


@emits(*family("training"))
def _training(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    # The training built-ins are host code: the context writes them (``codegen.training``).
    return g.ctx.training_builtin(res.name, e, res.data, g)


def reduction(g: "ExprGen", name: str, arg: ast.Expr, dims: tuple[int, ...] | None,
              keep: bool = False) -> str:
    """A reduction's call: the operand's method named by the entry's ``torch``, with the
    exceptions of masks and of ``logsumexp`` (a function of torch's)."""
    entry = BUILTINS_BY_NAME[name]
    # torch's `median(dim=…)` gives (values, indices): the language's reduction is the values.
    values = ".values" if entry.torch_pair else ""
    x = g.expr(arg)
    t = g.cm.types.get(arg)
    if keep and keeps(name, dims, t):
        # Only broadcast back along the reduced axes (keepdim.py): they stay, size 1.
        assert dims
        if name == "logsumexp":
            return f"{T}.logsumexp({x}, {dims_arg(dims)}, keepdim=True)"
        return f"{x}.{entry.torch}(dim={dims_arg(dims)}, keepdim=True){values}"
    is_mask = isinstance(t, TensorType) and t.dtype == "bool"
    if name == "mean" and is_mask:
        x = f"{x}.to({T}.float32)"
    if name == "logsumexp":
        if dims is None:
            return f"{T}.logsumexp({x}.reshape(-1), 0)"
        return f"{T}.logsumexp({x}, {dims_arg(dims)})"
    if name in ("any", "all"):
        name = "max" if name == "any" else "min"  # of a mask, as below
    if name in ("max", "min") and is_mask:
        fn = "any" if name == "max" else "all"
        if dims is None:
            return f"{x}.{fn}()"
        if len(dims) == 1:
            return f"{x}.{fn}(dim={dims[0]})"
        return f"{x}.{'amax' if name == 'max' else 'amin'}(dim={dims_arg(dims)})"
    method = BUILTINS_BY_NAME[name].torch
    if dims is None:
        return f"{x}.{method}()"
    if BUILTINS_BY_NAME[name].stepwise and len(dims) > 1:
        # torch reduces one axis at a time here: from the last, so positions hold.
        for d in sorted(dims, reverse=True):
            x = f"{x}.{method}(dim={d})"
        return x
    return f"{x}.{method}(dim={dims_arg(dims)}){values}"


def pattern(g: "ExprGen", name: str, e: ast.Call, data: Pattern) -> str:
    pos = positional(e)
    operands = pos[:e.pattern_pos]
    kw = "".join(f", {k}={g.size(v) if isinstance(v, Size) else repr(v)}" for k, v in data.kwargs)
    pat = repr(data.pattern)
    ein = g.ctx.einops()
    checks = data.checks

    def divisible(i: int, code: str) -> str:
        # Splits of a generic axis the types can't prove exact: checked before einops.
        for c in checks:
            if c.input == i:
                code = g.guarded(f"{g.ctx.rt_helper(c.helper)}({code}, {c.axis}, {g.size(c.den)}, "
                                 f"{g.where(e.span)!r}, {c.text!r})", code)
        return code

    if name == "einsum":
        ops_ = ", ".join(divisible(i, g.expr(x)) for i, x in enumerate(operands))
        eq = torch_equation(data.pattern)
        if eq is not None:
            return f"{T}.einsum({eq!r}, {ops_})"
        return f"{ein}.einsum({ops_}, {pat})"
    x = g.expr(operands[0])
    if data.stacked:
        x = f"{T}.stack({x})"
    x = divisible(0, x)
    if name == "reduce":
        return f"{ein}.reduce({x}, {pat}, {data.op!r}{kw})"
    return f"{ein}.{name}({x}, {pat}{kw})"


def torch_equation(pattern: str) -> str | None:
    """An einops einsum pattern as torch's one-letter equation (``b n d, d m -> b m n`` is
    ``abc,cd->adb``): torch parses it once per call in C++, einops in Python."""
    import string

    letters: dict[str, str] = {}
    pool = iter(string.ascii_letters)

    def side(text: str) -> str | None:
        out = []
        for tok in text.split():
            if tok == "...":
                out.append("...")
                continue
            if not tok.isidentifier():
                return None
            if tok not in letters:
                letters[tok] = next(pool, "")
                if not letters[tok]:
                    return None
            out.append(letters[tok])
        return "".join(out)

    lhs, _, rhs = pattern.partition("->")
    ins = [side(part) for part in lhs.split(",")]
    out = side(rhs)
    if out is None or any(i is None for i in ins):
        return None
    return ",".join(ins) + "->" + out  # type: ignore[arg-type]


def gen_map(g: "ExprGen", e: ast.Call, data: MapOver) -> str:
    count = g.size(data.count)
    var = pyname(data.param)
    body = data.body
    bt = g.cm.types.get(body)
    code = g.expr(body)
    if isinstance(bt, TensorType):
        n = data.count
        stacked = f"{T}.stack([{code} for {var} in range({count})])"
        if n.const_value is not None and n.const_value >= 1:
            return stacked
        # No items: `stack` has nothing to take the shape from, so the declared one is built
        # (a generic count may be 0 at run time; a `?` size inside has no value, so checked).
        if any(ax.variadic or any(v.startswith("?") for v in ax.size.free_vars())
               for ax in bt.axes):
            return f"{T}.stack([{code} for {var} in range({g.ctx.rt_helper('counted')}({count}, {g.where(e.span)!r}))])"
        inner = "".join(f"{g.size(ax.size)}, " for ax in bt.axes)
        empty = f"{T}.empty((0, {inner}), dtype={dtype_expr(bt.dtype)}, device={g.ctx.device_expr()})"
        if n.is_const:
            return empty
        return f"({stacked} if {count} else {empty})"
    out = g.cm.types.get(e)
    assert isinstance(out, TensorType)
    return (f"{T}.tensor([{code} for {var} in range({count})], dtype={dtype_expr(out.dtype)}, "
            f"device={g.ctx.device_expr()})")


__all__ = ["gen_builtin", "gen_constructor", "EMITTERS", "emits"]
