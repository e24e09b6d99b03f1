"""Value domains: subtyping, joins, operator and reduction results, conversions.

The lattice is the closure of the "is also" column::

    Pos ⊂ NonNeg ⊂ Real      Unit ⊂ NonNeg      Signed ⊂ Real
    Prob over A ⊂ Unit       LogProb over A ⊂ Logit over A ⊂ Real
    Index[A] ⊂ Index[B] when A ≤ B is provable      Mask ≡ bool

``Real`` (floats) and ``Int`` (integer tensors) mean "no bound"; which of the two a
value has follows its dtype, so each accepts the other (the dtype check is separate).
``Unit`` is not ``Signed``: a forgotten ``to Signed`` is caught.

Operator results follow the domain table. Each operand contributes the *set* of
interval domains it lies in (a ``Unit`` tensor is Unit, NonNeg and Real; the literal
``0.5`` is Pos, Unit, NonNeg, Signed and Real), the table is applied to every pair and
the narrowest result is kept.
"""

from __future__ import annotations

from typing import Callable, Iterable

from shapescript.builtin_registry import BUILTINS_BY_NAME
from shapescript.check.fail import Fail
from shapescript.check.sizes import Size
from shapescript.check.types import (
    FLOAT_DTYPES, INT_DTYPES, MASK, NOBOUND, REAL, Domain, HostType,
)
from shapescript.vocab import CLASS_DOMAINS
from shapescript import error_codes as ec

__all__ = [
    "ProveLe", "binop_domain", "convert", "default_dtype", "host_domains", "interval_view",
    "is_subdomain", "join", "literal_domain", "literal_domains", "reduction_domain", "check_class_over",
]

ProveLe = Callable[[Size, Size], bool]

INTERVALS = ("Pos", "Unit", "Signed", "NonNeg", "Real")  # narrowest first (tie-breaks)
# The interval supertypes of each interval domain, itself included.
_UP = {
    "Pos": ("Pos", "NonNeg", "Real"),
    "Unit": ("Unit", "NonNeg", "Real"),
    "NonNeg": ("NonNeg", "Real"),
    "Signed": ("Signed", "Real"),
    "Real": ("Real",),
}


def _never(a: Size, b: Size) -> bool:
    return a == b


def _supers(d: Domain) -> list[Domain]:
    """``d`` and its supertypes, narrowest first (Index bounds aside)."""
    k = d.kind
    if k in _UP:
        return [Domain(x) for x in _UP[k]]
    if k == "Prob":
        return [d, Domain("Unit"), Domain("NonNeg"), REAL]
    if k == "LogProb":
        return [d, Domain("Logit", over=d.over), REAL]
    if k == "Logit":
        return [d, REAL]
    if k == "Index":
        return [d, NOBOUND]
    return [d]


def _top(d: Domain) -> bool:
    return d.kind in ("Real", "Int")


def is_subdomain(a: Domain, b: Domain, prove_le: ProveLe | None = None,
                 labels: Iterable[Size] | None = None) -> bool:
    """Whether a value of domain ``a`` is accepted where ``b`` is expected.

    ``prove_le(x, y)`` proves ``x ≤ y`` for ``Index`` bounds (default: equality only).
    ``labels`` are the value's axis labels: with them a ``Real`` value (or a subdomain of
    it) is accepted as ``Logit over A`` when exactly one axis is labelled ``A``; when it
    has none or several, this raises ``Fail("E0705")`` instead of answering False.

    >>> is_subdomain(Domain("Prob", over=Size.var("C")), Domain("NonNeg"))
    True
    >>> is_subdomain(Domain("Unit"), Domain("Signed"))
    False
    """
    if a == b:
        return True
    prove_le = prove_le or _never
    if b.kind == "Mask" or a.kind == "Mask":
        return False
    if _top(b):
        return True
    if b.kind == "Index":
        return a.kind == "Index" and a.index is not None and b.index is not None \
            and (a.index == b.index or prove_le(a.index, b.index))
    if b in _supers(a):
        return True
    if b.kind == "Logit" and labels is not None and a.kind not in ("Index", "Int") \
            and REAL in _supers(a):
        count = sum(1 for lab in labels if lab == b.over)
        if count == 1:
            return True
        where = "absent from" if count == 0 else "repeated in"
        raise Fail(ec.E0705, f"the class axis `{b.over}` is {where} the value",
                   f"`{b.over}` {'missing' if count == 0 else 'repeated'}",
                   help="a value is a `Logit over A` only with exactly one axis labelled `A`")
    return False


