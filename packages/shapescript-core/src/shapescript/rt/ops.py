"""Small functions the prelude's ``extern fn``s name as ``"shapescript.rt.X"``.

torch's positional ``dim=`` becomes ShapeScript's ``over=`` here: each
takes the class or feature axis by position, any position. Training mode (for
``dropout``) is a context variable, set by ``with Train:`` and ``shapescript.train()``,
independent of ``Module.training``.

Each helper is a top-level function of torch and the standard library only, so
``shapescript.rt.standalone`` can copy it into modules that don't need ShapeScript.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from .errors import ShapeError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Literal, TypeAlias

    from torch import Tensor

    OptTensor: TypeAlias = Tensor | None
    OpenShape: TypeAlias = tuple[int | None, ...]  # a shape; a None size is what the others leave

_TRAINING = contextvars.ContextVar("shapescript_training", default=False)


class train:
    """Runs a block in training mode, in which ``dropout`` drops (``with Train:``).

    Nestable and per context (threads and asyncio tasks each have their own mode);
    ``train(False)`` turns training mode off inside a block.

    >>> with train():
    ...     is_training()
    True
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._tokens: list[contextvars.Token[bool]] = []

    def __enter__(self) -> train:
        self._tokens.append(_TRAINING.set(self.mode))
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        _TRAINING.reset(self._tokens.pop())
        return False


def is_training() -> bool:
    """Whether the current context is in training mode."""
    return _TRAINING.get()


def softmax(x: Tensor, over: int) -> Tensor:
    """``torch.softmax`` over the axis at position ``over``."""
    return torch.softmax(x, dim=over)


def log_softmax(x: Tensor, over: int) -> Tensor:
    """``torch.log_softmax`` over the axis at position ``over``."""
    return torch.log_softmax(x, dim=over)


def logsumexp(x: Tensor, over: int | Sequence[int]) -> Tensor:
    """``torch.logsumexp`` over the axis (or list of axes) at ``over``."""
    return torch.logsumexp(x, dim=over)


def cumsum(x: Tensor, over: int) -> Tensor:
    """``torch.cumsum`` along the axis at position ``over``."""
    return torch.cumsum(x, dim=over)


def layer_norm(x: Tensor, over: int, weight: OptTensor = None, bias: OptTensor = None, eps: float = 1e-5) -> Tensor:
    """Layer normalisation over the one axis at position ``over``, with optional
    ``weight`` and ``bias`` of that axis's size: ``F.layer_norm`` on that axis moved last.
    """
    over = over % x.dim()
    last = over == x.dim() - 1
    y = x if last else x.movedim(over, -1)
    y = F.layer_norm(y, (y.shape[-1],), weight, bias, eps)
    return y if last else y.movedim(-1, over)


def rms_norm(x: Tensor, over: int, weight: OptTensor = None, eps: float | None = None) -> Tensor:
    """RMS normalisation over the axis at position ``over`` (``F.rms_norm``'s semantics:
    ``eps=None`` is ``torch.finfo(x.dtype).eps``)."""
    over = over % x.dim()
    last = over == x.dim() - 1
    y = x if last else x.movedim(over, -1)
    y = F.rms_norm(y, (y.shape[-1],), weight, eps)
    return y if last else y.movedim(-1, over)


def cross_entropy(logits: Tensor, y: Tensor, over: int) -> Tensor:
    """Mean cross-entropy of ``logits`` (class axis at ``over``) against the indices ``y``,
    which has the logits' other axes in order."""
    if logits.dim() > 1:
        over = over % logits.dim()
        if over != 1:
            logits = logits.movedim(over, 1)
    if y.dtype != torch.int64:
        y = y.long()
    return F.cross_entropy(logits, y)


