"""Built-in operations to torch and einops calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapescript.check.result import CallRes
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


def gen_builtin(g: "ExprGen", res: CallRes, e: ast.Call) -> str:
    name = res.name
    data: dict[str, Any] = res.data or {}
    args = positional(e)
    if name in ("add", "sub", "mul", "div"):
        op = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[name]
        a, b = g.expr(args[0]), g.expr(args[1])
        plan = data.get("plan")
        if plan is not None:
            a, b = g.plan(a, plan.left, args[0]), g.plan(b, plan.right, args[1])
        return f"({a} {op} {b})"
    if name in ("maximum", "minimum"):
        a, b = g.expr(args[0]), g.expr(args[1])
        plan = data.get("plan")
        if plan is not None:
            a, b = g.plan(a, plan.left), g.plan(b, plan.right)
        ta, tb = g.cm.types.get(id(args[0])), g.cm.types.get(id(args[1]))
        clamp = "clamp_min" if name == "maximum" else "clamp_max"
        if isinstance(tb, HostType):
            return f"{T}.{clamp}({a}, {b})"
        if isinstance(ta, HostType):
            return f"{T}.{clamp}({b}, {a})"
        return f"{T}.{name}({a}, {b})"
    if name == "matmul":
        a, b = g.expr(args[0]), g.expr(args[1])
        plan = data.get("plan")
        if plan is not None:
            a, b = g.plan(a, plan.left), g.plan(b, plan.right)
        return f"{T}.matmul({a}, {b})"
    if name == "where":
        m, a, b = (g.expr(x) for x in args)
        plans = data.get("plans") or [None, None, None]
        m, a, b = g.plan(m, plans[0]), g.plan(a, plans[1]), g.plan(b, plans[2])
        return f"{T}.where({m}, {a}, {b})"
    if name in TORCH_REDUCE or name in ("logsumexp", "any", "all"):
        return reduction(g, name, args[0], data.get("dims"), id(e) in g.keepdims.reductions)
    if name == "cross_entropy":
        logits, y = g.expr(args[0]), g.expr(args[1])
        if data.get("yperm"):
            y = f"{y}.permute({', '.join(map(str, data['yperm']))})"
        return f"{g.ctx.rt_helper('cross_entropy')}({logits}, {y}, {data['dim']})"
    if name == "topk":
        x = g.expr(args[0])
        if data.get("check"):
            what = f"`topk` takes {data['k']} along `{data['label']}`"
            x = g.guarded(f"{g.ctx.rt_helper('at_least')}({x}, {data['dim']}, {data['k']}, "
                          f"{g.where(e.span)!r}, {what!r})", x)
        return f"{T}.topk({x}, {data['k']}, dim={data['dim']})"
    if name in ("rearrange", "reduce", "repeat", "einsum"):
        return pattern(g, name, e, data)
    if name == "stack":
        return f"{T}.stack({g.expr(args[0])})"
    if name == "concat":
        return f"{T}.cat({g.expr(args[0])}, dim={data['dim']})"
    if name == "split":
        sizes = ", ".join(g.size(s) for s in data["sizes"])
        return f"{T}.split({g.expr(args[0])}, [{sizes}], dim={data['dim']})"
    if name == "pack":
        return f"{g.ctx.rt_helper('pack')}({g.expr(args[0])}, {data['left']}, {data['right']})"
    if name == "unpack":
        shapes = ", ".join("(" + "".join(("None" if s is None else g.size(s)) + ", " for s in shape)
                           + ")" for shape in data["shapes"])
        return (f"{g.ctx.rt_helper('unpack')}({g.expr(args[0])}, {data['left']}, "
                f"{data['right']}, ({shapes},), {g.where(e.span)!r})")
    if name == "map":
        return gen_map(g, e, data)
    if name == "print":
        return f"print({', '.join(g.expr(a.value) for a in e.args)})"
    return g.ctx.training_builtin(name, e, data, g)


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
                code = g.guarded(f"{g.ctx.rt_helper('divides')}({code}, {c.axis}, {g.size(c.den)}, "
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


__all__ = ["gen_builtin"]
