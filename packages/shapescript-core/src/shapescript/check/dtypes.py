"""Dtype promotion for operators and reductions.

Element-wise operators promote as ``torch.result_type`` does, with its three priority
groups: tensors with at least one axis, ``[]`` (0-d) tensors, and host numbers (Python
scalars). The highest *category* (bool < integer < float) present decides which group's
dtype wins, so ``[n] bf16 * [] f32`` is ``bf16`` but ``[] i64 + 1.0`` is ``f32`` (a Python
float is the default dtype, ``f32``)::

    >>> from shapescript.check.sizes import Size
    >>> from shapescript.check.types import NOBOUND, Axis
    >>> n_axes = (Axis(Size.var("n"), Size.var("n")),)
    >>> result_dtype("/", TensorType(n_axes, "i64", NOBOUND), TensorType(n_axes, "i64", NOBOUND))
    'f32'

The signature classes ``Float`` and ``Int`` (a dtype bound like a generic)
combine only with host numbers and with the same class; anything else is E0404, as is
every other mismatch torch itself would reject (``@`` and ``einsum`` of different dtypes,
``-`` of two masks).

An operand is a ``TensorType`` or a ``HostType`` (``int``/``float``/``bool``; a ``str`` is
E0404). For convenience a bare dtype string counts as a tensor with axes, and a tuple
``(dtype, rank)`` as a tensor of that rank.
"""

from __future__ import annotations

from typing import Union

from shapescript.builtin_registry import BUILTINS_BY_NAME
from shapescript.check.fail import Fail
from shapescript.check.types import FLOAT_DTYPES, INT_DTYPES, HostType, TensorType
from shapescript.vocab import HOST_DTYPE
from shapescript import error_codes as ec

__all__ = [
    "ARITH_OPS", "COMPARE_OPS", "LOGIC_OPS", "Operand", "category", "promote",
    "promote_dtypes", "reduction_dtype", "result_dtype",
]

Operand = Union[TensorType, HostType, str, tuple]

ARITH_OPS = frozenset({"+", "-", "*", "/", "//", "%", "**"})
COMPARE_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
LOGIC_OPS = frozenset({"and", "or", "not"})

# Float dtypes ordered by torch's promotion: f16 and bf16 promote to f32.
_FLOAT_RANK = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}
_INT_BITS = {"u8": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64}


def category(dtype: str) -> int:
    """0 for ``bool``, 1 for integer dtypes (and ``Int``), 2 for floats (and ``Float``)."""
    if dtype == "bool":
        return 0
    if dtype in INT_DTYPES or dtype == "Int":
        return 1
    if dtype in FLOAT_DTYPES or dtype == "Float":
        return 2
    raise ValueError(f"not a dtype: {dtype!r}")


def _promote_pair(a: str, b: str) -> str:
    """torch.promote_types on two concrete dtypes (or two equal classes)."""
    if a == b:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        ra, rb = _FLOAT_RANK[a], _FLOAT_RANK[b]
        if ra == rb:  # f16 with bf16
            return "f32"
        return a if ra > rb else b
    # Integers: u8 is unsigned, the rest signed.
    if a == "u8" or b == "u8":
        other = b if a == "u8" else a
        return {"i8": "i16"}.get(other, other)
    return a if _INT_BITS[a] >= _INT_BITS[b] else b


def _class_clash(a: str, b: str, where: str) -> Fail:
    if a in ("Float", "Int") and b in ("Float", "Int") and a != b:
        msg = f"dtypes differ: `{a}` and `{b}`"
    else:
        cls, other = (a, b) if a in ("Float", "Int") else (b, a)
        msg = (f"dtypes differ: a `{cls}` value combines only with host numbers and "
               f"other `{cls}` values, not `{other}`")
    return Fail(ec.E0404, msg, where,
                help="convert one side with `to`, e.g. `x to f32`")


def _norm(x: Operand) -> tuple[str, str]:
    """``(kind, dtype)`` with kind "dim" (a tensor with axes), "zero" (a 0-d tensor) or
    "host" (a Python scalar, dtype its torch dtype: bool, i64, f32)."""
    if isinstance(x, TensorType):
        return ("zero" if x.rank == 0 else "dim", x.dtype)
    if isinstance(x, HostType):
        d = HOST_DTYPE.get(x.name)
        if d is None:
            raise Fail(ec.E0404, f"`{x.name}` is not a number", f"a `{x.name}`")
        return ("host", d)
    if isinstance(x, tuple):
        dtype, rank = x
        return ("zero" if rank == 0 else "dim", dtype)
    if isinstance(x, str):
        return ("dim", x)
    raise TypeError(f"not an operand: {x!r}")


def _combine(higher: str | None, lower: str | None) -> str | None:
    # torch's combine_categories (aten/src/ATen/native/TypeProperties.cpp).
    if higher is None:
        return lower
    if lower is None:
        return higher
    if category(higher) == 2:
        return higher
    if higher == "bool" or category(lower) == 2:
        return _promote_pair(higher, lower)
    return higher


def promote_dtypes(*operands: Operand) -> str:
    """The dtype ``torch.result_type`` gives for these operands (E0404 for a ``Float`` or
    ``Int`` class mixed with anything but host numbers and itself)."""
    kinds = [_norm(o) for o in operands]
    classes = {d for k, d in kinds if d in ("Float", "Int")}
    if classes:
        for k, d in kinds:
            if k == "host" or d in classes:
                continue
            raise _class_clash(next(iter(classes)), d, "dtypes differ")
        if len(classes) > 1:
            raise _class_clash("Float", "Int", "dtypes differ")
    groups: dict[str, str | None] = {"dim": None, "zero": None, "host": None}
    for k, d in kinds:
        cur = groups[k]
        groups[k] = d if cur is None else _promote_pair(cur, d)
    out = _combine(groups["dim"], _combine(groups["zero"], groups["host"]))
    assert out is not None
    return out


