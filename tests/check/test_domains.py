"""Domains: the lattice, joins, the result table of DECISIONS §7, conversions (§14)."""

from __future__ import annotations

import itertools

import pytest
import torch

from shapescript.check.domains import (
    binop_domain, check_class_over, convert, default_dtype, host_domains, is_subdomain,
    join, literal_domains, reduction_domain,
)
from shapescript.check.fail import Fail
from shapescript.check.sizes import Size
from shapescript.check.types import MASK, NOBOUND, REAL, Domain, HostType

V, K = Size.var, Size.const
C, A, n, b = V("C"), V("A"), V("n"), V("b")
Pos, NonNeg, Unit, Signed, Real = (Domain(k) for k in ("Pos", "NonNeg", "Unit", "Signed", "Real"))
LogitC, LogProbC, ProbC = Domain("Logit", over=C), Domain("LogProb", over=C), Domain("Prob", over=C)
ProbA = Domain("Prob", over=A)


def Index(x) -> Domain:
    return Domain("Index", index=K(x) if isinstance(x, int) else x)


def prove_le(x: Size, y: Size) -> bool:
    d = (y - x).const_value
    return x == y or (d is not None and d >= 0)


def lit(v) -> HostType:
    return HostType({bool: "bool", int: "int", float: "float"}[type(v)], value=v)


PARAM = HostType("float")            # a host variable: Real
GENERIC = HostType("int", domain="Pos")  # a generic used as a value


# -- subtyping --------------------------------------------------------------------

IS_ALSO = [  # the "is also" column of LANGUAGE §4.1, and its closure
    (NonNeg, Real), (Pos, NonNeg), (Pos, Real), (Unit, NonNeg), (Unit, Real),
    (Signed, Real), (LogitC, Real), (LogProbC, LogitC), (LogProbC, Real),
    (ProbC, Unit), (ProbC, NonNeg), (ProbC, Real),
]
NOT = [
    (Unit, Signed), (Signed, Unit), (Real, NonNeg), (NonNeg, Pos), (Unit, Pos), (Pos, Unit),
    (Signed, NonNeg), (LogitC, LogProbC), (LogitC, Domain("Logit", over=A)), (ProbC, ProbA),
    (ProbC, Pos), (Unit, ProbC), (Real, LogitC), (MASK, Unit), (Unit, MASK), (Index(4), Pos),
]


@pytest.mark.parametrize("a,b", IS_ALSO)
def test_is_also(a, b):
    assert is_subdomain(a, b)


@pytest.mark.parametrize("a,b", NOT)
def test_not_subdomain(a, b):
    assert not is_subdomain(a, b)


def test_reflexive_and_tops():
    for d in (Pos, NonNeg, Unit, Signed, Real, LogitC, ProbC, MASK, NOBOUND, Index(3)):
        assert is_subdomain(d, d)
    assert is_subdomain(Index(4), NOBOUND)
    assert is_subdomain(NOBOUND, REAL) and is_subdomain(REAL, NOBOUND)  # both "no bound"


def test_index_bounds():
    assert is_subdomain(Index(3), Index(4), prove_le)
    assert not is_subdomain(Index(5), Index(4), prove_le)
    assert is_subdomain(Index(n), Index(n + 1), prove_le)
    assert not is_subdomain(Index(n), Index(b), prove_le)
    assert not is_subdomain(Index(3), Index(4))  # without a prover only equality


def test_real_value_accepted_as_logit_with_one_class_axis():
    assert is_subdomain(Real, LogitC, labels=[b, C])
    assert is_subdomain(NonNeg, LogitC, labels=[b, C])  # NonNeg is Real
    assert not is_subdomain(Real, LogitC)  # no labels given: no claim
    for labels in ([b, n], [C, C]):
        with pytest.raises(Fail) as e:
            is_subdomain(Real, LogitC, labels=labels)
        assert e.value.code == "E0705"
    assert not is_subdomain(Index(4), LogitC, labels=[C])


def test_mask_is_bool_only():
    assert is_subdomain(MASK, MASK)
    assert not is_subdomain(MASK, REAL) and not is_subdomain(MASK, NOBOUND)


# -- joins ------------------------------------------------------------------------


@pytest.mark.parametrize("a,b,j", [
    (Pos, Unit, NonNeg), (Unit, Signed, Real), (Pos, Pos, Pos), (Pos, NonNeg, NonNeg),
    (Signed, Pos, Real), (ProbC, Pos, NonNeg), (ProbC, ProbA, Unit), (LogProbC, LogitC, LogitC),
    (LogProbC, Domain("LogProb", over=A), Real), (LogitC, Unit, Real), (ProbC, Unit, Unit),
    (MASK, MASK, MASK), (Index(3), NOBOUND, NOBOUND),
])
def test_join(a, b, j):
    assert join(a, b) == j
    assert join(b, a) == j


