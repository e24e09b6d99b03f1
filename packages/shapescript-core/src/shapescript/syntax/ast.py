"""The ShapeScript syntax tree: frozen dataclasses, each a ``Node`` (identity: the
checker's records are keyed by it) with a span. The parser builds these; the checker reads
them; nothing mutates them. Pipes are desugared by the parser (``x |> f(a)`` is
``Call(f, (x, a))`` with ``piped=True``), so later phases see one form of call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from shapescript.source import Span
from shapescript.syntax.node import Node
from shapescript.syntax.ast_index import NamedIndex, RestAxes, WholeAxis  # noqa: F401 - part of the tree

# ---------------------------------------------------------------------------
# Size expressions (inside ``[...]`` types, dim right-hand sides, constructor
# brackets, patterns' keyword sizes after conversion by the checker).


@dataclass(frozen=True, slots=True, eq=False)
class SizeInt(Node):
    value: int
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class SizeName(Node):
    """A dim, a generic axis, or ``module.D`` (``module`` set)."""

    name: str
    span: Span
    module: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class SizeUnknown(Node):
    """``?k``: an existential, data-dependent size."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class SizeEllipsis(Node):
    """``...``: any number of other axes."""

    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class SizeBin(Node):
    """``a + b``, ``a - b``, ``a * b``, ``a / b`` (floor)."""

    op: str
    left: SizeExpr
    right: SizeExpr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class SizeProd(Node):
    """A juxtaposed product: ``(gh gw)`` or the number-name ``16gh``."""

    items: tuple[SizeExpr, ...]
    span: Span


SizeExpr = Union[SizeInt, SizeName, SizeUnknown, SizeEllipsis, SizeBin, SizeProd]

# ---------------------------------------------------------------------------
# Type expressions.


@dataclass(frozen=True, slots=True, eq=False)
class DomainExpr(Node):
    """``Real``, ``Logit over C``, ``Index[C]``, ``Mask`` …"""

    name: str
    span: Span
    index: SizeExpr | None = None  # Index[C]
    over: str | None = None  # Logit over C


@dataclass(frozen=True, slots=True, eq=False)
class TensorTypeExpr(Node):
    """``[b n D] f32 Real``; ``Images u8`` (alias set); ``Real`` (no shape: ``[...]``)."""

    shape: tuple[SizeExpr, ...] | None
    span: Span
    alias: str | None = None  # possibly dotted: "layers.Feats"
    dtype: str | None = None  # "f32", "Float", "Int" …
    domain: DomainExpr | None = None


@dataclass(frozen=True, slots=True, eq=False)
class NamedTypeExpr(Node):
    """A bare name in a type position: a shape alias or a model (possibly dotted)."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ScalarTypeExpr(Node):
    """``int``, ``float``, ``bool``, ``str``."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class SpecialTypeExpr(Node):
    """``Size[K]``, ``Axis[n]``, ``Axes[n]`` (extern fn parameters only)."""

    kind: str  # "Size" | "Axis" | "Axes"
    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class TupleTypeExpr(Node):
    items: tuple[TypeExpr, ...]
    span: Span


TypeExpr = Union[TensorTypeExpr, NamedTypeExpr, ScalarTypeExpr, SpecialTypeExpr, TupleTypeExpr]

# ---------------------------------------------------------------------------
# Patterns (bare einops patterns in rearrange / reduce / repeat / einsum).


@dataclass(frozen=True, slots=True, eq=False)
class PatName(Node):
    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class PatInt(Node):
    value: int
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class PatEllipsis(Node):
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class PatGroup(Node):
    items: tuple[PatTerm, ...]
    span: Span


PatTerm = Union[PatName, PatInt, PatEllipsis, PatGroup]