def conv2d(input: Tensor, weight: Tensor, bias: OptTensor = None, stride: int = 1, padding: int = 0) -> Tensor:
    """``torch.nn.functional.conv2d``, with the one fact its declared result size needs
    and a type can't say: the padded input is at least the kernel (else the size,
    ``(h + 2*padding - kh)/stride + 1``, would be below 1), as a ``ShapeError``."""
    h, w = input.shape[-2], input.shape[-1]
    kh, kw = weight.shape[-2], weight.shape[-1]
    # While tracing (export, torch.compile) a size test would be a guard on the sizes:
    # the traced program keeps torch's own check instead.
    tracing = torch.compiler.is_compiling() or torch.compiler.is_exporting()
    if not tracing and (h + 2 * padding < kh or w + 2 * padding < kw):
        raise ShapeError(f"conv2d: the kernel is {kh}×{kw} but the input, padded by {padding}, "
                         f"is {h + 2 * padding}×{w + 2 * padding}: it must be at least the kernel")
    return F.conv2d(input, weight, bias, stride, padding)


def dropout(x: Tensor, p: float = 0.5) -> Tensor:
    """Zeroes each element with probability ``p`` and scales the rest by ``1/(1-p)``, in
    training mode only; outside it, the identity."""
    if not _TRAINING.get() or p == 0:
        return x
    return F.dropout(x, p, training=True)


def stack_map(n: int, fn: Callable[[int], Tensor | int | float], device: torch.device | str | None = None) -> Tensor:
    """``n |> map(i => fn(i))``: the results for ``i`` in ``0 .. n-1``, stacked along a new
    first axis; host results become 0-d tensors (``int`` i64, ``float`` f32, ``bool``)."""
    items = []
    for i in range(n):
        v = fn(i)
        if not isinstance(v, torch.Tensor):
            dtype = (torch.bool if isinstance(v, bool) else
                     torch.int64 if isinstance(v, int) else torch.float32)
            v = torch.tensor(v, dtype=dtype, device=device)
        items.append(v)
    if not items:
        return torch.empty((0,), device=device)
    return torch.stack(items)


# -- checks inside bodies -------------------------------------------------------------------
# The checker proves what it can and leaves the rest to these, each raising ``ShapeError``
# at the ``.ss`` location that needs the fact (``where``), before torch or einops would fail
# with an error of their own or, worse, compute on the wrong rows: ``divides`` (a pattern
# splitting a generic axis), ``has_size`` (a pattern's keyword size for an open axis),
# ``sliced`` (a slice not provably within its axis), ``picked`` (host ``int`` indices),
# ``cut`` (ints and slices of later axes), ``at_least`` (``topk``'s ``k`` on a generic
# axis), ``counted`` (a ``map`` over a count that may be 0, when the items' shape isn't
# known).
#
# While ``torch.export`` traces, a size is symbolic and a comparison of it a ``SymBool``:
# there each test becomes ``torch._check``, a fact the exported program keeps and checks,
# one that also bounds the dynamic dim (``n <= 4`` from slicing ``n`` rows off an axis of 4).
def _holds(ok: bool | torch.SymBool, message: str) -> None:
    """Raises ``ShapeError(message)`` unless ``ok``; a symbolic ``ok`` is a traced fact."""
    if isinstance(ok, bool):
        if not ok:
            raise ShapeError(message)
        return
    torch._check(ok, lambda: message)


def divides(x: Tensor, axis: int, den: int, where: str, what: str) -> Tensor:
    """``x`` when its axis ``axis`` (negative: from the end) is a multiple of ``den``.

    >>> divides(torch.zeros(2, 6), 1, 2, "m.ss:1:1", "`(k two)` needs axis `D` to be a multiple of 2").shape
    torch.Size([2, 6])
    """
    n = x.shape[axis]
    _holds(n % den == 0, f"{where}: {what}, but it is {n}")
    return x


def has_size(x: Tensor, axis: int, size: int, where: str, what: str) -> Tensor:
    """``x`` when its axis ``axis`` (negative: from the end) is ``size``: a pattern's
    keyword size for an axis whose size the types leave open (``a=2`` on a generic).

    >>> has_size(torch.zeros(2, 6), 0, 2, "m.ss:1:1", "`a=2` needs axis `p` to be 2").shape
    torch.Size([2, 6])
    """
    n = x.shape[axis]
    _holds(n == size, f"{where}: {what}, but it is {n}")
    return x