def join(a: Domain, b: Domain, prove_le: ProveLe | None = None) -> Domain:
    """The least common supertype (merges of branches): ``Pos ∨ Unit`` is ``NonNeg``,
    ``Unit ∨ Signed`` is ``Real``, ``Index[A] ∨ Index[B]`` the larger provable bound."""
    if is_subdomain(a, b, prove_le):
        return b
    if is_subdomain(b, a, prove_le):
        return a
    for s in _supers(a):
        if is_subdomain(b, s, prove_le):
            return s
    ints = ("Int", "Index", "Mask")
    return NOBOUND if a.kind in ints or b.kind in ints else REAL


def literal_domains(value: int | float | bool) -> frozenset[str]:
    """Every interval domain a number lies in: ``0.5`` is Pos, Unit, NonNeg, Signed, Real."""
    v = value  # not float(): an integer literal may be too large for a float
    out = {"Real"}
    if v != v:  # NaN is only Real
        return frozenset(out)
    if v > 0:
        out.add("Pos")
    if v >= 0:
        out.add("NonNeg")
    if 0 <= v <= 1:
        out.add("Unit")
    if -1 <= v <= 1:
        out.add("Signed")
    return frozenset(out)


def literal_domain(v: float) -> str:
    """The narrowest interval domain a host number lies in."""
    if v != v:  # NaN
        return "Real"
    if 0 < v <= 1:
        return "PosUnit"
    if v == 0:
        return "Zero"
    if v > 0:
        return "Pos"
    if -1 <= v < 0:
        return "Signed"
    return "Real"


def host_domains(h: HostType) -> frozenset[str]:
    """The sign facts of a host number: from its value when known (a literal, a dim),
    else its recorded domain (a generic used as a value is Pos, a variable Real)."""
    if h.value is not None and not isinstance(h.value, str):
        return literal_domains(h.value)
    return interval_view(Domain(h.domain)) if h.domain in _UP else frozenset({"Real"})


def interval_view(d: Domain) -> frozenset[str]:
    """The interval domains (Pos Unit Signed NonNeg Real) ``d`` lies in; a mask counts as
    its 0/1 values (Unit), an ``Index`` or integer tensor as Real."""
    k = d.kind
    if k in _UP:
        return frozenset(_UP[k])
    if k in ("Prob", "Mask"):
        return frozenset(_UP["Unit"])
    return frozenset({"Real"})


def _pair(op: str, x: str, y: str, exponent: int | float | None) -> str:
    nn = ("Pos", "NonNeg")
    if op == "+":
        if (x == "Pos" and y in nn) or (y == "Pos" and x in nn):
            return "Pos"
        if x == "NonNeg" and y == "NonNeg":
            return "NonNeg"
    elif op == "*":
        if x == y and x in ("Pos", "Unit", "NonNeg", "Signed"):
            return x
        if {x, y} == {"Unit", "Signed"}:
            return "Signed"
    elif op == "/":
        if y == "Pos" and x in nn:
            return x
    elif op == "**":
        if x == "Pos":
            return "Pos"
        if x == "NonNeg":
            return "NonNeg"
        if isinstance(exponent, int) and not isinstance(exponent, bool) \
                and exponent % 2 == 0:
            return "NonNeg"
    elif op == "%":
        if y == "Pos":
            return "NonNeg"
    elif op == "@":
        if x == "NonNeg" and y == "NonNeg":
            return "NonNeg"
    elif op == "neg":
        if x == "Signed":
            return "Signed"
    return "Real"


def _narrowest(cands: set[str]) -> str:
    for k in INTERVALS:
        if k in cands:
            minimal = all(k == c or k not in _UP[c] for c in cands)
            if minimal:
                return k
    return "Real"


Operand = Domain | HostType


def _facts(x: Operand) -> frozenset[str]:
    return host_domains(x) if isinstance(x, HostType) else interval_view(x)