@dataclass(frozen=True, slots=True, eq=False)
class Pattern(Node):
    """``lhs -> rhs``; einsum patterns have several comma-separated inputs."""

    inputs: tuple[tuple[PatTerm, ...], ...]
    output: tuple[PatTerm, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class PatStar(Node):
    """The ``*`` of a ``pack``/``unpack`` pattern: the packed axis."""

    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class PackPattern(Node):
    """``b * d`` (``pack``), or ``b * d -> b d, b n d`` (``unpack``: one pattern for each
    part, in ``parts``). ``axes`` holds names and one ``PatStar``."""

    axes: tuple[PatName | PatStar, ...]
    parts: tuple[tuple[PatName, ...], ...]
    span: Span


# ---------------------------------------------------------------------------
# Expressions.


@dataclass(frozen=True, slots=True, eq=False)
class Num(Node):
    value: int | float
    text: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class NumName(Node):
    """A number-name such as ``16gh`` met in an expression (E0104 outside a size)."""

    value: int
    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Str(Node):
    value: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Bool(Node):
    value: bool
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class NoneLit(Node):
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Name(Node):
    id: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Placeholder(Node):
    """The pipe placeholder ``_``; the parser replaces it when desugaring a pipe."""

    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Attr(Node):
    """``value.attr``: a model field, a module member, a Python attribute."""

    value: Expr
    attr: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Arg(Node):
    """A call argument; ``name`` is set for keyword arguments."""

    value: Expr
    span: Span
    name: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Call(Node):
    """``func(args…)``.

    ``pattern`` is the bare einops pattern of rearrange/reduce/repeat/einsum (not
    among ``args``); ``pattern_pos`` is the number of positional args before it.
    ``piped`` marks a call made from a pipe stage (the piped value is in ``args``).
    """

    func: Expr
    args: tuple[Arg, ...]
    span: Span
    pattern: Pattern | PackPattern | None = None
    pattern_pos: int = 0
    piped: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class Constructor(Node):
    """``causal[n n]``, ``zeros[b n D] bf16``, ``full[n n](-1e9)``,
    ``causal[n n](window=W)`` (a value given by name: ``keyword`` is ``window``)."""

    name: str
    shape: tuple[SizeExpr, ...]
    span: Span
    dtype: str | None = None
    fill: Expr | None = None
    keyword: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Range(Node):
    """``lo .. hi`` (in ``for`` and slices)."""

    lo: Expr
    hi: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Index(Node):
    """``value[i]``, ``value[i, j]``, ``value[a..b]``, ``value[mask]``, ``table[ids]``,
    ``value[.., a..b]``, ``value[..., i]``, ``value[D=a..b]``."""

    value: Expr
    indices: tuple["Expr | IndexItem", ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class BinOp(Node):
    """Arithmetic ``+ - * / // % ** @``."""

    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Compare(Node):
    """``== != < <= > >=`` (they do not chain)."""

    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class BoolOp(Node):
    """``and`` / ``or``."""

    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class UnaryOp(Node):
    """``-x`` or ``not x``."""

    op: str
    operand: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Convert(Node):
    """``value to T`` (a dtype, a domain, or both)."""

    value: Expr
    target: TensorTypeExpr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class AssertType(Node):
    """``value as T``."""

    value: Expr
    type: TypeExpr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Lambda(Node):
    """``c => body`` (only as ``map``'s argument)."""

    params: tuple[str, ...]
    body: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class TupleExpr(Node):
    items: tuple[Expr, ...]
    span: Span


Expr = Union[
    Num, NumName, Str, Bool, NoneLit, Name, Placeholder, Attr, Call, Constructor, Range,
    Index, BinOp, Compare, BoolOp, UnaryOp, Convert, AssertType, Lambda, TupleExpr,
]
# What an index may hold besides an expression.
IndexItem = Union[WholeAxis, RestAxes, NamedIndex]

# ---------------------------------------------------------------------------
# Statements.


@dataclass(frozen=True, slots=True, eq=False)
class Assign(Node):
    """``x = e``, ``a, b = e``, ``x: T = e``, ``m.field = e``.

    ``targets`` holds ``Name`` or ``Attr`` nodes; more than one means destructuring.
    """

    targets: tuple[Expr, ...]
    value: Expr
    span: Span
    annotation: TypeExpr | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Return(Node):
    value: Expr | None
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class IfBranch(Node):
    cond: Expr
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class If(Node):
    """``if``/``elif`` branches in order, then an optional ``else`` body."""

    branches: tuple[IfBranch, ...]
    orelse: tuple[Stmt, ...] | None
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class For(Node):
    """``for i in a..b``, ``for v in pyvalue``, ``for xb, yb in batches(…)``."""

    targets: tuple[str, ...]
    iter: Expr
    body: tuple[Stmt, ...]
    span: Span
    target_spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class With(Node):
    """``with Train:``."""

    mode: str
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ExprStmt(Node):
    expr: Expr
    span: Span


Stmt = Union[Assign, Return, If, For, With, ExprStmt]

# ---------------------------------------------------------------------------
# Declarations.


@dataclass(frozen=True, slots=True, eq=False)
class Devices(Node):
    device: str  # "cpu", "cuda", "cuda[0]", "mps"
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ImportPython(Node):
    module: str  # dotted
    span: Span
    alias: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Import(Node):
    """``import layers [as l]`` of a ShapeScript module."""

    module: str
    span: Span
    alias: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ImportName(Node):
    name: str
    span: Span
    alias: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class FromImport(Node):
    module: str
    names: tuple[ImportName, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class DimDecl(Node):
    """``dim D = 32`` (``size`` set) or ``dim Images = [b 1 S S]`` (``shape`` set);
    ``dim Dout ~ D`` (``new_role``): ``D``'s size, a role of its own."""

    name: str
    span: Span
    name_span: Span
    size: SizeExpr | None = None
    shape: TensorTypeExpr | None = None
    doc: str | None = None
    new_role: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class ConstDecl(Node):
    """``const eps = 1e-6``: a named host number (or bool, or string), not a size."""

    name: str
    value: Expr
    span: Span
    name_span: Span
    doc: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Param(Node):
    name: str
    span: Span
    type: TypeExpr | None = None
    default: Expr | None = None


@dataclass(frozen=True, slots=True, eq=False)
class FnDecl(Node):
    """``fn``/``export fn``; ``body`` is a statement block or, for ``= expr``, an Expr."""

    name: str
    params: tuple[Param, ...]
    ret: TypeExpr | None
    body: tuple[Stmt, ...] | Expr
    span: Span
    name_span: Span
    export: bool = False
    doc: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ExternDecl(Node):
    """``extern fn name(params) -> T = "module.func"``, optionally ``with a or b``: a call
    gives at least one of the optional parameters ``one_of``, not ``none``."""

    name: str
    params: tuple[Param, ...]
    ret: TypeExpr | None
    target: str
    span: Span
    name_span: Span
    doc: str | None = None
    one_of: tuple[tuple[str, Span], ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class ParamField(Node):
    """``param name: T = init`` inside a model."""

    name: str
    type: TypeExpr
    span: Span
    init: Expr | None = None
    doc: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ModelDecl(Node):
    name: str
    fields: tuple[ParamField, ...]
    span: Span
    name_span: Span
    doc: str | None = None


Decl = Union[Devices, ImportPython, Import, FromImport, DimDecl, ConstDecl, FnDecl, ExternDecl,
             ModelDecl]


@dataclass(frozen=True, slots=True, eq=False)
class DroppedDecl(Node):
    """A top-level declaration the parser could not keep: it has a syntax error
    (reported, or following from a lexical error that is), is nested too deeply
    (E0107), or broke the parser (E0000). What the parser's recovery skipped.

    ``names`` are what its head declares, read from its first tokens (``fn f``, ``dim D``,
    ``const c``, ``model M``, ``extern fn f``, ``import m``, ``import python a.b as c``:
    ``f``, ``D``, ``c``, ``M``, ``f``, ``m``, ``c``), and those of any declaration head its
    tokens swallowed (a line starting in column 1 that a broken line before it didn't let
    begin a declaration of its own). The checker treats the uses of these names as silent
    errors, not as unknown names: the syntax error already explains them.
    """

    span: Span  # from the declaration's first token to its last
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Module(Node):
    decls: tuple[Decl, ...]
    path: str
    doc: str | None = None
    # Spans of every ``##`` block, for the editor; not needed by the checker.
    doc_spans: tuple[Span, ...] = field(default=())
    # The top-level declarations the parser dropped, in source order.
    dropped: tuple[DroppedDecl, ...] = field(default=())
