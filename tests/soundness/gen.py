"""Random well-typed ShapeScript programs, each with what it must compute.

A program is built top-down from the type it must have: ``expr(axes)`` picks an
operation whose result has exactly those axes (labels, in order), asks for its operands'
types, and builds each the same way, down to parameters, which are made as they are
needed. Every value carries its source text, its axes and an *oracle*, a function that
computes it directly in torch from the inputs, so a run can be compared with it.

The operations: element-wise operators broadcasting by label (operands in any order of
a subset of the axes), unary functions, reductions, ``@``, ``einsum``, patterns that
transpose, merge and split (a split of a generic axis is checked at run time, and the
oracle says when that check must fail), slices with literal offsets, gathers with
``Index`` tensors, mask indexing to a ``?`` size reduced by a pattern, ``as``,
``map``, ``softmax`` (a ``Prob`` domain), calls of generic functions whose generics are
renamed, locals, models holding static parameters, ``clamp``, ``concat`` (then sliced
back to the requested size), ``conv2d`` (a 3×3 kernel padded to keep the size, so the
output's size expressions normalise to the input's) and ``scaled_dot_product_attention``
(with or without a ``causal`` mask).

Choices come from a ``Choices``: ``HypothesisChoices`` (a ``draw`` of a
``st.composite``, so hypothesis shrinks failures) or ``RandomChoices`` (a seeded
``random.Random``, for the benchmark's 10,000).
"""

from __future__ import annotations

import abc
import random
import string
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

GENERICS = ("b", "n", "m", "k", "t")
DIMS = ("D", "H", "C")


class CheckMustFail(Exception):
    """The oracle's verdict that a documented run-time check must raise ``ShapeError``."""


class Choices(abc.ABC):
    """Where the generator's decisions come from: a seeded ``random`` or hypothesis."""

    @abc.abstractmethod
    def int(self, lo: int, hi: int) -> int:
        """An integer in ``lo..hi``, both included."""

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def coin(self, p: float = 0.5) -> bool:
        return self.int(0, 999) < int(p * 1000)

    def shuffle(self, seq) -> list:
        items = list(seq)
        out = []
        while items:
            out.append(items.pop(self.int(0, len(items) - 1)))
        return out


class RandomChoices(Choices):
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class HypothesisChoices(Choices):
    def __init__(self, draw: Callable) -> None:
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))


# -- labels and sizes -----------------------------------------------------------------------
def factors(label: str) -> list[str]:
    """``n*D`` → ``[n, D]``; ``n + 1`` → ``[n]`` (the offset is in ``offset``)."""
    return label.split(" + ")[0].split("*")


def offset(label: str) -> int:
    return int(label.split(" + ")[1]) if " + " in label else 0


def size_of(label: str, env: dict[str, int]) -> int:
    s = 1
    for f in factors(label):
        s *= int(f) if f.isdigit() else env[f]
    return s + offset(label)


def is_atom(label: str) -> bool:
    return "*" not in label and " + " not in label


@dataclass
class Val:
    src: str
    axes: tuple[str, ...]
    ev: Callable[[dict[str, Any]], torch.Tensor]


@dataclass
class Param:
    name: str
    axes: tuple[str, ...]
    # f32 | index (with bound) | mask | model | kernel (a conv2d weight, `[o c 3 3]`: a
    # parameter, never built by other operations, whose literal axes they can't take)
    kind: str = "f32"
    bound: str | None = None

    def type_text(self) -> str:
        if self.kind == "model":
            return "W"
        t = "[" + " ".join(self.axes) + "]"
        if self.kind == "index":
            return f"{t} Index[{self.bound}]"
        if self.kind == "mask":
            return f"{t} Mask"
        return t


@dataclass
class Fn:
    name: str
    params: list[Param]
    axes: tuple[str, ...]
    lines: list[str]
    ret: str
    ev: Callable[[dict[str, Any]], torch.Tensor]

    def source(self) -> str:
        ps = ", ".join(f"{p.name}: {p.type_text()}" for p in self.params)
        body = "".join(f"    {line}\n" for line in self.lines)
        return f"fn {self.name}({ps}) -> [{' '.join(self.axes)}]:\n{body}    return {self.ret}\n"


