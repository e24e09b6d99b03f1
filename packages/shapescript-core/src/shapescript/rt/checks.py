"""The run-time checks of checked entry points and of ``as``.

Generated code calls, once per call from Python::

    env = _ss_rt.check_args(_ss_SPECS_f, (x, w), checks_on, values_on)

(or, a little faster, ``_ss_check_f = _ss_rt.make_checker(_ss_SPECS_f)`` at import and
``env = _ss_check_f((x, w), checks_on, values_on)`` per call). ``env`` maps each generic
(``"b"``), existential (``"?k"``), ``"..."`` (a tuple) and dtype class (``"Float"``) to
what the call bound, and ``"__device__"`` to the call's device.

Two paths. ``make_checker`` generates one Python function per signature that tests
everything with no string formatting (``checkgen``); when any test fails it hands over to
the slow path here, which checks again in the specified order (arguments in order; for
each: that it is a tensor, rank, sizes, dtype, device, domain) and raises the first
failure with its exact message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .checkgen import gen_args_checker, gen_as_checker
from .device import _EFFECTIVE, parse_device
from .domains import _UNCHECKED_DOMAINS, domain_problem
from .errors import DeviceError, DomainError, ShapeError
from .specs import (HostSpec, ModelSpec, TensorSpec, _axis_dim,
                    _variadic_index, dtype_name)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, NoReturn, TypeAlias, TypeVar

    from torch import Tensor

    from .specs import Axis, DomainTensorFields, Env, HostFields, ModelFields, ParamFields, TensorFields

    V = TypeVar("V")
    # A ``device=``: ``PROCESS_DEVICE``, a device or its name, or None (the tensors share one).
    DeviceArg: TypeAlias = "_ProcessDevice | torch.device | str | None"
    # A call's specs, one per parameter (None: unchecked).
    Specs: TypeAlias = Sequence[ParamFields | None]
    Shape: TypeAlias = tuple[int, ...]
    # A check that waits for every binding, ``(spec, x, name, pfx, j, shape)``: a size
    # expression's (``j`` its axis), or a domain's (``name``, ``j``, ``shape`` None).
    Deferred: TypeAlias = tuple[TensorFields, Tensor, str | None, str, int | None, Shape | None]
    # A generated checker: ``check(args, checks_on=True, values_on=True, device=PROCESS_DEVICE)
    # -> env``.
    ArgsChecker: TypeAlias = Callable[..., Env]
    # A generated ``as`` checker: ``check(value, env=None, checks_on=True, values_on=True)
    # -> value``.
    AsChecker: TypeAlias = Callable[..., Any]
    # ``same_unknowns``'s groups: ``(name, ((element, axis), …))``.
    Groups: TypeAlias = Iterable[tuple[str, Sequence[tuple[int, int]]]]


class _ProcessDevice:
    """The default ``device=``: the process-wide device in force (``current_device()``)."""

    def __repr__(self) -> str:
        return "PROCESS_DEVICE"


PROCESS_DEVICE = _ProcessDevice()


class _Lenient(Exception):
    """Raised in place of a shape, dtype or device error when those checks are off."""


class _Fail(Exception):
    """Raised by a generated checker's failed test; caught in the same checker."""


def _arg_type_error(message: str) -> TypeError:
    """A ``TypeError`` of a check (a generated checker re-raises these from its frame)."""
    err = TypeError(message)
    err._ss_check = True  # type: ignore[attr-defined]
    return err


def _verdict(fn: Callable[..., object], *args: object) -> tuple[bool, object]:
    """``(True, fn(*args))``, or ``(False, error)`` for a check's failure, with the
    traceback dropped: the generated checker raises it from its own frame."""
    try:
        return True, fn(*args)
    except (ShapeError, DeviceError, DomainError, TypeError) as err:
        if isinstance(err, TypeError) and not getattr(err, "_ss_check", False):
            raise
        return False, err.with_traceback(None)


