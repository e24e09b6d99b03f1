"""Programs that once checked clean and then failed, or computed the wrong thing: each is
now a diagnostic, or runs and is right, or fails with a ``ShapeError`` at its ``.ss`` line.

One test per kind of failure, each with the example that found it and others of its kind.
"""

from __future__ import annotations

import pytest
import torch

from shapescript import DomainError, ShapeError
from shapescript.compiler import check_source


def codes(tmp_path, src: str, name: str = "m") -> list[str]:
    path = tmp_path / f"{name}.ss"
    path.write_text(src, encoding="utf-8")
    return [d.code for d in check_source(src, str(path))]


def python_of(tmp_path, src: str, **options) -> str:
    from shapescript.compiler import compile_source

    path = tmp_path / "p.ss"
    path.write_text(src, encoding="utf-8")
    out = compile_source(src, str(path), **options)
    assert out.python is not None, out.diagnostics
    return out.python


def messages(tmp_path, src: str) -> list[str]:
    path = tmp_path / "m.ss"
    path.write_text(src, encoding="utf-8")
    return [d.message for d in check_source(src, str(path))]


# -- 1. a pattern splitting a generic axis is checked for divisibility -------------------------
HALVES = "fn halves(x: [b n D]) -> [2 b n D/2] = rearrange(x, b n (k two) -> two b n k, two=2)\n"


def test_a_split_of_a_generic_axis_is_checked_at_run_time(ss):
    m = ss(HALVES)
    x = torch.randn(2, 3, 4)
    assert torch.equal(m.halves(x), x.reshape(2, 3, 2, 2).permute(3, 0, 1, 2))
    with pytest.raises(ShapeError, match=r"^m.ss:1:40: `\(k two\)` needs axis `D` to be a multiple "
                                         r"of `2`, but it is 3$"):
        m.halves(torch.zeros(1, 1, 3))


@pytest.mark.parametrize("src,bad", [
    ("fn f(x: [n]) -> [n/3 3] = rearrange(x, (a three) -> a three, three=3)\n", (4,)),
    ("fn f(x: [b m]) -> [b] = reduce(x, b (h w) -> b, sum, w=2)\n", (2, 5)),
    ("dim H = 2\nfn f(x: [b m]) -> [b H m/H] = rearrange(x, b (h d) -> b h d, h=H)\n", (2, 5)),
])
def test_other_splits_of_generic_axes(ss, src, bad):
    m = ss(src)
    with pytest.raises(ShapeError, match=r"^m.ss:\d+:\d+: `\(\w+ \w+\)` needs axis `\w+` to be a "
                                         r"multiple of `[^`]+`, but it is \d$"):
        m.f(torch.zeros(*bad))


def test_a_split_in_debug_mode_and_never_mode(ss):
    m = ss(HALVES, name="never", checks="never")
    with pytest.raises(Exception) as info:  # einops's own error: the check is off
        m.halves(torch.zeros(1, 1, 3))
    assert not isinstance(info.value, ShapeError)


# -- 2. labels of size expressions with literals ------------------------------------------------
def test_a_slice_with_a_literal_offset_is_labelled_by_its_size(tmp_path, ss):
    # Once labelled `2*n` and `n`: an outer difference, `[n n]`, checked clean.
    assert codes(tmp_path, "fn diff(s: [n + 1]) -> [n n]:\n    return s[1..n + 1] - s[0..n]\n") == ["E0402"]
    m = ss("fn diff(s: [n + 1]) -> [n]:\n    return s[1..n + 1] - s[0..n]\n")
    assert m.diff(torch.tensor([1.0, 4.0, 9.0])).tolist() == [3.0, 5.0]


def test_split_sizes_with_literals_keep_their_labels(ss):
    m = ss("fn sp(x: [D]) -> [D/2 + 1]:\n"
           "    a, b = split(x, over=D, sizes=(D/2 + 1, D - D/2 - 1))\n"
           "    return a + arange[D/2 + 1] to f32\n")
    assert m.sp(torch.zeros(6)).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_shifted_cross_entropy_checks(ss):
    # `x[0..n-1]` was labelled `1`, so this correct shifted loss was rejected.
    m = ss("dim V = 5\n"
           "fn shifted(logits: [n V], ids: [n] Index[V]) -> [] NonNeg:\n"
           "    return cross_entropy(logits[0..n-1], ids[1..n], over=V)\n")
    logits, ids = torch.randn(4, 5), torch.tensor([1, 2, 3, 4])
    assert torch.allclose(m.shifted(logits, ids), torch.nn.functional.cross_entropy(logits[:3], ids[1:]))


