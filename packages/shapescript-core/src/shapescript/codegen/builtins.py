"""Built-in operations to torch and einops calls.

Each built-in of the registry (``shapescript.builtin_registry``) has one emitter here,
registered with ``@emits(name, …)`` in ``EMITTERS``; it reads the checker's resolution of
the call (None for a constructor, whose type says it all) and returns Python source.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shapescript.builtin_registry import BUILTINS_BY_NAME
from shapescript.check.resolutions import BuiltinCall
from shapescript.check.sizes import Size
from shapescript.check.types import HostType, TensorType
from shapescript.codegen.keepdim import keeps
from shapescript.codegen.names import T, dtype_expr, pyname
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.exprs import ExprGen

TORCH_REDUCE = {"sum": "sum", "mean": "mean", "max": "amax", "min": "amin", "prod": "prod",
                "var": "var", "std": "std", "argmax": "argmax", "argmin": "argmin"}


def positional(e: ast.Call) -> list[ast.Expr]:
    return [a.value for a in e.args if a.name is None]


def dims_arg(dims: list[int]) -> str:
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


def _data(res: BuiltinCall) -> dict[str, Any]:
    return res.data or {}


def _planned(g: "ExprGen", res: BuiltinCall, e: ast.Call, *, keepdims: bool = False) -> tuple[str, str]:
    """The two operands of a binary built-in, aligned by the checker's broadcast plan
    (keepdims: an operand kept with keepdim=True is in place already)."""
    args = positional(e)
    a, b = g.expr(args[0]), g.expr(args[1])
    plan = _data(res).get("plan")
    if plan is not None:
        if keepdims:
            a, b = g.plan(a, plan.left, args[0]), g.plan(b, plan.right, args[1])
        else:
            a, b = g.plan(a, plan.left), g.plan(b, plan.right)
    return a, b


@emits("add", "sub", "mul", "div")
def _arith(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    op = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[res.name]
    a, b = _planned(g, res, e, keepdims=True)
    return f"({a} {op} {b})"


@emits("maximum", "minimum")
def _extremum(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    args = positional(e)
    a, b = _planned(g, res, e)
    ta, tb = g.cm.types.get(id(args[0])), g.cm.types.get(id(args[1]))
    clamp = "clamp_min" if res.name == "maximum" else "clamp_max"
    if isinstance(tb, HostType):
        return f"{T}.{clamp}({a}, {b})"
    if isinstance(ta, HostType):
        return f"{T}.{clamp}({b}, {a})"
    return f"{T}.{res.name}({a}, {b})"


@emits("matmul")
def _matmul(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    a, b = _planned(g, res, e)
    return f"{T}.matmul({a}, {b})"


@emits("where")
def _where(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    m, a, b = (g.expr(x) for x in positional(e))
    plans = _data(res).get("plans") or [None, None, None]
    m, a, b = g.plan(m, plans[0]), g.plan(a, plans[1]), g.plan(b, plans[2])
    return f"{T}.where({m}, {a}, {b})"


@emits("sum", "mean", "max", "min", "prod", "var", "std", "logsumexp", "argmax", "argmin",
       "any", "all")
def _reduction(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return reduction(g, res.name, positional(e)[0], _data(res).get("dims"),
                     id(e) in g.keepdims.reductions)


@emits("cumprod")
def _scan(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return f"{T}.{res.name}({g.expr(positional(e)[0])}, dim={_data(res)['dim']})"


@emits("cross_entropy")
def _cross_entropy(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    data = _data(res)
    args = positional(e)
    logits, y = g.expr(args[0]), g.expr(args[1])
    if data.get("yperm"):
        y = f"{y}.permute({', '.join(map(str, data['yperm']))})"
    return f"{g.ctx.rt_helper('cross_entropy')}({logits}, {y}, {data['dim']})"


@emits("topk")
def _topk(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    data = _data(res)
    x = g.expr(positional(e)[0])
    if data.get("check"):
        what = f"`topk` takes {data['k']} along `{data['label']}`"
        x = g.guarded(f"{g.ctx.rt_helper('at_least')}({x}, {data['dim']}, {data['k']}, "
                      f"{g.where(e.span)!r}, {what!r})", x)
    return f"{T}.topk({x}, {data['k']}, dim={data['dim']})"


@emits("rearrange", "reduce", "repeat", "einsum")
def _pattern(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return pattern(g, res.name, e, _data(res))


@emits("stack")
def _stack(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return f"{T}.stack({g.expr(positional(e)[0])})"


@emits("concat")
def _concat(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return f"{T}.cat({g.expr(positional(e)[0])}, dim={_data(res)['dim']})"


@emits("split")
def _split(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    data = _data(res)
    sizes = ", ".join(g.size(s) for s in data["sizes"])
    return f"{T}.split({g.expr(positional(e)[0])}, [{sizes}], dim={data['dim']})"


@emits("pack")
def _pack(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    data = _data(res)
    return f"{g.ctx.rt_helper('pack')}({g.expr(positional(e)[0])}, {data['left']}, {data['right']})"


@emits("unpack")
def _unpack(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    data = _data(res)
    shapes = ", ".join("(" + "".join(("None" if s is None else g.size(s)) + ", " for s in shape)
                       + ")" for shape in data["shapes"])
    return (f"{g.ctx.rt_helper('unpack')}({g.expr(positional(e)[0])}, {data['left']}, "
            f"{data['right']}, ({shapes},), {g.where(e.span)!r})")


@emits("map")
def _map(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return gen_map(g, e, _data(res))


@emits("print")
def _print(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    return f"print({', '.join(g.expr(a.value) for a in e.args)})"


@emits("zeros", "ones", "eye", "arange", "causal", "randn", "rand", "full")
def gen_constructor(g: "ExprGen", res: None, e: ast.Constructor) -> str:
    t = g.cm.types.get(id(e))
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


@emits("value_and_grad", "sgd", "adamw", "update", "clip_norm", "cosine", "warmup", "shuffle",
       "batches", "report", "sink", "save", "load")
def _training(g: "ExprGen", res: BuiltinCall, e: ast.Call) -> str:
    # The training built-ins are host code: the context writes them (``codegen.training``).
    return g.ctx.training_builtin(res.name, e, _data(res), g)


def reduction(g: "ExprGen", name: str, arg: ast.Expr, dims: list[int] | None,
              keep: bool = False) -> str:
    x = g.expr(arg)
    t = g.cm.types.get(id(arg))
    if keep and keeps(name, dims, t):
        # Only broadcast back along the reduced axes (keepdim.py): they stay, size 1.
        assert dims
        if name == "logsumexp":
            return f"{T}.logsumexp({x}, {dims_arg(dims)}, keepdim=True)"
        return f"{x}.{TORCH_REDUCE[name]}(dim={dims_arg(dims)}, keepdim=True)"
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
    method = TORCH_REDUCE[name]
    if dims is None:
        if name in ("max", "min"):
            return f"{x}.{method}()"
        return f"{x}.{method}()"
    if name in ("prod", "argmax", "argmin") and len(dims) > 1:
        # torch reduces one axis at a time here: from the last, so positions hold.
        for d in sorted(dims, reverse=True):
            x = f"{x}.{method}(dim={d})"
        return x
    return f"{x}.{method}(dim={dims_arg(dims)})"


def pattern(g: "ExprGen", name: str, e: ast.Call, data: dict[str, Any]) -> str:
    pos = positional(e)
    operands = pos[:e.pattern_pos]
    kwargs = data.get("kwargs") or {}
    kw = "".join(f", {k}={g.size(v) if isinstance(v, Size) else repr(v)}" for k, v in kwargs.items())
    pat = repr(data["pattern"])
    ein = g.ctx.einops()
    checks = data.get("checks") or ()

    def divisible(i: int, code: str) -> str:
        # Splits of a generic axis the types can't prove exact: checked before einops.
        for c in checks:
            if c.input == i:
                code = g.guarded(f"{g.ctx.rt_helper(c.helper)}({code}, {c.axis}, {g.size(c.den)}, "
                                 f"{g.where(e.span)!r}, {c.text!r})", code)
        return code

    if name == "einsum":
        ops_ = ", ".join(divisible(i, g.expr(x)) for i, x in enumerate(operands))
        eq = torch_equation(data["pattern"])
        if eq is not None:
            return f"{T}.einsum({eq!r}, {ops_})"
        return f"{ein}.einsum({ops_}, {pat})"
    x = g.expr(operands[0])
    if data.get("stacked"):
        x = f"{T}.stack({x})"
    x = divisible(0, x)
    if name == "reduce":
        return f"{ein}.reduce({x}, {pat}, {data['op']!r}{kw})"
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


def gen_map(g: "ExprGen", e: ast.Call, data: dict[str, Any]) -> str:
    count = g.size(data["count"])
    var = pyname(data["param"])
    body = data["body"]
    bt = g.cm.types.get(id(body))
    code = g.expr(body)
    if isinstance(bt, TensorType):
        n = data["count"]
        stacked = f"{T}.stack([{code} for {var} in range({count})])"
        if n.is_const and n.const_value >= 1:
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
    out = g.cm.types.get(id(e))
    assert isinstance(out, TensorType)
    return (f"{T}.tensor([{code} for {var} in range({count})], dtype={dtype_expr(out.dtype)}, "
            f"device={g.ctx.device_expr()})")


__all__ = ["gen_builtin", "gen_constructor", "EMITTERS", "emits"]