class _CheckRun:
    """The state of one slow check: what is bound so far, and by which argument."""

    __slots__ = ("checks", "values", "env", "binder", "declared", "device", "first",
                 "deferred", "as_mode")

    def __init__(self, checks: bool, values: bool, declared: torch.device | None, env: Env | None
                 = None, as_mode: bool = False) -> None:
        self.checks, self.values, self.as_mode = checks, values, as_mode
        self.env = dict(env) if env else {}
        self.binder: dict[str, str | None] = {}
        self.declared = declared
        self.device, self.first = declared, None
        self.deferred: list[Deferred] = []

    def fail(self, exc: Exception) -> NoReturn:
        if self.checks:
            raise exc
        raise _Lenient()


def _resolve_device(device: DeviceArg) -> torch.device | None:
    if device is PROCESS_DEVICE:
        return _EFFECTIVE[0]
    if device is None or isinstance(device, torch.device):
        return device
    return parse_device(device)


def _fmt_tuple(items: Iterable[object]) -> str:
    items = [str(i) for i in items]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _env_key(ax: Axis, as_mode: bool) -> str | None:
    """The env key a bare axis binds: generics by name, ``?k`` as ``"?k"``."""
    if ax == "...":
        return "..."
    if isinstance(ax, str):
        return ax
    if isinstance(ax, tuple) and ax[0] == "?":
        return "?" + ax[1]
    return None


def _expected_items(axes: Sequence[Axis], env: Env, as_mode: bool) -> str:
    """Each axis's size if ``env`` knows it, else as written."""
    out: list[object] = []
    for ax in axes:
        if isinstance(ax, int):
            out.append(ax)
        elif ax == "...":
            out.extend(env["..."] if "..." in env else ["..."])
        elif isinstance(ax, str):
            out.append(env.get(ax, ax))
        elif ax[0] == "?":
            key = "?" + ax[1]
            out.append(env[key] if (key in env and not as_mode) else key)
        elif ax[0] == "lin":
            _, var, a, c, text = ax
            out.append(a * env[var] + c if var in env else text)
        else:
            try:
                out.append(int(ax[2](env)))
            except Exception:
                out.append(ax[1])
    return _fmt_tuple(out)


def _prefix(name: str | None, run: _CheckRun) -> str:
    return "" if run.as_mode or not name else f"{name}: "


def _check_tensor_slow(run: _CheckRun, spec: TensorFields, x: object, name: str | None) -> None:
    """Checks one tensor against ``spec`` in the specified order, binding into ``run``."""
    if x is None and spec.optional:
        return
    pfx = _prefix(name, run)
    if not isinstance(x, torch.Tensor):
        if run.checks:
            raise _arg_type_error(f"{spec.where}: {pfx}expected a tensor {spec.written}, "
                                  f"got {type(x).__name__}")
        return
    shape = tuple(int(d) for d in x.shape)
    try:
        _check_shape_slow(run, spec, x, shape, name, pfx)
        if run.checks:
            _check_dtype_slow(run, spec, x, name, pfx)
            _check_device_slow(run, spec, x, name)
    except _Lenient:
        pass
    if run.values and spec.domain is not None and spec.domain.kind not in _UNCHECKED_DOMAINS:
        _check_domain_slow(run, spec, x, pfx)