def test_a_generic_times_a_dim_of_1_keeps_its_label(ss):
    # Found by the generator (seed 4835): with `C = 1` the size of `[n*C]` is the bare `n`,
    # which bound `n` to the whole label `C*m`, so the call's result was labelled `C*C*m`.
    m = ss("dim C = 1\n"
           "fn top(x: [t n*C]) -> [n*C] = max(x, over=t)\n"
           "fn main(x: [k m*C], y: [m*C]) -> [m*C]:\n"
           "    z = (m*C) |> map(i => y[i])\n"
           "    return minimum(top(x), z)\n")
    x, y = torch.randn(2, 3), torch.randn(3)
    assert torch.equal(m.main(x, y), torch.minimum(x.amax(0), y))


def test_an_off_by_one_slice_is_a_size_error_not_a_rank_error(tmp_path):
    msgs = messages(tmp_path, "fn f(x: [n D]) -> [n - 1 D] = x[1..n] - x[0..n]\n")
    assert msgs == ["sizes not provably equal: the left operand's axis `n - 1` and the right's `n` "
                    "differ by 1"]


# -- 3. slice bounds ------------------------------------------------------------------------
PREFIX = "dim T = 4\nfn prefix(w: [T D], x: [n D]) -> [n D] = w[0..n]\n"


def test_a_slice_bound_the_types_cant_prove_is_checked(ss):
    m = ss(PREFIX)
    w = torch.randn(4, 2)
    assert torch.equal(m.prefix(w, torch.zeros(3, 2)), w[:3])
    with pytest.raises(ShapeError, match=r"^m.ss:2:42: the slice 0..6 is out of bounds for an axis of 4$"):
        m.prefix(w, torch.zeros(6, 2))


def test_a_slice_provably_out_of_bounds_is_e0406(tmp_path):
    assert codes(tmp_path, "fn f(x: [n D]) -> [n + 1 D] = x[0..n + 1]\n") == ["E0406"]
    assert codes(tmp_path, "fn f(x: [n D]) -> [n D] = x[0..n]\n") == []


def test_a_slice_with_host_bounds_is_checked(ss):
    m = ss("fn f(x: [n], a: int, b: int) -> [?k] = x[a..b]\n")
    assert m.f(torch.arange(5.0), 1, 3).tolist() == [1.0, 2.0]
    with pytest.raises(ShapeError, match=r"the slice 3..1 is out of bounds"):
        m.f(torch.arange(5.0), 3, 1)


def test_a_proven_slice_has_no_check(tmp_path):
    assert "sliced" not in python_of(tmp_path, "fn f(x: [n D]) -> [n - 1 D] = x[1..n]\n")
    assert "sliced" in python_of(tmp_path, PREFIX)
    assert "sliced" not in python_of(tmp_path, PREFIX, checks="never")


# -- 4. names generated code keeps for itself; Python keywords ---------------------------------
@pytest.mark.parametrize("src", [
    "fn _ss_x_exp(x: [n]) -> [n] = x * 2.0\nfn f(x: [n]) -> [n] = exp(x)\n",
    "fn _unchecked_f(x: [n]) -> [n] = x * 2.0\nfn f(x: [n]) -> [n] = x\n",
    "fn f(_ss_g_n: [n]) -> [n] = _ss_g_n\n",
    "fn f(x: [n]) -> [n]:\n    _ss_torch = 1.0\n    return x\n",
    "fn f(x: [n]) -> [n] = n |> map(_ss_i => x[_ss_i])\n",
    "dim _ss_D = 3\n",
    "model _unchecked_M:\n    param w: [3]\n",
    "model M:\n    param _ss_field_specs: [3]\n",
])
def test_generated_names_are_reserved(tmp_path, src):
    assert codes(tmp_path, src) == ["E0203"]


def test_python_keywords_as_names_and_their_mangling_dont_collide(ss):
    m = ss("fn class(x: [n]) -> [n] = x\n"
           "fn class_(x: [n]) -> [n] = x * 2.0\n"
           "fn lambda(x: [n], def: [n]) -> [n] = class(x) + class_(def)\n"
           "dim None = 2\n"
           "fn uses_dim(x: [None]) -> [None] = x * (None to f32)\n")
    one = torch.ones(2)
    assert getattr(m, "lambda_")(one, one).tolist() == [3.0, 3.0]
    assert m.class__(one).tolist() == [2.0, 2.0] and m.class_(one).tolist() == [1.0, 1.0]
    assert m.uses_dim(one).tolist() == [2.0, 2.0] and m.None_ == 2