def test_join_index():
    assert join(Index(3), Index(5), prove_le) == Index(5)
    assert join(Index(n), Index(b), prove_le) == NOBOUND


def test_join_is_an_upper_bound_and_least():
    ds = [Pos, NonNeg, Unit, Signed, Real, LogitC, LogProbC, ProbC, ProbA]
    for a, b in itertools.product(ds, repeat=2):
        j = join(a, b)
        assert is_subdomain(a, j) and is_subdomain(b, j)
        for u in ds:  # any other upper bound is above the join
            if is_subdomain(a, u) and is_subdomain(b, u):
                assert is_subdomain(j, u), (a, b, j, u)


# -- sign facts ---------------------------------------------------------------------


def test_literal_domains():
    assert literal_domains(0.5) == {"Pos", "Unit", "NonNeg", "Signed", "Real"}
    assert literal_domains(0) == {"Unit", "NonNeg", "Signed", "Real"}
    assert literal_domains(2) == {"Pos", "NonNeg", "Real"}
    assert literal_domains(-0.5) == {"Signed", "Real"}
    assert literal_domains(-3) == {"Real"}
    assert host_domains(GENERIC) == {"Pos", "NonNeg", "Real"}
    assert host_domains(PARAM) == {"Real"}
    assert host_domains(HostType("int", value=32, domain="Pos")) == {"Pos", "NonNeg", "Real"}


# -- the result table of DECISIONS §7 -----------------------------------------------

TABLE = [
    # a + b
    ("+", Pos, NonNeg, Pos), ("+", NonNeg, Pos, Pos), ("+", Pos, Pos, Pos),
    ("+", NonNeg, NonNeg, NonNeg), ("+", Unit, Unit, NonNeg), ("+", Pos, Unit, Pos),
    ("+", Pos, Real, Real), ("+", Signed, Signed, Real), ("+", Pos, lit(1e-5), Pos),
    ("+", Real, lit(1e-5), Real),   # norm's `var + eps` with a Real var
    ("+", NonNeg, PARAM, Real),      # eps is a parameter: unsigned
    ("+", NonNeg, lit(1e-5), Pos),
    ("-", Pos, Pos, Real),
    # a * b
    ("*", Pos, Pos, Pos), ("*", Unit, Unit, Unit), ("*", NonNeg, NonNeg, NonNeg),
    ("*", Signed, Signed, Signed), ("*", Unit, Signed, Signed), ("*", Signed, Unit, Signed),
    ("*", Pos, Unit, NonNeg), ("*", Pos, Signed, Real), ("*", ProbC, ProbC, Unit),
    ("*", Unit, lit(0.5), Unit), ("*", Pos, lit(0.5), Pos), ("*", Signed, lit(0.5), Signed),
    ("*", Unit, lit(1), Unit), ("*", Signed, lit(-1), Signed), ("*", Unit, lit(-1), Signed), ("*", Pos, lit(-2), Real), ("*", MASK, Unit, Unit),
    ("*", Pos, GENERIC, Pos),
    # a / b, a ** b
    ("/", Pos, Pos, Pos), ("/", NonNeg, Pos, NonNeg), ("/", Unit, Pos, NonNeg),
    ("/", Pos, NonNeg, Real), ("/", Real, Pos, Real), ("/", NonNeg, GENERIC, NonNeg),
    ("**", Pos, Real, Pos), ("**", NonNeg, Real, NonNeg), ("**", Real, lit(2), NonNeg),
    ("**", Real, lit(3), Real), ("**", Real, lit(2.0), Real), ("**", Unit, lit(0.5), NonNeg),
    # %, @
    ("%", Real, Pos, NonNeg), ("%", Real, lit(3), NonNeg), ("%", Real, Real, Real),
    ("@", NonNeg, NonNeg, NonNeg), ("@", Pos, Unit, NonNeg), ("@", Real, NonNeg, Real),
    # comparisons
    ("<", Real, Real, MASK), ("==", Index(4), lit(2), MASK), ("and", MASK, MASK, MASK),
]


@pytest.mark.parametrize("op,a,b,r", TABLE)
def test_table(op, a, b, r):
    assert binop_domain(op, a, b) == r


def test_unary_minus():
    assert binop_domain("-", Signed) == Signed
    assert binop_domain("-", Pos) == Real
    assert binop_domain("-", Unit) == Real