def _check_shape_slow(run: _CheckRun, spec: TensorFields, x: Tensor, shape: Shape, name: str | None, pfx: str) -> None:
    axes, env, as_mode = spec.axes, run.env, run.as_mode
    pre = dict(env)

    def shape_error(suffix: str = "") -> ShapeError:
        return ShapeError(f"{spec.where}: {pfx}expected {spec.written} = "
                          f"{_expected_items(axes, pre, as_mode)}, got shape "
                          f"{_fmt_tuple(shape)}{suffix}")

    vi = _variadic_index(axes)
    rank_ok = len(shape) == len(axes) if vi is None else len(shape) >= len(axes) - 1
    if not rank_ok:
        run.fail(shape_error())
    tail = 0 if vi is None else len(axes) - 1 - vi
    sizes = [shape[_axis_dim(axes, j)] if ax != "..." else None for j, ax in enumerate(axes)]  # type: ignore[index]
    fresh = set()                  # ``?`` names an ``as`` binds anew
    # 1. bare generics, ``?`` sizes and ``...``
    for j, ax in enumerate(axes):
        key = _env_key(ax, as_mode)
        if key is None:
            continue
        val = shape[vi:len(shape) - tail] if key == "..." else sizes[j]
        if as_mode and key.startswith("?") and key not in fresh:
            env[key] = val
            fresh.add(key)
            continue
        if key in env:
            if env[key] != val:
                other = run.binder.get(key)
                if other is not None and other != name and not as_mode:
                    shown = _fmt_tuple(env[key]) if key == "..." else env[key]
                    now = _fmt_tuple(val) if key == "..." else val
                    run.fail(ShapeError(f"{spec.where}: {key} is {shown} in {other} "
                                        f"but {now} in {name}"))
                run.fail(shape_error())
        else:
            env[key] = val
            run.binder[key] = name
    # 2. linear forms solve the generics still unbound
    for j, ax in enumerate(axes):
        if isinstance(ax, tuple) and ax[0] == "lin" and ax[1] not in env:
            _, var, a, c, text = ax
            q, r = divmod(sizes[j] - c, a)
            if r:
                what = (f"{sizes[j]}" if c == 0 else
                        f"{sizes[j]} - {c}" if c > 0 else f"{sizes[j]} + {-c}")
                run.fail(shape_error(f": {what} is not a multiple of {abs(a)}"))
            if q < 0:
                run.fail(shape_error(f": {var} would be {q}"))
            env[var] = q
            run.binder[var] = name
    # 3. every axis compared
    for j, ax in enumerate(axes):
        if isinstance(ax, int):
            if sizes[j] != ax:
                run.fail(shape_error())
        elif isinstance(ax, tuple) and ax[0] == "lin":
            if sizes[j] != ax[2] * env[ax[1]] + ax[3]:
                run.fail(shape_error())
        elif isinstance(ax, tuple) and ax[0] == "expr":
            try:
                want = int(ax[2](env))
            except Exception:
                run.deferred.append((spec, x, name, pfx, j, shape))
                continue
            if sizes[j] != want:
                run.fail(shape_error())


def _check_dtype_slow(run: _CheckRun, spec: TensorFields, x: Tensor, name: str | None, pfx: str) -> None:
    want = spec.dtype
    if want is None:
        return
    if isinstance(want, torch.dtype):
        if x.dtype is not want:
            run.fail(ShapeError(f"{spec.where}: {pfx}expected dtype {dtype_name(want)}, "
                                f"got {x.dtype}"))
        return
    cls, members = want
    if x.dtype not in members:
        run.fail(ShapeError(f"{spec.where}: {pfx}expected dtype {cls}, got {x.dtype}"))
    bound = run.env.get(cls)
    if bound is None:
        run.env[cls] = x.dtype
        run.binder[cls] = name
    elif bound is not x.dtype:
        other = run.binder.get(cls)
        if other is not None and other != name and not run.as_mode:
            run.fail(ShapeError(f"{spec.where}: {cls} is {dtype_name(bound)} in {other} "
                                f"but {dtype_name(x.dtype)} in {name}"))
        run.fail(ShapeError(f"{spec.where}: {pfx}expected dtype {cls} = "
                            f"{dtype_name(bound)}, got {x.dtype}"))


def _same_device(have: torch.device, want: torch.device) -> bool:
    return have == want or (want.index is None and have.type == want.type)


def _check_device_slow(run: _CheckRun, spec: TensorFields, x: Tensor, name: str | None) -> None:
    have = x.device
    if run.declared is not None:
        if not _same_device(have, run.declared):
            who = name or spec.written
            run.fail(DeviceError(f"{spec.where}: {who} is on {have}, expected {run.declared}"))
    elif run.device is None:
        run.device, run.first = have, name  # type: ignore[assignment]
    elif have != run.device:
        run.fail(DeviceError(f"{spec.where}: {name} is on {have} but {run.first} is on "
                             f"{run.device}"))


