"""Broadcasting by label, `@`, and positional fits (DECISIONS §3), run against torch."""

from __future__ import annotations

import itertools
import random

import pytest
import torch

from shapescript.check.broadcast import IDENTITY, Plan, broadcast, check_fits, matmul
from shapescript.check.fail import Fail
from shapescript.check.sizes import Size
from shapescript.check.types import FLOAT, REAL, Axis, TensorType

DIMS = {"S": 16, "P": 4, "N": 16, "D": 32, "C": 4, "L": 2, "Dt": 64}
GEN = {"b": 3, "n": 5, "k": 7, "m": 2}  # values of generics when tensors are made


class _NS(dict):
    def __init__(self, sizes: bool) -> None:
        super().__init__()
        self.sizes = sizes

    def __missing__(self, name: str) -> Size:
        if self.sizes and name in DIMS:
            return Size.const(DIMS[name])
        return Size.var(name)


def ax(tok: str) -> Axis:
    if tok == "...":
        v = Size.var("...")
        return Axis(v, v, True)
    expr = tok.replace("/", "//")
    size = eval(expr, {}, _NS(True))  # noqa: S307 - test helper on fixed strings
    label = eval(expr, {}, _NS(False))  # noqa: S307
    size = size if isinstance(size, Size) else Size.const(size)
    label = label if isinstance(label, Size) else Size.const(label)
    return Axis(size, label)


def T(spec: str, dtype: str = "f32") -> TensorType:
    return TensorType(tuple(ax(t) for t in spec.split()), dtype, REAL)


def labels(axes) -> str:
    return " ".join(str(a) for a in axes)


def shape(t: TensorType, env=None) -> list[int]:
    env = {**GEN, **(env or {})}
    return [a.size.evaluate(env) for a in t.axes]


def named(t: TensorType, env=None) -> torch.Tensor:
    return torch.randn(*shape(t, env), dtype=torch.float64)


def reference(x: torch.Tensor, xt: TensorType, out_axes, rename=None) -> torch.Tensor:
    """``x`` moved to the result's label order, by labels (torch named tensors are
    too limited, so this is done with einsum-free indexing: permute + view)."""
    xl = [str(a.label) for a in xt.axes]
    ol = [str(a.label) for a in out_axes]
    # occurrences in order
    seen: dict[str, int] = {}
    xkeys = []
    for lab in xl:
        xkeys.append((lab, seen.get(lab, 0)))
        seen[lab] = seen.get(lab, 0) + 1
    seen = {}
    okeys = []
    for lab in ol:
        okeys.append((lab, seen.get(lab, 0)))
        seen[lab] = seen.get(lab, 0) + 1
    perm = [xkeys.index(k) for k in okeys if k in xkeys]
    y = x.permute(*perm) if perm else x
    view = [y.shape[[k for k in okeys if k in xkeys].index(k)] if k in xkeys else 1
            for k in okeys]
    return y.reshape(view)


def check_runtime(a: TensorType, b: TensorType, env=None):
    """Runs the plans with torch and compares with a by-label reference."""
    r = broadcast(a, b)
    x, y = named(a, env), named(b, env)
    got = r.a_plan.apply(x) * r.b_plan.apply(y)
    want = reference(x, a, r.axes) * reference(y, b, r.axes)
    assert got.shape == want.shape == torch.Size(
        [s.evaluate({**GEN, **(env or {})}) for s in (q.size for q in r.axes)])
    assert torch.equal(got, want)
    return r


# -- element-wise --------------------------------------------------------------------


def test_minus_mean():
    r = check_runtime(T("b n D"), T("b n"))
    assert labels(r.axes) == "b n D"
    assert r.a_plan == IDENTITY
    assert r.b_plan == Plan(None, (True, True, False))
    assert r.b_plan.subscript() == ":, :, None"


def test_outer_product_by_label():
    r = check_runtime(T("b n"), T("k"))
    assert labels(r.axes) == "b n k"
    assert r.a_plan == Plan(None, (True, True, False))
    assert r.b_plan == IDENTITY  # torch prepends the leading axes


def test_order_is_not_commutative():
    r = check_runtime(T("D"), T("b n D"))
    assert labels(r.axes) == "D b n"
    assert r.a_plan == Plan(None, (True, False, False))
    assert r.b_plan == Plan((2, 0, 1), None)
    r2 = check_runtime(T("b n D"), T("D"))
    assert labels(r2.axes) == "b n D" and r2.a_plan == r2.b_plan == IDENTITY


def test_identical_and_permuted():
    r = check_runtime(T("b n D"), T("b n D"))
    assert r.a_plan == r.b_plan == IDENTITY
    r = check_runtime(T("b n D"), T("D b n"))
    assert labels(r.axes) == "b n D" and r.b_plan == Plan((1, 2, 0), None)