# -- 5. externs -----------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["torch.exp; import os", "exp", "torch.exp()", "torch. exp",
                                    "torch.lambda", "__import__('os').system", ""])
def test_an_extern_target_is_a_dotted_python_path(tmp_path, target):
    src = f'extern fn e(x: [n]) -> [n] = "{target}"\n'
    assert codes(tmp_path, src) == ["E1004"]


def test_an_externs_result_is_checked_against_its_type(ss):
    m = ss('dim D = 5\n'
           'extern fn nz(x: [n D]) -> [?k D] i64 = "torch.nonzero"\n'
           'fn rows(x: [n D]) -> [?k D] i64 = nz(x)\n')
    with pytest.raises(ShapeError, match=r"^m.ss:2:1: result of nz: expected \[\?k D\] i64 = \(\?k, 5\), "
                                         r"got shape \(15, 2\)$"):
        m.nz(torch.ones(3, 5))
    with pytest.raises(ShapeError, match=r"^m.ss:3:35: result of nz: expected"):
        m.rows(torch.ones(3, 5))


def test_an_extern_returning_the_wrong_rank_is_caught_in_a_body(ss):
    m = ss('extern fn flat(x: [n m]) -> [n m] = "torch.flatten"\n'
           'fn g(x: [n m]) -> [n m] = flat(x) + x\n')
    with pytest.raises(ShapeError, match=r"^m.ss:2:27: result of flat: expected"):
        m.g(torch.zeros(2, 3))
    with pytest.raises(ShapeError, match=r"^m.ss:1:1: result of flat: expected"):
        m.flat(torch.zeros(2, 3))


def test_prelude_externs_are_trusted(tmp_path):
    assert "result of" not in python_of(tmp_path, "fn f(x: [n]) -> [n] = exp(x) + gelu(x)\n")


def test_an_extern_result_is_not_checked_with_checks_never(ss):
    m = ss('extern fn flat(x: [n m]) -> [n m] = "torch.flatten"\n', checks="never")
    assert m.flat(torch.zeros(2, 3)).shape == (6,)


# -- 6. built-ins and literals that failed in torch ------------------------------------------------
@pytest.mark.parametrize("src,code", [
    ("fn c(x: [n]) -> [n] = clamp(x)\n", "E0501"),
    ("dim C = 3\nfn t(x: [b C]) -> [b 5]:\n    v, i = topk(x, 5, over=C)\n    return v\n", "E0406"),
    ("fn d(x: [n]) -> [n] = dropout(x, 1.5)\n", "E0701"),
    ("fn d(x: [n]) -> [n] = dropout(x, p=-0.1)\n", "E0701"),
    ("fn fl(x: [n]) -> [n] = x * 1e999\n", "E0108"),
    ("fn il(x: [n]) -> [n] i64 = (x to i64) * 99999999999999999999999\n", "E0108"),
    ("fn il(x: [n]) -> [n] i64 = (x to i64) * -9223372036854775809\n", "E0108"),
])
def test_built_ins_and_literals_torch_refuses_are_diagnostics(tmp_path, src, code):
    assert codes(tmp_path, src) == [code]


def test_clamp_with_one_bound_and_the_int64_edge_check(tmp_path):
    assert codes(tmp_path, "fn c(x: [n]) -> [n] = clamp(x, max=1.0)\n") == []
    assert codes(tmp_path, "fn il(x: [n] i64) -> [n] i64 = x * 9223372036854775807\n") == []


def test_topk_on_a_generic_axis_is_checked(ss):
    m = ss("fn tk(x: [b n]) -> [b 3]:\n    v, i = topk(x, 3, over=n)\n    return v\n")
    assert m.tk(torch.arange(8.0).reshape(2, 4)).tolist() == [[3.0, 2.0, 1.0], [7.0, 6.0, 5.0]]
    with pytest.raises(ShapeError, match=r"^m.ss:2:12: `topk` takes 3 along `n`, but the axis has 2$"):
        m.tk(torch.zeros(2, 2))