def _domain_args(spec: DomainTensorFields, env: Env) -> tuple[int | None, int | None]:
    """``(over_dim, bound)`` for ``spec``'s domain; ``KeyError`` while unresolvable."""
    dom = spec.domain
    over = dom.over
    if isinstance(over, str):
        over = env[over]
    bound = dom.index
    if isinstance(bound, str):
        bound = env[bound]
    elif callable(bound):
        bound = int(bound(env))
    return _axis_dim(spec.axes, over), bound


def _check_domain_slow(run: _CheckRun, spec: DomainTensorFields, x: Tensor, pfx: str, deferred: bool = False) -> None:
    try:
        over_dim, bound = _domain_args(spec, run.env)
    except (KeyError, NameError):
        if not deferred:
            run.deferred.append((spec, x, None, pfx, None, None))
        return
    if over_dim is not None and not (-x.dim() <= over_dim < x.dim()):
        return                     # only when shape checks are off and the rank is wrong
    problem = domain_problem(x, spec.domain, over_dim, bound)
    if problem is not None:
        raise DomainError(f"{spec.where}: {pfx}expected {spec.domain.text}, got {problem}")


def _finish_slow(run: _CheckRun) -> None:
    """The checks that waited for every binding: size expressions, domains' bounds."""
    for spec, x, name, pfx, j, shape in run.deferred:
        if j is None:
            if run.values:
                _check_domain_slow(run, spec, x, pfx, deferred=True)
            continue
        try:
            want = int(spec.axes[j][2](run.env))  # type: ignore[index, operator]
        except Exception as exc:
            want = None
            if run.checks:
                raise ShapeError(f"{spec.where}: {pfx}cannot compute {spec.axes[j][1]} in "  # type: ignore[index]
                                 f"{spec.written}: {exc!r}") from None
        if want is not None and shape[_axis_dim(spec.axes, j)] != want and run.checks:  # type: ignore[index]
            raise ShapeError(f"{spec.where}: {pfx}expected {spec.written} = "
                             f"{_expected_items(spec.axes, run.env, run.as_mode)}, got "
                             f"shape {_fmt_tuple(shape)}")


def _host_ok(x: object, pytype: type | tuple[type, ...]) -> bool:
    if x.__class__ is bool or isinstance(x, bool):
        return pytype is bool or (isinstance(pytype, tuple) and bool in pytype)
    if pytype is float:
        return isinstance(x, (int, float))
    return isinstance(x, pytype)


def _host_type_name(pytype: type | tuple[type, ...]) -> str:
    if isinstance(pytype, tuple):
        return " or ".join(t.__name__ for t in pytype)
    return pytype.__name__


def _check_host_slow(run: _CheckRun, spec: HostFields, x: Any, name: str | None) -> None:
    if x is None and spec.optional:
        return
    if not _host_ok(x, spec.pytype):
        if run.checks:
            raise _arg_type_error(f"{spec.where}: {_prefix(name, run)}expected "
                                  f"{_host_type_name(spec.pytype)}, got {type(x).__name__}")
        return
    key = spec.binds
    if key is None or not run.checks:
        return
    if x < 0:
        raise ShapeError(f"{spec.where}: {name}: expected a size ≥ 0, got {x}")
    if key in run.env and run.env[key] != x:
        raise ShapeError(f"{spec.where}: {key} is {run.env[key]} in "
                         f"{run.binder.get(key, 'the signature')} but {x} in {name}")
    run.env[key] = x
    run.binder.setdefault(key, name)


def model_field_specs(cls: type) -> tuple[TensorFields, ...]:
    """The field specs of a model class (``cls._ss_field_specs``)."""
    fields = getattr(cls, "_ss_field_specs", None)
    if fields is None:
        raise TypeError(f"{cls.__name__} is not a ShapeScript model (no _ss_field_specs)")
    return tuple(fields)


