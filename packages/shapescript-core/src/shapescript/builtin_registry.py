"""The registry of built-ins: one declarative entry per operation the compiler builds in.

Every phase reads its name sets from here, so a built-in is declared once:

- the lexer (``syntax/``) reads which names are constructors (``zeros[n D]``) and which
  calls take a bare pattern (``rearrange(x, b n d -> b d)``, ``pack((a, b), b * d)``);
- the checker (``check/``) reads which names can't be declared or shadowed (E0203), the
  arity and keywords its rules check, which built-ins are host-only (E1704 in an
  exported function) and which work along the axes they are given (the serving rules);
- the checker registers one *type rule* per entry (``check.builtins.RULES``) and the
  code generator one *emitter* per entry (``codegen.builtins.EMITTERS``); a test fails if
  an entry lacks either, or its description for people (``shapescript.builtin_docs``).

The table is data only and imports nothing of the compiler, so the lowest phase can read
it and no phase imports upward. Adding a built-in: an entry here, its rule, its emitter,
its description, a test (see "How to add a built-in" in docs/architecture.md).

>>> BUILTINS_BY_NAME["cumprod"].keywords
('over',)
>>> "zeros" in CONSTRUCTOR_NAMES, "zeros" in FUNCTION_NAMES
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Builtin", "BUILTINS", "BUILTINS_BY_NAME", "FUNCTION_NAMES", "CONSTRUCTOR_NAMES",
           "HOST_ONLY_NAMES", "ACROSS_NAMES", "PATTERN_NAMES"]


@dataclass(frozen=True, slots=True)
class Builtin:
    """One built-in.

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


def _reduction(name: str, *, operand: str = "x", over_required: bool = False) -> Builtin:
    return Builtin(name, params=(operand,), keywords=("over",),
                   required=("over",) if over_required else (), across=True)


def _training(name: str) -> Builtin:
    return Builtin(name, variadic=True, host_only=True)


BUILTINS: tuple[Builtin, ...] = (
    # element-wise, broadcast by label
    Builtin("add", params=("a", "b")),
    Builtin("sub", params=("a", "b")),
    Builtin("mul", params=("a", "b")),
    Builtin("div", params=("a", "b")),
    Builtin("maximum", params=("a", "b")),
    Builtin("minimum", params=("a", "b")),
    Builtin("where", params=("mask", "a", "b")),
    Builtin("matmul", params=("a", "b")),
    # reductions
    *(_reduction(n) for n in ("sum", "mean", "max", "min", "prod", "var", "std", "logsumexp")),
    _reduction("argmax", over_required=True), _reduction("argmin", over_required=True),
    _reduction("any", operand="m"), _reduction("all", operand="m"),
    # scans: the running result along one axis
    Builtin("cumprod", params=("x",), keywords=("over",), required=("over",), across=True),
    # classes
    Builtin("cross_entropy", params=("logits", "y"), keywords=("over",), required=("over",),
            across=True),
    Builtin("topk", params=("x", "k"), keywords=("over",), required=("over",), across=True),
    # patterns: operands, then a pattern, then keyword sizes
    *(Builtin(n, variadic=True, pattern="einops")
      for n in ("rearrange", "reduce", "repeat", "einsum")),
    # joining and splitting
    Builtin("stack", params=("xs",)),
    Builtin("concat", params=("xs",), keywords=("over",), required=("over",), across=True),
    Builtin("split", params=("x",), keywords=("over", "sizes"), required=("over", "sizes"),
            across=True),
    Builtin("pack", variadic=True, pattern="pack"),
    Builtin("unpack", variadic=True, pattern="pack"),
    Builtin("map", params=("count", "f")),
    # host code
    Builtin("print", variadic=True, host_only=True),
    *(_training(n) for n in ("value_and_grad", "sgd", "adamw", "update", "clip_norm", "cosine",
                              "warmup", "shuffle", "batches", "report", "sink", "save", "load")),
    # constructors
    *(Builtin(n, form="constructor")
      for n in ("zeros", "ones", "eye", "arange", "causal", "randn", "rand", "full")),
)

BUILTINS_BY_NAME: dict[str, Builtin] = {b.name: b for b in BUILTINS}
FUNCTION_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.form == "call")
CONSTRUCTOR_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.form == "constructor")
HOST_ONLY_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.host_only)
ACROSS_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.across)
PATTERN_NAMES: frozenset[str] = frozenset(b.name for b in BUILTINS if b.pattern is not None)