def sliced(x: Tensor, lo: int, hi: int, where: str) -> Tensor:
    """``x[lo:hi]`` when ``0 <= lo <= hi <=`` the first axis's size, else ``ShapeError``."""
    n = x.shape[0]
    message = f"{where}: the slice {lo}..{hi} is out of bounds for an axis of {n}"
    _holds(0 <= lo, message)
    _holds(lo <= hi, message)
    _holds(hi <= n, message)
    return x[lo:hi]


def cut(x: Tensor, picks: Sequence[tuple[int, int, int | None]], where: str) -> Tensor:
    """``x`` indexed on any axes, each index within its axis: ``picks`` is
    ``((axis, lo, hi), …)``, a slice ``lo:hi`` of that axis, or with ``hi`` None the
    host ``int`` index ``lo`` (the axis removed); the other axes are kept whole.

    >>> cut(torch.zeros(2, 5, 4), ((1, 1, 3), (2, -1, None)), "m.ss:1:1").shape
    torch.Size([2, 2])
    """
    index: list[slice | int] = [slice(None)] * (max(axis for axis, _, _ in picks) + 1)
    shape = x.shape
    for axis, lo, hi in picks:
        n = shape[axis]
        if hi is None:
            message = f"{where}: index {lo} is out of bounds for axis {axis}, of size {n}"
            _holds(-n <= lo, message)
            _holds(lo < n, message)
            index[axis] = lo
        else:
            message = f"{where}: the slice {lo}..{hi} is out of bounds for axis {axis}, of size {n}"
            _holds(0 <= lo, message)
            _holds(lo <= hi, message)
            _holds(hi <= n, message)
            index[axis] = slice(lo, hi)
    return x[tuple(index)]


def picked(x: Tensor, index: tuple[int, ...], where: str) -> Tensor:
    """``x[i, j, …]`` for host ``int`` indices, each within ``-size .. size - 1``.

    >>> picked(torch.arange(3), (-1,), "m.ss:1:1").item()
    2
    """
    shape = x.shape
    for k, i in enumerate(index):
        n = shape[k]
        if type(i) is int and type(n) is int and -n <= i < n:
            continue                  # the usual case, without building the messages
        _holds(-n <= i, f"{where}: index {i} is out of bounds for axis {k}, of size {n}")
        _holds(i < n, f"{where}: index {i} is out of bounds for axis {k}, of size {n}")
    return x[index]


def at_least(x: Tensor, axis: int, k: int, where: str, what: str) -> Tensor:
    """``x`` when its axis ``axis`` has at least ``k`` elements (``topk``'s ``k``)."""
    n = x.shape[axis]
    _holds(k <= n, f"{where}: {what}, but the axis has {n}")
    return x


def counted(n: int, where: str) -> int:
    """A ``map``'s count, when it is at least 1 (a stack of no items has no shape)."""
    _holds(n >= 1, f"{where}: map over {n} items: the result's shape needs at least one")
    return n


def _numel(sizes: Iterable[int]) -> int:
    n = 1
    for s in sizes:
        n = n * s
    return n


def pack(xs: Sequence[Tensor], left: int, right: int) -> Tensor:
    """``einops.pack(xs, "l… * r…")[0]`` (``left`` and ``right`` names around ``*``): each
    tensor's middle axes flattened into one, then all joined along it.

    >>> pack((torch.zeros(2, 3), torch.zeros(2, 4, 5, 3)), 1, 1).shape
    torch.Size([2, 21, 3])
    """
    flat = []
    for x in xs:
        shape = x.shape
        end = len(shape) - right
        flat.append(x.reshape((*shape[:left], _numel(shape[left:end]), *shape[end:])))
    return torch.cat(flat, dim=left)