@dataclass
class Program:
    dims: dict[str, int]
    fns: list[Fn]
    model: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    @property
    def main(self) -> Fn:
        return self.fns[-1]

    def source(self) -> str:
        out = [f"dim {k} = {v}\n" for k, v in self.dims.items()]
        if self.model:
            out.append("model W:\n" + "".join(f"    param {n}: [{' '.join(a)}]\n" for n, a in self.model))
        return "".join(out) + "\n".join(f.source() for f in self.fns)


def _align(x: torch.Tensor, have: tuple[str, ...], want: tuple[str, ...]) -> torch.Tensor:
    """``x`` (axes ``have``, a subset of ``want``) permuted and unsqueezed to ``want``."""
    order = [have.index(a) for a in want if a in have]
    x = x.permute(*order) if order else x
    kept = [a for a in want if a in have]
    shape = []
    it = iter(x.shape)
    for a in want:
        shape.append(next(it) if a in kept else 1)
    return x.reshape(shape)


UNARY = {
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "abs": torch.abs,
    "square": torch.square, "sin": torch.sin,
}
REDUCE = {"sum": lambda x, d: x.sum(d), "mean": lambda x, d: x.mean(d),
          "max": lambda x, d: x.amax(d), "min": lambda x, d: x.amin(d)}


