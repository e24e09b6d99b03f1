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

import torch

from shapescript.vocab import CLASS_DOMAINS as _OVER_KINDS
from shapescript.vocab import DOMAINS as _DOMAIN_KINDS
from shapescript.vocab import FLOAT_DTYPES as _FLOAT_DTYPES
from shapescript.vocab import INT_DTYPES as _INT_DTYPES
from shapescript.vocab import TORCH_DTYPE_NAMES as _TORCH_DTYPE_NAMES

_DTYPES = {k: getattr(torch, v) for k, v in _TORCH_DTYPE_NAMES.items()}
_DTYPE_NAMES = {v: k for k, v in _DTYPES.items()}
_DTYPE_CLASSES = {
    "Float": tuple(_DTYPES[k] for k in _TORCH_DTYPE_NAMES if k in _FLOAT_DTYPES),
    "Int": tuple(_DTYPES[k] for k in _TORCH_DTYPE_NAMES if k in _INT_DTYPES),
}
FLOAT = ("Float", _DTYPE_CLASSES["Float"])
INT = ("Int", _DTYPE_CLASSES["Int"])


def dtype_name(dtype):
    """ShapeScript's name of a torch dtype (``torch.float32`` → ``"f32"``)."""
    return _DTYPE_NAMES.get(dtype, str(dtype))


def _norm_dtype(dtype):
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


def _norm_axis(ax):
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

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} arguments")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated argument {k!r}")
            values[k] = v
        defaults = self._defaults
        for k in names:
            if k in values:
                object.__setattr__(self, k, values[k])
            elif k in defaults:
                object.__setattr__(self, k, defaults[k])
            else:
                raise TypeError(f"{type(self).__name__}: missing argument {k!r}")
        self.__post_init__()

    def __post_init__(self):
        pass

    def _values(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other):
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self):
        return hash((type(self).__name__, self._values()))

    def __repr__(self):
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
    _defaults = {"over": None, "label": None, "index": None, "text": None}

    def __post_init__(self):
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
    _defaults = {"dtype": None, "domain": None, "optional": False}

    def __post_init__(self):
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
    _defaults = {"optional": False, "binds": None}


class ModelSpec(_Spec):
    """A model parameter: an instance of ``cls``, whose fields are checked as tensor
    arguments, in the order of ``cls._ss_field_specs`` (a tuple of ``TensorSpec``)."""

    __slots__ = ("name", "where", "cls", "optional")
    _defaults = {"optional": False}


def _variadic_index(axes):
    for j, ax in enumerate(axes):
        if ax == "...":
            return j
    return None


def _axis_dim(axes, pos):
    """The tensor dimension of written axis ``pos`` (negative after a ``...``)."""
    if pos is None or not isinstance(pos, int):
        return pos
    vi = _variadic_index(axes)
    if pos < 0:
        pos += len(axes)
    if vi is None or pos < vi:
        return pos
    return pos - len(axes)
