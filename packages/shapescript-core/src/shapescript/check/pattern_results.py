"""What checking an einops pattern gives codegen: the result (``PatternResult``) and the
facts left for run time (``RuntimeCheck``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapescript.check.sizes import Size
from shapescript.check.types import TensorType

__all__ = ["PatternResult", "RuntimeCheck"]


@dataclass(frozen=True, slots=True)
class RuntimeCheck:
    """A fact the checker could not decide: ``inputs[input].shape[axis]`` (the checker's
    ``num``) is a multiple of ``den`` (the runtime's ``helper`` ``divides``), or is ``den``
    (``has_size``: a keyword size for an axis the types leave open), else a
    ``ShapeError(text)``. ``axis`` counts from the end (negative) after a ``...``."""

    input: int
    axis: int
    num: Size
    den: Size
    text: str
    helper: str = "divides"


@dataclass(frozen=True, slots=True)
class PatternResult:
    """The checked pattern.

    ``out``: the result type (axes with sizes and labels, dtype, domain).
    ``einops_pattern``: the string for einops, with generated names for literals.
    ``einops_kwargs``: name → size for every dim, keyword size and generated literal in
    the pattern, and every generic einops can't infer (in a group, or only on the
    output side of ``repeat``); empty for ``einsum``, which takes none.
    ``runtime_checks``: undecidable divisibilities codegen checks before the call.
    ``reduced``: labels of the input axes a ``reduce`` or ``einsum`` sums away.
    ``locals``: the output's local roles, name → (size, the label of what it matched).
    ``warnings``: ``(message, help)`` of names that differ from a dim only by case.
    ``splits``/``merges``: the labels of the members of each group the input splits or
    the output merges, in order.
    """

    out: TensorType
    einops_pattern: str
    einops_kwargs: dict[str, Size] = field(default_factory=dict)
    runtime_checks: tuple[RuntimeCheck, ...] = ()
    reduced: tuple[Size, ...] = ()
    locals: dict[str, tuple[Size, Size]] = field(default_factory=dict)
    warnings: tuple[tuple[str, str], ...] = ()
    splits: tuple[tuple[Size, ...], ...] = ()
    merges: tuple[tuple[Size, ...], ...] = ()
