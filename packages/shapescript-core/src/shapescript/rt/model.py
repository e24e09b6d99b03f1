"""Models at run time: the base class of every compiled
``model``, and ``m.field = v``.

A compiled ``model Mixer:`` is a subclass of ``Model`` (a ``torch.nn.Module``) whose
parameters are its fields, under their own names, in declaration order, so torch
optimizers, ``state_dict``, ``load_state_dict`` and ``.to()`` work on it. The class
carries, from its declaration:

- ``_ss_field_specs``: one ``TensorSpec`` per field (its static type, for checks);
- ``_ss_field_inits``: one initialiser per field: ``("default",)``, ``("zeros",)``,
  ``("ones",)``, ``("normal", mean, std)`` or ``("uniform", lo, hi)``;
- ``_ss_field_docs``: the fields' doc comments.

``Mixer.init(seed=0)`` draws new weights; ``Mixer(**fields)`` builds one from tensors,
each checked as an argument is.

Only torch and the standard library are used here, so ``shapescript.rt.standalone``
can copy this module's helpers into modules that don't need ShapeScript.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .checks import make_checker
from .config import checks_mode, mode_enabled, value_checks_mode
from .device import call_device
from .errors import ShapeError
from .specs import TensorSpec, dtype_name

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Self, TypeAlias

    from .checks import ArgsChecker
    from .specs import TensorFields

    class FieldSpec(TensorFields):
        """A field's ``TensorSpec``: named, of static sizes."""

        name: str
        axes: tuple[int, ...]

    # A field's initialiser: ("default",), ("zeros",), ("ones",), ("normal", mean, std) or
    # ("uniform", lo, hi); which items there are depends on the first.
    FieldInit: TypeAlias = tuple[Any, ...]


def _field_specs(cls: type[Model]) -> tuple[FieldSpec, ...]:
    specs = cls.__dict__.get("_ss_field_specs")
    return specs if specs is not None else getattr(cls, "_ss_field_specs", ())


def _draw_field(spec: FieldSpec, init: FieldInit, generator: torch.Generator) -> torch.Tensor:
    """One field's initial value, drawn on the CPU from ``generator``."""
    shape = tuple(spec.axes)
    dtype = spec.dtype if isinstance(spec.dtype, torch.dtype) else torch.float32
    kind = init[0] if init else "default"
    if kind == "zeros" or (kind == "default" and len(shape) < 2):
        return torch.zeros(shape, dtype=dtype)
    if kind == "ones":
        return torch.ones(shape, dtype=dtype)
    if kind == "default":
        x = torch.randn(shape, generator=generator) / shape[-2] ** 0.5
    elif kind == "normal":
        mean, std = init[1], init[2]
        x = torch.randn(shape, generator=generator) * std + mean
    elif kind == "uniform":
        lo, hi = init[1], init[2]
        x = torch.rand(shape, generator=generator) * (hi - lo) + lo
    else:
        raise ValueError(f"{spec.where}: unknown initialiser {init!r}")
    return x.to(dtype)


def _wants_grad(t: torch.Tensor) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


