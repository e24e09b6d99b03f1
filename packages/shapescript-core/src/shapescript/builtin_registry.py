"""The registry of built-ins: one entry per operation the compiler builds in, holding both
what the phases need to know of it and its description for people.

Every phase reads its name sets from here, so a built-in is declared once:

- the lexer (``syntax/``) reads which names are constructors (``zeros[n D]``) and which
  calls take a bare pattern (``rearrange(x, b n d -> b d)``, ``pack((a, b), b * d)``);
- the checker (``check/``) reads which names can't be declared or shadowed (E0203), the
  arity and keywords its rules check, which built-ins are host-only (E1704 in an
  exported function) and which work along the axes they are given (the serving rules);
- the checker registers one *type rule* per entry (``check.builtins.RULES``) and the
  code generator one *emitter* per entry (``codegen.builtins.EMITTERS``), one for each
  family (``family("reduction")``) whose members the entries tell apart: torch's name, a
  reduction's dtype and domain rules (``check.dtypes``, ``check.domains`` read them), the
  sets derived below (einops' ``reduce`` operations, the reductions kept with
  ``keepdim=True``); a test fails if an entry lacks a rule, an emitter, what its family
  reads, or its description;
- the documentation's built-ins page and the language server's hover, signature help and
  completion read each entry's description (``builtin_docs``, ``BUILT_IN_GROUPS``): an
  example call, its parameters with their types in the prelude's notation (``[...] Float``,
  ``Axis[A]``; ``…`` after a name: any number of them), one line on what it does, and the
  group the page shows it in.

The prelude's functions (``prelude.ss``, ``nn.ss``) describe themselves, in their ``extern
fn`` signatures and ``##`` comments; the built-ins here are those no signature can say
(they remove, reorder or match axes by label). The table is data only and imports nothing
of the compiler, so the lowest phase can read it and no phase imports upward. Adding a
built-in: an entry here, its rule, its emitter; a new member of a family, its entry alone
(see "How to add a built-in" in docs/architecture.md).

>>> BUILTINS_BY_NAME["cumprod"].keywords
('over',)
>>> "zeros" in CONSTRUCTOR_NAMES, "zeros" in FUNCTION_NAMES
(True, False)
>>> builtin_doc("mean").signature
'mean(x: [... A] Num, over: Axis[A] = every axis) -> [...] Num'
>>> builtin_doc("mean").params
('x: [... A] Num', 'over: Axis[A] = every axis')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

__all__ = ["Builtin", "Family", "DtypeRule", "DomainRule", "BUILTINS", "BUILTINS_BY_NAME",
           "FUNCTION_NAMES", "CONSTRUCTOR_NAMES", "HOST_ONLY_NAMES", "ACROSS_NAMES",
           "PATTERN_NAMES", "family", "ELEMENTWISE_OPS", "ARITH_OPS", "REDUCTION_NAMES",
           "SCAN_NAMES", "EINOPS_PATTERN_NAMES", "EINOPS_REDUCE_OPS", "KEEPDIM_NAMES",
           "TRAINING_NAMES", "BuiltinDoc", "builtin_doc", "builtin_docs", "BUILT_IN_GROUPS"]

# The families: built-ins that share one type rule and one emitter, each told apart by
# its entry (its torch name, the dtype and domain rules of a reduction). A new member of
# a family is its entry alone; a new family is an entry, a rule and an emitter.
Family = Literal["elementwise", "select", "contraction", "reduction", "scan", "classes",
                 "pattern", "joining", "map", "constructor", "host", "training"]
# The dtype of a reduction's (or scan's) value, from its operand's (``check.dtypes``):
# ``count`` integers and masks count as i64 (sum, prod); ``keep`` the operand's (max);
# ``mean`` a float, a mask's mean f32, integers refused; ``float`` floats only (var);
# ``float_out`` integers and masks give f32 (logsumexp); ``index`` i64 (argmax);
# ``mask`` masks only (any).
DtypeRule = Literal["count", "keep", "mean", "float", "float_out", "index", "mask"]
# Its domain, from the operand's (``check.domains``): ``sum``, ``mean``, ``prod`` as they
# are; ``order`` one of the operand's values (max, min: the domain stays); ``spread``
# a variance's; ``real`` any real (logsumexp); ``index`` a position along the axis
# (argmax); ``mask`` a mask (any).
DomainRule = Literal["sum", "mean", "prod", "order", "spread", "real", "index", "mask"]


@dataclass(frozen=True, slots=True)
class Builtin:
    """One built-in: its declaration, then its description.

    ``form``: ``call`` (``f(x, over=A)``) or ``constructor`` (``f[shape]``, ``full[n](v)``).
    ``params``: the positional parameters, in order; ``variadic``: any number of them
    (``print``, the patterns' operands, the training built-ins, which check their own).
    ``keywords``: the keyword parameters; ``required``: those a call must give.
    ``host_only``: no torch-only lowering (E1704 in a function an exported one reaches).
    ``across``: works along the axes given by ``over=`` (or every axis without it), so
    serving code may not apply it to the token axis (E3304).
    ``pattern``: the call takes a bare pattern, which the lexer reads as one token:
    ``einops`` (``b c h w -> b c``, einsum's ``a, b: i j, j k -> i k``) or ``pack``
    (``b * d``, unpack's ``b * d -> b d, b n d``).

    What the family's rule and emitter read: ``family``; ``torch``, torch's name for it
    (an operator, ``+``, for arithmetic; a method of the operand for a reduction or a
    scan); for a reduction or scan, ``dtype_rule`` and ``domain_rule`` (its value's dtype
    and domain, see ``DtypeRule``, ``DomainRule``), ``masks`` (takes a ``Mask``; else
    E0404), ``one_axis`` (``over=`` names one axis; else E0403), ``einops`` (one of
    ``reduce(x, pattern, op)``'s operations), ``stepwise`` (torch reduces one axis per
    call: several are reduced one at a time), ``torch_pair`` (torch's call along an axis
    gives ``(values, indices)``: the code takes the values).

    The description, for people: ``call``, an example call; ``signature``, the typed
    signature in the prelude's notation (its parameters named as ``params`` and
    ``keywords``, in that order); ``doc``, what it does (Markdown, one line); ``group``,
    the heading the documentation's page shows it under (set by ``_group``).
    """

    name: str
    form: Literal["call", "constructor"] = "call"
    params: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    variadic: bool = False
    host_only: bool = False
    across: bool = False
    pattern: Literal["einops", "pack"] | None = None
    family: Family = field(kw_only=True)
    torch: str = field(default="", kw_only=True)
    dtype_rule: DtypeRule | None = field(default=None, kw_only=True)
    domain_rule: DomainRule | None = field(default=None, kw_only=True)
    masks: bool = field(default=True, kw_only=True)
    one_axis: bool = field(default=False, kw_only=True)
    einops: bool = field(default=False, kw_only=True)
    stepwise: bool = field(default=False, kw_only=True)
    torch_pair: bool = field(default=False, kw_only=True)
    call: str = field(kw_only=True)
    signature: str = field(kw_only=True)
    doc: str = field(kw_only=True)
    group: str = field(default="", kw_only=True)


def _group(heading: str, *entries: Builtin) -> tuple[Builtin, ...]:
    # The heading is written once, above its entries, as the page shows it.
    return tuple(replace(b, group=heading) for b in entries)


def _binary(name: str, torch: str, doc: str, *, result: str = "Num") -> Builtin:
    return Builtin(name, params=("a", "b"), family="elementwise", torch=torch,
                   call=f"{name}(a, b)",
                   signature=f"{name}(a: [...] Num, b: [...] Num) -> [...] {result}", doc=doc)


def _reduction(name: str, doc: str, *, torch: str, dtype_rule: DtypeRule,
               domain_rule: DomainRule, operand: str = "x", dtype: str = "Num",
               result: str | None = None, over_required: bool = False, masks: bool = True,
               one_axis: bool = False, einops: bool = False, stepwise: bool = False,
               torch_pair: bool = False) -> Builtin:
    over = "over: Axis[A]" if over_required else "over: Axis[A] = every axis"
    signature = f"{name}({operand}: [... A] {dtype}, {over}) -> [...] {result or dtype}"
    return Builtin(name, params=(operand,), keywords=("over",),
                   required=("over",) if over_required else (), across=True,
                   family="reduction", torch=torch, dtype_rule=dtype_rule,
                   domain_rule=domain_rule, masks=masks, one_axis=one_axis, einops=einops,
                   stepwise=stepwise, torch_pair=torch_pair,
                   call=f"{name}({operand}, over=A)", signature=signature, doc=doc)


def _pattern(name: str, kind: Literal["einops", "pack"], call: str, signature: str,
             doc: str) -> Builtin:
    # Operands, then a pattern, then keyword sizes: the rule checks them itself.
    return Builtin(name, variadic=True, pattern=kind,
                   family="pattern" if kind == "einops" else "joining",
                   call=call, signature=signature, doc=doc)


def _constructor(name: str, call: str, signature: str, doc: str) -> Builtin:
    return Builtin(name, form="constructor", family="constructor", call=call,
                   signature=signature, doc=doc)


def _training(name: str, call: str, signature: str, doc: str) -> Builtin:
    return Builtin(name, variadic=True, host_only=True, family="training", call=call,
                   signature=signature, doc=doc)


# In the order the documentation shows them.
BUILTINS: tuple[Builtin, ...] = (
    *_group(
        "Element-wise, broadcast by label",
        _binary("add", "+",
                "`a + b`: the result has `a`'s axes, then those of `b` that `a` lacks."),
        _binary("sub", "-", "`a - b`, broadcast as `add`."),
        _binary("mul", "*", "`a * b`, broadcast as `add`."),
        _binary("div", "/", "`a / b`, broadcast as `add`; integer tensors divide to floats.",
                result="Float"),
        _binary("maximum", "maximum",
                "The larger of `a` and `b`, element-wise (`maximum(t, 1.0)`)."),
        _binary("minimum", "minimum", "The smaller of `a` and `b`, element-wise."),
        Builtin("where", params=("mask", "a", "b"), family="select", torch="where",
                call="where(mask, a, b)",
                signature="where(mask: [...] Mask, a: [...], b: [...]) -> [...]",
                doc="`a` where `mask` holds, else `b`; the result has `a`'s axes first "
                    "(`where(m, x, -1e9)`)."),
    ),
    *_group(
        "Contraction",
        Builtin("matmul", params=("a", "b"), family="contraction", torch="matmul",
                call="matmul(a, b)",
                signature="matmul(a: [... n k] Num, b: [... k m] Num) -> [... n m] Num",
                doc="`a @ b`: contracts `a`'s last axis with `b`'s second-to-last (or only) "
                    "axis; leading axes broadcast by label."),
    ),
    *_group(
        "Reductions (`over=` one axis name or a group `(a b)`; without it, every axis)",
        _reduction("sum", "The sum over `A`; of a `Mask` it counts, as `i64`.",
                   torch="sum", dtype_rule="count", domain_rule="sum", einops=True),
        _reduction("mean", "The mean over `A`.",
                   torch="mean", dtype_rule="mean", domain_rule="mean", einops=True),
        _reduction("max", "The largest value over `A`.",
                   torch="amax", dtype_rule="keep", domain_rule="order", einops=True),
        _reduction("min", "The smallest value over `A`.",
                   torch="amin", dtype_rule="keep", domain_rule="order", einops=True),
        _reduction("prod", "The product over `A`.",
                   torch="prod", dtype_rule="count", domain_rule="prod", einops=True,
                   stepwise=True),
        _reduction("var", "The variance over `A`.", dtype="Float",
                   torch="var", dtype_rule="float", domain_rule="spread"),
        _reduction("std", "The standard deviation over `A`.", dtype="Float",
                   torch="std", dtype_rule="float", domain_rule="spread"),
        _reduction("logsumexp", "$\\log \\sum e^x$ over `A`, computed stably.", dtype="Float",
                   torch="logsumexp", dtype_rule="float_out", domain_rule="real"),
        _reduction("argmax", "The position of the largest value over `A`: an `Index[A]`.",
                   result="Index[A]", over_required=True,
                   torch="argmax", dtype_rule="index", domain_rule="index",
                   masks=False, one_axis=True),
        _reduction("argmin", "The position of the smallest value over `A`: an `Index[A]`.",
                   result="Index[A]", over_required=True,
                   torch="argmin", dtype_rule="index", domain_rule="index",
                   masks=False, one_axis=True),
        _reduction("any", "Whether any value of the `Mask` over `A` holds.",
                   operand="m", dtype="Mask",
                   torch="any", dtype_rule="mask", domain_rule="mask", einops=True),
        _reduction("all", "Whether every value of the `Mask` over `A` holds.",
                   operand="m", dtype="Mask",
                   torch="all", dtype_rule="mask", domain_rule="mask", einops=True),
    ),
    *_group(
        "Scans (the running result along one axis)",
        Builtin("cumprod", params=("x",), keywords=("over",), required=("over",), across=True,
                family="scan", torch="cumprod", dtype_rule="count", domain_rule="prod",
                one_axis=True, call="cumprod(x, over=A)",
                signature="cumprod(x: [... A] Num, over: Axis[A]) -> [... A] Num",
                doc="The running product along `A`; `Pos`, `NonNeg`, `Unit` and `Signed` "
                    "values keep their domain (a `Prob` gives `Unit`), integers and masks "
                    "give `i64`."),
    ),
    *_group(
        "Classes",
        Builtin("cross_entropy", params=("logits", "y"), keywords=("over",),
                required=("over",), across=True, family="classes",
                call="cross_entropy(logits, y, over=C)",
                signature="cross_entropy(logits: [... C] Logit over C, y: [...] Index[C], "
                          "over: Axis[C]) -> [] NonNeg",
                doc="The mean cross-entropy of `Logit over C` scores against `Index[C]` "
                    "labels: a `[] NonNeg`."),
        Builtin("topk", params=("x", "k"), keywords=("over",), required=("over",),
                across=True, family="classes", torch="topk", call="topk(x, k, over=A)",
                signature="topk(x: [... A] Num, k: int, over: Axis[A]) -> "
                          "([... k] Num, [... k] Index[A])",
                doc="`(values, indices)`: the `k` largest values over `A` and their positions "
                    "(`Index[A]`), `A` replaced by an axis of the static size `k`."),
    ),
    *_group(
        "Patterns (written bare, as einops writes them in strings)",
        _pattern("rearrange", "einops",
                 "rearrange(x, b c (gh p) (gw q) -> b (gh gw) (p q c), p=P, q=P)",
                 "rearrange(x: [...], pattern: axes -> axes, sizes…: int) -> [...]",
                 "Reorders, splits and merges axes; sizes given as keywords bind the rest."),
        _pattern("reduce", "einops", "reduce(x, b c h w -> b c, mean)",
                 "reduce(x: [...] Num, pattern: axes -> axes, "
                 "op: sum | mean | max | min | prod, sizes…: int) -> [...] Num",
                 "Reduces the axes the output lacks with `sum mean max min prod`."),
        _pattern("repeat", "einops", "repeat(k, b H n D -> b (H R) n D, R=4)",
                 "repeat(x: [...], pattern: axes -> axes, sizes…: int) -> [...]",
                 "Repeats along new or grouped axes."),
        _pattern("einsum", "einops", "einsum(a, b: b N D, N T -> b T D)",
                 "einsum(inputs…: [...] Num, pattern: axes -> axes) -> [...] Num",
                 "Contracts the axes the output lacks; inputs before `:`."),
    ),
    *_group(
        "Joining and splitting",
        Builtin("stack", params=("xs",), family="joining", torch="stack",
                call="stack((a, b))",
                signature="stack(xs: ([...], …)) -> [N ...]",
                doc="A tuple of tensors of one type stacked along a new first axis, labelled "
                    "by the tuple's length."),
        Builtin("concat", params=("xs",), keywords=("over",), required=("over",), across=True,
                family="joining", torch="cat", call="concat((a, b), over=A)",
                signature="concat(xs: ([... A], …), over: Axis[A]) -> [...]",
                doc="Tensors joined along the axis `A`, whose sizes add."),
        Builtin("split", params=("x",), keywords=("over", "sizes"), required=("over", "sizes"),
                across=True, family="joining", torch="split",
                call="split(x, over=A, sizes=(p, q))",
                signature="split(x: [... A], over: Axis[A], sizes: (int, …)) -> ([...], …)",
                doc="A tuple of pieces of `x` cut along `A`; the sizes must provably add up "
                    "to `A`'s."),
        _pattern("pack", "pack", "pack((cls, x), b * D)",
                 "pack(xs: ([l… … r…], …), pattern: names * names) -> [l… S r…]",
                 "einops' `pack`: each tensor's axes in place of `*` flattened, then all "
                 "joined there; the packed axis `S` is the sum of their products (`1 + n`)."),
        _pattern("unpack", "pack", "unpack(p, b * D -> b D, b n D)",
                 "unpack(x: [l… S r…], pattern: names * names -> part, …, sizes…) "
                 "-> ([…], …)",
                 "einops' `unpack`: a tuple, one tensor per part, each with its own axes in "
                 "place of `*` (dims, generics, keyword sizes, or one unknown the others "
                 "leave); the parts must add up to `S`."),
        Builtin("map", params=("count", "f"), family="map", call="C |> map(c => e)",
                signature="map(count: dim C, f: c => [...]) -> [C ...]",
                doc="`e` for each `c` in `0 .. C-1`, stacked along a new first axis `C`."),
    ),
    *_group(
        "Constructors (shapes in brackets, made on the program's device)",
        _constructor("zeros", "zeros[b n D]", "zeros[shape] -> [shape] f32 NonNeg",
                     "Zeros, `f32 NonNeg` unless a dtype is written (`zeros[D] bf16`)."),
        _constructor("ones", "ones[D]", "ones[shape] -> [shape] f32 Pos", "Ones, `f32 Pos`."),
        _constructor("eye", "eye[n n]", "eye[n n] -> [n n] f32 Unit",
                     "The identity matrix, `f32 Unit`."),
        _constructor("arange", "arange[n]", "arange[n] -> [n] Index[n]",
                     "`0, 1, …, n-1`: an `[n] Index[n]`."),
        _constructor("causal", "causal[n n]", "causal[n n](window: int) -> [n n] Mask",
                     "The lower-triangular `Mask` (diagonal included) of causal attention; "
                     "with `window=W`, a sliding window: each query sees itself and the "
                     "W - 1 positions before it."),
        _constructor("randn", "randn[b D]", "randn[shape] -> [shape] f32",
                     "Normal noise, `f32`, from torch's default generator "
                     "(`torch.manual_seed`)."),
        _constructor("rand", "rand[b n]", "rand[shape] -> [shape] f32 Unit",
                     "Uniform noise in [0, 1), `f32 Unit`."),
        _constructor("full", "full[n n](-1e9)", "full[shape](value: number) -> [shape]",
                     "Every value `v`, of `v`'s dtype unless one is written "
                     "(`full[n] i32(0)`)."),
    ),
    *_group(
        "Host code: output",
        Builtin("print", variadic=True, host_only=True, family="host",
                call="print(a, b, …)",
                signature="print(values…: any) -> None",
                doc="Prints host values and tensors, as Python's `print`."),
    ),
    *_group(
        "Host code: training (see [Models and training](../training.md))",
        _training("value_and_grad", "value_and_grad(f, m, args…)",
                  "value_and_grad(f: fn(m, args…) -> [] Float, m: Model, args…: any) "
                  "-> ([] Float, Grads)",
                  "`f(m, args…)` and the gradients with respect to `m`'s parameters."),
        _training("sgd", "sgd(m, lr=…, momentum=…)",
                  "sgd(m: Model, lr: float | Schedule, momentum: float = 0, "
                  "weight_decay: float = 0) -> Optimizer",
                  "Stochastic gradient descent's state for `m`."),
        _training("adamw", "adamw(m, lr=…, weight_decay=…)",
                  "adamw(m: Model, lr: float | Schedule, weight_decay: float = 0.01, "
                  "beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> Optimizer",
                  "AdamW's state for `m`; `lr` may be a schedule."),
        _training("update", "update(m, grads, opt)",
                  "update(m: Model, grads: Grads, opt: Optimizer) -> None",
                  "One optimizer step on `m`."),
        _training("clip_norm", "clip_norm(grads, max=…)",
                  "clip_norm(grads: Grads, max: float) -> Grads",
                  "The gradients scaled down to a total norm of at most `max`."),
        _training("cosine", "cosine(steps, lr=…)",
                  "cosine(steps: int, lr: float, min: float = 0) -> Schedule",
                  "A learning rate falling along a cosine to 0 over `steps` updates."),
        _training("warmup", "warmup(steps, s)",
                  "warmup(steps: int, lr: float | Schedule) -> Schedule",
                  "A linear warm-up over `steps` updates, then the schedule `s`."),
        _training("shuffle", "shuffle(data, seed=…)",
                  "shuffle(data: ([N ...], …), seed: int = none) -> ([N ...], …)",
                  "A tuple of tensors sharing their first axis, in a new order."),
        _training("batches", "batches(data, size=…)",
                  "batches(data: ([N ...], …), size: int) -> batches of ([b ...], …)",
                  "The batches of a tuple of tensors, for a `for` loop."),
        _training("report", "report(step, loss=l, acc=a)",
                  "report(step: int, values…: [] Float) -> None",
                  "Sends a record to the sinks: by default a progress line on the terminal."),
        _training("sink", "sink(\"run.jsonl\")", "sink(path: str) -> None",
                  "Adds a JSON-lines file to the sinks `report` writes to."),
        _training("save", "save(path, m, …)", "save(path: str, models…: Model) -> None",
                  "Writes one or more models to a safetensors checkpoint, with their types "
                  "and shapes."),
        _training("load", "load(path, M)", "load(path: str, M: model type) -> M",
                  "The first model of type `M` in a checkpoint, every field's shape and "
                  "dtype checked."),
    ),
)

BUILTINS_BY_NAME: dict[str, Builtin] = {b.name: b for b in BUILTINS}
FUNCTION_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.form == "call")
CONSTRUCTOR_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.form == "constructor")
HOST_ONLY_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.host_only)
ACROSS_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.across)
PATTERN_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.pattern is not None)


def family(name: Family) -> tuple[str, ...]:
    """The names of the built-ins of the family ``name``, in the table's order: what its
    shared rule and emitter are registered for.

    >>> family("scan")
    ('cumprod',)
    """
    return tuple(b.name for b in BUILTINS if b.family == name)


# Each set a phase reads, derived from the entries, so a built-in is declared once.
# Element-wise built-in → torch's spelling (``add`` → ``+``, ``maximum`` → ``maximum``).
ELEMENTWISE_OPS: dict[str, str] = {b.name: b.torch for b in BUILTINS if b.family == "elementwise"}
# Python's arithmetic operator → its built-in (``+`` → ``add``).
ARITH_OPS: dict[str, str] = {op: name for name, op in ELEMENTWISE_OPS.items()
                             if not op.isidentifier()}
REDUCTION_NAMES: frozenset[str] = frozenset(family("reduction"))
SCAN_NAMES: frozenset[str] = frozenset(family("scan"))
EINOPS_PATTERN_NAMES: frozenset[str] = frozenset(family("pattern"))
# ``reduce(x, pattern, op)``'s operations, in the table's order (as its help lists them).
EINOPS_REDUCE_OPS: tuple[str, ...] = tuple(b.name for b in BUILTINS if b.einops)
# Reductions whose value can be broadcast back as torch's ``keepdim=True`` keeps it: a
# value of the operand's kind, not a position or a mask (``codegen.keepdim``).
KEEPDIM_NAMES: frozenset[str] = frozenset(
    b.name for b in BUILTINS
    if b.family == "reduction" and b.domain_rule not in ("index", "mask"))
TRAINING_NAMES: frozenset[str] = frozenset(family("training"))


# -- the descriptions, as the documentation and the language server read them -----------

@dataclass(frozen=True, slots=True)
class BuiltinDoc:
    """A built-in's description: its name, an example call, its typed signature, what it
    does (Markdown, one line) and its group on the documentation's page. A view of its
    registry entry, which holds the text."""

    entry: Builtin

    @property
    def name(self) -> str:
        """The built-in's name."""
        return self.entry.name

    @property
    def form(self) -> str:
        """``call`` (``sum(x, over=A)``) or ``constructor`` (``zeros[b n]``,
        ``full[n](v)``: the shape in brackets)."""
        return self.entry.form

    @property
    def call(self) -> str:
        """An example call (``sum(x, over=A)``)."""
        return self.entry.call

    @property
    def signature(self) -> str:
        """The typed signature, in the prelude's notation."""
        return self.entry.signature

    @property
    def doc(self) -> str:
        """What it does, in one line of Markdown."""
        return self.entry.doc

    @property
    def group(self) -> str:
        """The heading the documentation's page shows it under."""
        return self.entry.group

    @property
    def params(self) -> tuple[str, ...]:
        """The signature's parameters, each as written (``over: Axis[A]``)."""
        signature = self.entry.signature
        open_ = signature.find("(")
        if open_ < 0:
            return ()
        out: list[str] = []
        depth, start = 0, open_ + 1
        for i in range(open_ + 1, len(signature)):
            c = signature[i]
            if c in "([":
                depth += 1
            elif c in ")]" and depth:
                depth -= 1
            elif c == ")" or (c == "," and depth == 0):
                piece = signature[start:i].strip()
                if piece:
                    out.append(piece)
                if c == ")":
                    break
                start = i + 1
        return tuple(out)


_DOCS: dict[str, BuiltinDoc] = {b.name: BuiltinDoc(b) for b in BUILTINS}


def _grouped() -> tuple[tuple[str, tuple[BuiltinDoc, ...]], ...]:
    groups: dict[str, list[BuiltinDoc]] = {}
    for d in _DOCS.values():
        groups.setdefault(d.group, []).append(d)
    return tuple((group, tuple(docs)) for group, docs in groups.items())


# (group, its built-ins' descriptions), in the documentation's order.
BUILT_IN_GROUPS: tuple[tuple[str, tuple[BuiltinDoc, ...]], ...] = _grouped()


def builtin_docs() -> tuple[BuiltinDoc, ...]:
    """Every built-in's description, in the documentation's order."""
    return tuple(_DOCS.values())


def builtin_doc(name: str) -> BuiltinDoc | None:
    """The description of the built-in ``name`` (None: not a built-in)."""
    return _DOCS.get(name)
