"""What a checked entry point or an ``as`` expects: one small frozen spec per parameter.

Codegen builds these once, at import, as module-level tuples (one per signature)::

    _ss_SPECS_forward = (
        TensorSpec("img", "spotter.ss:52:13", "Images u8", ("b", 1, 16, 16), "u8"),
        TensorSpec("w_e", "spotter.ss:52:31", "[P*P D]", (16, 32), "f32"),
    )

Axis specs: an ``int`` (a static size); a ``str`` (a generic, bound like ``b``);
``("lin", var, a, c, text)`` (``a*var + c``, e.g. ``16gh``); ``("expr", text, fn)`` (any
other size, ``fn(env) -> int`` evaluated once its names are bound); ``("?", name)`` (an
existential size); ``"..."`` (any number of axes, the same throughout the signature).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from shapescript.vocab import CLASS_DOMAINS as _OVER_KINDS
from shapescript.vocab import DOMAINS as _DOMAIN_KINDS
from shapescript.vocab import FLOAT_DTYPES as _FLOAT_DTYPES
from shapescript.vocab import INT_DTYPES as _INT_DTYPES
from shapescript.vocab import TORCH_DTYPE_NAMES as _TORCH_DTYPE_NAMES

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, NoReturn, TypeAlias

    # What a checked call bound: generics and ``?`` sizes (ints), ``"..."`` (a tuple of
    # ints), dtype classes (torch dtypes), ``"__device__"`` (a torch device).
    Env: TypeAlias = dict[str, Any]
    # An axis spec: a static size, a generic, ``"..."``, or a tuple (``("lin", var, a, c,
    # text)``, ``("expr", text, fn)``, ``("?", name)``).
    Axis: TypeAlias = int | str | tuple[Any, ...]
    # A normalised dtype spec: a torch dtype, a dtype class ``(name, members)``, or None.
    Dtype: TypeAlias = torch.dtype | tuple[str, tuple[torch.dtype, ...]] | None

_DTYPES: dict[str, torch.dtype] = {k: getattr(torch, v) for k, v in _TORCH_DTYPE_NAMES.items()}
_DTYPE_NAMES: dict[torch.dtype, str] = {v: k for k, v in _DTYPES.items()}
_DTYPE_CLASSES: dict[str, tuple[torch.dtype, ...]] = {
    "Float": tuple(_DTYPES[k] for k in _TORCH_DTYPE_NAMES if k in _FLOAT_DTYPES),
    "Int": tuple(_DTYPES[k] for k in _TORCH_DTYPE_NAMES if k in _INT_DTYPES),
}
FLOAT = ("Float", _DTYPE_CLASSES["Float"])
INT = ("Int", _DTYPE_CLASSES["Int"])


def dtype_name(dtype: torch.dtype) -> str:
    """ShapeScript's name of a torch dtype (``torch.float32`` → ``"f32"``)."""
    return _DTYPE_NAMES.get(dtype, str(dtype))


def _norm_dtype(dtype: object) -> Dtype:
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    if isinstance(dtype, str):
        if dtype in _DTYPES:
            return _DTYPES[dtype]
        if dtype in _DTYPE_CLASSES:
            return (dtype, _DTYPE_CLASSES[dtype])
    if (isinstance(dtype, tuple) and len(dtype) == 2 and isinstance(dtype[0], str)
            and all(isinstance(d, torch.dtype) for d in dtype[1])):
        return (dtype[0], tuple(dtype[1]))
    raise ValueError(f"not a dtype spec: {dtype!r}")


def _norm_axis(ax: object) -> Axis:
    if isinstance(ax, bool):
        raise ValueError(f"not an axis spec: {ax!r}")
    if isinstance(ax, (int, str)):
        return ax
    if isinstance(ax, tuple) and ax:
        if ax[0] == "lin" and len(ax) == 5 and isinstance(ax[2], int) and ax[2] != 0:
            return ax
        if ax[0] == "expr" and len(ax) == 3 and callable(ax[2]):
            return ax
        if ax[0] == "?" and len(ax) == 2 and isinstance(ax[1], str):
            return ax
    raise ValueError(f"not an axis spec: {ax!r}")


class _Spec:
    """A small immutable record: its fields are ``__slots__``, compared and hashed in order.

    (Not a dataclass: inlined copies may be exec'd under ``from __future__ import
    annotations`` in a namespace that isn't a module, where dataclasses can't look up
    their annotations.)
    """

    __slots__: tuple[str, ...] = ()

    def __init__(self, *args: object, **kwargs: object) -> None:
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} arguments")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated argument {k!r}")
            values[k] = v
        defaults: dict[str, object] = self._defaults  # type: ignore[attr-defined]
        for k in names:
            if k in values:
                object.__setattr__(self, k, values[k])
            elif k in defaults:
                object.__setattr__(self, k, defaults[k])
            else:
                raise TypeError(f"{type(self).__name__}: missing argument {k!r}")
        self.__post_init__()

    def __post_init__(self) -> None:
        pass

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({args})"