def test_middle_and_mixed_insertions():
    r = check_runtime(T("b n D"), T("n"))
    assert r.b_plan == Plan(None, (True, False))
    r = check_runtime(T("b D"), T("n b k"))
    assert labels(r.axes) == "b D n k"
    assert r.a_plan == Plan(None, (True, True, False, False))
    assert r.b_plan == Plan((1, 0, 2), (True, False))  # [n b k] -> [b 1 n k]
    check_runtime(T("k b"), T("n b m k"))


def test_repeated_labels_match_in_order():
    r = check_runtime(T("n n"), T("n n"))
    assert r.a_plan == r.b_plan == IDENTITY
    r = check_runtime(T("n b n"), T("n n"))
    assert labels(r.axes) == "n b n" and r.b_plan == Plan(None, (True, False))


def test_expression_labels():
    # `k` solved to D/2 in `halves` matches an axis labelled D/2
    r = check_runtime(T("b n D/2"), T("D/2"))
    assert labels(r.axes) == "b n D/2" and r.b_plan == IDENTITY
    # labels aren't sizes: D/2 and 16 differ, and P*P and N are two labels of 16
    r = broadcast(T("D/2"), T("16"))
    assert labels(r.axes) == "D/2 16"
    assert labels(broadcast(T("P*P"), T("N")).axes) == "P*P N"
    assert labels(broadcast(T("P*P"), T("P*P")).axes) == "P*P"


def test_host_and_zero_d():
    assert labels(broadcast(T("b n"), FLOAT).axes) == "b n"
    assert labels(broadcast(FLOAT, T("b n")).axes) == "b n"
    r = broadcast(T(""), T("b n"))
    assert labels(r.axes) == "b n" and r.a_plan == r.b_plan == IDENTITY
    assert broadcast(T("b"), T("")).axes == T("b").axes


def test_size_mismatch_is_E0401():
    a = TensorType((Axis(Size.const(32), Size.var("D")),), "f32", REAL)
    b = TensorType((Axis(Size.const(16), Size.var("D")),), "f32", REAL)
    with pytest.raises(Fail) as e:
        broadcast(a, b)
    assert e.value.code == "E0401"
    assert e.value.message == ("sizes not provably equal: `D` is 32 in the left operand "
                               "but 16 in the right")
    assert "as" in e.value.help and "rearrange" in e.value.help
    # unknown sizes never match without `as`
    qa = TensorType((Axis(Size.var("?k1"), Size.var("n")),), "f32", REAL)
    qb = TensorType((Axis(Size.var("?k2"), Size.var("n")),), "f32", REAL)
    with pytest.raises(Fail):
        broadcast(qa, qb)


def test_uneven_repetition_is_E0405():
    with pytest.raises(Fail) as e:
        broadcast(T("n n"), T("n"))
    assert e.value.code == "E0405" and "2 times" in e.value.message
    assert labels(broadcast(T("b"), T("S S")).axes) == "b S S"  # nothing shared
    with pytest.raises(Fail) as e:
        broadcast(T("b S"), T("S S"))
    assert e.value.code == "E0405"


def test_variadic():
    v = T("... D")
    assert broadcast(v, v).axes == v.axes
    assert broadcast(T("..."), T("...")).a_plan == IDENTITY
    assert broadcast(v, T("D")).axes == v.axes  # b's axes are a's last ones
    assert broadcast(v, FLOAT).axes == v.axes
    for other in (T("b D"), T("D ..."), T("n")):
        with pytest.raises(Fail) as e:
            broadcast(v, other)
        assert e.value.code == "E0409"
    with pytest.raises(Fail) as e:
        broadcast(T("D"), v)
    assert e.value.code == "E0409"


def test_random_broadcasts_against_reference():
    rng = random.Random(0)
    pool = ["b", "n", "k", "m", "D", "C"]
    for _ in range(200):
        la = rng.sample(pool, rng.randint(1, 4))
        lb = rng.sample(pool, rng.randint(1, 4))
        check_runtime(T(" ".join(la)), T(" ".join(lb)))


# -- matmul --------------------------------------------------------------------------


def check_matmul(a: TensorType, b: TensorType):
    r = matmul(a, b)
    x, y = named(a), named(b)
    got = torch.matmul(r.a_plan.apply(x), r.b_plan.apply(y))
    assert list(got.shape) == [s.size.evaluate(GEN) for s in r.axes]
    return r, x, y, got


