"""How each operation of a plain module's exported graph is written: a built-in, an
operator or an einops pattern where one fits, else a typed ``extern fn`` (with a comment
saying so at the line), else a refusal naming the module and the operation.

Each writer gets the node's arguments already written (``Arg``) and returns the
expression's text, or None when the built-in doesn't fit this call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Arg:
    """An argument as the program writes it: ``text`` (a name, ``m.field`` or a literal),
    and for a tensor its sizes (ints; the batch axis as its name)."""

    text: str
    shape: tuple[int | str, ...] | None = None
    value: Any = None


Writer = Callable[[list[Arg], dict[str, Any], tuple[int | str, ...]], "str | None"]
WRITERS: dict[str, Writer] = {}
# What each writer's output counts as in the coverage report.
NAMED: dict[str, str] = {}


def writes(op: str, named: str) -> Callable[[Writer], Writer]:
    def register(fn: Writer) -> Writer:
        WRITERS[op] = fn
        NAMED[op] = named
        return fn
    return register


def axes(shape: tuple[int | str, ...]) -> list[str]:
    """Pattern names for a tensor's axes: the batch axis by its name, then c h w, …"""
    letters = {1: ["f"], 2: ["c", "f"], 3: ["c", "h", "w"], 4: ["c", "d", "h", "w"]}
    rest = letters.get(len(shape) - 1, [f"a{i}" for i in range(len(shape) - 1)])
    first = shape[0] if isinstance(shape[0], str) else "a0"
    return [first, *rest]


def _pair(v: Any, default: int) -> int | None:
    """One int for both spatial axes, or None when they differ."""
    if v is None or v == []:
        return default
    if isinstance(v, int):
        return v
    v = list(v)
    return v[0] if len(v) in (1, 2) and len(set(v)) == 1 else None


@writes("conv2d", "conv2d")
def _conv2d(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
    x, w = a[0], a[1]
    b = a[2] if len(a) > 2 and a[2].text != "none" else None
    stride = _pair(a[3].value if len(a) > 3 else None, 1)
    padding = _pair(a[4].value if len(a) > 4 else None, 0)
    dilation = _pair(a[5].value if len(a) > 5 else None, 1)
    groups = a[6].value if len(a) > 6 else 1
    if stride is None or padding is None or dilation != 1 or groups != 1:
        return None
    args = [x.text, w.text] + ([b.text] if b else [])
    if stride != 1:
        args.append(f"stride={stride}")
    if padding != 0:
        args.append(f"padding={padding}")
    return f"conv2d({', '.join(args)})"


@writes("linear", "linear")
def _linear(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
    return f"linear({', '.join(x.text for x in a[:3] if x.text != 'none')})"


def _unary(name: str) -> Writer:
    def write(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
        if name == "gelu" and kw.get("approximate", "none") != "none":
            return f'gelu({a[0].text}, approximate="{kw["approximate"]}")'
        return f"{name}({a[0].text})"
    return write


for _name in ("relu", "sigmoid", "tanh", "silu", "gelu", "exp", "log", "sqrt", "abs"):
    writes(_name, _name)(_unary(_name))
writes("relu_", "relu")(_unary("relu"))


def _binary(symbol: str) -> Writer:
    def write(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
        if kw.get("alpha", 1) != 1 or len(a) != 2:
            return None
        return f"{a[0].text} {symbol} {a[1].text}"
    return write


for _op, _sym in (("add", "+"), ("add_", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")):
    writes(_op, _sym)(_binary(_sym))


def _pool(op: str) -> Writer:
    def write(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
        x = a[0]
        k = _pair(a[1].value, 1)
        stride = _pair(a[2].value if len(a) > 2 else None, k or 1)
        padding = _pair(a[3].value if len(a) > 3 else None, 0)
        rest = [v.value for v in a[4:]]
        if k is None or stride != k or padding != 0 or any(v not in (1, [1, 1], False, True, None) for v in rest):
            return None
        assert x.shape is not None
        h, w = x.shape[-2], x.shape[-1]
        if not (isinstance(h, int) and isinstance(w, int) and h % k == 0 and w % k == 0):
            return None
        names = axes(x.shape)
        lead = " ".join(names[:-2])
        return (f"reduce({x.text}, {lead} (h p) (w q) -> {lead} h w, {op}, p={k}, q={k})")
    return write


writes("max_pool2d", "reduce")(_pool("max"))
writes("avg_pool2d", "reduce")(_pool("mean"))


@writes("adaptive_avg_pool2d", "reduce")
def _adaptive(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
    x = a[0]
    assert x.shape is not None
    size = list(a[1].value) if isinstance(a[1].value, (list, tuple)) else [a[1].value] * 2
    h, w = x.shape[-2], x.shape[-1]
    names = axes(x.shape)
    lead = " ".join(names[:-2])
    if size == [1, 1]:
        return f"reduce({x.text}, {lead} h w -> {lead} 1 1, mean)"
    if isinstance(h, int) and isinstance(w, int) and h % size[0] == 0 and w % size[1] == 0:
        return (f"reduce({x.text}, {lead} (h p) (w q) -> {lead} h w, mean, "
                f"p={h // size[0]}, q={w // size[1]})")
    return None


@writes("mean", "mean")
def _mean(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
    x = a[0]
    assert x.shape is not None
    dims = a[1].value if len(a) > 1 else None
    keep = bool(a[2].value) if len(a) > 2 else bool(kw.get("keepdim", False))
    names = axes(x.shape)
    if dims is None:
        return f"mean({x.text})"
    gone = {d % len(names) for d in dims}
    kept = [n if i not in gone else ("1" if keep else "") for i, n in enumerate(names)]
    return f"reduce({x.text}, {' '.join(names)} -> {' '.join(k for k in kept if k)}, mean)"


@writes("flatten", "rearrange")
def _flatten(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
    x = a[0]
    assert x.shape is not None
    names = axes(x.shape)
    start = (a[1].value if len(a) > 1 else 0) % len(names)
    end = (a[2].value if len(a) > 2 else -1) % len(names)
    merged = names[:start] + ["(" + " ".join(names[start:end + 1]) + ")"] + names[end + 1:]
    return f"rearrange({x.text}, {' '.join(names)} -> {' '.join(merged)})"


def _reshape(a: list[Arg], kw: dict[str, Any], out: tuple[int | str, ...]) -> str | None:
    """A reshape that merges neighbouring axes (a flatten), as a pattern."""
    x = a[0]
    assert x.shape is not None
    shape = list(x.shape)
    names = axes(x.shape)
    groups: list[list[str]] = []
    i = 0
    for size in out:
        group: list[Any] = []
        prod: Any = 1
        while i < len(shape) and (not group or (isinstance(size, int) and prod < size)):
            if isinstance(shape[i], str):
                if size != shape[i] or group:
                    return None
                group, i = [names[i]], i + 1
                break
            group.append(names[i])
            prod *= shape[i]
            i += 1
        if isinstance(size, int) and prod != size:
            return None
        groups.append(group)
    if i != len(shape):
        return None
    right = " ".join(g[0] if len(g) == 1 else "(" + " ".join(g) + ")" for g in groups)
    return f"rearrange({x.text}, {' '.join(names)} -> {right})"


for _op in ("view", "reshape", "_unsafe_view"):
    writes(_op, "rearrange")(_reshape)
