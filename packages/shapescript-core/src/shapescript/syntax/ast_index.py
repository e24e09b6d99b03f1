"""The items of an index besides expressions: ``..`` (a whole axis), ``...`` (the axes
between) and ``D=…`` (the axis labelled ``D``). Part of the syntax tree (``ast.py``
re-exports them: ``ast.WholeAxis``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapescript.source import Span
from shapescript.syntax.node import Node

if TYPE_CHECKING:
    from shapescript.syntax.ast import Expr

__all__ = ["WholeAxis", "RestAxes", "NamedIndex"]


@dataclass(frozen=True, slots=True, eq=False)
class WholeAxis(Node):
    """``..`` alone in an index: the whole axis, kept as it is (``x[.., 0..k]``)."""

    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class RestAxes(Node):
    """``...`` in an index: every axis not indexed by the others (``x[..., 0..k]``)."""

    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class NamedIndex(Node):
    """``D=lo..hi`` or ``D=i`` in an index: the axis labelled ``D``."""

    name: str
    value: Expr
    span: Span
    name_span: Span