class DomainSpec(_Spec):
    """A domain to check when value checks are on.

    ``over``: the class axis's position among the written axes (``Logit``, ``LogProb``,
    ``Prob``); ``label``: its label, for messages; ``index``: ``Index``'s bound (an int, a
    generic's name, or ``fn(env) -> int``); ``text``: the domain as written, for messages
    (derived when omitted: ``"Prob over C"``, ``"Index[4]"``).
    """

    __slots__ = ("kind", "over", "label", "index", "text")
    _defaults: dict[str, object] = {"over": None, "label": None, "index": None, "text": None}

    def __post_init__(self: DomainFields) -> None:  # type: ignore[misc]
        if self.kind not in _DOMAIN_KINDS:
            raise ValueError(f"not a domain: {self.kind!r}")
        if self.text is None:
            text = self.kind
            if self.kind in _OVER_KINDS and self.over is not None:
                text += f" over {self.label if self.label is not None else self.over}"
            elif self.kind == "Index" and self.index is not None:
                text += f"[{self.index if not callable(self.index) else '?'}]"
            object.__setattr__(self, "text", text)


class TensorSpec(_Spec):
    """A tensor parameter (or an ``as``'s type): ``where`` is ``"file.ss:line:col"``,
    ``written`` the type as written (``"[b n D]"``), ``dtype`` a torch dtype, a name
    (``"f32"``), ``"Float"``/``"Int"`` or ``None`` (unchecked), ``domain`` a ``DomainSpec``,
    a kind name or ``None``; ``optional``: ``None`` is accepted (``= none``)."""

    __slots__ = ("name", "where", "written", "axes", "dtype", "domain", "optional")
    _defaults: dict[str, object] = {"dtype": None, "domain": None, "optional": False}

    def __post_init__(self: TensorFields) -> None:  # type: ignore[misc]
        axes = tuple(_norm_axis(a) for a in self.axes)
        if sum(1 for a in axes if a == "...") > 1:
            raise ValueError(f"{self.where}: more than one ... in {self.written}")
        object.__setattr__(self, "axes", axes)
        object.__setattr__(self, "dtype", _norm_dtype(self.dtype))
        if isinstance(self.domain, str):
            object.__setattr__(self, "domain", DomainSpec(self.domain))
        elif self.domain is not None and not isinstance(self.domain, DomainSpec):
            raise ValueError(f"not a domain spec: {self.domain!r}")


class HostSpec(_Spec):
    """A host parameter, checked with ``isinstance`` (an ``int`` passes for a ``float``; a
    ``bool`` only for a ``bool``). ``binds``: the size a ``Size[K]`` parameter binds."""

    __slots__ = ("name", "where", "pytype", "optional", "binds")
    _defaults: dict[str, object] = {"optional": False, "binds": None}


class ModelSpec(_Spec):
    """A model parameter: an instance of ``cls``, whose fields are checked as tensor
    arguments, in the order of ``cls._ss_field_specs`` (a tuple of ``TensorSpec``)."""

    __slots__ = ("name", "where", "cls", "optional")
    _defaults: dict[str, object] = {"optional": False}


def _variadic_index(axes: Sequence[Axis]) -> int | None:
    for j, ax in enumerate(axes):
        if ax == "...":
            return j
    return None


def _axis_dim(axes: Sequence[Axis], pos: int | None) -> int | None:
    """The tensor dimension of written axis ``pos`` (negative after a ``...``)."""
    if pos is None or not isinstance(pos, int):
        return pos
    vi = _variadic_index(axes)
    if pos < 0:
        pos += len(axes)
    if vi is None or pos < vi:
        return pos
    return pos - len(axes)


if TYPE_CHECKING:
    # The specs as the type checker is to see them: their fields are ``__slots__`` set
    # through ``object.__setattr__``, which it doesn't see, and read-only. Code that reads a
    # spec's fields takes these (``isinstance(spec, TensorSpec)`` narrows to
    # ``TensorFields``); a spec just built is its plain class, which the runtime's mypy
    # settings (no ``arg-type``) let pass for them.
    class DomainFields(DomainSpec):
        @property
        def kind(self) -> str: ...

        @property
        def over(self) -> int | str | None: ...

        @property
        def label(self) -> str | None: ...

        @property
        def index(self) -> int | str | Callable[[Env], int] | None: ...

        @property
        def text(self) -> str: ...

    class TensorFields(TensorSpec):
        @property
        def name(self) -> str | None: ...

        @property
        def where(self) -> str: ...

        @property
        def written(self) -> str: ...

        @property
        def axes(self) -> tuple[Axis, ...]: ...

        @property
        def dtype(self) -> Dtype: ...

        @property
        def domain(self) -> DomainFields | None: ...

        @property
        def optional(self) -> bool: ...

    class HostFields(HostSpec):
        @property
        def name(self) -> str | None: ...

        @property
        def where(self) -> str: ...

        @property
        def pytype(self) -> type | tuple[type, ...]: ...

        @property
        def optional(self) -> bool: ...

        @property
        def binds(self) -> str | None: ...

    class ModelFields(ModelSpec):
        @property
        def name(self) -> str | None: ...

        @property
        def where(self) -> str: ...

        @property
        def cls(self) -> type: ...

        @property
        def optional(self) -> bool: ...

    class DomainTensorFields(TensorFields):
        """A tensor spec with a domain: what the domain checks take."""

        @property
        def domain(self) -> DomainFields: ...

    # Any parameter's spec.
    ParamFields: TypeAlias = TensorFields | HostFields | ModelFields