def binop_domain(op: str, a: Operand, b: Operand | None = None,
                 result_dtype: str | None = None) -> Domain:
    """The domain of ``a op b`` (``op`` one of ``+ - * / // % ** @``, comparisons,
    ``and or not``; unary minus is ``op="-"`` with ``b`` None).

    Operands are tensor domains or host numbers (``HostType``: a literal's value gives
    its sign facts). ``result_dtype`` (from ``dtypes.result_dtype``) turns the result
    into ``Mask`` for ``bool`` and an unbounded ``Int`` where an integer result has no
    interval fact; arithmetic on ``Index[C]`` drops the bound.

    >>> binop_domain("+", Domain("Pos"), Domain("Unit"))
    Domain(kind='Pos', ...)
    """
    if op in ("==", "!=", "<", "<=", ">", ">=", "and", "or", "not") or result_dtype == "bool":
        return MASK
    if b is None:
        if op not in ("-", "neg"):
            raise ValueError(f"unknown unary operator {op!r}")
        cands = {_pair("neg", x, x, None) for x in _facts(a)}
    else:
        exponent = b.value if isinstance(b, HostType) and op == "**" else None
        fa, fb = _facts(a), _facts(b)
        cands = {_pair(op, x, y, exponent) for x in fa for y in fb}
    k = _narrowest(cands)
    integral = result_dtype is not None and (result_dtype in INT_DTYPES or result_dtype == "Int")
    if k == "Real":
        return NOBOUND if integral else REAL
    return Domain(k)


# ---------------------------------------------------------------------------
# Reductions.

# The domains a reduction of each ``domain_rule`` keeps (else the operand's dtype's).
_KEEPS = {
    "sum": ("Pos", "NonNeg"),
    "mean": ("Pos", "NonNeg", "Unit", "Signed"),
    "prod": ("Pos", "NonNeg", "Unit", "Signed"),
    "order": ("Pos", "NonNeg", "Unit", "Signed", "Real"),
}
# The domain of a reduction of a mask, by its ``domain_rule`` (else ``Real``).
_OF_MASK = {"sum": NOBOUND, "mean": Domain("Unit"), "order": MASK, "prod": NOBOUND,
            "mask": MASK}


def check_class_over(d: Domain, over: Iterable[Size] | None, op: str) -> None:
    """E0704 unless a reduction or class-axis operation on a ``Logit``/``LogProb``/``Prob
    over A`` value reduces exactly ``over=A`` (``over`` None: every axis)."""
    if d.kind not in CLASS_DOMAINS:
        return
    labels = None if over is None else list(over)
    if labels is not None and len(labels) == 1 and labels[0] == d.over:
        return
    said = "every axis" if labels is None else " ".join(str(x) for x in labels)
    raise Fail(ec.E0704, f"`{op}` of a `{d}` value must reduce `over={d.over}`",
               f"reduces {said}",
               help=f"to reduce other axes, first drop the marking: `(x as {_plain(d)})`")


def _plain(d: Domain) -> str:
    return "Unit" if d.kind == "Prob" else "Real"


def selected_domain(d: Domain) -> Domain:
    """The domain of values picked out of a ``d`` value along an axis (``topk``'s values):
    a class domain loses its marking, since the values no longer sum (or normalise) over
    the class axis, whichever axis they were picked along; any other domain is kept.

    >>> str(selected_domain(Domain("Prob", over=Size.var("E")))), str(selected_domain(Domain("Pos")))
    ('Unit', 'Pos')
    """
    return Domain(_plain(d)) if d.kind in CLASS_DOMAINS else d


