"""The checker's types: tensors whose axes carry sizes and labels, and host types.

Sizes are ``Size`` normal forms (``check.sizes``). In a function body a generic axis
``n`` is the symbol ``n``; dims are substituted by their values in sizes but kept as
symbols in labels, so ``P*P`` and ``16`` are equal sizes but different labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shapescript.check.sizes import Size

from shapescript import vocab
from shapescript.vocab import DTYPES as DTYPES, FLOAT_DTYPES, INT_DTYPES

DTYPE_CLASSES = frozenset(vocab.DTYPE_CLASSES)
TORCH_DTYPE = {k: "torch." + v for k, v in vocab.TORCH_DTYPE_NAMES.items()}


@dataclass(frozen=True, slots=True)
class Domain:
    """A value domain. ``kind`` is one of ``DOMAINS`` or ``"Int"`` (an integer
    tensor with no bound). ``over`` is the class axis's label for Logit/LogProb/Prob;
    ``index`` the bound of ``Index[C]``."""

    kind: str
    over: Size | None = None
    index: Size | None = None
    # The bound as the source writes it (`P` where `index` is 128), for messages only.
    index_label: Size | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.kind == "Index":
            return f"Index[{self.index_label if self.index_label is not None else self.index}]"
        if self.over is not None:
            return f"{self.kind} over {self.over}"
        return self.kind

    def with_values(self) -> str:
        """As written, then with the bound's value where that reads differently:
        ``Index[P] = Index[128]``."""
        shown = str(self)
        if self.kind != "Index" or self.index_label is None:
            return shown
        value = f"Index[{self.index}]"
        return shown if shown == value else f"{shown} = {value}"


def size_text(size: "Size", label: "Size | None" = None) -> str:
    """A size for a message as the source writes it (its label), then its value where
    that reads differently: ``D = 8``, ``3*H = 12``, ``n + 1``, ``4``."""
    value = str(size)
    shown = value if label is None else str(label)
    return shown if shown == value else f"{shown} = {value}"


REAL = Domain("Real")
NOBOUND = Domain("Int")
MASK = Domain("Mask")


@dataclass(frozen=True, slots=True)
class Axis:
    """One axis: its ``size`` (dims substituted) and its ``label`` (dims symbolic).

    ``variadic`` marks the ``...`` of a signature or of a ``[...]`` value; such an
    axis stands for any number of axes and has no size.
    """

    size: Size
    label: Size
    variadic: bool = False
    # The name a pattern's output wrote for this axis (`v` in `b n v -> n b v`), which
    # `over=` finds too; not part of the type.
    alias: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return "..." if self.variadic else str(self.label)

    @property
    def written(self) -> str:
        """The axis for a message: its label, then its size where that reads differently
        (``D = 8``)."""
        return "..." if self.variadic else size_text(self.size, self.label)


def label_hits(axes: tuple[Axis, ...], text: str,
               role_of: Callable[[Size], tuple[Size, bool]] | None = None) -> list[int]:
    """The positions of the axes an axis name written in ``over=`` (or the like) finds:
    the one lookup of every rule that finds an axis by name.

    A name finds the axes labelled by it; failing those, the axes whose size is the
    unknown ``?text`` of an annotation or a signature, so that ``over=s`` names the
    growing axis of ``out: [b ?s]``; failing those, the axes a pattern's output named
    so where the name labels something else in the body; failing those (with
    ``role_of``), the axes a pattern's name labels that stand for it (``over=V`` after
    ``rearrange(x, b n v -> n b v)`` on an axis ``V``).
    """
    lab = Size.var(text)
    # A computed label (`over=S/32`) is given in its normal form's text.
    hits = [i for i, ax in enumerate(axes)
            if not ax.variadic and (ax.label == lab or str(ax.label) == text)]
    if hits or text.startswith("?"):
        return hits
    want = "?" + text
    for i, ax in enumerate(axes):
        name = None if ax.variadic else ax.label.var_name
        if name is not None and (name == want or name.startswith(want + "#")):
            hits.append(i)
    if hits:
        return hits
    # The name a pattern wrote for an axis labelled otherwise (`v` for an axis `V`).
    hits = [i for i, ax in enumerate(axes) if ax.alias == text]
    if hits or role_of is None:
        return hits
    wanted = role_of(lab)[0]
    for i, ax in enumerate(axes):
        if not ax.variadic:
            role, local = role_of(ax.label)
            if local and role == wanted:
                hits.append(i)
    return hits


@dataclass(frozen=True, slots=True)
class TensorType:
    axes: tuple[Axis, ...]
    dtype: str  # a DTYPES name, or "Float"/"Int" inside a signature
    domain: Domain

    @property
    def rank(self) -> int:
        return len(self.axes)

    @property
    def has_variadic(self) -> bool:
        return any(a.variadic for a in self.axes)

    def labels(self) -> tuple[Size, ...]:
        return tuple(a.label for a in self.axes)

    def sizes(self) -> tuple[Size, ...]:
        return tuple(a.size for a in self.axes)

    def __str__(self) -> str:
        shape = "[" + " ".join(str(a) for a in self.axes) + "]"
        if (self.domain.kind, self.dtype) in (("Mask", "bool"), ("Index", "i64")):
            return f"{shape} {self.domain}"  # as written: `[n] Mask`, `[b] Index[C]`
        parts = [shape, self.dtype]
        if self.domain.kind not in ("Real", "Int") or self.domain.kind == "Real" and self.dtype not in FLOAT_DTYPES:
            parts.append(str(self.domain))
        return " ".join(parts)


def canonical(t: "Type", table: dict[Any, "Type"]) -> "Type":
    """``t``, or the tensor type ``table`` already holds that is the same in every field
    (also those ``==`` leaves out: the axes' aliases, an index's label, whether a size is
    an ``int`` or a ``Size``). A check records a type for every expression, and most are
    the few types of its signatures: sharing them keeps a large file's records small."""
    if type(t) is not TensorType:
        return t
    held = table.setdefault(t, t)
    if held is t or _same_fields(held, t):  # type: ignore[arg-type]
        return held
    return t