def test_map_over_zero_items_has_the_declared_shape(ss):
    m = ss("fn mp(x: [n]) -> [0 n] = 0 |> map(i => x)\n"
           "fn mg(x: [n], y: [k]) -> [k n] = k |> map(i => x * y[i])\n")
    assert m.mp(torch.ones(2)).shape == (0, 2)
    assert m.mg(torch.ones(2), torch.ones(0)).shape == (0, 2)
    assert torch.equal(m.mg(torch.ones(2), torch.tensor([2.0, 3.0])), torch.tensor([[2.0, 2.0], [3.0, 3.0]]))


def test_a_host_int_index_out_of_range_is_a_shape_error(ss):
    m = ss("fn ix(x: [n D], i: int) -> [D] = x[i]\n")
    assert m.ix(torch.eye(2), -1).tolist() == [0.0, 1.0]
    with pytest.raises(ShapeError, match=r"^m.ss:1:34: index 5 is out of bounds for axis 0, of size 2$"):
        m.ix(torch.ones(2, 3), 5)
    with pytest.raises(ShapeError, match=r"index -3 is out of bounds"):
        m.ix(torch.ones(2, 3), -3)


def test_an_index_by_a_loop_within_the_axis_has_no_check(tmp_path, ss):
    # The spotter's layers, `for l in 0..L: … tw1[l]`: proven, so the body has no check.
    src = ("dim L = 2\nfn f(w: [L n], x: [n]) -> [n]:\n    acc = x\n    for l in 0..L:\n"
           "        acc = acc + w[l]\n    return acc\n"
           "fn g(w: [L n]) -> [L n] = L |> map(i => w[i] * 2.0)\n")
    assert "picked" not in python_of(tmp_path, src)
    m = ss("dim L = 2\nfn f(w: [L n], x: [n]) -> [n]:\n    acc = x\n    for l in 0..3:\n"
           "        acc = acc + w[l]\n    return acc\n")
    with pytest.raises(ShapeError, match=r"^m.ss:5:21: index 2 is out of bounds for axis 0, of size 2$"):
        m.f(torch.zeros(2, 3), torch.zeros(3))


# -- 7. std and var of one element are NaN -----------------------------------------------------------
def test_std_over_an_axis_that_may_be_1_is_not_nonneg(tmp_path, ss):
    assert codes(tmp_path, "fn sd(x: [b n]) -> [b] NonNeg = std(x, over=n)\n") == ["E0701"]
    assert codes(tmp_path, "fn sd(x: [b n]) -> [b] = std(x, over=n)\n") == []
    m = ss("dim D = 8\nfn sd(x: [b D]) -> [b] NonNeg = std(x, over=D)\n")
    assert (m.sd(torch.randn(3, 8)) >= 0).all()


# -- 8. defaults in shapes; messages that keep names -------------------------------------------------
def test_conv2d_default_padding_is_in_its_result_size(ss):
    m = ss("dim C = 3\ndim P = 4\n"
           "fn patches(x: [b C 16 16], w: [8 C P P]) -> [b 8 4 4] = conv2d(x, w, stride=P)\n")
    x, w = torch.randn(2, 3, 16, 16), torch.randn(8, 3, 4, 4)
    assert torch.allclose(m.patches(x, w), torch.nn.functional.conv2d(x, w, stride=4))


def test_an_axis_argument_that_bound_a_generic_is_named(tmp_path):
    msgs = messages(tmp_path, "fn ln(x: [b n D], w: [n]) -> [b n D] = layer_norm(x, over=D, weight=w)\n")
    assert msgs == ["sizes not provably equal: the generic `n` is `D` in argument `over=` but `n` in "
                    "`weight`"]


def test_domain_error_is_still_the_boundarys(ss):
    m = ss("fn p(x: [n] Pos) -> [n] = log(x)\n", value_checks="always")
    with pytest.raises(DomainError):
        m.p(torch.tensor([-1.0]))


def test_conv2d_with_a_kernel_larger_than_its_padded_input_is_a_shape_error(ss):
    """The fuzzer's import-and-run stage: the declared result size is below 1 there, and
    torch's RuntimeError was the program's only word on it."""
    from shapescript import ShapeError

    m = ss("fn f(x: [b c h w], k: [o c kh kw]) -> [b o h - kh + 1 w - kw + 1] = conv2d(x, k)\n")
    with pytest.raises(ShapeError, match="conv2d: the kernel is 5×1 but the input"):
        m.f(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 5, 1))
    assert m.f(torch.ones(1, 1, 5, 3), torch.ones(1, 1, 5, 1)).shape == (1, 1, 1, 3)
