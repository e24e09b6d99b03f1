"""What each operation built into the checker does, for people: the one description the
documentation's built-ins page and the language server's hover, signature help and
completion are all made from.

The prelude's functions (``prelude.ss``, ``nn.ss``) describe themselves, in their
``extern fn`` signatures and ``##`` comments; the built-in forms here are those no
signature can say (they remove, reorder or match axes by label). Each has an example
call, its parameters with their types in the prelude's notation (``[...] Float``,
``Axis[A]``; ``…`` after a name: any number of them), and one line on what it does.
Their names are exactly the checker's (a test checks it).

>>> builtin_doc("mean").signature
'mean(x: [... A] Num, over: Axis[A] = every axis) -> [...] Num'
>>> builtin_doc("mean").params
('x: [... A] Num', 'over: Axis[A] = every axis')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BUILT_IN_GROUPS", "BuiltinDoc", "builtin_doc", "builtin_docs"]


@dataclass(frozen=True)
class BuiltinDoc:
    """One built-in form: its name, an example call, its typed signature and what it
    does (Markdown, one line)."""

    name: str
    call: str
    signature: str
    doc: str
    group: str = ""

    @property
    def params(self) -> tuple[str, ...]:
        """The signature's parameters, each as written (``over: Axis[A]``)."""
        open_ = self.signature.find("(")
        if open_ < 0:
            return ()
        out: list[str] = []
        depth, start = 0, open_ + 1
        for i in range(open_ + 1, len(self.signature)):
            c = self.signature[i]
            if c in "([":
                depth += 1
            elif c in ")]" and depth:
                depth -= 1
            elif c == ")" or (c == "," and depth == 0):
                piece = self.signature[start:i].strip()
                if piece:
                    out.append(piece)
                if c == ")":
                    break
                start = i + 1
        return tuple(out)


_R = "over: Axis[A] = every axis"

