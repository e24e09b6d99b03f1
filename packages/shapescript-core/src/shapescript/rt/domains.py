"""Value checks: whether a tensor's values lie in its domain.

Bounds are exact; "sums to 1" (``Prob``) and "logsumexp is 0" (``LogProb``) are computed
in f32 (f64 for f64) and pass within ``max(1e-4, n·eps)``, ``n`` the class axis's size and
``eps`` the tensor dtype's; NaN fails every domain but ``Real`` and ``Logit``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from shapescript.vocab import DOMAIN_BOUNDS as _DOMAIN_BOUNDS
from shapescript.vocab import UNCHECKED_DOMAINS as _UNCHECKED_DOMAINS

if TYPE_CHECKING:
    from typing import TypeAlias

    from torch import Tensor

    from .specs import DomainFields as Domain

    # A domain's lower or upper bound (None: unbounded).
    Limit: TypeAlias = float | None
    # What a domain check found: the text that follows ``got`` in a ``DomainError``, or
    # None when the values are in the domain.
    Found: TypeAlias = str | None


def _fmt_value(v: float) -> str:
    if isinstance(v, bool) or isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return "nan"
    return f"{v:.4g}"


def _fmt_index(idx: tuple[int, ...]) -> str:
    return "" if not idx else f" at {tuple(idx)}"


def _first_true(mask: Tensor) -> tuple[int, ...]:
    """The index (a tuple) of the first ``True`` of ``mask``, in row-major order."""
    flat = int(mask.reshape(-1).nonzero()[0, 0])
    idx: list[int] = []
    for size in reversed(mask.shape):
        idx.append(flat % size)
        flat //= size
    return tuple(reversed(idx))


def _in_bounds(x: Tensor, lo: Limit, hi: Limit, lo_inclusive: bool) -> Tensor:
    ok = torch.ones(x.shape, dtype=torch.bool, device=x.device)
    if lo is not None:
        ok &= (x >= lo) if lo_inclusive else (x > lo)
    if hi is not None:
        ok &= x <= hi
    return ok


def _compiling() -> bool:
    is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    return bool(is_compiling and is_compiling())


def _assert_in_domain(x: Tensor, domain: Domain, lo: Limit, hi: Limit, lo_incl: bool, over_dim: int | None) -> Found:
    """Under ``torch.compile``: the domain check as an assertion in the graph (no
    ``.item()``, so no graph break and no guard on the values). It fails as torch's
    ``RuntimeError`` when the graph runs, naming the domain; the values and where they
    are come only without compilation."""
    ok = _in_bounds(x, lo, hi, lo_incl).all()
    if domain.kind in ("Prob", "LogProb") and over_dim is not None:
        acc = torch.float64 if x.dtype == torch.float64 else torch.float32
        xa = x.to(acc)
        tol = max(1e-4, x.shape[over_dim] * torch.finfo(acc).eps)
        total = xa.sum(dim=over_dim) - 1.0 if domain.kind == "Prob" else \
            torch.logsumexp(xa, dim=over_dim)
        ok = ok & (total.abs() <= tol).all()
    torch._assert_async(ok, f"a value outside {domain.kind}")
    return None


def domain_problem(x: Tensor, domain: Domain, over_dim: int | None = None, bound: int | None = None) -> Found:
    """``None`` when ``x``'s values are in ``domain``, else what was found instead: the
    text that follows ``got`` in a ``DomainError`` (``"-0.5 at (1, 2)"``,
    ``"a sum of 0.93 over C at (4,)"``). ``over_dim`` is the class axis's dimension,
    ``bound`` an ``Index``'s size."""
    kind = domain.kind
    if kind in _UNCHECKED_DOMAINS or x.numel() == 0:
        return None
    lo, hi, lo_incl = _DOMAIN_BOUNDS[kind]
    if kind == "Index" and bound is not None:
        hi = bound - 1
    if x.dtype == torch.bool:
        x = x.to(torch.uint8)
    if _compiling():
        return _assert_in_domain(x, domain, lo, hi, lo_incl, over_dim)
    mn, mx = torch.aminmax(x)
    mn, mx = mn.item(), mx.item()
    if not ((lo is None or (mn >= lo if lo_incl else mn > lo)) and (hi is None or mx <= hi)):
        bad = ~_in_bounds(x, lo, hi, lo_incl)
        idx = _first_true(bad)
        return _fmt_value(x[idx].item()) + _fmt_index(idx)
    if kind in ("Prob", "LogProb") and over_dim is not None:
        acc = torch.float64 if x.dtype == torch.float64 else torch.float32
        eps = torch.finfo(x.dtype if x.is_floating_point() else acc).eps
        n = x.shape[over_dim]
        tol = max(1e-4, n * eps)
        xa = x.to(acc)
        if kind == "Prob":
            total, target, what = xa.sum(dim=over_dim), 1.0, "a sum"
        else:
            total, target, what = torch.logsumexp(xa, dim=over_dim), 0.0, "a logsumexp"
        err = (total - target).abs()
        if not (err.max().item() <= tol):
            idx = _first_true(~(err <= tol))
            label = domain.label if domain.label is not None else f"axis {domain.over}"
            return (f"{what} of {_fmt_value(total[idx].item())} over {label}"
                    + _fmt_index(idx))
    return None