def reduction_domain(op: str, d: Domain, dtype: str | None = None,
                     axis_size: Size | None = None, *, check_over: bool = False,
                     over: Iterable[Size] | None = None, count: Size | None = None) -> Domain:
    """The domain of reduction (or scan) ``op`` of a value of domain ``d`` and dtype
    ``dtype``, by its registry entry's ``domain_rule``.

    ``axis_size`` is the size of the reduced axis for an ``index`` rule (``argmax``:
    ``Index[axis_size]``). With ``check_over``, ``over`` lists the reduced axes' labels
    (None: every axis) and a class domain must be reduced over its class axis (E0704).
    ``count`` is how many elements a ``spread`` (``var``/``std``) reduces: with fewer than 2 (an axis of
    size 1) the unbiased estimate is NaN, so they are ``NonNeg`` only when the count is
    provably at least 2, else ``Real``.

    >>> reduction_domain("mean", Domain("Prob", over=Size.var("C"))).kind
    'Unit'
    >>> reduction_domain("std", REAL, count=Size.var("n")).kind, reduction_domain("std", REAL, count=Size.const(8)).kind
    ('Real', 'NonNeg')
    """
    if check_over:
        check_class_over(d, over, op)
    rule = BUILTINS_BY_NAME[op].domain_rule
    if rule is None:
        raise ValueError(f"`{op}` has no domain rule (builtin_registry)")
    if rule == "index":
        if axis_size is None:
            raise ValueError(f"`{op}` needs the reduced axis's size")
        return Domain("Index", index=axis_size)
    if rule == "spread":
        return Domain("NonNeg") if count is not None and (count - 2).provably_nonneg() else REAL
    k = d.kind
    if k == "Mask":
        return _OF_MASK.get(rule, REAL)
    if rule not in _KEEPS:
        return REAL
    if k == "Index" and rule == "order":
        return d
    if k in ("Index", "Int"):
        return NOBOUND
    if k == "Prob":
        k = "NonNeg" if rule == "sum" else "Unit"
    elif k == "Unit" and rule == "sum":
        k = "NonNeg"
    if k in _KEEPS[rule]:
        return Domain(k)
    integral = dtype is not None and (dtype in INT_DTYPES or dtype == "Int")
    return NOBOUND if integral else REAL


# ---------------------------------------------------------------------------
# Conversions (`to`).

def default_dtype(d: Domain) -> str:
    """The dtype a domain means without one: floats ``f32``, ``Index`` and unbounded
    integers ``i64``, ``Mask`` ``bool``."""
    return {"Index": "i64", "Int": "i64", "Mask": "bool"}.get(d.kind, "f32")


# Float dtypes each float dtype converts to without losing positive values to 0.
_HOLDS_TINY = {"f16": {"f16", "bf16", "f32", "f64"}, "bf16": {"bf16", "f32", "f64"},
               "f32": {"f32", "f64"}, "f64": {"f64"}, "Float": {"f64"}}
_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "Float": 64}


def _is_float(t: str) -> bool:
    return t in FLOAT_DTYPES or t == "Float"


def _is_int(t: str) -> bool:
    return t in INT_DTYPES or t == "Int"


def _dtype_domain(src_dtype: str, d: Domain, dst: str) -> Domain:
    """The domain kept by a dtype-only conversion."""
    if dst == "bool":
        return MASK
    if _is_float(dst):
        if d.kind == "Mask":
            return Domain("Unit")
        if d.kind == "Index" or src_dtype == "u8" and d.kind == "Int":
            return Domain("NonNeg")
        if d.kind == "Int":
            return REAL
        if d.kind == "Pos" and _is_float(src_dtype) and dst not in _HOLDS_TINY[src_dtype]:
            return Domain("NonNeg")  # tiny positives may round to 0
        return d
    # to an integer dtype
    if _is_float(src_dtype) or d.kind == "Mask":
        return NOBOUND
    if d.kind == "Index" and dst not in ("i32", "i64", "Int"):
        return NOBOUND  # the bound may not fit the narrower type
    return d


def convert(src_dtype: str, src_domain: Domain, target_dtype: str | None = None,
            target_domain: Domain | None = None,
            prove_le: ProveLe | None = None) -> tuple[str, Domain, tuple[tuple, ...]]:
    """``x to T`` for ``x: src_dtype src_domain``; ``T`` is a dtype, a domain or both.

    Returns ``(dtype, domain, ops)``; ``ops`` are the run-time steps in order:

    - ``("cast", dtype)``: ``x.to(torch.<dtype>)``;
    - ``("div", 255)``: ``x / 255`` (``u8`` pixels to ``Unit``);
    - ``("affine", a, b)``: ``a * x + b`` (``("affine", 2, -1)`` is ``to Signed``,
      ``("affine", 0.5, 0.5)`` is ``Signed`` to ``Unit``).

    An empty tuple is a no-op (``to`` the dtype and a domain the value already has).
    Other conversions are ``Fail("E0702")`` with a help naming the way to write it.

    >>> convert("u8", NOBOUND, None, Domain("Unit"))
    ('f32', Domain(kind='Unit', ...), (('cast', 'f32'), ('div', 255)))
    """
    if target_domain is None:
        if target_dtype is None:
            raise ValueError("convert needs a target dtype or domain")
        ops = () if target_dtype == src_dtype else (("cast", target_dtype),)
        return target_dtype, _dtype_domain(src_dtype, src_domain, target_dtype), ops
    return _to_domain(src_dtype, src_domain, target_dtype, target_domain, prove_le)