class Gen:
    """One program's generator."""

    def __init__(self, ch: Choices, max_depth: int = 4) -> None:
        self.ch = ch
        self.max_depth = max_depth
        ndims = ch.int(1, 3)
        self.dims = {d: ch.pick((1, 2, 3, 4)) for d in DIMS[:ndims]}
        self.fns: list[Fn] = []
        self.model: list[tuple[str, tuple[str, ...]]] = []
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- a function ---------------------------------------------------------------------
    def function(self, name: str, axes: tuple[str, ...], depth: int) -> Fn:
        saved = getattr(self, "cur", None)
        self.cur = {"params": [], "lines": [], "evs": [], "generics": set()}
        v = self.expr(axes, depth)
        params: list[Param] = self.cur["params"]
        # Every generic the result or a constructor names must come from a parameter:
        # a bare axis, or a linear form (`n*D`, `n + 1`) of one generic and dims.
        bare = set()
        for p in params:
            for a in p.axes:
                gs = [f for f in factors(a) if f in GENERICS]
                if len(gs) == 1:
                    bare.add(gs[0])
        for g in sorted(self.cur["generics"] - bare):
            params.append(Param(self.fresh("pu"), (g,)))
        locals_ = self.cur["evs"]
        fn = Fn(name, params, axes, self.cur["lines"], v.src, _with_locals(locals_, v.ev))
        self.cur = saved
        return fn

    def note(self, axes: tuple[str, ...]) -> None:
        for a in axes:
            for f in factors(a):
                if f in GENERICS:
                    self.cur["generics"].add(f)

    # -- expressions ----------------------------------------------------------------------
    def expr(self, axes: tuple[str, ...], depth: int) -> Val:
        self.note(axes)
        ch = self.ch
        if depth <= 0:
            return self.leaf(axes)
        ops = ["ew", "ew", "unary", "reduce", "leaf"]
        atoms = all(is_atom(a) for a in axes)
        if axes:
            ops += ["matmul", "map", "gather"]
        if axes and atoms:
            ops += ["einsum", "transpose", "softmax", "mask"]
        if sum(not is_atom(a) for a in axes) == 1 and any("*" in a and " + " not in a for a in axes):
            ops += ["merge", "merge"]
        if atoms and len(axes) >= 2:
            ops += ["split"]
        if axes and atoms and any(a in GENERICS for a in axes):
            ops += ["halves"]
        if axes and is_atom(axes[0]):
            ops += ["slice"]
        if axes:
            ops += ["clamp"]
        if axes and is_atom(axes[0]):
            ops += ["concat"]
        if len(axes) in (3, 4) and atoms:
            ops += ["sdpa", "conv"]
        if depth >= 2:
            ops += ["call"]
        op = ch.pick(ops)
        v = getattr(self, "op_" + op)(axes, depth - 1)
        if v is None:
            v = self.leaf(axes)
        if depth >= 1 and ch.coin(0.15):
            name = self.fresh("v")
            self.cur["lines"].append(f"{name} = {v.src}")
            self.cur["evs"].append((name, v.ev))
            ev_name = name
            return Val(name, v.axes, lambda inp, _n=ev_name: inp["__locals__"][_n])
        return v

    def leaf(self, axes: tuple[str, ...]) -> Val:
        ch = self.ch
        params: list[Param] = self.cur["params"]
        same = [p for p in params if p.axes == axes and p.kind == "f32"]
        static = all(f in self.dims or f.isdigit() for a in axes for f in factors(a))
        if static and axes and ch.coin(0.2):
            name = self.fresh("fw")
            self.model.append((name, axes))
            if not any(p.kind == "model" for p in params):
                params.insert(0, Param("mdl", (), "model"))
            return Val(f"mdl.{name}", axes, lambda inp, _n=name: inp["__model__"][_n])
        if same and ch.coin(0.4):
            p = ch.pick(same)
        elif ch.coin(0.1) and all(is_atom(a) for a in axes):
            ctor = ch.pick(("ones", "zeros"))
            text = f"({ctor}[{' '.join(axes)}])"
            fill = 1.0 if ctor == "ones" else 0.0
            return Val(text, axes, lambda inp, _a=axes: torch.full(
                tuple(size_of(a, inp["__env__"]) for a in _a), fill))
        else:
            p = Param(self.fresh("x"), axes)
            params.append(p)
        return Val(p.name, axes, lambda inp, _n=p.name: inp[_n])

    def new_label(self, avoid: tuple[str, ...]) -> str | None:
        used = {f for a in avoid for f in factors(a)}
        pool = [g for g in GENERICS if g not in used] + [d for d in self.dims if d not in used]
        return self.ch.pick(pool) if pool else None

    # -- operations -----------------------------------------------------------------------
    def op_leaf(self, axes, depth):
        return self.leaf(axes)

    def op_ew(self, axes, depth):
        ch = self.ch
        a = self.expr(axes, depth)
        sub = tuple(x for x in ch.shuffle(axes) if ch.coin(0.6))
        b = self.expr(sub, depth)
        op = ch.pick(("+", "-", "*", "maximum", "minimum"))
        if op in ("maximum", "minimum"):
            f = torch.maximum if op == "maximum" else torch.minimum
            return Val(f"{op}({a.src}, {b.src})", axes,
                       lambda inp: f(a.ev(inp), _align(b.ev(inp), sub, axes)))
        fn = {"+": torch.add, "-": torch.sub, "*": torch.mul}[op]
        if ch.coin(0.2):  # a host number
            c = ch.pick((2.0, 0.5, 1.0))
            return Val(f"({a.src} {op} {c})", axes, lambda inp: fn(a.ev(inp), c))
        return Val(f"({a.src} {op} {b.src})", axes,
                   lambda inp: fn(a.ev(inp), _align(b.ev(inp), sub, axes)))

    def op_unary(self, axes, depth):
        name = self.ch.pick(tuple(UNARY) + ("neg",))
        a = self.expr(axes, depth)
        if name == "neg":
            return Val(f"(-{a.src})", axes, lambda inp: -a.ev(inp))
        f = UNARY[name]
        return Val(f"{name}({a.src})", axes, lambda inp: f(a.ev(inp)))

    def op_reduce(self, axes, depth):
        r = self.new_label(axes)
        if r is None:
            return None
        pos = self.ch.int(0, len(axes))
        inner_axes = axes[:pos] + (r,) + axes[pos:]
        a = self.expr(inner_axes, depth)
        op = self.ch.pick(tuple(REDUCE) + ("logsumexp",))
        if op == "logsumexp":
            return Val(f"logsumexp({a.src}, over={r})", axes, lambda inp: torch.logsumexp(a.ev(inp), pos))
        f = REDUCE[op]
        return Val(f"{op}({a.src}, over={r})", axes, lambda inp: f(a.ev(inp), pos))

    def op_matmul(self, axes, depth):
        j = self.new_label(axes)
        if j is None:
            return None
        if len(axes) == 1:
            a = self.expr((j,), depth)
            b = self.expr((j, axes[0]), depth)
        else:
            a = self.expr(axes[:-1] + (j,), depth)
            b = self.expr((j, axes[-1]), depth)
        return Val(f"({a.src} @ {b.src})", axes, lambda inp: torch.matmul(a.ev(inp), b.ev(inp)))

    def op_einsum(self, axes, depth):
        ch = self.ch
        j = self.new_label(axes)
        if j is None:
            return None
        left = [x for x in axes if ch.coin(0.5)]
        right = [x for x in axes if x not in left or ch.coin(0.3)]
        la = tuple(ch.shuffle(left + [j]))
        lb = tuple(ch.shuffle(right + [j]))
        a, b = self.expr(la, depth), self.expr(lb, depth)
        letters = {x: string.ascii_letters[i] for i, x in enumerate(sorted(set(la) | set(lb) | set(axes)))}
        eq = "".join(letters[x] for x in la) + "," + "".join(letters[x] for x in lb) + "->" + \
            "".join(letters[x] for x in axes)
        pat = f"{' '.join(la)}, {' '.join(lb)} -> {' '.join(axes)}"
        return Val(f"einsum({a.src}, {b.src}: {pat})", axes,
                   lambda inp: torch.einsum(eq, a.ev(inp), b.ev(inp)))

    def op_transpose(self, axes, depth):
        perm = tuple(self.ch.shuffle(axes))
        a = self.expr(perm, depth)
        order = [perm.index(x) for x in axes]
        return Val(f"rearrange({a.src}, {' '.join(perm)} -> {' '.join(axes)})", axes,
                   lambda inp: a.ev(inp).permute(*order))

    def op_merge(self, axes, depth):
        i = next(k for k, x in enumerate(axes) if not is_atom(x) and " + " not in x)
        fs = tuple(factors(axes[i]))
        if any(f in axes for f in fs) or len(set(fs)) != len(fs):
            return None
        inner = axes[:i] + fs + axes[i + 1:]
        a = self.expr(inner, depth)
        left = " ".join(inner)
        right = " ".join(axes[:i] + ("(" + " ".join(fs) + ")",) + axes[i + 1:])
        return Val(f"rearrange({a.src}, {left} -> {right})", axes,
                   lambda inp: a.ev(inp).reshape(tuple(size_of(x, inp["__env__"]) for x in axes)))

    def op_split(self, axes, depth):
        i = self.ch.int(0, len(axes) - 2)
        g, d = axes[i], axes[i + 1]
        inner = axes[:i] + (f"{g}*{d}",) + axes[i + 2:]
        a = self.expr(inner, depth)
        left = " ".join(axes[:i] + (f"({g} {d})",) + axes[i + 2:])
        return Val(f"rearrange({a.src}, {left} -> {' '.join(axes)})", axes,
                   lambda inp: a.ev(inp).reshape(tuple(size_of(x, inp["__env__"]) for x in axes)))

    def op_halves(self, axes, depth):
        """A split of a generic axis in two and back, asserted with ``as``: checked at run
        time, and the oracle says when the size is odd."""
        i = self.ch.pick([k for k, x in enumerate(axes) if x in GENERICS])
        a = self.expr(axes, depth)
        names = [x if k != i else "(h two)" for k, x in enumerate(axes)]
        split = [x if k != i else "h two" for k, x in enumerate(axes)]
        inner = f"rearrange({a.src}, {' '.join(names)} -> {' '.join(split)}, two=2)"
        back = f"rearrange({inner}, {' '.join(split)} -> {' '.join(names)})"
        g = axes[i]

        def ev(inp):
            if inp["__env__"][g] % 2:
                raise CheckMustFail(f"`{g}` is odd")
            return a.ev(inp)

        return Val(f"({back} as [{' '.join(axes)}])", axes, ev)

    def op_slice(self, axes, depth):
        c = self.ch.int(0, 2)
        first = axes[0]
        extra = c + self.ch.int(0, 1)
        inner = (f"{first} + {extra}" if extra else first,) + axes[1:]
        hi = f"{first} + {c}" if c else first
        a = self.expr(inner, depth)
        return Val(f"{a.src}[{c}..{hi}]", axes,
                   lambda inp: a.ev(inp)[c:c + size_of(first, inp["__env__"])])

    def op_clamp(self, axes, depth):
        a = self.expr(axes, depth)
        lo, hi = self.ch.pick(((-0.5, None), (None, 0.5), (-0.5, 0.5)))
        args = (f", min={lo}" if lo is not None else "") + (f", max={hi}" if hi is not None else "")
        return Val(f"clamp({a.src}{args})", axes, lambda inp: torch.clamp(a.ev(inp), lo, hi))

    def op_concat(self, axes, depth):
        """Two values joined along the first axis, then sliced back to its size from row
        1, so the result mixes both."""
        first = axes[0]
        a, b = self.expr(axes, depth), self.expr(axes, depth)
        return Val(f"concat(({a.src}, {b.src}), over={first})[1..{first} + 1]", axes,
                   lambda inp: torch.cat((a.ev(inp), b.ev(inp)))[1:1 + size_of(first, inp["__env__"])])

    def _rank4(self, op, axes, depth):
        """A rank-3 request made from a rank-4 operation summed over a new second axis."""
        r = self.new_label(axes)
        if r is None:
            return None
        inner = (axes[0], r) + tuple(axes[1:])
        v = op(inner, depth)
        if v is None:
            return None
        return Val(f"sum({v.src}, over={r})", axes, lambda inp: v.ev(inp).sum(1))

    def op_sdpa(self, axes, depth):
        if len(axes) == 3:
            return self._rank4(self.op_sdpa, axes, depth)
        j = self.new_label(axes)
        m = self.new_label(axes + ((j,) if j else ()))
        if j is None or m is None:
            return None
        b, h, n, dv = axes
        q, k = self.expr((b, h, n, j), depth), self.expr((b, h, m, j), depth)
        v = self.expr((b, h, m, dv), depth)
        masked = self.ch.coin()
        mask = f", attn_mask=causal[{n} {m}]" if masked else ""

        def ev(inp):
            env = inp["__env__"]
            mk = (torch.ones(size_of(n, env), size_of(m, env), dtype=torch.bool).tril()
                  if masked else None)
            return torch.nn.functional.scaled_dot_product_attention(
                q.ev(inp), k.ev(inp), v.ev(inp), attn_mask=mk)

        return Val(f"scaled_dot_product_attention({q.src}, {k.src}, {v.src}{mask})", axes, ev)

    def op_conv(self, axes, depth):
        if len(axes) == 3:
            return self._rank4(self.op_conv, axes, depth)
        c = self.new_label(axes)
        if c is None:
            return None
        b, o, h, w = axes
        x = self.expr((b, c, h, w), depth)
        wt = Param(self.fresh("cw"), (o, c, "3", "3"), "kernel")
        self.cur["params"].append(wt)
        return Val(f"conv2d({x.src}, {wt.name}, padding=1)", axes,
                   lambda inp: torch.nn.functional.conv2d(x.ev(inp), inp[wt.name], padding=1))

    def op_gather(self, axes, depth):
        k = self.ch.int(1, len(axes))
        idx_axes, rest = axes[:k], axes[k:]
        v = self.ch.pick(list(self.dims)) if self.dims else None
        if v is None or v in {f for a in axes for f in factors(a)}:
            return None
        table = self.expr((v,) + rest, depth)
        p = Param(self.fresh("ix"), idx_axes, "index", v)
        self.cur["params"].append(p)
        return Val(f"{table.src}[{p.name}]", axes, lambda inp: table.ev(inp)[inp[p.name]])

    def op_map(self, axes, depth):
        a = self.expr(axes, depth)
        i = self.fresh("li")
        count = axes[0]
        return Val(f"(({count}) |> map({i} => {a.src}[{i}]))", axes, a.ev)

    def op_softmax(self, axes, depth):
        o = self.ch.pick(axes)
        a = self.expr(axes, depth)
        d = axes.index(o)
        # `Prob over o`, which only a reduction over `o` may take: the `as` widens it.
        return Val(f"(softmax({a.src}, over={o}) as [{' '.join(axes)}])", axes,
                   lambda inp: torch.softmax(a.ev(inp), d))

    def op_mask(self, axes, depth):
        r = self.new_label(axes)
        if r is None:
            return None
        a = self.expr((r,) + axes, depth)
        p = Param(self.fresh("mk"), (r,), "mask")
        self.cur["params"].append(p)
        names = " ".join(axes)
        asserted = f"({a.src}[{p.name}] as [?s {names}])" if self.ch.coin() else f"{a.src}[{p.name}]"
        return Val(f"reduce({asserted}, s {names} -> {names}, sum)", axes,
                   lambda inp: a.ev(inp)[inp[p.name]].sum(0))

    def op_call(self, axes, depth):
        ch = self.ch
        # The callee's generics are the caller's, renamed: binding must map them back.
        perm = ch.shuffle(GENERICS)
        ren = dict(zip(GENERICS, perm))
        back = {v: k for k, v in ren.items()}

        def rename(ax, m):
            out = []
            for a in ax:
                fs = [m.get(f, f) for f in factors(a)]
                out.append("*".join(fs) + (f" + {offset(a)}" if offset(a) else ""))
            return tuple(out)

        name = self.fresh("hf")
        saved_model = self.model
        callee = self.function(name, rename(axes, ren), min(depth, 2))
        self.fns.append(callee)
        args = []
        for p in callee.params:
            if p.kind == "model":
                if not any(q.kind == "model" for q in self.cur["params"]):
                    self.cur["params"].insert(0, Param("mdl", (), "model"))
                args.append(Val("mdl", (), lambda inp: None))
            elif p.kind == "index":
                q = Param(self.fresh("ix"), rename(p.axes, back), "index", p.bound)
                self.cur["params"].append(q)
                args.append(Val(q.name, q.axes, lambda inp, _n=q.name: inp[_n]))
            elif p.kind in ("mask", "kernel"):
                q = Param(self.fresh("mk"), rename(p.axes, back), p.kind)
                self.cur["params"].append(q)
                args.append(Val(q.name, q.axes, lambda inp, _n=q.name: inp[_n]))
            else:
                args.append(self.expr(rename(p.axes, back), depth - 1))
        del saved_model
        pnames = [p.name for p in callee.params]

        def ev(inp):
            sub = {"__env__": {ren.get(k, k): v for k, v in inp["__env__"].items()},
                   "__model__": inp.get("__model__"), "__locals__": {}}
            for pn, a in zip(pnames, args):
                sub[pn] = a.ev(inp) if a.src != "mdl" else None
            return callee.ev(sub)

        return Val(f"{name}({', '.join(a.src for a in args)})", axes, ev)