def _same_fields(a: TensorType, b: TensorType) -> bool:
    """Whether two equal tensor types agree in what ``==`` leaves out too."""
    da, db = a.domain, b.domain
    if type(da.index_label) is not type(db.index_label) or da.index_label != db.index_label:
        return False
    return all(x.alias == y.alias and type(x.size) is type(y.size)
               and type(x.label) is type(y.label) for x, y in zip(a.axes, b.axes))


@dataclass(frozen=True, slots=True)
class HostType:
    """``int``, ``float``, ``bool``, ``str`` or ``none``."""

    name: str
    # A host number known statically (a literal, or a dim used as a value).
    value: int | float | bool | None = None
    # Sign facts of a host number, as a domain kind ("Pos", "Unit", "Real" …).
    domain: str = "Real"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class PyType:
    """A Python value: untyped until an ``as``."""

    def __str__(self) -> str:
        return "a Python value"


@dataclass(frozen=True, slots=True)
class TupleType:
    items: tuple["Type", ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self.items) + ")"


@dataclass(frozen=True, slots=True)
class ModelType:
    """A value of a declared model (or its gradients: ``grads=True``)."""

    name: str
    module: str  # the declaring file's path
    grads: bool = False

    def __str__(self) -> str:
        return f"grads of {self.name}" if self.grads else self.name


@dataclass(frozen=True, slots=True)
class HostOnlyType:
    """Host-only values of the training world (E1704 in exported functions):
    ``optimizer``, ``schedule``, ``dataset``, ``batches``, ``sink``, ``mode``."""

    kind: str
    # For datasets and batches: the element types (tensors sharing their first axis).
    items: tuple["Type", ...] = field(default=())

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class FnRef:
    """A top-level function (``fn``/``extern fn``) used as a value or pipe stage."""

    name: str
    module: str

    def __str__(self) -> str:
        return f"fn {self.name}"


@dataclass(frozen=True, slots=True)
class ModuleRef:
    """An imported ShapeScript module or a Python module (``python=True``)."""

    name: str
    python: bool = False

    def __str__(self) -> str:
        return f"module {self.name}"


@dataclass(frozen=True, slots=True)
class NothingType:
    """What a call to a function without a return type gives."""

    def __str__(self) -> str:
        return "nothing"


@dataclass(frozen=True, slots=True)
class ErrorType:
    """The type of an expression that already failed: unifies with anything, silently."""

    def __str__(self) -> str:
        return "<error>"


Type = (TensorType | HostType | PyType | TupleType | ModelType | HostOnlyType | FnRef
        | ModuleRef | NothingType | ErrorType)

ERROR = ErrorType()
PY = PyType()
NOTHING = NothingType()
INT = HostType("int")
FLOAT = HostType("float")
BOOL = HostType("bool")
STR = HostType("str")
NONE = HostType("none")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES or dtype == "Float"


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES or dtype == "Int"
