"""What the checker hands to code generation: types and resolutions per node.

The checker never rewrites the tree; it records, per node (keyed by ``id(node)``),
the node's type and what a name or call resolved to. Code generation reads these
records and nothing else about the checker's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shapescript.check.env import FnSig, ModelInfo, ModuleEnv
from shapescript.check.sizes import Size
from shapescript.check.types import TensorType, Type
from shapescript.diagnostics import Diagnostic
from shapescript.syntax import ast


@dataclass(frozen=True, slots=True)
class NameRes:
    """What a name refers to.

    kind: ``local`` (a parameter or local variable), ``dim`` (value: int),
    ``generic`` (a generic axis's size at this call), ``fn`` (sig), ``model``
    (info), ``pymod`` (value: the Python module path), ``ssmod`` (value: env),
    ``mode`` (``Train``).
    """

    kind: str
    value: Any = None


@dataclass(frozen=True, slots=True)
class ArgVal:
    """One argument of a resolved call, in the form code generation emits.

    kind: ``expr`` (``node``; ``wrap`` a torch dtype name to wrap a host number as a
    tensor), ``const`` (``value``: an int, a list of ints, or None), ``default``
    (``node``: the declared default expression, evaluated in the callee's module).
    """

    kind: str
    node: Any = None
    value: Any = None
    wrap: str | None = None


@dataclass(frozen=True, slots=True)
class CallRes:
    """A resolved call.

    kind ``fn``: ``sig``; ``args`` in parameter order (``ArgVal`` per parameter).
    kind ``extern``: ``sig``; ``args`` positional ``ArgVal``s, ``kwargs`` by name.
    kind ``builtin``: ``name`` and a builtin-specific ``data`` record.
    kind ``python``: a call of a Python value (args passed through as written).
    kind ``model_init``: ``Model.init(seed=…)``; ``data`` the ModelInfo.
    """

    kind: str
    sig: FnSig | None = None
    args: tuple[ArgVal, ...] = ()
    kwargs: tuple[tuple[str, ArgVal], ...] = ()
    name: str = ""
    data: Any = None


@dataclass(frozen=True, slots=True)
class BroadcastRes:
    """How to align the operands of an element-wise operation: each operand's
    permutation (or None) and index tuple inserting new axes (or None)."""

    left: Any
    right: Any


@dataclass(frozen=True, slots=True)
class IndexRes:
    """kind: ``int`` (leading axes by host ints), ``slice`` (first axis ``lo..hi``),
    ``mask``, ``gather``, ``tuple`` (a literal index into a tuple), ``python``.

    ``data``: for ``int``, whether the indices need a run-time bounds check; for
    ``slice``, ``{"lo", "hi", "check"}``; for ``tuple``, the position."""

    kind: str
    data: Any = None


@dataclass(frozen=True, slots=True)
class ConvertRes:
    """The run-time steps of a ``to``: ("div255",), ("affine", a, b), ("cast", dtype)."""

    ops: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True, slots=True)
class AssertRes:
    """An ``as``: the target type and whether run-time checks are needed."""

    target: Type
    on_python: bool
    written: str
    where: str


@dataclass(slots=True)
class FnResult:
    sig: FnSig
    # Generic axis → where its value is read in the body: (param index, axis index
    # from the front, or negative from the back, a, c): size = (shape[i] - c) / a.
    generic_sources: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    uses_generics: set[str] = field(default_factory=set)
    reaches_export: tuple[str, ...] = ()
    # Generic → the largest value the body's run-time checks let it take (`w[0..n]` on
    # an axis of 4 needs `n <= 4`): an exported program's dynamic dim is bounded so.
    max_sizes: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class CheckedModule:
    """A checked file: its environment, diagnostics and per-node records."""

    env: ModuleEnv
    source: str
    diagnostics: list[Diagnostic]
    types: dict[int, Type] = field(default_factory=dict)
    res: dict[int, Any] = field(default_factory=dict)
    fns: dict[str, FnResult] = field(default_factory=dict)
    models: dict[str, ModelInfo] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def type_of(self, node: ast.Expr) -> Type | None:
        return self.types.get(id(node))

    def tensor_of(self, node: ast.Expr) -> TensorType | None:
        t = self.types.get(id(node))
        return t if isinstance(t, TensorType) else None


def size_str(s: Size) -> str:
    return str(s)
