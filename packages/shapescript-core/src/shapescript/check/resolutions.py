"""What each name, call and index resolved to: the contract between checker and codegen.

The checker records one of these frozen dataclasses per node it resolves
(``CheckedModule.res``, keyed by the node); every code generator (checked modules,
tracing for export, the Hugging Face modeling file) reads them with ``match`` and
nothing else of the checker's internals. Each carries what code generation needs, so
no generator looks a name up again or re-reads the source.

Each class has a ``kind`` (a class constant, e.g. ``"dim"``): a stable label for tools
that only sort resolutions (the language server's highlighting), never a dispatch key
in the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Union

from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.env import FnSig, ModelInfo, ModuleEnv
    from shapescript.check.payloads import Payload

__all__ = [
    "LocalName", "DimName", "ConstName", "GenericName", "AxisName", "FnName", "ModelName", "PyModuleName",
    "SsModuleName", "ModeName", "PoisonedName", "FieldName", "PyAttr", "NameResolution",
    "ExprArg", "ConstArg", "DefaultArg", "ArgVal",
    "FnCall", "ExternCall", "BuiltinCall", "PythonCall", "ModelInit", "ModelNew", "CallResolution",
    "KnownIf", "IntIndex", "SliceIndex", "AxisPick", "AxesIndex", "MaskIndex", "GatherIndex",
    "TupleIndex", "PythonIndex",
    "IndexResolution", "FieldInit",
]


# -- names ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LocalName:
    """A parameter or local variable."""

    kind: ClassVar[str] = "local"


@dataclass(frozen=True, slots=True)
class DimName:
    """A dim (``D``, ``layers.D``, an imported ``D``), by its value."""

    value: int
    kind: ClassVar[str] = "dim"


@dataclass(frozen=True, slots=True)
class ConstName:
    """A const (``const eps = 1e-6``), by its value, wherever it was declared."""

    value: int | float | bool | str
    kind: ClassVar[str] = "const"


@dataclass(frozen=True, slots=True)
class GenericName:
    """A generic axis's size at this call (read from the arguments' shapes)."""

    name: str
    kind: ClassVar[str] = "generic"


@dataclass(frozen=True, slots=True)
class AxisName:
    """An axis label passed to an ``Axis[n]`` parameter: its position."""

    position: int
    kind: ClassVar[str] = "axis"


@dataclass(frozen=True, slots=True)
class FnName:
    """A function or extern named as a value or called."""

    sig: FnSig
    kind: ClassVar[str] = "fn"


@dataclass(frozen=True, slots=True)
class ModelName:
    """A model type."""

    info: ModelInfo
    kind: ClassVar[str] = "model"


@dataclass(frozen=True, slots=True)
class PyModuleName:
    """A Python module (``import python torch.nn as nn``): ``module`` is its dotted path."""

    module: str
    kind: ClassVar[str] = "pymod"

    @property
    def value(self) -> str:
        """The module's dotted path (the name tools that read any resolution use)."""
        return self.module


@dataclass(frozen=True, slots=True)
class SsModuleName:
    """A ShapeScript module imported as a name (``import layers``)."""

    env: ModuleEnv
    local: str
    kind: ClassVar[str] = "ssmod"


@dataclass(frozen=True, slots=True)
class ModeName:
    """A mode (``Train``) of ``with``."""

    name: str
    kind: ClassVar[str] = "mode"


@dataclass(frozen=True, slots=True)
class PoisonedName:
    """A name whose declaration or import failed (reported there)."""

    kind: ClassVar[str] = "poisoned"


@dataclass(frozen=True, slots=True)
class FieldName:
    """``m.field``: a model's field."""

    name: str
    kind: ClassVar[str] = "field"


@dataclass(frozen=True, slots=True)
class PyAttr:
    """An attribute of a Python value."""

    kind: ClassVar[str] = "pyattr"


NameResolution = Union[LocalName, DimName, ConstName, GenericName, AxisName, FnName, ModelName,
                       PyModuleName, SsModuleName, ModeName, PoisonedName, FieldName, PyAttr]


# -- arguments of a resolved call ---------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ExprArg:
    """An argument as written; ``wrap``: the torch dtype a host number is made a tensor of."""

    node: ast.Expr
    wrap: str | None = None
    kind: ClassVar[str] = "expr"


@dataclass(frozen=True, slots=True)
class ConstArg:
    """A value the checker computed: an int (``Size[K]``, ``Axis[n]``), a list, or None."""

    value: Any
    kind: ClassVar[str] = "const"


