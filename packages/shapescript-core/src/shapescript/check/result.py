"""What the checker hands to code generation: types and resolutions per node.

The checker never rewrites the tree; it records, per node (dicts keyed by the node: nodes
hash by identity),
the node's type and what a name, call or index resolved to (one frozen dataclass per
kind, ``check.resolutions``), how operands broadcast, what a ``to`` or ``as`` does.
Code generation reads these records and nothing else about the checker's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shapescript.check.env import FnSig, ModelInfo, ModuleEnv, Written
from shapescript.check.sizes import Size
from shapescript.check.types import TensorType, Type
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast


@dataclass(frozen=True, slots=True)
class BroadcastRes:
    """How to align the operands of an element-wise operation: each operand's
    permutation (or None) and index tuple inserting new axes (or None)."""

    left: Any
    right: Any


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
    shape: Written = Written()  # the target as written, axis by axis (tuple: item by item)


@dataclass(frozen=True, slots=True)
class ExportSites:
    """What a function's body holds that an exported program can't (E17xx events:
    code, span, message, label), and the functions it calls. The export rules
    (``check.exports``) walk these from each exported function."""

    events: tuple[tuple[str, Span, str, str], ...] = ()
    callees: tuple[FnSig, ...] = ()


@dataclass(slots=True)
class FnResult:
    """What checking one function's body found (beside the per-node records)."""

    sig: FnSig
    # Generic axis → where its value is read in the body: (param index, axis index
    # from the front, or negative from the back, a, c): size = (shape[i] - c) / a.
    generic_sources: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    uses_generics: set[str] = field(default_factory=set)
    reaches_export: tuple[str, ...] = ()
    # Generic → the largest value the body's run-time checks let it take (`w[0..n]` on
    # an axis of 4 needs `n <= 4`): an exported program's dynamic dim is bounded so.
    max_sizes: dict[str, int] = field(default_factory=dict)
    # Generic → the one size a pattern's keyword allows it (`a=2` on an axis `p`): an
    # exported program takes it as static.
    fixed_sizes: dict[str, int] = field(default_factory=dict)
    # The sites of the export rules, and the callees (carried here, not read from the
    # checker that found them).
    exports: ExportSites = ExportSites()


@dataclass(slots=True)
class CheckedModule:
    """A checked file: its environment, diagnostics and per-node records."""

    env: ModuleEnv
    source: str
    diagnostics: list[Diagnostic]
    types: dict[ast.Node, Type] = field(default_factory=dict)
    res: dict[ast.Node, Any] = field(default_factory=dict)
    fns: dict[str, FnResult] = field(default_factory=dict)
    models: dict[str, ModelInfo] = field(default_factory=dict)
    # The tensor types recorded so far, by all their fields (``types.canonical``): the
    # check that fills the records empties it when done.
    canon: dict[Any, Type] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def type_of(self, node: ast.Expr) -> Type | None:
        return self.types.get(node)

    def tensor_of(self, node: ast.Expr) -> TensorType | None:
        t = self.types.get(node)
        return t if isinstance(t, TensorType) else None


def size_str(s: Size) -> str:
    return str(s)


@dataclass
class Program:
    """One compilation: the main file and every ``.ss`` module it imports."""

    main: CheckedModule | None
    modules: dict[str, CheckedModule] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def dependencies(self) -> tuple[str, ...]:
        main = self.main.env.path if self.main else None
        return tuple(p for p in self.modules if p != main)