def _check_model_slow(run: _CheckRun, spec: ModelFields, x: object, name: str | None) -> None:
    if x is None and spec.optional:
        return
    if not isinstance(x, spec.cls):
        if run.checks:
            raise _arg_type_error(f"{spec.where}: {_prefix(name, run)}expected a "
                                  f"{spec.cls.__name__}, got {type(x).__name__}")
        return
    for field in model_field_specs(spec.cls):
        fname = f"{name}.{field.name}" if name else field.name
        _check_tensor_slow(run, field, getattr(x, field.name, None), fname)


def _check_one_slow(run: _CheckRun, spec: ParamFields | None, x: object, name: str | None) -> None:
    if spec is None:
        return
    if isinstance(spec, TensorSpec):
        _check_tensor_slow(run, spec, x, name)
    elif isinstance(spec, HostSpec):
        _check_host_slow(run, spec, x, name)
    elif isinstance(spec, ModelSpec):
        _check_model_slow(run, spec, x, name)
    else:
        raise TypeError(f"not a parameter spec: {spec!r}")


def check_args_slow(specs: Specs, args: Sequence[object], checks_on: bool = True, values_on: bool
                    = True, device: DeviceArg = PROCESS_DEVICE) -> Env:
    """``check_args`` without the generated fast path: every failure's exact message."""
    if len(args) != len(specs):
        raise TypeError(f"expected {len(specs)} arguments, got {len(args)}")
    run = _CheckRun(checks_on, values_on, _resolve_device(device))
    for spec, x in zip(specs, args):
        _check_one_slow(run, spec, x, spec.name if spec is not None else None)
    _finish_slow(run)
    env = run.env
    env["__device__"] = run.device if run.device is not None else torch.device("cpu")
    return env


def check_as_slow(value: V, spec: ParamFields | None, env: Env | None = None, checks_on: bool = True, values_on: bool
                  = True) -> V:
    """``check_as`` without the generated fast path."""
    if spec is None:
        return value
    env = env or {}
    declared = env.get("__device__")
    if declared is None:
        declared = _EFFECTIVE[0]
    run = _CheckRun(checks_on, values_on, declared, env, as_mode=True)
    _check_one_slow(run, spec, value, spec.name if spec.name else None)
    _finish_slow(run)
    return value


def make_checker(specs: Iterable[ParamFields | None]) -> ArgsChecker:
    """A function ``check(args, checks_on=True, values_on=True, device=PROCESS_DEVICE)
    -> env`` specialised to one signature's specs; it raises what ``check_args`` raises.

    ``device``: ``PROCESS_DEVICE`` (the process-wide setting, ``current_device()``), a
    device (every tensor must be on it), or ``None`` (the tensors must share one).
    """
    specs = tuple(specs)
    if not all(getattr(s.cls, "_ss_field_specs", None) is not None
               for s in specs if isinstance(s, ModelSpec)):
        return _lazy_checker(specs)       # a model class not finished yet: build at first call

    def slow(args: Sequence[object], checks_on: bool, values_on: bool, device: DeviceArg) -> tuple[bool, object]:
        return _verdict(check_args_slow, specs, args, checks_on, values_on, device)

    src, consts = gen_args_checker(specs, model_field_specs)
    ns: dict[str, Any] = dict(consts)
    ns.update(_slow=slow, _Fail=_Fail, _T=torch.Tensor, _PROC=PROCESS_DEVICE, _EFF=_EFFECTIVE,
              _Device=torch.device, _resolve=_resolve_device, _dom=domain_problem,
              _hok=_host_ok, _axd=_axis_dim, _CPU=torch.device("cpu"))
    exec(compile(src, "<shapescript argument checks>", "exec", dont_inherit=True), ns)
    check = ns["check"]
    check.specs = specs
    check.source = src
    return check