def test_index_arithmetic_drops_the_bound():
    assert binop_domain("+", Index(4), lit(1), result_dtype="i64") == NOBOUND
    assert binop_domain("*", Index(4), lit(0.5), result_dtype="f32") == Real
    assert binop_domain("+", NOBOUND, NOBOUND, result_dtype="u8") == NOBOUND
    assert binop_domain("+", MASK, MASK, result_dtype="bool") == MASK


def test_table_is_sound_on_samples():
    """Sample values of each domain; the result must lie in the claimed domain."""
    samples = {
        "Pos": [1e-3, 0.5, 1.0, 7.0], "NonNeg": [0.0, 0.25, 3.0], "Unit": [0.0, 0.3, 1.0],
        "Signed": [-1.0, -0.2, 0.0, 1.0], "Real": [-5.0, 0.0, 2.5],
    }
    ok = {"Pos": lambda v: v > 0, "NonNeg": lambda v: v >= 0, "Unit": lambda v: 0 <= v <= 1,
          "Signed": lambda v: -1 <= v <= 1, "Real": lambda v: True}
    ops = {"+": torch.add, "*": torch.mul, "/": torch.div, "%": torch.remainder,
           "**": torch.pow}
    for op, (ka, kb) in itertools.product(ops, itertools.product(samples, repeat=2)):
        r = binop_domain(op, Domain(ka), Domain(kb)).kind
        for x, y in itertools.product(samples[ka], samples[kb]):
            v = ops[op](torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64))
            if v.isnan():
                assert r == "Real", (op, ka, kb, x, y)  # NaN lies only in Real
            else:
                assert ok[r](v.item()), (op, ka, kb, x, y, v, r)


# -- reductions -------------------------------------------------------------------


@pytest.mark.parametrize("op,d,r", [
    ("sum", Pos, Pos), ("sum", NonNeg, NonNeg), ("sum", Unit, NonNeg), ("sum", ProbC, NonNeg),
    ("sum", Signed, Real), ("sum", MASK, NOBOUND), ("sum", Index(4), NOBOUND),
    ("mean", Pos, Pos), ("mean", Unit, Unit), ("mean", Signed, Signed), ("mean", ProbC, Unit),
    ("mean", MASK, Unit), ("mean", LogitC, Real),
    ("max", Real, Real), ("max", Signed, Signed), ("max", ProbC, Unit), ("max", MASK, MASK),
    ("min", Pos, Pos), ("max", LogProbC, Real), ("max", Index(4), Index(4)),
    ("prod", Pos, Pos), ("prod", Unit, Unit), ("prod", Signed, Signed), ("prod", ProbC, Unit),
    ("var", Real, NonNeg), ("std", Signed, NonNeg), ("logsumexp", Pos, Real),
])
def test_reductions(op, d, r):
    # var and std reduce 8 elements here: over fewer than 2 they are NaN, so `Real`.
    assert reduction_domain(op, d, count=Size.const(8)) == r


def test_argmax_gives_index_of_axis():
    assert reduction_domain("argmax", LogitC, axis_size=K(4)) == Index(4)
    assert reduction_domain("argmin", Real, axis_size=n) == Index(n)


def test_class_axis_reductions_need_over():
    assert reduction_domain("sum", ProbC, check_over=True, over=[C]) == NonNeg
    for over in ([n], None, [C, n]):
        with pytest.raises(Fail) as e:
            reduction_domain("mean", LogitC, check_over=True, over=over)
        assert e.value.code == "E0704" and "as Real" in e.value.help
    check_class_over(Real, [n], "sum")  # not a class domain: anything goes


# -- conversions (DECISIONS §14) ----------------------------------------------------


def run_ops(x: torch.Tensor, ops) -> torch.Tensor:
    dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "f64": torch.float64, "i64": torch.int64, "bool": torch.bool, "u8": torch.uint8}
    for op in ops:
        if op[0] == "cast":
            x = x.to(dt[op[1]])
        elif op[0] == "div":
            x = x / op[1]
        elif op[0] == "affine":
            x = op[1] * x + op[2]
    return x


def test_u8_to_unit():
    dtype, dom, ops = convert("u8", NOBOUND, None, Unit)
    assert (dtype, dom) == ("f32", Unit)
    px = torch.tensor([0, 128, 255], dtype=torch.uint8)
    got = run_ops(px, ops)
    assert got.dtype == torch.float32 and torch.equal(got, px.float() / 255)
    dtype, dom, ops = convert("u8", NOBOUND, "f16", Unit)
    assert (dtype, dom) == ("f16", Unit)
    assert torch.equal(run_ops(px, ops), px.to(torch.float16) / 255)