def unpack(x: Tensor, left: int, right: int, shapes: Sequence[OpenShape], where: str) -> tuple[Tensor, ...]:
    """``einops.unpack``: ``x``'s axis ``left`` cut into one part per shape (a tuple of
    sizes; one ``None`` is what the others leave) and each part's axis unflattened.
    Sizes that don't add up to the axis raise ``ShapeError``.

    >>> [tuple(p.shape) for p in unpack(torch.zeros(2, 21, 3), 1, 1, ((), (4, None)), "m.ss:1:1")]
    [(2, 3), (2, 4, 5, 3)]
    """
    n = x.shape[left]
    counts = [None if None in s else _numel(s) for s in shapes]
    known = sum(c for c in counts if c is not None)
    if None in counts:
        k = counts.index(None)
        shape = shapes[k]
        rest = _numel([s for s in shape if s is not None])
        _holds(n - known >= 0, f"{where}: `unpack`: the known parts take {known}, "
                               f"more than the packed axis's {n}")
        _holds((n - known) % rest == 0, f"{where}: `unpack`: {n - known} left for part {k}, "
                                        f"not a multiple of {rest}")
        solved = (n - known) // rest
        shapes = list(shapes)
        shapes[k] = tuple(solved if s is None else s for s in shape)
        counts[k] = solved * rest
    else:
        _holds(known == n, f"{where}: `unpack`: the parts take {known}, "
                           f"but the packed axis is {n}")
    pieces = torch.split(x, counts, dim=left)
    out = []
    for piece, shape in zip(pieces, shapes):
        ps = piece.shape
        out.append(piece.reshape((*ps[:left], *shape, *ps[left + 1:])))  # () for a 0-d part
    return tuple(out)


# -- shape checks written out -----------------------------------------------------------------
# Code generated to be read (a Hugging Face modeling file) checks a function's arguments
# and its ``as`` types with these, one test a line, rather than through a checker built
# from specs. ``message`` is a function giving the start of the error, so no string is
# formatted unless a check fails, and none of a size while ``torch.compile`` traces (which
# would make it guard on the size's value): there a comparison of symbolic sizes is a
# ``torch._check``, which puts no break in the graph.
def expect_rank(x: object, axes: int, message: Callable[[], str], or_more: bool = False) -> Tensor:
    """``x`` when it is a tensor of ``axes`` axes (``or_more``: that many or more, for a
    type with ``...``); else ``ShapeError`` with ``message()`` and the shape it has.

    >>> expect_rank(torch.zeros(2, 3), 2, lambda: "m.ss:1:7: x: expected [b n] = (b, n)").shape
    torch.Size([2, 3])
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{message()}, got {type(x).__name__}")
    if (x.dim() < axes) if or_more else (x.dim() != axes):
        raise ShapeError(f"{message()}, got shape {tuple(x.shape)}")
    return x


def expect_size(ok: bool | torch.SymBool, message: Callable[[], str]) -> None:
    """Raises ``ShapeError(message())`` unless ``ok``, a comparison of sizes (symbolic
    while compiling: then ``torch._check``)."""
    if isinstance(ok, bool):
        if not ok:
            raise ShapeError(message())
        return
    torch._check(ok, message)


def expect_shape(x: Tensor, sizes: Sequence[int | str], message: Callable[[], str]) -> Tensor:
    """``x as T`` for a tensor type: ``x`` when its shape is ``sizes`` (a size each, or
    a ``"?k"`` name: a size the type leaves unknown, the same one wherever it appears).

    >>> expect_shape(torch.zeros(2, 3), (2, "?k"), lambda: "m.ss:4:9: expected [2 ?k] = (2, ?k)").shape
    torch.Size([2, 3])
    """
    expect_rank(x, len(sizes), message)
    unknown: dict[str, int] = {}
    for have, want in zip(x.shape, sizes):
        if isinstance(want, str):
            want = unknown.setdefault(want, have)
        expect_size(have == want, lambda: f"{message()}, got shape {tuple(x.shape)}")
    return x