def _lazy_checker(specs: Specs) -> ArgsChecker:
    built: list[ArgsChecker] = []

    def check(args: Sequence[object], checks_on: bool = True, values_on: bool = True, device: DeviceArg
              = PROCESS_DEVICE) -> Env:
        if not built:
            fields_ready = all(getattr(s.cls, "_ss_field_specs", None) is not None
                               for s in specs if isinstance(s, ModelSpec))
            if not fields_ready:                  # the slow path says what is wrong
                return check_args_slow(specs, args, checks_on, values_on, device)
            built.append(make_checker(specs))
        return built[0](args, checks_on, values_on, device)

    check.specs = specs  # type: ignore[attr-defined]
    return check


def same_unknowns(values: Sequence[Tensor], groups: Groups, where: str) -> Sequence[Tensor]:
    """Checks that the axes one tuple ``as`` gives one unknown (``?k`` in ``([?k D], [?k])``)
    have one size, and returns ``values``. ``groups``: ``(name, ((element, axis), …))``.
    Raises ``ShapeError`` naming the unknown and the two axes that differ."""
    for name, at in groups:
        (i0, j0), first = at[0], values[at[0][0]].shape[at[0][1]]
        for i, j in at[1:]:
            size = values[i].shape[j]
            if size != first:
                raise ShapeError(f"{where}: `?{name}` is {first} in element {i0} (axis {j0}) "
                                 f"but {size} in element {i} (axis {j})")
    return values


def make_as_checker(spec: ParamFields | None) -> AsChecker:
    """A function ``check(value, env, checks_on=True, values_on=True) -> value`` for one
    ``as``'s spec; it raises what ``check_as`` raises."""
    if not isinstance(spec, TensorSpec):
        def check_other(value: V, env: Env | None = None, checks_on: bool = True, values_on: bool = True) -> V:
            return check_as_slow(value, spec, env, checks_on, values_on)
        return check_other

    def slow(value: object, env: Env | None, checks_on: bool, values_on: bool) -> tuple[bool, object]:
        return _verdict(check_as_slow, value, spec, env, checks_on, values_on)

    src, consts = gen_as_checker(spec)
    ns: dict[str, Any] = dict(consts)
    ns.update(_slow=slow, _Fail=_Fail, _T=torch.Tensor, _EFF=_EFFECTIVE, _dom=domain_problem)
    exec(compile(src, "<shapescript as check>", "exec", dont_inherit=True), ns)
    check = ns["check"]
    check.spec = spec
    check.source = src
    return check


_CHECKERS: dict[int, tuple[Specs, ArgsChecker]] = {}
_AS_CHECKERS: dict[int, tuple[ParamFields | None, AsChecker]] = {}


def check_args(specs: Specs, args: Sequence[object], checks_on: bool = True, values_on: bool = True, device: DeviceArg
               = PROCESS_DEVICE) -> Env:
    """Checks a call's arguments against its signature's specs and returns
    what it bound: ``{"b": 2, "...": (3, 4), "Float": torch.float32, "__device__": …}``.

    Raises ``TypeError`` (not a tensor; a host value or model of the wrong type),
    ``ShapeError`` (rank, sizes, dtype), ``DeviceError`` or, when ``values_on``,
    ``DomainError``; the first failure, in argument order.
    """
    entry = _CHECKERS.get(id(specs))
    if entry is None or entry[0] is not specs:
        entry = _CHECKERS[id(specs)] = (specs, make_checker(specs))
    return entry[1](args, checks_on, values_on, device)


def check_as(value: V, spec: ParamFields | None, env: Env | None = None, checks_on: bool = True, values_on: bool
             = True) -> V:
    """Checks ``value as T`` (``spec`` is ``T``'s spec) and returns ``value``.

    ``env`` is the enclosing call's bindings (generics and ``"__device__"``); ``?`` sizes
    bind anew at each ``as``. On a Python value it first checks that it is a tensor
    (``TypeError``); a ``HostSpec`` checks ``as int`` and the like.
    """
    entry = _AS_CHECKERS.get(id(spec))
    if entry is None or entry[0] is not spec:
        entry = _AS_CHECKERS[id(spec)] = (spec, make_as_checker(spec))
    return entry[1](value, env, checks_on, values_on)