def _no_conversion(src_dtype: str, src_domain: Domain, target_domain: Domain, help: str) -> Fail:
    what = f"`{src_dtype}`" if src_domain.kind == "Int" else f"`{src_dtype} {src_domain}`"
    return Fail(ec.E0702, f"no conversion from {what} to `{target_domain}`",
                "no such conversion", help=help)


def _to_domain(src_dtype: str, src_domain: Domain, dtype: str | None, target_domain: Domain,
               prove_le: ProveLe | None) -> tuple[str, Domain, tuple[tuple, ...]]:
    """``to`` a domain, maybe with a dtype: the cases in their order of precedence."""
    tk = target_domain.kind

    def fail(help: str) -> Fail:
        return _no_conversion(src_dtype, src_domain, target_domain, help)

    if tk in ("Mask", "Index", "Int"):
        if tk == "Mask":
            raise fail("compare to get a `Mask`, e.g. `x > 0`, or convert with `to bool`")
        if tk == "Index":
            raise fail(f"assert the bound with `as … Index[{target_domain.index}]`; "
                       "it is checked at run time")
        raise fail("convert to an integer dtype, e.g. `to i64`")
    # A float domain.
    if dtype is not None and not _is_float(dtype):
        raise fail(f"`{target_domain}` needs a float dtype, e.g. `to f32 {target_domain}`")
    sk = src_domain.kind
    src_float = _is_float(src_dtype)

    if src_float and is_subdomain(src_domain, target_domain, prove_le):
        # Widening, or already there: only a cast, if any.
        out = dtype or src_dtype
        ops = () if out == src_dtype else (("cast", out),)
        kept = _dtype_domain(src_dtype, src_domain, out)
        return out, (target_domain if is_subdomain(kept, target_domain, prove_le) else kept), ops

    if src_dtype == "u8" and sk not in ("Mask", "Index"):
        if tk == "Unit":
            out = dtype or "f32"
            return out, Domain("Unit"), (("cast", out), ("div", 255))
        if tk == "Signed":
            raise fail("write `to Unit |> to Signed`")

    if not src_float:
        out = dtype or "f32"
        kept = _dtype_domain(src_dtype, src_domain, out)
        if is_subdomain(kept, target_domain, prove_le):
            return out, target_domain, (("cast", out),)
        if src_dtype == "u8":
            raise fail(f"write `to Unit`, then assert `{target_domain}` with `as` "
                       "(checked at run time)")
        raise fail(f"convert the dtype first (`to f32`), then assert `{target_domain}` "
                   "with `as` (checked at run time)")
    return _float_to_float(src_dtype, src_domain, dtype or src_dtype, target_domain)


def _float_to_float(src_dtype: str, src_domain: Domain, out: str,
                    target_domain: Domain) -> tuple[str, Domain, tuple[tuple, ...]]:
    """A float to a float domain: the interval maps of the table, else what to write."""
    tk, sk = target_domain.kind, src_domain.kind
    affine: tuple[str, float, float] | None = None
    if tk == "Signed" and is_subdomain(src_domain, Domain("Unit")):
        affine = ("affine", 2, -1)
    elif tk == "Unit" and sk == "Signed":
        affine = ("affine", 0.5, 0.5)
    if affine is not None:
        if out == src_dtype:
            ops: tuple[tuple, ...] = (affine,)
        elif _BITS.get(out, 32) >= _BITS.get(src_dtype, 32):
            ops = (("cast", out), affine)  # compute in the wider dtype
        else:
            ops = (affine, ("cast", out))
        return out, Domain(tk), ops

    def fail(help: str) -> Fail:
        return _no_conversion(src_dtype, src_domain, target_domain, help)

    if tk in ("Prob", "LogProb"):
        fn = "softmax" if tk == "Prob" else "log_softmax"
        raise fail(f"use `{fn}(x, over={target_domain.over})`")
    if tk == "Unit":
        raise fail("`to` never clamps: assert it with `as Unit` (checked at run time), "
                   "or squash it with `sigmoid`")
    if tk == "Signed":
        if sk in ("Real", "NonNeg", "Pos", "Logit", "LogProb"):
            raise fail("`to` never clamps: assert it with `as Signed` (checked at run "
                       "time), or squash it with `tanh`")
    raise fail(f"assert it with `as {target_domain}` (checked at run time)")