def promote(a: Operand, b: Operand) -> str:
    """``torch.result_type(a, b)`` in ShapeScript dtype names.

    >>> from shapescript.check.sizes import Size
    >>> from shapescript.check.types import REAL, Axis
    >>> ax_n = Axis(Size.var("n"), Size.var("n"))
    >>> promote(TensorType((ax_n,), "bf16", REAL), TensorType((), "f32", REAL))
    'bf16'
    """
    return promote_dtypes(a, b)


def _host_result(op: str, a: HostType, b: HostType | None) -> str:
    names = [a.name] + ([b.name] if b is not None else [])
    if op in COMPARE_OPS or op in LOGIC_OPS:
        return "bool"
    for n in names:
        if n not in ("int", "float", "bool"):
            raise Fail(ec.E0404, f"`{n}` is not a number", f"a `{n}`")
    if op == "/" or "float" in names:
        return "float"
    return "int"


def result_dtype(op: str, a: Operand, b: Operand | None = None) -> str:
    """The dtype of ``a op b`` (``b`` None for unary ``-`` and ``not``).

    ``op`` is one of ``+ - * / // % **`` (promotion; ``/`` of integers gives ``f32``),
    ``== != < <= > >=`` (``bool``), ``and or not`` (``bool``; operands must be masks or host
    bools) or ``@`` (both tensors of one dtype, as ``torch.matmul`` needs). When both
    operands are host values the result is a host type name: ``"int"``, ``"float"`` or
    ``"bool"``. Raises ``Fail("E0404")`` for mismatches, ``Fail("E0410")`` for a host
    operand of ``@``.

    >>> from shapescript.check.sizes import Size
    >>> from shapescript.check.types import NOBOUND, Axis
    >>> axes = (Axis(Size.var("n"), Size.var("n")),)
    >>> result_dtype(">", TensorType(axes, "u8", NOBOUND), HostType("float", 0.5))   # u8 > 0.5
    'bool'
    """
    both_host = isinstance(a, HostType) and (b is None or isinstance(b, HostType))
    if both_host:
        return _host_result(op, a, b)  # type: ignore[arg-type]
    operands = [a] if b is None else [a, b]
    if op in LOGIC_OPS:
        for o in operands:
            k, d = _norm(o)
            if d != "bool":
                raise Fail(ec.E0404, f"`{op}` needs masks, not `{d}`", f"`{d}`",
                           help="compare first to get a `Mask`, e.g. `x > 0`")
        return "bool"
    if op == "@":
        if b is None or any(isinstance(o, HostType) for o in operands):
            raise Fail(ec.E0410, "`@` needs two tensors", "a host value",
                       help="multiply by a number with `*`")
        da, db = _norm(a)[1], _norm(b)[1]
        if da != db:
            raise Fail(ec.E0404, f"dtypes differ: `{da}` @ `{db}`", "dtypes differ",
                       help=f"convert one side with `to`, e.g. `… to {da}`")
        if da == "bool":
            raise Fail(ec.E0404, "`@` of masks", "`bool`", help="convert with `to f32`")
        return da
    out = promote_dtypes(*operands)
    if op in COMPARE_OPS:
        return "bool"
    if op not in ARITH_OPS:
        raise ValueError(f"unknown operator {op!r}")
    if op == "-" and out == "bool":
        # torch rejects `-` of two bool tensors and unary `-` of one.
        raise Fail(ec.E0404, "`-` of masks", "`bool`",
                   help="use `x and not y` for masks, or convert with `to i64` first")
    if op == "/" and category(out) < 2:
        return "f32"  # true division: the default float dtype
    return out


def reduction_dtype(op: str, dtype: str) -> str:
    """The dtype of reduction (or scan) ``op`` of a tensor of ``dtype``, by its registry
    entry's ``dtype_rule``.

    ``count`` (``sum prod cumprod``): integers or a mask give ``i64`` (a class ``Float``
    stays ``Float``); ``keep`` (``max min``): the dtype; ``mean``: of a mask ``f32``, of
    integers E0411; ``float`` (``var std``): integers and masks are E0411; ``float_out``
    (``logsumexp``): integers or masks give ``f32``; ``index`` (``argmax argmin``):
    ``i64``; ``mask`` (``any all``): a mask (else E0404). An entry that takes no mask
    (``masks=False``) refuses one (E0404, as torch).
    """
    entry = BUILTINS_BY_NAME[op]
    if not entry.masks and dtype == "bool":
        raise Fail(ec.E0404, f"`{op}` of a mask", "`bool`", help="convert first: `… to u8`")
    cat = category(dtype)
    match entry.dtype_rule:
        case "count":
            return "i64" if cat < 2 else dtype
        case "keep":
            return dtype
        case "mean":
            if dtype == "bool":
                return "f32"
            if cat == 1:
                raise Fail(ec.E0411, f"`{op}` needs a float dtype, not `{dtype}`", f"`{dtype}`",
                           help="convert first: `… to f32`")
            return dtype
        case "float":
            if cat < 2:
                raise Fail(ec.E0411, f"`{op}` needs a float dtype, not `{dtype}`", f"`{dtype}`",
                           help="convert first: `… to f32`")
            return dtype
        case "float_out":
            return "f32" if cat < 2 else dtype
        case "index":
            return "i64"
        case "mask":
            if dtype != "bool":
                raise Fail(ec.E0404, f"`{op}` takes a mask, not `{dtype}`", f"`{dtype}`",
                           help=f"compare first, e.g. `{op}(x > 0)`")
            return "bool"
    raise ValueError(f"`{op}` has no dtype rule (builtin_registry)")
