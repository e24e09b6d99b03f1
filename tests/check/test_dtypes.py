"""Dtype promotion (DECISIONS §8) and reduction dtypes (§15), checked against torch."""

from __future__ import annotations

import itertools

import pytest
import torch

from shapescript.check.dtypes import promote, reduction_dtype, result_dtype
from shapescript.check.fail import Fail
from shapescript.check.sizes import Size
from shapescript.check.types import (
    BOOL, DTYPES, FLOAT, INT, NOBOUND, REAL, STR, Axis, HostType, TensorType,
)

n = Axis(Size.var("n"), Size.var("n"))
TORCH = {"bool": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16,
         "i32": torch.int32, "i64": torch.int64, "f16": torch.float16,
         "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64}
NAME = {v: k for k, v in TORCH.items()}


def vec(dtype: str) -> TensorType:
    return TensorType((n,), dtype, REAL)


def zero(dtype: str) -> TensorType:
    return TensorType((), dtype, REAL)


def lit(v) -> HostType:
    name = {bool: "bool", int: "int", float: "float"}[type(v)]
    return HostType(name, value=v)


def code(e: pytest.ExceptionInfo) -> str:
    return e.value.code


# -- the examples of DECISIONS §8 ------------------------------------------------


def test_spec_examples():
    assert result_dtype(">", vec("u8"), lit(0.5)) == "bool"
    assert result_dtype("/", vec("i64"), vec("i64")) == "f32"
    assert result_dtype("+", zero("i64"), lit(1.0)) == "f32"
    assert result_dtype("*", vec("bf16"), zero("f32")) == "bf16"
    assert result_dtype("*", vec("bf16"), vec("f32")) == "f32"


def test_promote_is_result_type():
    assert promote(vec("u8"), lit(300)) == "u8"
    assert promote(vec("u8"), vec("i8")) == "i16"
    assert promote(vec("f16"), vec("bf16")) == "f32"
    assert promote(vec("i32"), zero("f64")) == "f64"
    assert promote(vec("bool"), lit(1.5)) == "f32"
    assert promote(zero("bool"), zero("i8")) == "i8"


@pytest.mark.parametrize("ka,kb", list(itertools.product(["dim", "zero", "host"], repeat=2)))
def test_every_pair_matches_torch(ka, kb):
    """Every dtype pair in every priority group against ``torch.result_type``."""
    hosts = {"bool": True, "i64": 3, "f32": 2.5}

    def make(kind, dt):
        if kind == "dim":
            return vec(dt), torch.zeros(2, dtype=TORCH[dt])
        if kind == "zero":
            return zero(dt), torch.zeros((), dtype=TORCH[dt])
        return lit(hosts[dt]), hosts[dt]

    da = DTYPES if ka != "host" else tuple(hosts)
    db = DTYPES if kb != "host" else tuple(hosts)
    for x, y in itertools.product(da, db):
        if ka == kb == "host":
            continue
        (ta, va), (tb, vb) = make(ka, x), make(kb, y)
        if not isinstance(va, torch.Tensor):
            expect = torch.result_type(vb, va)
        else:
            expect = torch.result_type(va, vb)
        assert promote(ta, tb) == NAME[expect], (ka, x, kb, y)


def test_true_division_gives_default_float():
    for dt in ("bool", "u8", "i32", "i64"):
        got = result_dtype("/", vec(dt), vec(dt))
        t = torch.zeros(2, dtype=TORCH[dt]) + 1
        assert got == NAME[(t / t).dtype] == "f32"
    assert result_dtype("/", vec("f16"), lit(2)) == "f16"
    assert result_dtype("//", vec("i32"), lit(2)) == "i32"


def test_comparisons_and_logic():
    assert result_dtype("==", vec("f32"), vec("i64")) == "bool"
    assert result_dtype("and", vec("bool"), BOOL) == "bool"
    assert result_dtype("not", vec("bool")) == "bool"
    with pytest.raises(Fail) as e:
        result_dtype("and", vec("f32"), vec("bool"))
    assert code(e) == "E0404" and "x > 0" in e.value.help


def test_host_only():
    assert result_dtype("+", INT, INT) == "int"
    assert result_dtype("/", INT, INT) == "float"
    assert result_dtype("*", INT, FLOAT) == "float"
    assert result_dtype("<", INT, FLOAT) == "bool"
    assert result_dtype("-", INT) == "int"
    with pytest.raises(Fail) as e:
        result_dtype("+", STR, INT)
    assert code(e) == "E0404"


def test_mask_subtraction_is_rejected_like_torch():
    with pytest.raises(RuntimeError):
        torch.ones(2, dtype=torch.bool) - torch.ones(2, dtype=torch.bool)
    for args in ((vec("bool"), vec("bool")), (vec("bool"),), (vec("bool"), BOOL)):
        with pytest.raises(Fail) as e:
            result_dtype("-", *args)
        assert code(e) == "E0404"
    assert result_dtype("+", vec("bool"), vec("bool")) == "bool"
    assert result_dtype("-", vec("bool"), lit(1)) == "i64"


def test_matmul_needs_one_dtype():
    assert result_dtype("@", vec("bf16"), vec("bf16")) == "bf16"
    with pytest.raises(Fail) as e:
        result_dtype("@", vec("f32"), vec("bf16"))
    assert code(e) == "E0404" and "to" in e.value.help
    with pytest.raises(Fail) as e:
        result_dtype("@", vec("f32"), FLOAT)
    assert code(e) == "E0410"


# -- signature classes -------------------------------------------------------------


def test_float_class_combines_with_hosts_and_itself():
    assert result_dtype("*", vec("Float"), lit(2.0)) == "Float"
    assert result_dtype("+", vec("Float"), lit(1)) == "Float"
    assert result_dtype("+", vec("Float"), vec("Float")) == "Float"
    assert result_dtype("/", vec("Float"), zero("Float")) == "Float"
    assert result_dtype(">", vec("Float"), lit(0.0)) == "bool"
    for other in (vec("f32"), zero("f32"), vec("bf16"), vec("i64"), vec("bool")):
        with pytest.raises(Fail) as e:
            result_dtype("+", vec("Float"), other)
        assert code(e) == "E0404" and "Float" in e.value.message


def test_int_class():
    assert result_dtype("+", vec("Int"), lit(1)) == "Int"
    assert result_dtype("+", vec("Int"), lit(0.5)) == "f32"
    assert result_dtype("/", vec("Int"), vec("Int")) == "f32"
    with pytest.raises(Fail):
        result_dtype("+", vec("Int"), vec("i64"))
    with pytest.raises(Fail):
        result_dtype("+", vec("Int"), vec("Float"))


# -- reductions -------------------------------------------------------------------


@pytest.mark.parametrize("dt", ["bool", "u8", "i32", "i64", "f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "mean", "logsumexp", "argmax"])
def test_reduction_dtype_matches_torch(op, dt):
    t = torch.ones(3, dtype=TORCH[dt])
    fn = {"logsumexp": lambda x: torch.logsumexp(x, 0), "max": lambda x: x.max(0).values,
          "min": lambda x: x.min(0).values}.get(op, lambda x: getattr(torch, op)(x, 0))
    try:
        expect = NAME[fn(t).dtype]
    except RuntimeError:
        expect = None
    try:
        got = reduction_dtype(op, dt)
    except Fail as e:
        assert e.code in ("E0411", "E0404")
        got = None
    if op == "mean" and dt == "bool":
        assert got == "f32"  # §15: the mean of a Mask is an f32 fraction
    else:
        assert got == expect, (op, dt)


def test_var_std_need_floats():
    assert reduction_dtype("var", "bf16") == "bf16"
    for dt in ("i64", "bool", "Int"):
        with pytest.raises(Fail) as e:
            reduction_dtype("std", dt)
        assert code(e) == "E0411" and "to f32" in e.value.help
    assert reduction_dtype("sum", "Float") == "Float"
    assert reduction_dtype("sum", "Int") == "i64"
    assert NOBOUND.kind == "Int"
