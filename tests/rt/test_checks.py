"""The run-time checks of checked entry points and ``as``: DECISIONS §7, §10, §14, §20.

Each message is compared exactly. The fast (generated) checkers and the slow path that
writes the messages must accept and reject exactly the same calls: a property test
compares them on random specs and shapes.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript import rt
from shapescript.rt import (DeviceError, DomainError, DomainSpec, HostSpec, ModelSpec,
                            ShapeError, TensorSpec)

S = TensorSpec


@pytest.fixture(autouse=True)
def _no_devices():
    rt.reset_devices()
    yield
    rt.reset_devices()


def fail(specs, args, exc=ShapeError, **kw):
    with pytest.raises(exc) as info:
        rt.check_args(specs, args, **kw)
    # the slow path alone says the same
    with pytest.raises(exc) as again:
        rt.check_args_slow(specs, args, **kw)
    assert str(info.value) == str(again.value)
    return str(info.value)


X = S("x", "tokens.ss:3:10", "[b n D]", ("b", "n", 32), "f32")
W = S("w", "tokens.ss:3:22", "[D]", (32,), "f32")


# -- the messages of DECISIONS §20, exactly ------------------------------------------------
def test_rank_and_static_size_message():
    assert fail((X,), (torch.zeros(2, 3, 4),)) == (
        "tokens.ss:3:10: x: expected [b n D] = (b, n, 32), got shape (2, 3, 4)")
    assert fail((X,), (torch.zeros(2, 32),)) == (
        "tokens.ss:3:10: x: expected [b n D] = (b, n, 32), got shape (2, 32)")


def test_generic_bound_by_an_earlier_argument():
    x = S("x", "pairs.ss:4:10", "[n D]", ("n", 32), "f32")
    m = S("m", "pairs.ss:4:22", "[n D]", ("n", 32), "f32")
    assert fail((x, m), (torch.zeros(3, 32), torch.zeros(4, 32))) == (
        "pairs.ss:4:22: n is 3 in x but 4 in m")


def test_linear_form_not_a_multiple():
    c = S("x", "cells.ss:2:9", "[b 16gh]", ("b", ("lin", "gh", 16, 0, "16gh")), "f32")
    assert fail((c,), (torch.zeros(2, 40),)) == (
        "cells.ss:2:9: x: expected [b 16gh] = (b, 16gh), got shape (2, 40): "
        "40 is not a multiple of 16")
    assert rt.check_args((c,), (torch.zeros(2, 48),))["gh"] == 3


def test_dtype_message():
    assert fail((X,), (torch.zeros(2, 3, 32, dtype=torch.float16),)) == (
        "tokens.ss:3:10: x: expected dtype f32, got torch.float16")


def test_declared_device_message():
    msg = fail((X,), (torch.zeros(2, 3, 32),), DeviceError, device=torch.device("cuda:0"))
    assert msg == "tokens.ss:3:10: x is on cpu, expected cuda:0"


def test_shared_device_message():
    w = S("w", "tokens.ss:3:22", "[D]", (32,), "f32")
    x = S("x", "tokens.ss:3:10", "[b n D]", ("b", "n", 32), "f32")
    msg = fail((x, w), (torch.zeros(2, 3, 32), torch.zeros(32, device="meta")), DeviceError)
    assert msg == "tokens.ss:3:22: w is on meta but x is on cpu"
    msg = fail((x, w), (torch.zeros(2, 3, 32, device="meta"), torch.zeros(32)), DeviceError)
    assert msg == "tokens.ss:3:22: w is on cpu but x is on meta"


def test_domain_message():
    p = S("p", "head.ss:6:12", "[b C] Prob over C", ("b", 4), "f32",
          DomainSpec("Prob", over=1, label="C"))
    probs = torch.softmax(torch.randn(6, 4, generator=torch.Generator().manual_seed(0)), 1)
    probs[4] = torch.tensor([0.5, 0.2, 0.13, 0.1])
    assert fail((p,), (probs,), DomainError) == (
        "head.ss:6:12: p: expected Prob over C, got a sum of 0.93 over C at (4,)")


def test_as_message_has_no_parameter_name():
    spec = S("", "spotter.ss:86:25", "[P*P D]", (16, 48), "f32")
    with pytest.raises(ShapeError) as info:
        rt.check_as(torch.zeros(16, 32), spec, {})
    assert str(info.value) == "spotter.ss:86:25: expected [P*P D] = (16, 48), got shape (16, 32)"


# -- every kind of check --------------------------------------------------------------------
def test_ok_returns_the_bindings_and_device():
    env = rt.check_args((X, W), (torch.zeros(2, 3, 32), torch.zeros(32)))
    assert env == {"b": 2, "n": 3, "__device__": torch.device("cpu")}


def test_not_a_tensor_is_a_type_error():
    with pytest.raises(TypeError, match=r"tokens.ss:3:10: x: expected a tensor \[b n D\], got list"):
        rt.check_args((X,), ([1, 2],))


def test_repeated_generic_in_one_argument():
    sq = S("a", "m.ss:1:7", "[n n]", ("n", "n"), "f32")
    rt.check_args((sq,), (torch.zeros(3, 3),))
    assert fail((sq,), (torch.zeros(3, 4),)) == "m.ss:1:7: a: expected [n n] = (n, n), got shape (3, 4)"


def test_expected_tuple_shows_sizes_bound_by_earlier_arguments():
    a = S("a", "m.ss:1:7", "[n D]", ("n", 32), "f32")
    b = S("b", "m.ss:1:18", "[k n D]", ("k", "n", 32), "f32")
    assert fail((a, b), (torch.zeros(3, 32), torch.zeros(2, 3))) == (
        "m.ss:1:18: b: expected [k n D] = (k, 3, 32), got shape (2, 3)")
    lin = S("c", "m.ss:1:30", "[2n]", (("lin", "n", 2, 0, "2n"),), "f32")
    assert fail((a, lin), (torch.zeros(3, 32), torch.zeros(8))) == (
        "m.ss:1:30: c: expected [2n] = (6,), got shape (8,)")


def test_linear_forms_with_offsets_and_below_zero():
    s = S("x", "m.ss:1:7", "[2n+1]", (("lin", "n", 2, 1, "2n+1"),), "f32")
    assert rt.check_args((s,), (torch.zeros(7),))["n"] == 3
    assert fail((s,), (torch.zeros(8),)).endswith(": 8 - 1 is not a multiple of 2")
    neg = S("x", "m.ss:1:7", "[n+3]", (("lin", "n", 1, 3, "n+3"),), "f32")
    assert fail((neg,), (torch.zeros(2),)).endswith("got shape (2,): n would be -1")


def test_size_expressions_are_evaluated_after_binding():
    grow = S("y", "m.ss:1:20", "[n+1 n]", (("expr", "n+1", lambda e: e["n"] + 1), "n"), "f32")
    assert rt.check_args((grow,), (torch.zeros(4, 3),))["n"] == 3
    assert fail((grow,), (torch.zeros(5, 3),)) == (
        "m.ss:1:20: y: expected [n+1 n] = (n+1, n), got shape (5, 3)")
    # bound only by a later argument: checked once everything is bound
    later = S("x", "m.ss:1:7", "[n*n]", (("expr", "n*n", lambda e: e["n"] * e["n"]),), "f32")
    base = S("z", "m.ss:1:16", "[n]", ("n",), "f32")
    rt.check_args((later, base), (torch.zeros(9), torch.zeros(3)))
    assert fail((later, base), (torch.zeros(8), torch.zeros(3))) == (
        "m.ss:1:7: x: expected [n*n] = (9,), got shape (8,)")


def test_variadic_axes_are_the_same_in_every_type():
    a = S("input", "v.ss:1:10", "[... i]", ("...", "i"), "f32")
    b = S("other", "v.ss:1:25", "[...]", ("...",), "f32")
    env = rt.check_args((a, b), (torch.zeros(2, 3, 5), torch.zeros(2, 3)))
    assert env["..."] == (2, 3) and env["i"] == 5
    assert fail((a, b), (torch.zeros(2, 3, 5), torch.zeros(4))) == (
        "v.ss:1:25: ... is (2, 3) in input but (4,) in other")
    assert fail((a,), (torch.zeros(()),)) == (
        "v.ss:1:10: input: expected [... i] = (..., i), got shape ()")
    # ``...`` may be empty
    assert rt.check_args((a, b), (torch.zeros(5), torch.zeros(())))["..."] == ()


def test_existential_sizes():
    q = S("x", "q.ss:1:7", "[?k D]", (("?", "k"), 4), "f32")
    r = S("y", "q.ss:1:20", "[?k]", (("?", "k"),), "f32")
    assert rt.check_args((q, r), (torch.zeros(0, 4), torch.zeros(0)))["?k"] == 0
    assert fail((q, r), (torch.zeros(2, 4), torch.zeros(3))) == "q.ss:1:20: ?k is 2 in x but 3 in y"


def test_float_class_is_consistent_across_the_signature():
    a = S("a", "f.ss:1:7", "[n] Float", ("n",), "Float")
    b = S("b", "f.ss:1:22", "[n] Float", ("n",), "Float")
    env = rt.check_args((a, b), (torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)))
    assert env["Float"] is torch.float64
    assert fail((a, b), (torch.zeros(2), torch.zeros(2, dtype=torch.float16))) == (
        "f.ss:1:22: Float is f32 in a but f16 in b")
    assert fail((a,), (torch.zeros(2, dtype=torch.int64),)) == (
        "f.ss:1:7: a: expected dtype Float, got torch.int64")
    i = S("i", "f.ss:1:7", "[n] Int", ("n",), "Int")
    rt.check_args((i,), (torch.zeros(2, dtype=torch.uint8),))
    assert fail((i,), (torch.zeros(2),)) == "f.ss:1:7: i: expected dtype Int, got torch.float32"


def test_device_declared_process_wide_and_overridden():
    rt.declare_module_device("a.ss", "cpu")
    assert rt.check_args((X,), (torch.zeros(2, 3, 32),))["__device__"] == torch.device("cpu")
    assert fail((X,), (torch.zeros(2, 3, 32, device="meta"),), DeviceError) == (
        "tokens.ss:3:10: x is on meta, expected cpu")
    rt.devices("cuda[0]")                    # the override wins over the file's line
    assert fail((X,), (torch.zeros(2, 3, 32),), DeviceError) == (
        "tokens.ss:3:10: x is on cpu, expected cuda:0")
    rt.devices(None)
    # an explicit ``device=None``: the arguments need only agree
    rt.check_args((X,), (torch.zeros(2, 3, 32, device="meta"),), device=None)
    # a device without an index accepts any index of its type
    rt.check_args((X,), (torch.zeros(2, 3, 32),), device="cpu")


def test_device_check_comes_after_dtype():
    msg = fail((X,), (torch.zeros(2, 3, 32, dtype=torch.float16),), ShapeError,
               device=torch.device("cuda:0"))
    assert "expected dtype f32" in msg


def test_no_tensor_argument_means_the_cpu():
    h = HostSpec("k", "h.ss:1:7", int)
    assert rt.check_args((h,), (3,))["__device__"] == torch.device("cpu")
    rt.check_args((h,), (3,), device=torch.device("meta"))


def test_first_failure_in_argument_order():
    a = S("a", "o.ss:1:7", "[n]", ("n",), "f32")
    b = S("b", "o.ss:1:16", "[n] i64", ("n",), "i64")
    # a's dtype fails before b's shape
    assert "a: expected dtype f32" in fail((a, b), (torch.zeros(2, dtype=torch.int64), torch.zeros(5, 5)))
    # shape before dtype within one argument
    assert "got shape" in fail((a,), (torch.zeros(2, 2, dtype=torch.int64),))


def test_optional_tensors():
    w = S("weight", "o.ss:1:7", "[n] Float", ("n",), "Float", optional=True)
    x = S("x", "o.ss:1:30", "[b n]", ("b", "n"), "f32")
    assert rt.check_args((w, x), (None, torch.zeros(2, 3))) == {
        "b": 2, "n": 3, "__device__": torch.device("cpu")}
    rt.check_args((w, x), (torch.zeros(3), torch.zeros(2, 3)))
    assert fail((w, x), (torch.zeros(4), torch.zeros(2, 3))) == "o.ss:1:30: n is 4 in weight but 3 in x"


# -- host and model parameters ---------------------------------------------------------------
@pytest.mark.parametrize("pytype, good, bad", [
    (int, [0, 3, -1], [1.5, True, "3", None]),
    (float, [1.5, 2, 0], [True, "x", None]),
    (bool, [True, False], [1, 0.0, None]),
    (str, ["a"], [1, None]),
])
def test_host_values(pytype, good, bad):
    h = HostSpec("eps", "h.ss:2:5", pytype)
    for v in good:
        rt.check_args((h,), (v,))
    for v in bad:
        with pytest.raises(TypeError) as info:
            rt.check_args((h,), (v,))
        assert str(info.value) == f"h.ss:2:5: eps: expected {pytype.__name__}, got {type(v).__name__}"


def test_host_optional_and_size_binding():
    h = HostSpec("scale", "h.ss:1:7", float, optional=True)
    rt.check_args((h,), (None,))
    k = HostSpec("shifts", "h.ss:1:7", int, binds="K")
    x = S("x", "h.ss:1:22", "[K]", ("K",), "f32")
    assert rt.check_args((k, x), (3, torch.zeros(3)))["K"] == 3
    assert fail((k, x), (3, torch.zeros(4))) == "h.ss:1:22: K is 3 in shifts but 4 in x"


class FakeModel(torch.nn.Module):
    _ss_field_specs = (
        S("w_e", "mix.ss:4:11", "[P*P D]", (16, 32), "f32"),
        S("norm", "mix.ss:5:11", "[D] Pos", (32,), "f32", "Pos"),
    )

    def __init__(self, w_e, norm):
        super().__init__()
        self.w_e = torch.nn.Parameter(w_e)
        self.norm = torch.nn.Parameter(norm)


class PlainModel:
    _ss_field_specs = FakeModel._ss_field_specs

    def __init__(self, w_e, norm):
        self.w_e, self.norm = w_e, norm


@pytest.mark.parametrize("cls", [FakeModel, PlainModel])
def test_model_fields_are_checked_in_order(cls):
    m = ModelSpec("m", "run.ss:9:8", cls)
    x = S("x", "run.ss:9:20", "[b D]", ("b", 32), "f32")
    ok = cls(torch.zeros(16, 32), torch.ones(32))
    assert rt.check_args((m, x), (ok, torch.zeros(5, 32)))["b"] == 5
    bad = cls(torch.zeros(16, 48), torch.ones(32))
    assert fail((m, x), (bad, torch.zeros(5, 32))) == (
        "mix.ss:4:11: m.w_e: expected [P*P D] = (16, 32), got shape (16, 48)")
    neg = cls(torch.zeros(16, 32), -torch.ones(32))
    assert fail((m,), (neg,), DomainError) == "mix.ss:5:11: m.norm: expected Pos, got -1 at (0,)"
    with pytest.raises(TypeError, match="run.ss:9:8: m: expected a FakeModel, got int"):
        rt.check_args((ModelSpec("m", "run.ss:9:8", FakeModel),), (3,))


def test_model_fields_share_the_device():
    m = ModelSpec("m", "run.ss:9:8", FakeModel)
    x = S("x", "run.ss:9:20", "[b D]", ("b", 32), "f32")
    model = FakeModel(torch.zeros(16, 32), torch.ones(32))
    assert fail((m, x), (model, torch.zeros(5, 32, device="meta")), DeviceError) == (
        "run.ss:9:20: x is on meta but m.w_e is on cpu")


# -- domains -------------------------------------------------------------------------------
def dom(kind, axes=("n",), **kw):
    return S("v", "d.ss:1:7", "[...]", axes, None, DomainSpec(kind, **kw))


@pytest.mark.parametrize("kind, good, bad, shown", [
    ("NonNeg", [0.0, 2.0], [-0.5], "-0.5"),
    ("Pos", [1e-30, 3.0], [0.0], "0"),
    ("Unit", [0.0, 1.0, 0.5], [1.0001], "1"),
    ("Signed", [-1.0, 1.0], [-1.5], "-1.5"),
    ("LogProb", [0.0, -3.0], [0.25], "0.25"),
    ("Prob", [0.0, 1.0], [1.5], "1.5"),
])
def test_interval_domains(kind, good, bad, shown):
    spec = dom(kind)
    for v in good:
        rt.check_args((spec,), (torch.tensor([v, v]),))
    for v in bad:
        msg = fail((spec,), (torch.tensor([good[0], v]),), DomainError)
        assert msg == f"d.ss:1:7: v: expected {kind}, got {shown} at (1,)"


@pytest.mark.parametrize("kind", ["NonNeg", "Pos", "Unit", "Signed", "LogProb", "Prob"])
def test_nan_fails_every_domain_but_real_and_logit(kind):
    good = -0.5 if kind == "LogProb" else 0.5
    msg = fail((dom(kind),), (torch.tensor([good, math.nan]),), DomainError)
    assert msg.endswith("got nan at (1,)")


@pytest.mark.parametrize("kind", ["Real", "Logit", "Mask"])
def test_unchecked_domains(kind):
    rt.check_args((dom(kind),), (torch.tensor([math.nan, -math.inf]),))


def test_values_off_skips_domains():
    rt.check_args((dom("Pos"),), (torch.tensor([-1.0]),), values_on=False)


def test_index_domain():
    spec = S("y", "d.ss:1:7", "[b] Index[C]", ("b",), "i64", DomainSpec("Index", index=4, text="Index[C]"))
    rt.check_args((spec,), (torch.tensor([0, 3, 2]),))
    assert fail((spec,), (torch.tensor([0, 4]),), DomainError) == "d.ss:1:7: y: expected Index[C], got 4 at (1,)"
    assert fail((spec,), (torch.tensor([-1, 0]),), DomainError) == "d.ss:1:7: y: expected Index[C], got -1 at (0,)"
    # a generic bound: the bound of a later argument is known at the end
    ids = S("ids", "d.ss:2:7", "[b] Index[V]", ("b",), "i64", DomainSpec("Index", index="V"))
    table = S("table", "d.ss:2:25", "[V D]", ("V", 4), "f32")
    rt.check_args((ids, table), (torch.tensor([0, 9]), torch.zeros(10, 4)))
    assert fail((ids, table), (torch.tensor([0, 10]), torch.zeros(10, 4)), DomainError) == (
        "d.ss:2:7: ids: expected Index[V], got 10 at (1,)")
    assert fail((table, ids), (torch.zeros(10, 4), torch.tensor([0, 10])), DomainError) == (
        "d.ss:2:7: ids: expected Index[V], got 10 at (1,)")


def prob_spec(over=1, axes=("b", 4)):
    return S("p", "d.ss:1:7", "[b C] Prob over C", axes, None, DomainSpec("Prob", over=over, label="C"))


def test_prob_tolerance():
    n = 4
    tol = max(1e-4, n * torch.finfo(torch.float32).eps)
    p = torch.full((2, n), 0.25)
    p[1, 0] += tol * 0.5
    rt.check_args((prob_spec(),), (p,))
    p[1, 0] += tol * 2
    assert "got a sum of 1 over C at (1,)" in fail((prob_spec(),), (p,), DomainError)
    # the tolerance grows with n·eps: for f16, 4·eps(f16) ≈ 0.0039
    h = torch.full((1, n), 0.25, dtype=torch.float16)
    h[0, 0] = 0.252
    rt.check_args((prob_spec(),), (h,))
    h[0, 0] = 0.26
    fail((prob_spec(),), (h,), DomainError)


def test_prob_over_an_inner_axis_and_after_variadic():
    # [C b]: the class axis first
    spec = S("p", "d.ss:1:7", "[C b] Prob over C", (3, "b"), None, DomainSpec("Prob", over=0, label="C"))
    p = torch.softmax(torch.randn(3, 5), 0)
    rt.check_args((spec,), (p,))
    p = p.clone()
    p[:, 2] = torch.tensor([0.5, 0.5, 0.5])
    assert fail((spec,), (p,), DomainError) == "d.ss:1:7: p: expected Prob over C, got a sum of 1.5 over C at (2,)"
    spec2 = S("p", "d.ss:1:7", "[... C k] Prob over C", ("...", "C", "k"), None,
              DomainSpec("Prob", over=1, label="C"))
    q = torch.softmax(torch.randn(2, 3, 4, 5), 2)
    rt.check_args((spec2,), (q,))
    bad = q.clone()
    bad[1, 2, 0, 4] += 0.1
    assert "over C at (1, 2, 4)" in fail((spec2,), (bad,), DomainError)


def test_logprob_logsumexp():
    spec = S("lp", "d.ss:1:7", "[b C] LogProb over C", ("b", 4), None, DomainSpec("LogProb", over=1, label="C"))
    lp = torch.log_softmax(torch.randn(3, 4), 1)
    rt.check_args((spec,), (lp,))
    lp[2] -= 0.5
    assert fail((spec,), (lp,), DomainError) == (
        "d.ss:1:7: lp: expected LogProb over C, got a logsumexp of -0.5 over C at (2,)")
    rt.check_args((spec,), (torch.log_softmax(torch.randn(3, 4, dtype=torch.float64), 1),))


def test_domain_of_a_0d_tensor_has_no_index():
    spec = S("s", "d.ss:1:7", "[] Pos", (), "f32", "Pos")
    assert fail((spec,), (torch.tensor(-2.0),), DomainError) == "d.ss:1:7: s: expected Pos, got -2"


def test_empty_tensors_pass_domains():
    rt.check_args((dom("Pos"),), (torch.zeros(0),))


# -- as ------------------------------------------------------------------------------------
def test_as_on_a_python_value():
    spec = S("w[0]", "a.ss:3:9", "[D C]", (32, 4), "f32")
    with pytest.raises(TypeError, match=r"a.ss:3:9: expected a tensor \[D C\], got list"):
        rt.check_as([1], spec, {})
    x = torch.zeros(32, 4)
    assert rt.check_as(x, spec, {}) is x
    assert rt.check_as(x, spec) is x
    with pytest.raises(ShapeError, match=r"a.ss:3:9: expected dtype f32, got torch.float64"):
        rt.check_as(x.double(), spec, {})


def test_as_host_types():
    assert rt.check_as(3, HostSpec("", "a.ss:1:1", int), {}) == 3
    with pytest.raises(TypeError, match="a.ss:1:1: expected int, got str"):
        rt.check_as("3", HostSpec("", "a.ss:1:1", int), {})


def test_as_uses_the_calls_generics_and_binds_question_sizes_afresh():
    spec = S("", "a.ss:4:12", "[?k D]", (("?", "k"), 32), "f32")
    env = {"?k": 7}
    rt.check_as(torch.zeros(3, 32), spec, env)           # a new ?k, not the caller's
    assert env == {"?k": 7}
    two = S("", "a.ss:4:12", "[?k ?k]", (("?", "k"), ("?", "k")), "f32")
    rt.check_as(torch.zeros(3, 3), two, {})
    with pytest.raises(ShapeError, match=r"expected \[\?k \?k\] = \(\?k, \?k\), got shape \(3, 4\)"):
        rt.check_as(torch.zeros(3, 4), two, {})
    gen = S("", "a.ss:5:12", "[n D]", ("n", 32), "f32")
    rt.check_as(torch.zeros(3, 32), gen, {"n": 3})
    with pytest.raises(ShapeError, match=r"a.ss:5:12: expected \[n D\] = \(3, 32\), got shape \(4, 32\)"):
        rt.check_as(torch.zeros(4, 32), gen, {"n": 3})
    rt.check_as(torch.zeros(4, 32), gen, {})           # unknown to the caller: bound here


def test_as_device_names_the_expression():
    spec = S("torch.load(p)", "a.ss:2:9", "[D]", (32,), "f32")
    with pytest.raises(DeviceError, match=r"a.ss:2:9: torch.load\(p\) is on cpu, expected meta"):
        rt.check_as(torch.zeros(32), spec, {"__device__": torch.device("meta")})
    rt.declare_module_device("m.ss", "cpu")
    with pytest.raises(DeviceError, match="is on meta, expected cpu"):
        rt.check_as(torch.zeros(32, device="meta"), spec, {})


def test_as_domains():
    spec = S("", "a.ss:1:1", "[n] Unit", ("n",), "f32", "Unit")
    rt.check_as(torch.tensor([0.0, 1.0]), spec, {})
    with pytest.raises(DomainError, match=r"a.ss:1:1: expected Unit, got 2 at \(1,\)"):
        rt.check_as(torch.tensor([0.0, 2.0]), spec, {})
    rt.check_as(torch.tensor([0.0, 2.0]), spec, {}, True, False)


def test_checks_off():
    rt.check_args((X,), (torch.zeros(5),), checks_on=False, values_on=False)
    rt.check_as(torch.zeros(5), X, {}, False, False)
    # value checks alone still run
    with pytest.raises(DomainError):
        rt.check_args((dom("Pos"),), (torch.zeros(3),), checks_on=False, values_on=True)


# -- the fast path agrees with the slow one ----------------------------------------------
NAMES = ["a", "b", "n"]
axis_st = st.one_of(
    st.integers(0, 4),
    st.sampled_from(NAMES),
    st.tuples(st.just("lin"), st.sampled_from(NAMES), st.sampled_from([2, 3, -1]),
              st.integers(-2, 2)).map(lambda t: (*t, f"{t[2]}{t[1]}+{t[3]}")),
    st.just(("?", "k")),
    st.just(("expr", "a+1", lambda e: e["a"] + 1)),
)


@st.composite
def signature_and_args(draw):
    n_args = draw(st.integers(1, 3))
    specs, args = [], []
    for i in range(n_args):
        axes = draw(st.lists(axis_st, max_size=3))
        if draw(st.booleans()):
            axes.insert(draw(st.integers(0, len(axes))), "...")
        dtype = draw(st.sampled_from(["f32", "Float", None]))
        optional = draw(st.booleans()) and i < 2
        specs.append(S(f"x{i}", f"p.ss:1:{i}", "[...]", tuple(axes), dtype, optional=optional))
        if optional and draw(st.booleans()):
            args.append(None)
        else:
            shape = draw(st.lists(st.integers(0, 5), max_size=5))
            dt = draw(st.sampled_from([torch.float32, torch.float64, torch.int64]))
            args.append(torch.zeros(shape, dtype=dt))
    return tuple(specs), tuple(args)


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:                        # noqa: BLE001 - compared, not hidden
        return (type(exc).__name__, str(exc))


@settings(max_examples=400, deadline=None)
@given(signature_and_args())
def test_fast_path_agrees_with_slow_path(case):
    specs, args = case
    fast = outcome(rt.make_checker(specs), args)
    slow = outcome(rt.check_args_slow, specs, args)
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(st.lists(axis_st, max_size=3), st.lists(st.integers(0, 5), max_size=4),
       st.dictionaries(st.sampled_from(NAMES), st.integers(0, 5), max_size=2))
def test_as_fast_path_agrees_with_slow_path(axes, shape, env):
    spec = S("", "p.ss:1:1", "[...]", tuple(axes), "f32")
    x = torch.zeros(shape)
    assert outcome(rt.make_as_checker(spec), x, env) == outcome(rt.check_as_slow, x, spec, env)


# -- speed -----------------------------------------------------------------------------------
def spotter_forward_specs():
    return (
        S("img", "spotter.ss:52:13", "Images u8", ("b", 1, 16, 16), "u8"),
        S("w_e", "spotter.ss:52:31", "[P*P D]", (16, 32), "f32"),
        S("tw1", "spotter.ss:52:46", "[L N Dt]", (2, 16, 64), "f32"),
        S("tw2", "spotter.ss:52:62", "[L Dt N]", (2, 64, 16), "f32"),
        S("cw1", "spotter.ss:53:12", "[L D Dc]", (2, 32, 64), "f32"),
        S("cw2", "spotter.ss:53:28", "[L Dc D]", (2, 64, 32), "f32"),
        S("w_h", "spotter.ss:53:44", "[D C]", (32, 4), "f32"),
    )


def test_checking_the_spotters_forward_takes_the_generated_fast_path(monkeypatch):
    """Speed is measured in benchmarks/spotter_forward.py; here, structurally, that a
    passing call runs the generated checker and never the slow path (which only explains
    failures), so replacing the fast path with the slow one fails this test."""
    import shapescript.rt.checks as checks

    specs = spotter_forward_specs()
    args = (torch.zeros(64, 1, 16, 16, dtype=torch.uint8),
            *(torch.randn(*s.axes).requires_grad_() for s in specs[1:]))
    rt.declare_module_device("spotter.ss", "cpu")
    check = rt.make_checker(specs)
    assert check.__code__.co_filename == "<shapescript argument checks>"
    assert "_slow(" in check.source and "for " not in check.source   # straight-line code

    def slow_path(*a, **k):
        raise AssertionError("the slow path ran for arguments that pass")

    monkeypatch.setattr(checks, "check_args_slow", slow_path)
    monkeypatch.setattr(checks, "check_as_slow", slow_path)
    assert check(args, True, True) == {"b": 64, "__device__": torch.device("cpu")}
    assert rt.check_args(specs, args) == {"b": 64, "__device__": torch.device("cpu")}
    as_check = rt.make_as_checker(specs[1])
    assert as_check.__code__.co_filename == "<shapescript as check>"
    assert as_check(args[1], {}) is args[1]
    # A failure still reaches the slow path, for its exact message.
    with pytest.raises(AssertionError, match="the slow path ran"):
        check((args[0][:, :, :8], *args[1:]), True, True)


def test_compiled_modules_check_arguments_with_generated_checkers(ss):
    m = ss("dim D = 4\nfn f(x: [n D], y: [n]) -> [n D] = x * y\n")
    assert m._ss_check_f.__code__.co_filename == "<shapescript argument checks>"


def test_a_model_class_finished_after_the_checker():
    class Late(torch.nn.Module):
        pass

    m = ModelSpec("m", "late.ss:1:7", Late)
    check = rt.make_checker((m,))
    Late._ss_field_specs = (S("w", "late.ss:2:11", "[D]", (4,), "f32"),)
    late = Late()
    late.w = torch.nn.Parameter(torch.zeros(4))
    assert check((late,)) == {"__device__": torch.device("cpu")}
    late.w = torch.nn.Parameter(torch.zeros(5))
    with pytest.raises(ShapeError, match=r"late.ss:2:11: m.w: expected \[D\] = \(4,\), got shape \(5,\)"):
        check((late,))


def test_an_as_without_a_spec_checks_nothing():
    assert rt.check_as(5, None, {}) == 5


def test_errors_are_shown_and_pickled_as_shapescripts():
    import pickle

    import shapescript

    assert rt.ShapeError is shapescript.ShapeError and rt.ShapeError.__module__ == "shapescript"
    err = pickle.loads(pickle.dumps(rt.DomainError("d.ss:1:1: p: expected Pos, got -1")))
    assert type(err) is rt.DomainError and str(err) == "d.ss:1:1: p: expected Pos, got -1"
    assert issubclass(rt.ShapeError, ValueError) and issubclass(rt.DeviceError, ValueError)