class Model(torch.nn.Module):
    """The base class of compiled ``model`` declarations: a ``torch.nn.Module`` whose
    parameters are the model's fields, under their own names.

    >>> m = Mixer.init(seed=0)                                  # doctest: +SKIP
    >>> [n for n, _ in m.named_parameters()]                    # doctest: +SKIP
    ['w_e', 'tw1', 'norm']
    """

    _ss_field_specs: tuple[FieldSpec, ...] = ()
    _ss_field_inits: tuple[FieldInit, ...] = ()
    _ss_field_docs: dict[str, str] = {}

    def __init__(self, **fields: torch.Tensor) -> None:
        super().__init__()
        cls = type(self)
        specs = _field_specs(cls)
        names = [s.name for s in specs]
        unknown = [k for k in fields if k not in names]
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}; its fields are "
                            + ", ".join(names))
        missing = [n for n in names if n not in fields]
        if missing:
            raise TypeError(f"{cls.__name__}(…) is missing the field"
                            f"{'s' if len(missing) > 1 else ''} " + ", ".join(missing)
                            + "; every field is required")
        values = tuple(fields[n] for n in names)
        checks, vals = mode_enabled(checks_mode()), mode_enabled(value_checks_mode())
        if checks or vals:
            _model_checker(cls)(values, checks, vals)
        for n, v in zip(names, values):
            self.register_parameter(n, torch.nn.Parameter(v.detach(), requires_grad=_wants_grad(v)))

    @classmethod
    def init(cls, seed: int = 0, device: torch.device | str | None = None) -> Self:
        """A model with new weights: each field drawn, in declaration order, from one CPU
        ``torch.Generator`` seeded with ``seed``, then moved to ``device`` (default: the
        program's device, else the CPU). The same seed gives the same weights, on any run.

        Without an initialiser, a field of rank ≥ 2 is standard normal noise divided by
        the square root of its second-to-last axis, one of rank 0 or 1 zeros.
        """
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"{cls.__name__}.init: seed must be an int, not {type(seed).__name__}")
        generator = torch.Generator().manual_seed(seed)
        specs = _field_specs(cls)
        inits = tuple(cls._ss_field_inits) + (("default",),) * (len(specs) - len(cls._ss_field_inits))
        tensors = {s.name: _draw_field(s, i, generator) for s, i in zip(specs, inits)}
        device = call_device() if device is None else torch.device(device)
        if device.type != "cpu":  # type: ignore[union-attr]
            tensors = {k: v.to(device) for k, v in tensors.items()}
        return cls._ss_from_tensors(tensors)

    @classmethod
    def _ss_from_tensors(cls, tensors: dict[str, torch.Tensor]) -> Self:
        """A model holding ``tensors`` (already checked), without checks."""
        self = cls.__new__(cls)
        torch.nn.Module.__init__(self)
        for s in _field_specs(cls):
            v = tensors[s.name]
            self.register_parameter(s.name, torch.nn.Parameter(v.detach(), requires_grad=_wants_grad(v)))
        return self

    def _ss_fields(self) -> list[tuple[str, torch.nn.Parameter]]:
        """``(name, parameter)`` of each field, in declaration order."""
        params = self._parameters
        return [(s.name, params[s.name]) for s in _field_specs(type(self))]

    def __setattr__(self, name: str, value: object) -> None:
        params = self.__dict__.get("_parameters")
        if params is not None and name in params and not name.startswith("_"):
            if any(s.name == name for s in _field_specs(type(self))):
                set_field(self, name, value)
                return
        super().__setattr__(name, value)

    def extra_repr(self) -> str:
        return ", ".join(f"{s.name}: {s.written}" for s in _field_specs(type(self)))


_MODEL_CHECKERS: dict[type[Model], ArgsChecker] = {}


def _model_checker(cls: type[Model]) -> ArgsChecker:
    """The argument checker of ``cls(**fields)``: each field named ``Cls.field``."""
    entry = _MODEL_CHECKERS.get(cls)
    if entry is None:
        specs = tuple(TensorSpec(f"{cls.__name__}.{s.name}", s.where, s.written, s.axes,
                                 s.dtype, s.domain) for s in _field_specs(cls))
        entry = _MODEL_CHECKERS[cls] = make_checker(specs)
    return entry


def _shape_text(shape: Iterable[int]) -> str:
    items = [str(int(d)) for d in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def field_spec(model: Model, name: str) -> FieldSpec:
    """The ``TensorSpec`` of ``model``'s field ``name`` (``AttributeError`` if none)."""
    for s in _field_specs(type(model)):
        if s.name == name:
            return s
    raise AttributeError(f"{type(model).__name__} has no field {name!r}")


def check_field(cls_name: str, spec: FieldSpec, value: object, suffix: str = "") -> None:
    """Checks ``value`` against a field's static type: a tensor (``TypeError``), its
    shape and dtype (``ShapeError`` naming ``Cls.field``)."""
    who = f"{cls_name}.{spec.name}"
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{spec.where}: {who}: expected a tensor {spec.written}, "
                        f"got {type(value).__name__}{suffix}")
    want = tuple(spec.axes)
    if tuple(value.shape) != want:
        raise ShapeError(f"{spec.where}: {who}: expected {spec.written} = {_shape_text(want)}, "
                         f"got shape {_shape_text(value.shape)}{suffix}")
    dt = spec.dtype
    if isinstance(dt, torch.dtype) and value.dtype != dt:
        raise ShapeError(f"{spec.where}: {who}: expected dtype {dtype_name(dt)}, "
                         f"got {dtype_name(value.dtype)}{suffix}")
    if isinstance(dt, tuple) and value.dtype not in dt[1]:
        raise ShapeError(f"{spec.where}: {who}: expected dtype {dt[0]}, "
                         f"got {dtype_name(value.dtype)}{suffix}")


def set_field(model: object, name: str, value: object) -> None:
    """``m.field = v`` in host code: checks ``v`` against the field's type (shape and
    dtype, ``ShapeError`` naming ``Model.field``) and copies it into the field's
    ``nn.Parameter``, which stays the same object, so optimizers and ``state_dict`` keep
    seeing it (it moves to the field's device). Objects that aren't models get a plain
    ``setattr``."""
    if not isinstance(model, Model):
        setattr(model, name, value)
        return
    spec = field_spec(model, name)
    check_field(type(model).__name__, spec, value)
    if getattr(type(model), "_ss_sharded", False):
        model._ss_set_shard(name, value)   # fields sharded among the ranks (sharding.py)
        return
    param = model._parameters[name]
    if param is value:
        return
    with torch.no_grad():
        param.copy_(value)


__all__ = ["Model", "set_field", "field_spec", "check_field"]