@dataclass(frozen=True, slots=True)
class DefaultArg:
    """A parameter's declared default, evaluated in the callee's module."""

    node: ast.Expr
    kind: ClassVar[str] = "default"


ArgVal = Union[ExprArg, ConstArg, DefaultArg]


# -- calls -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FnCall:
    """A call of a ``fn``: every argument in parameter order (defaults filled in)."""

    sig: FnSig
    args: tuple[ArgVal, ...] = ()
    kind: ClassVar[str] = "fn"


@dataclass(frozen=True, slots=True)
class ExternCall:
    """A call of an ``extern fn``: positional arguments, then keyword ones by name."""

    sig: FnSig
    args: tuple[ArgVal, ...] = ()
    kwargs: tuple[tuple[str, ArgVal], ...] = ()
    kind: ClassVar[str] = "extern"


@dataclass(frozen=True, slots=True)
class BuiltinCall:
    """A call of a built-in (``shapescript.builtin_registry``); ``data`` is what its type
    rule recorded for its emitter, one of ``check.payloads`` (axis positions, a broadcast
    plan, a pattern …)."""

    name: str
    data: Payload
    kind: ClassVar[str] = "builtin"


@dataclass(frozen=True, slots=True)
class PythonCall:
    """A call of a Python value: its arguments are passed through as written."""

    kind: ClassVar[str] = "python"


@dataclass(frozen=True, slots=True)
class ModelInit:
    """``Model.init(seed=…)``."""

    info: ModelInfo
    seed: ast.Expr | None = None
    kind: ClassVar[str] = "model_init"


@dataclass(frozen=True, slots=True)
class ModelNew:
    """``Model(field=…, …)``: a model from its fields' values."""

    info: ModelInfo
    kind: ClassVar[str] = "model_new"


CallResolution = Union[FnCall, ExternCall, BuiltinCall, PythonCall, ModelInit, ModelNew]


# -- indexing -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class KnownIf:
    """An ``if`` whose conditions are known when checking (``if tied:`` on a const): the
    branches they rule out (``len(branches)`` is the ``else``) and the one they take
    (None: none known to be taken)."""

    taken: int | None
    dead: frozenset[int]
    kind: ClassVar[str] = "known if"


@dataclass(frozen=True, slots=True)
class IntIndex:
    """Leading axes by host ints; ``check``: the bounds are checked at run time."""

    check: bool
    kind: ClassVar[str] = "int"


@dataclass(frozen=True, slots=True)
class SliceIndex:
    """``x[lo..hi]`` of the first axis; ``check``: bounds checked at run time."""

    lo: ast.Expr
    hi: ast.Expr
    check: bool
    kind: ClassVar[str] = "slice"


@dataclass(frozen=True, slots=True)
class AxisPick:
    """One indexed axis of an ``AxesIndex``: ``x[…, lo..hi, …]`` (``hi`` set) or
    ``x[…, lo, …]`` (``hi`` None, the axis removed); ``check``: bounds checked at run time."""

    axis: int
    lo: ast.Expr
    hi: ast.Expr | None
    check: bool
    kind: ClassVar[str] = "axis pick"


@dataclass(frozen=True, slots=True)
class AxesIndex:
    """``x[.., a..b]``, ``x[..., i]``, ``x[i, a..b]``, ``x[D=a..b]``: ints and slices of
    any axes, by position in the value (the other axes kept whole)."""

    picks: tuple[AxisPick, ...]
    kind: ClassVar[str] = "axes"


@dataclass(frozen=True, slots=True)
class MaskIndex:
    """``x[mask]``."""

    kind: ClassVar[str] = "mask"


@dataclass(frozen=True, slots=True)
class GatherIndex:
    """``table[ids]``: rows by a tensor of indices."""

    kind: ClassVar[str] = "gather"


@dataclass(frozen=True, slots=True)
class TupleIndex:
    """``t[k]`` of a tuple: the item's position (from the front)."""

    position: int
    kind: ClassVar[str] = "tuple"


@dataclass(frozen=True, slots=True)
class PythonIndex:
    """Indexing a Python value."""

    kind: ClassVar[str] = "python"


IndexResolution = Union[IntIndex, SliceIndex, AxesIndex, MaskIndex, GatherIndex, TupleIndex, PythonIndex]


# -- model fields' initialisers -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FieldInit:
    """A field's initialiser: ``normal(std=…, mean=…)``, ``uniform(lo, hi)``, ``zeros``
    or ``ones``, with its arguments by name."""

    name: str
    values: tuple[tuple[str, ast.Expr], ...] = ()
    kind: ClassVar[str] = "init"