def _with_locals(locals_, ev):
    def run(inp):
        inp = dict(inp)
        inp["__locals__"] = dict(inp.get("__locals__") or {})
        for name, f in locals_:
            inp["__locals__"][name] = f(inp)
        return ev(inp)

    return run


def program(ch: Choices, max_depth: int = 4) -> Program:
    """A random program whose last function, ``main``, is the one to run."""
    g = Gen(ch, max_depth)
    rank = ch.int(0, 3)
    axes: list[str] = []
    for _ in range(rank):
        lab = g.new_label(tuple(axes))
        if lab is None:
            break
        axes.append(lab)
    if axes and ch.coin(0.15) and g.dims:
        d = ch.pick(list(g.dims))
        if axes[-1] in GENERICS and d not in axes:
            axes[-1] = f"{axes[-1]}*{d}"
    main = g.function("main", tuple(axes), ch.int(1, max_depth))
    g.fns.append(main)
    return Program(g.dims, g.fns, g.model)


def inputs(prog: Program, ch: Choices, sizes=(1, 2, 3, 4)) -> tuple[list[Any], dict[str, Any]]:
    """Random arguments for ``main``, and the oracle's inputs (by parameter name)."""
    env = {g: ch.pick(sizes) for g in GENERICS}
    env.update(prog.dims)
    gen = torch.Generator().manual_seed(ch.int(0, 2 ** 31 - 1))
    model = {n: torch.randn(*(size_of(a, env) for a in ax), generator=gen) for n, ax in prog.model}
    oracle: dict[str, Any] = {"__env__": env, "__model__": model, "__locals__": {}}
    args = []
    for p in prog.main.params:
        if p.kind == "model":
            args.append(model)
            oracle[p.name] = None
            continue
        shape = tuple(size_of(a, env) for a in p.axes)
        if p.kind == "index":
            x = torch.randint(0, env[p.bound], shape, generator=gen)
        elif p.kind == "mask":
            x = torch.rand(shape, generator=gen) < 0.5
        else:
            x = torch.randn(shape, generator=gen)
        args.append(x)
        oracle[p.name] = x
    return args, oracle


__all__ = ["Choices", "RandomChoices", "HypothesisChoices", "CheckMustFail", "Program", "program",
           "inputs", "size_of"]