def test_unit_signed_round_trip():
    dtype, dom, ops = convert("f32", Unit, None, Signed)
    assert (dtype, dom, ops) == ("f32", Signed, (("affine", 2, -1),))
    u = torch.tensor([0.0, 0.25, 1.0])
    assert torch.equal(run_ops(u, ops), 2 * u - 1)
    dtype, dom, back = convert("f32", Signed, None, Unit)
    assert (dtype, dom, back) == ("f32", Unit, (("affine", 0.5, 0.5),))
    assert torch.equal(run_ops(run_ops(u, ops), back), u)
    # Prob is Unit, so it converts too; with a dtype, computed in the wider one
    assert convert("f32", ProbC, None, Signed)[1] == Signed
    assert convert("f16", Unit, "f32", Signed)[2] == (("cast", "f32"), ("affine", 2, -1))
    assert convert("f32", Unit, "bf16", Signed)[2] == (("affine", 2, -1), ("cast", "bf16"))


@pytest.mark.parametrize("src,dom,dst,expect", [
    ("i64", Index(4), "f32", NonNeg), ("u8", NOBOUND, "f32", NonNeg), ("bool", MASK, "f16", Unit),
    ("i64", NOBOUND, "f32", Real), ("f32", Pos, "i64", NOBOUND), ("f32", Unit, "bf16", Unit),
    ("f32", ProbC, "f16", ProbC), ("f32", Pos, "f64", Pos), ("f32", Pos, "f16", NonNeg),
    ("i64", Index(4), "i32", Index(4)), ("i64", Index(4), "u8", NOBOUND),
    ("f32", Real, "bool", MASK), ("bool", MASK, "i64", NOBOUND),
])
def test_dtype_conversions(src, dom, dst, expect):
    dtype, d, ops = convert(src, dom, dst)
    assert dtype == dst and d == expect and ops == (("cast", dst),)


def test_same_dtype_is_a_no_op():
    assert convert("f32", Pos, "f32") == ("f32", Pos, ())
    assert convert("f32", Pos, None, Real) == ("f32", Real, ())
    assert convert("f32", ProbC, None, Unit) == ("f32", Unit, ())
    assert convert("f32", Pos, "f16", Pos)[:2] == ("f16", NonNeg)  # tiny values may flush


def test_mask_and_index_to_float_domains():
    assert convert("bool", MASK, None, Unit) == ("f32", Unit, (("cast", "f32"),))
    assert convert("i64", Index(4), None, NonNeg) == ("f32", NonNeg, (("cast", "f32"),))
    assert convert("u8", NOBOUND, "f32", Real)[:2] == ("f32", Real)


@pytest.mark.parametrize("src,dom,dst_dtype,dst,hint", [
    ("u8", NOBOUND, None, Signed, "to Unit |> to Signed"),
    ("f32", Real, None, Unit, "never clamps"),
    ("f32", Pos, None, Unit, "sigmoid"),
    ("f32", Real, None, Signed, "tanh"),
    ("f32", LogitC, None, ProbC, "softmax(x, over=C)"),
    ("f32", Real, None, LogProbC, "log_softmax"),
    ("f32", Unit, None, Pos, "as Pos"),
    ("i64", NOBOUND, None, Unit, "to f32"),
    ("f32", Real, None, MASK, "x > 0"),
    ("f32", Real, None, Index(4), "Index[4]"),
    ("f32", Unit, "i64", Signed, "float dtype"),
    ("u8", NOBOUND, None, Pos, "to Unit"),
])
def test_conversion_errors(src, dom, dst_dtype, dst, hint):
    with pytest.raises(Fail) as e:
        convert(src, dom, dst_dtype, dst)
    assert e.value.code == "E0702"
    assert hint in e.value.help, e.value.help
    assert e.value.message.startswith("no conversion from")


def test_default_dtype():
    assert default_dtype(Real) == "f32" and default_dtype(ProbC) == "f32"
    assert default_dtype(Index(4)) == "i64" and default_dtype(MASK) == "bool"


def test_conversion_messages():
    with pytest.raises(Fail) as e:
        convert("f32", Real, None, Unit)
    assert e.value.message == "no conversion from `f32 Real` to `Unit`"
    with pytest.raises(Fail) as e:
        convert("u8", NOBOUND, None, Signed)
    assert e.value.message == "no conversion from `u8` to `Signed`"
    assert e.value.help == "write `to Unit |> to Signed`"