def test_head_and_embed():
    r, x, y, got = check_matmul(T("b D"), T("D C"))
    assert labels(r.axes) == "b C" and r.a_plan == r.b_plan == IDENTITY
    r, *_ = check_matmul(T("b N P*P"), T("P*P D"))
    assert labels(r.axes) == "b N D"


def test_rank_one():
    r, x, y, got = check_matmul(T("n"), T("n"))
    assert r.axes == () and torch.allclose(got, (x * y).sum())
    r, *_ = check_matmul(T("D"), T("D C"))
    assert labels(r.axes) == "C"
    r, *_ = check_matmul(T("D"), T("k D C"))
    assert labels(r.axes) == "k C"
    r, *_ = check_matmul(T("b n D"), T("D"))
    assert labels(r.axes) == "b n"


def test_batch_axes_broadcast_by_label():
    r, x, y, got = check_matmul(T("b n D"), T("b D C"))
    assert labels(r.axes) == "b n C" and r.a_plan == r.b_plan == IDENTITY
    r, x, y, got = check_matmul(T("b k n D"), T("k b D C"))
    assert labels(r.axes) == "b k n C"
    assert r.b_plan == Plan((1, 0, 2, 3), None)
    want = torch.einsum("bknd,kbdc->bknc", x, y)
    assert torch.allclose(got, want)
    r, x, y, got = check_matmul(T("b n D"), T("k D C"))
    assert labels(r.axes) == "b k n C"
    assert r.a_plan == Plan(None, (True, False)) and r.b_plan == IDENTITY
    assert torch.allclose(got, torch.einsum("bnd,kdc->bknc", x, y))
    r, x, y, got = check_matmul(T("n D"), T("b D C"))
    assert labels(r.axes) == "b n C"


def test_matmul_errors():
    with pytest.raises(Fail) as e:
        matmul(T("b D"), T("C D"))
    assert e.value.code == "E0401" and "`D = 32`" in e.value.message
    with pytest.raises(Fail) as e:
        matmul(T(""), T("D C"))
    assert e.value.code == "E0402"
    with pytest.raises(Fail) as e:
        matmul(T("b b n D"), T("b D C"))
    assert e.value.code == "E0405"
    k8 = TensorType((Axis(Size.const(8), Size.var("k")),) + T("D C").axes, "f32", REAL)
    with pytest.raises(Fail) as e:
        matmul(T("k n D"), k8)  # the batch axis k is a generic in one, 8 in the other
    assert e.value.code == "E0401" and "batch" in e.value.message


def test_matmul_variadic():
    assert labels(matmul(T("... n D"), T("D C")).axes) == "... n C"
    assert labels(matmul(T("... D"), T("D C")).axes) == "... C"
    assert labels(matmul(T("n D"), T("... D C")).axes) == "... n C"
    assert labels(matmul(T("... n D"), T("... D C")).axes) == "... n C"
    with pytest.raises(Fail) as e:
        matmul(T("... n D"), T("b D C"))
    assert e.value.code == "E0409"


# -- positional fits -------------------------------------------------------------------


def test_check_fits():
    check_fits(T("b N P*P"), T("b N P*P"))
    # sizes, not labels: (gh gw) = 16 = N
    check_fits(T("b (S/P)*(S/P) P*P"), T("b N P*P"))
    with pytest.raises(Fail) as e:
        check_fits(T("b n"), T("b n D"))
    assert e.value.code == "E0402"
    with pytest.raises(Fail) as e:
        check_fits(T("b N D"), T("b N C"), what="the return value")
    assert e.value.code == "E0401" and "the return value" in e.value.message
    assert "rearrange" not in e.value.help


def test_s_times_x_help():
    s_times_x = broadcast(T("D"), T("b n D"))
    with pytest.raises(Fail) as e:
        check_fits(TensorType(s_times_x.axes, "f32", REAL), T("b n D"))
    assert e.value.code == "E0401"
    assert "x * s" in e.value.help and "rearrange(…, D b n -> b n D)" in e.value.help
    x_times_s = broadcast(T("b n D"), T("D"))
    check_fits(TensorType(x_times_s.axes, "f32", REAL), T("b n D"))


def test_check_fits_variadic():
    check_fits(T("... D"), T("... D"))
    with pytest.raises(Fail) as e:
        check_fits(T("... D"), T("b D"))
    assert e.value.code == "E0409"


def test_plan_apply_matches_subscript():
    p = Plan((1, 0), (True, False, True))
    t = torch.randn(2, 3)
    assert p.apply(t).shape == (3, 1, 2)
    assert p.subscript() == ":, None, :"
    assert eval(f"t.permute(1, 0)[{p.subscript()}]").shape == (3, 1, 2)  # noqa: S307
    assert all(x in itertools.chain([True, False]) for x in p.index)
