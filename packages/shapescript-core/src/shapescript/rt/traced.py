"""The helpers of traced modules (``codegen/traced.py``), as source text.

Everything below the marker line is copied into each traced module, which needs only
torch and einops; this file is never imported by the compiler (tests import it to call
the helpers directly). Every name starts with ``_ss_ex_`` so none can clash with the
generated code's. The helpers:

- ``_ss_ex_if`` / ``_ss_ex_for``: an ``if`` or ``for i in a..b`` whose blocks codegen
  turned into functions of the values they may assign. A condition known while tracing
  (a Python bool, or a size fact torch can decide) runs one branch in Python; a ``[]
  Mask`` or a condition on a dynamic size is a ``torch.cond``. Ends known while tracing
  unroll the loop; otherwise it is a ``torch.while_loop``. Host values carried through
  either are 0-d tensors.
- ``_ss_ex_as``: an ``as`` while tracing: ``torch._check`` per axis, ``?k`` at least 0,
  the domain as ``aten._assert_async.msg`` .

The domain bounds ``_SS_EX_BOUNDS`` are ``shapescript.vocab.DOMAIN_BOUNDS``: the inlined
copy is written from that table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch as _ss_torch

from shapescript.vocab import DOMAIN_BOUNDS as _SS_EX_BOUNDS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, TypeAlias

    from torch import SymInt, Tensor

    # A block turned into a function of the values it may assign, giving them (``_ss_ex_if``, ``_ss_ex_for``).
    _Block: TypeAlias = "Callable[..., Iterable[object]]"

# ---- inlined below ----


try:  # ShapeScript's error class when it is importable 
    from shapescript.rt import errors as _ss_ex_errors

    class ShapeError(_ss_ex_errors.ShapeError):
        """A tensor's rank, sizes or dtype don't fit its type."""
except (ImportError, AttributeError):
    class ShapeError(ValueError):
        """A tensor's rank, sizes or dtype don't fit its type."""


def _ss_ex_static_bool(c: object) -> bool | None:
    """``c`` as a Python bool if it is known while tracing, else None."""
    if isinstance(c, bool):
        return c
    if isinstance(c, _ss_torch.SymBool):
        from torch.fx.experimental.symbolic_shapes import statically_known_true
        if statically_known_true(c):
            return True
        if statically_known_true(_ss_torch.sym_not(c)):
            return False
        return None
    if isinstance(c, _ss_torch.Tensor):
        return None
    return bool(c)


def _ss_ex_static_int(v: object) -> int | None:
    """``v`` as a Python int if it is a number while tracing, else None."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, _ss_torch.SymInt):
        return v.node.maybe_as_int()
    return None


def _ss_ex_device(values: Iterable[object]) -> _ss_torch.device | None:
    for v in values:
        if isinstance(v, _ss_torch.Tensor):
            return v.device
    return None


def _ss_ex_tensor(v: Any, like: Tensor | None = None, device: _ss_torch.device | None = None) -> Tensor:
    """A host value carried through a ``torch.cond`` or ``torch.while_loop``: a 0-d
    tensor (of ``like``'s dtype when given, so a loop keeps its carried dtypes)."""
    if isinstance(v, _ss_torch.Tensor):
        if like is not None and v.dtype != like.dtype:
            v = v.to(like.dtype)
        return v.clone(memory_format=_ss_torch.contiguous_format)
    if like is not None:
        return _ss_torch.full((), v, dtype=like.dtype, device=like.device)
    if isinstance(v, (bool, _ss_torch.SymBool)):
        dtype = _ss_torch.bool
    elif isinstance(v, (int, _ss_torch.SymInt)):
        dtype = _ss_torch.int64
    else:
        dtype = _ss_torch.get_default_dtype()
    return _ss_torch.full((), v, dtype=dtype, device=device)


def _ss_ex_branch(fn: _Block, device: _ss_torch.device | None) -> Callable[..., tuple[Tensor, ...]]:
    # A torch.cond branch may not return its inputs (aliasing) and both must agree on
    # strides: every output is a fresh contiguous tensor.
    def branch(*operands: object) -> tuple[Tensor, ...]:
        return tuple(_ss_ex_tensor(v, device=device) for v in fn(*operands))
    return branch


def _ss_ex_if(cond: object, then_fn: _Block, else_fn: _Block, operands: tuple[object, ...]) -> tuple[object, ...]:
    """``if cond`` whose branches are functions of ``operands`` giving the values the
    ``if`` binds, as a tuple."""
    known = _ss_ex_static_bool(cond)
    if known is not None:
        return tuple((then_fn if known else else_fn)(*operands))
    device = _ss_ex_device((cond,) + tuple(operands))
    carried = tuple(_ss_ex_tensor(v, device=device) for v in operands)
    if isinstance(cond, _ss_torch.Tensor) and cond.dim() != 0:
        cond = cond.reshape(())
    out = _ss_torch.cond(cond, _ss_ex_branch(then_fn, device),
                         _ss_ex_branch(else_fn, device), carried)
    return tuple(out)


