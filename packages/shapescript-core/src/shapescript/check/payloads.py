"""What a built-in's type rule hands its emitter: the ``data`` of its ``BuiltinCall``.

One frozen class per family (``shapescript.builtin_registry``), or per member where a
family's members need different things (``concat``'s axis, ``split``'s sizes): the rule
(``check.builtins``, ``check.packing``, ``check.training``) builds one, the emitter
(``codegen.builtins``) and the passes that read a call (``codegen.keepdim``, the serving
rules, torch's views of a pattern) ``match`` on it, so a field a rule forgets or
misspells is an error where it is built, not a ``KeyError`` at a user's build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.broadcast import Plan
    from shapescript.check.env import FnSig, ModelInfo
    from shapescript.check.patterns import RuntimeCheck
    from shapescript.check.result import BroadcastRes
    from shapescript.check.sizes import Size

__all__ = [
    "Elementwise", "Contraction", "Select", "Reduction", "Scan", "ClassLoss", "TopK",
    "Pattern", "Stacked", "Concat", "Split", "Pack", "Unpack", "MapOver", "HostCall",
    "GradCall", "LoadModel", "Payload",
]


@dataclass(frozen=True, slots=True)
class Elementwise:
    """``add sub mul div maximum minimum``: torch's operator or function (the entry's
    ``torch``) and how the operands broadcast (None: already aligned, or host numbers)."""

    op: str
    plan: BroadcastRes | None


@dataclass(frozen=True, slots=True)
class Contraction:
    """``matmul``: how the operands' leading axes broadcast."""

    plan: BroadcastRes | None


@dataclass(frozen=True, slots=True)
class Select:
    """``where``: the plan aligning the mask, then each value, to the result."""

    plans: tuple[Plan, Plan, Plan]


@dataclass(frozen=True, slots=True)
class Reduction:
    """A reduction: the reduced positions (None: every axis)."""

    dims: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class Scan:
    """A scan (``cumprod``): the position of the axis it runs along."""

    dim: int


@dataclass(frozen=True, slots=True)
class ClassLoss:
    """``cross_entropy``: the class axis's position in the logits, and the permutation
    putting the labels' axes in the logits' order (None: they are)."""

    dim: int
    yperm: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class TopK:
    """``topk``: how many, along which position; ``check``, whether the axis can be
    shorter than ``k`` at run time (a generic), then a ``ShapeError`` naming ``label``."""

    k: int
    dim: int
    check: bool
    label: str


@dataclass(frozen=True, slots=True)
class Pattern:
    """``rearrange reduce repeat einsum``: einops' pattern and keyword sizes, the
    divisibilities to check before the call, ``reduce``'s operation, and whether the
    operand is a tuple to stack first."""

    pattern: str
    kwargs: tuple[tuple[str, Size | int], ...]
    checks: tuple[RuntimeCheck, ...]
    op: str | None
    stacked: bool


@dataclass(frozen=True, slots=True)
class Stacked:
    """``stack``: a tuple stacked along a new first axis; nothing more to say."""


@dataclass(frozen=True, slots=True)
class Concat:
    """``concat``: the position of the axis joined along."""

    dim: int


@dataclass(frozen=True, slots=True)
class Split:
    """``split``: the position of the axis cut, and each piece's size."""

    dim: int
    sizes: tuple[Size, ...]


@dataclass(frozen=True, slots=True)
class Pack:
    """``pack``: how many axes stand left and right of ``*``."""

    left: int
    right: int


@dataclass(frozen=True, slots=True)
class Unpack:
    """``unpack``: the axes left and right of ``*``, and each part's sizes in its place
    (None: the one the others leave, solved at run time)."""

    left: int
    right: int
    shapes: tuple[tuple[Size | None, ...], ...]


@dataclass(frozen=True, slots=True)
class MapOver:
    """``C |> map(c => e)``: the count, the lambda's parameter and body."""

    count: Size
    param: str
    body: ast.Expr


@dataclass(frozen=True, slots=True)
class HostCall:
    """A host-only built-in (``print``, ``sgd`` …): its arguments as written."""


@dataclass(frozen=True, slots=True)
class GradCall:
    """``value_and_grad(f, m, args…)``: ``f``'s signature and the call ``f(m, args…)``
    the checker proved."""

    sig: FnSig
    call: ast.Call


@dataclass(frozen=True, slots=True)
class LoadModel:
    """``load(path, M)``: the model type read."""

    model: ModelInfo


Payload = Union[Elementwise, Contraction, Select, Reduction, Scan, ClassLoss, TopK, Pattern,
                Stacked, Concat, Split, Pack, Unpack, MapOver, HostCall, GradCall, LoadModel]