# (group, ((name, example call, signature, what it does), …)), in the order the
# documentation shows them.
_TABLE: tuple[tuple[str, tuple[tuple[str, str, str, str], ...]], ...] = (
    ("Element-wise, broadcast by label", (
        ("add", "add(a, b)", "add(a: [...] Num, b: [...] Num) -> [...] Num",
         "`a + b`: the result has `a`'s axes, then those of `b` that `a` lacks."),
        ("sub", "sub(a, b)", "sub(a: [...] Num, b: [...] Num) -> [...] Num",
         "`a - b`, broadcast as `add`."),
        ("mul", "mul(a, b)", "mul(a: [...] Num, b: [...] Num) -> [...] Num",
         "`a * b`, broadcast as `add`."),
        ("div", "div(a, b)", "div(a: [...] Num, b: [...] Num) -> [...] Float",
         "`a / b`, broadcast as `add`; integer tensors divide to floats."),
        ("maximum", "maximum(a, b)", "maximum(a: [...] Num, b: [...] Num) -> [...] Num",
         "The larger of `a` and `b`, element-wise (`maximum(t, 1.0)`)."),
        ("minimum", "minimum(a, b)", "minimum(a: [...] Num, b: [...] Num) -> [...] Num",
         "The smaller of `a` and `b`, element-wise."),
        ("where", "where(mask, a, b)", "where(mask: [...] Mask, a: [...], b: [...]) -> [...]",
         "`a` where `mask` holds, else `b`; the result has `a`'s axes first (`where(m, x, -1e9)`)."),
    )),
    ("Contraction", (
        ("matmul", "matmul(a, b)", "matmul(a: [... n k] Num, b: [... k m] Num) -> [... n m] Num",
         "`a @ b`: contracts `a`'s last axis with `b`'s second-to-last (or only) axis; leading axes broadcast by label."),
    )),
    ("Reductions (`over=` one axis name or a group `(a b)`; without it, every axis)", (
        ("sum", "sum(x, over=A)", f"sum(x: [... A] Num, {_R}) -> [...] Num",
         "The sum over `A`; of a `Mask` it counts, as `i64`."),
        ("mean", "mean(x, over=A)", f"mean(x: [... A] Num, {_R}) -> [...] Num",
         "The mean over `A`."),
        ("max", "max(x, over=A)", f"max(x: [... A] Num, {_R}) -> [...] Num",
         "The largest value over `A`."),
        ("min", "min(x, over=A)", f"min(x: [... A] Num, {_R}) -> [...] Num",
         "The smallest value over `A`."),
        ("prod", "prod(x, over=A)", f"prod(x: [... A] Num, {_R}) -> [...] Num",
         "The product over `A`."),
        ("var", "var(x, over=A)", f"var(x: [... A] Float, {_R}) -> [...] Float",
         "The variance over `A`."),
        ("std", "std(x, over=A)", f"std(x: [... A] Float, {_R}) -> [...] Float",
         "The standard deviation over `A`."),
        ("logsumexp", "logsumexp(x, over=A)", f"logsumexp(x: [... A] Float, {_R}) -> [...] Float",
         "$\\log \\sum e^x$ over `A`, computed stably."),
        ("argmax", "argmax(x, over=A)", "argmax(x: [... A] Num, over: Axis[A]) -> [...] Index[A]",
         "The position of the largest value over `A`: an `Index[A]`."),
        ("argmin", "argmin(x, over=A)", "argmin(x: [... A] Num, over: Axis[A]) -> [...] Index[A]",
         "The position of the smallest value over `A`: an `Index[A]`."),
        ("any", "any(m, over=A)", f"any(m: [... A] Mask, {_R}) -> [...] Mask",
         "Whether any value of the `Mask` over `A` holds."),
        ("all", "all(m, over=A)", f"all(m: [... A] Mask, {_R}) -> [...] Mask",
         "Whether every value of the `Mask` over `A` holds."),
    )),
    ("Scans (the running result along one axis)", (
        ("cumprod", "cumprod(x, over=A)", "cumprod(x: [... A] Num, over: Axis[A]) -> [... A] Num",
         "The running product along `A`; `Pos`, `NonNeg`, `Unit` and `Signed` values keep their "
         "domain (a `Prob` gives `Unit`), integers and masks give `i64`."),
    )),
    ("Classes", (
        ("cross_entropy", "cross_entropy(logits, y, over=C)",
         "cross_entropy(logits: [... C] Logit over C, y: [...] Index[C], over: Axis[C]) -> [] NonNeg",
         "The mean cross-entropy of `Logit over C` scores against `Index[C]` labels: a `[] NonNeg`."),
        ("topk", "topk(x, k, over=A)",
         "topk(x: [... A] Num, k: int, over: Axis[A]) -> ([... k] Num, [... k] Index[A])",
         "`(values, indices)`: the `k` largest values over `A` and their positions (`Index[A]`), `A` replaced by an axis of the static size `k`."),
    )),
    ("Patterns (written bare, as einops writes them in strings)", (
        ("rearrange", "rearrange(x, b c (gh p) (gw q) -> b (gh gw) (p q c), p=P, q=P)",
         "rearrange(x: [...], pattern: axes -> axes, sizes…: int) -> [...]",
         "Reorders, splits and merges axes; sizes given as keywords bind the rest."),
        ("reduce", "reduce(x, b c h w -> b c, mean)",
         "reduce(x: [...] Num, pattern: axes -> axes, op: sum | mean | max | min | prod, sizes…: int) -> [...] Num",
         "Reduces the axes the output lacks with `sum mean max min prod`."),
        ("repeat", "repeat(k, b H n D -> b (H R) n D, R=4)",
         "repeat(x: [...], pattern: axes -> axes, sizes…: int) -> [...]",
         "Repeats along new or grouped axes."),
        ("einsum", "einsum(a, b: b N D, N T -> b T D)",
         "einsum(inputs…: [...] Num, pattern: axes -> axes) -> [...] Num",
         "Contracts the axes the output lacks; inputs before `:`."),
    )),
    ("Joining and splitting", (
        ("stack", "stack((a, b))", "stack(xs: ([...], …)) -> [N ...]",
         "A tuple of tensors of one type stacked along a new first axis, labelled by the tuple's length."),
        ("concat", "concat((a, b), over=A)", "concat(xs: ([... A], …), over: Axis[A]) -> [...]",
         "Tensors joined along the axis `A`, whose sizes add."),
        ("split", "split(x, over=A, sizes=(p, q))",
         "split(x: [... A], over: Axis[A], sizes: (int, …)) -> ([...], …)",
         "A tuple of pieces of `x` cut along `A`; the sizes must provably add up to `A`'s."),
        ("pack", "pack((cls, x), b * D)", "pack(xs: ([l… … r…], …), pattern: names * names) -> [l… S r…]",
         "einops' `pack`: each tensor's axes in place of `*` flattened, then all joined there; "
         "the packed axis `S` is the sum of their products (`1 + n`)."),
        ("unpack", "unpack(p, b * D -> b D, b n D)",
         "unpack(x: [l… S r…], pattern: names * names -> part, …, sizes…) -> ([…], …)",
         "einops' `unpack`: a tuple, one tensor per part, each with its own axes in place of `*` "
         "(dims, generics, keyword sizes, or one unknown the others leave); the parts must add up to `S`."),
        ("map", "C |> map(c => e)", "map(count: dim C, f: c => [...]) -> [C ...]",
         "`e` for each `c` in `0 .. C-1`, stacked along a new first axis `C`."),
    )),
    ("Constructors (shapes in brackets, made on the program's device)", (
        ("zeros", "zeros[b n D]", "zeros[shape] -> [shape] f32 NonNeg",
         "Zeros, `f32 NonNeg` unless a dtype is written (`zeros[D] bf16`)."),
        ("ones", "ones[D]", "ones[shape] -> [shape] f32 Pos", "Ones, `f32 Pos`."),
        ("eye", "eye[n n]", "eye[n n] -> [n n] f32 Unit", "The identity matrix, `f32 Unit`."),
        ("arange", "arange[n]", "arange[n] -> [n] Index[n]", "`0, 1, …, n-1`: an `[n] Index[n]`."),
        ("causal", "causal[n n]", "causal[n n] -> [n n] Mask",
         "The lower-triangular `Mask` (diagonal included) of causal attention."),
        ("randn", "randn[b D]", "randn[shape] -> [shape] f32",
         "Normal noise, `f32`, from torch's default generator (`torch.manual_seed`)."),
        ("rand", "rand[b n]", "rand[shape] -> [shape] f32 Unit",
         "Uniform noise in [0, 1), `f32 Unit`."),
        ("full", "full[n n](-1e9)", "full[shape](value: number) -> [shape]",
         "Every value `v`, of `v`'s dtype unless one is written (`full[n] i32(0)`)."),
    )),
    ("Host code: output", (
        ("print", "print(a, b, …)", "print(values…: any) -> None",
         "Prints host values and tensors, as Python's `print`."),
    )),
    ("Host code: training (see [Models and training](../training.md))", (
        ("value_and_grad", "value_and_grad(f, m, args…)",
         "value_and_grad(f: fn(m, args…) -> [] Float, m: Model, args…: any) -> ([] Float, Grads)",
         "`f(m, args…)` and the gradients with respect to `m`'s parameters."),
        ("sgd", "sgd(m, lr=…, momentum=…)",
         "sgd(m: Model, lr: float | Schedule, momentum: float = 0, weight_decay: float = 0) -> Optimizer",
         "Stochastic gradient descent's state for `m`."),
        ("adamw", "adamw(m, lr=…, weight_decay=…)",
         ("adamw(m: Model, lr: float | Schedule, weight_decay: float = 0.01, beta1: float = 0.9, "
          "beta2: float = 0.999, eps: float = 1e-8) -> Optimizer"),
         "AdamW's state for `m`; `lr` may be a schedule."),
        ("update", "update(m, grads, opt)", "update(m: Model, grads: Grads, opt: Optimizer) -> None",
         "One optimizer step on `m`."),
        ("clip_norm", "clip_norm(grads, max=…)", "clip_norm(grads: Grads, max: float) -> Grads",
         "The gradients scaled down to a total norm of at most `max`."),
        ("cosine", "cosine(steps, lr=…)", "cosine(steps: int, lr: float, min: float = 0) -> Schedule",
         "A learning rate falling along a cosine to 0 over `steps` updates."),
        ("warmup", "warmup(steps, s)", "warmup(steps: int, lr: float | Schedule) -> Schedule",
         "A linear warm-up over `steps` updates, then the schedule `s`."),
        ("shuffle", "shuffle(data, seed=…)", "shuffle(data: ([N ...], …), seed: int = none) -> ([N ...], …)",
         "A tuple of tensors sharing their first axis, in a new order."),
        ("batches", "batches(data, size=…)", "batches(data: ([N ...], …), size: int) -> batches of ([b ...], …)",
         "The batches of a tuple of tensors, for a `for` loop."),
        ("report", "report(step, loss=l, acc=a)", "report(step: int, values…: [] Float) -> None",
         "Sends a record to the sinks: by default a progress line on the terminal."),
        ("sink", "sink(\"run.jsonl\")", "sink(path: str) -> None",
         "Adds a JSON-lines file to the sinks `report` writes to."),
        ("save", "save(path, m, …)", "save(path: str, models…: Model) -> None",
         "Writes one or more models to a safetensors checkpoint, with their types and shapes."),
        ("load", "load(path, M)", "load(path: str, M: model type) -> M",
         "The first model of type `M` in a checkpoint, every field's shape and dtype checked."),
    )),
)

BUILT_IN_GROUPS: tuple[tuple[str, tuple[BuiltinDoc, ...]], ...] = tuple(
    (group, tuple(BuiltinDoc(name, call, sig, doc, group) for name, call, sig, doc in ops))
    for group, ops in _TABLE)

_BY_NAME: dict[str, BuiltinDoc] = {b.name: b for _, ops in BUILT_IN_GROUPS for b in ops}


def builtin_docs() -> tuple[BuiltinDoc, ...]:
    """Every built-in form's description, in the documentation's order."""
    return tuple(_BY_NAME.values())


def builtin_doc(name: str) -> BuiltinDoc | None:
    """The description of the built-in form ``name`` (None: not a built-in form)."""
    return _BY_NAME.get(name)