def _ss_ex_for(lo: int | SymInt, hi: int | SymInt, body: _Block, carried: tuple[object, ...]) -> tuple[object, ...]:
    """``for i in lo..hi`` whose body is a function of ``i`` and ``carried`` giving the
    new ``carried``: unrolled when both ends are numbers, else a ``torch.while_loop``."""
    a, b = _ss_ex_static_int(lo), _ss_ex_static_int(hi)
    carried = tuple(carried)
    if a is not None and b is not None:
        for i in range(a, b):
            carried = tuple(body(i, *carried))
        return carried
    device = _ss_ex_device(carried)
    start = _ss_ex_tensor(lo, _ss_torch.zeros((), dtype=_ss_torch.int64, device=device))
    init = (start,) + tuple(_ss_ex_tensor(v, device=device) for v in carried)

    def cond_fn(i: Tensor, *values: Tensor) -> Tensor:
        return i < hi

    def body_fn(i: Tensor, *values: Tensor) -> tuple[Tensor, ...]:
        out = tuple(body(i, *values))
        return (i + 1,) + tuple(_ss_ex_tensor(v, like) for v, like in zip(out, values))

    return tuple(_ss_torch.while_loop(cond_fn, body_fn, init)[1:])


def _ss_ex_pick(x: Tensor, index: tuple[object, ...]) -> Tensor:
    """``x[i, j, …]`` for host indices, any of which may be a 0-d tensor (a loop's ``i``
    in a ``torch.while_loop``): those select with ``index_select``."""
    if not any(isinstance(i, _ss_torch.Tensor) for i in index):
        return x[index]
    for i in index:
        if isinstance(i, _ss_torch.Tensor):
            i = i.reshape(1).to(_ss_torch.int64)
            i = _ss_torch.where(i < 0, i + x.shape[0], i)
            x = x.index_select(0, i).squeeze(0)
        else:
            x = x[i]
    return x


def _ss_ex_hint(size: int | SymInt) -> int | None:
    """A size's value for the example inputs, or None (a data-dependent size)."""
    if isinstance(size, _ss_torch.SymInt):
        return size.node.hint if size.node.has_hint() else None
    return size


def _ss_ex_unbacked(size: int | SymInt) -> bool:
    if not isinstance(size, _ss_torch.SymInt):
        return False
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    return bool(free_unbacked_symbols(size))


def _ss_ex_domain_ok(x: Tensor, kind: str, over: int | None, bound: int | SymInt | None) -> Tensor:
    """A 0-d bool tensor: whether ``x``'s values are in the domain (as
    ``shapescript.rt.domains``: exact bounds, sums within ``max(1e-4, n·eps)``)."""
    lo, hi, lo_incl = _SS_EX_BOUNDS[kind]
    if kind == "Index" and bound is not None:
        hi = bound - 1
    v = x.to(_ss_torch.uint8) if x.dtype == _ss_torch.bool else x
    ok = None
    if lo is not None:
        ok = ((v >= lo) if lo_incl else (v > lo)).all()
    if hi is not None:
        ok = (v <= hi).all() if ok is None else ok & (v <= hi).all()
    if kind in ("Prob", "LogProb") and over is not None:
        acc = _ss_torch.float64 if x.dtype == _ss_torch.float64 else _ss_torch.float32
        eps = _ss_torch.finfo(x.dtype if x.is_floating_point() else acc).eps
        tol = _ss_torch.sym_max(1e-4, x.shape[over] * eps)
        xa = x.to(acc)
        total = xa.sum(dim=over) if kind == "Prob" else _ss_torch.logsumexp(xa, dim=over)
        target = 1.0 if kind == "Prob" else 0.0
        ok = ok & ((total - target).abs() <= tol).all()
    return ok


def _ss_ex_assert_domain(x: Tensor, kind: str, over: int | None, bound: int | SymInt | None, message: str) -> None:
    """A value check in the program: ``aten._assert_async`` raises ``RuntimeError`` with
    ``message`` when it fails."""
    _ss_torch.ops.aten._assert_async.msg(_ss_ex_domain_ok(x, kind, over, bound), message)


def _ss_ex_as(x: object, sizes: Sequence[int | SymInt | str] | None, where: str, written: str, domain: tuple[
        str, int | None, int | SymInt | None, str] | None = None, shapes: bool = True, values: bool = True) -> Tensor:
    """``x as T`` in an exported program: ``sizes`` holds each axis's size (a number or
    a size while tracing), or ``"?k"`` for an unknown size; ``domain`` is ``(kind, over,
    bound, text)``. Shape checks become ``torch._check`` facts (those on data-dependent
    sizes stay even when ``shapes`` is off: tracing needs them)."""
    if not isinstance(x, _ss_torch.Tensor):
        raise TypeError(f"{where}: expected a tensor {written}, got {type(x).__name__}")
    if sizes is not None and x.dim() != len(sizes):
        raise ShapeError(f"{where}: expected {written}, got rank {x.dim()} "
                         f"(shape {tuple(x.shape)})")
    unknown = {}
    for axis, (have, want) in enumerate(zip(x.shape, sizes or ())):
        if isinstance(want, str):
            if want in unknown:
                if shapes or _ss_ex_unbacked(have):
                    _ss_torch._check(have == unknown[want])
            else:
                unknown[want] = have
                _ss_torch._check(have >= 0)
        elif shapes or _ss_ex_unbacked(have):
            h, w = _ss_ex_hint(have), _ss_ex_hint(want)
            if h is not None and w is not None and h != w:
                # torch would fail too, with "2 not in VR[5, 5]": say what it means.
                raise ShapeError(
                    f"{where}: expected {written}, but axis {axis} is {h} for the example "
                    f"inputs, not {w}: in an exported program `as` can't fix a size that "
                    "comes from the program's inputs")
            _ss_torch._check(have == want)
    if values and domain is not None:
        kind, over, bound, text = domain
        _ss_ex_assert_domain(x, kind, over, bound, f"{where}: expected {text}")
    return x
