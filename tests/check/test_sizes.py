"""Unit tests of the size normal forms (DECISIONS §2-§4)."""

from __future__ import annotations

import pytest

from shapescript.check.size_solve import exact_div, solve_linear
from shapescript.check.sizes import Size

V = Size.var
C = Size.const
b, n, h, k, e, S, P, N, D, gh, w = (V(x) for x in "b n h k e S P N D gh w".split())


# -- construction, equality, hashing -------------------------------------------


def test_const_and_var():
    assert C(16).is_const and C(16).const_value == 16
    assert C(0).is_const and C(0).const_value == 0
    assert not n.is_const and n.const_value is None
    assert n.var_name == "n" and (n + 1).var_name is None and (2 * n).var_name is None
    assert V("?k").var_name == "?k" and V("?k").free_vars() == {"?k"}
    with pytest.raises(TypeError):
        C(True)
    with pytest.raises(TypeError):
        C(1.0)
    with pytest.raises(ValueError):
        V("")


def test_equality_is_normal_form():
    assert 16 * gh == gh * 16
    assert hash(16 * gh) == hash(gh * 16)
    assert n + 1 == 1 + n
    assert (n + 1) * (n - 1) == n * n - 1
    assert n - n == C(0) == 0
    assert P * P != C(16)  # labels keep dims symbolic
    assert P * P == P * P
    assert n != V("m")
    assert (n + 1) != n


def test_int_equality_and_hash():
    assert C(7) == 7 and 7 == C(7) and C(7) != 8
    assert hash(C(7)) == hash(7) and hash(C(0)) == hash(0)
    assert n != 7 and n != "n"
    assert {C(3): "x"}[3] == "x"


def test_sizes_in_sets_and_dicts():
    s = {n + 1, 1 + n, gh * 16, 16 * gh}
    assert len(s) == 2


def test_arithmetic_with_ints():
    assert n + 0 is n and n * 1 is n
    assert n * 0 == 0 and 0 * n == 0
    assert 3 - n == -(n - 3)
    assert (2 - n) + n == 2
    assert n - 3 + 3 == n
    assert 2 * n + n == 3 * n
    assert -(-n) == n


def test_floordiv_exact_by_constant():
    assert (4 * n + 8).floordiv(4) == n + 2
    assert (6 * n * k + 3 * k).floordiv(3 * k) == 2 * n + 1
    assert (4 * n + 8) // 4 == n + 2
    assert n.floordiv(1) is n


def test_floordiv_exact_by_monomial():
    assert (k * e).floordiv(k) == e
    assert (k * e + k * n).floordiv(k) == e + n
    assert (n * n * k).floordiv(n * k) == n


def test_floordiv_exact_polynomial():
    assert (n * n - 1).floordiv(n - 1) == n + 1
    assert ((n + b) * w).floordiv(n + b) == w


def test_floordiv_constants():
    assert C(11).floordiv(3) == 3
    assert (C(16) - 5).floordiv(3) + 1 == 4
    assert C(-7).floordiv(2) == -4  # Python floor division
    assert C(7).floordiv(-2) == -4
    with pytest.raises(ZeroDivisionError):
        n.floordiv(0)
    with pytest.raises(ZeroDivisionError):
        C(3).floordiv(0)
    assert C(0).floordiv(n) == 0


def test_floordiv_opaque():
    half = n.floordiv(2)
    assert half * 2 != n
    assert str(half * 2) == "2*(n/2)"
    x = (h - 3).floordiv(2) + 1
    assert not x.is_const
    assert str(x) == "(h - 3)/2 + 1"
    assert x.substitute({"h": 16}) == 7
    assert x.substitute({"h": C(16)}) == 7
    assert (4 * n + 6).floordiv(4) == (2 * n + 3).floordiv(2)  # content cancels
    assert n.floordiv(2).floordiv(3) == n.floordiv(6)
    assert (2 * n.floordiv(3)).floordiv(4) == n.floordiv(6)
    assert n.floordiv(2) != n.floordiv(3)
    assert n.floordiv(k) == n.floordiv(k)
    assert n.floordiv(-2) == (-n).floordiv(2)


def test_patch_example():
    x = S.floordiv(P) * S.floordiv(P)
    assert str(x) == "(S/P)*(S/P)"
    assert x.substitute({"S": 16, "P": 4}) == 16
    assert N.substitute({"N": 16}) == x.substitute({"S": 16, "P": 4}) == 16
    # As a label, P*P stays symbolic.
    assert P * P != 16
    assert (P * P).substitute({"P": 4}) == 16


def test_free_vars():
    assert C(3).free_vars() == frozenset()
    assert (n * k + 1).free_vars() == {"n", "k"}
    assert ((h - 3).floordiv(w) + 1).free_vars() == {"h", "w"}
    assert (V("?k") + n).free_vars() == {"?k", "n"}


# -- substitution and evaluation -------------------------------------------------


def test_substitute():
    assert (n + 1).substitute({"n": V("T")}) == V("T") + 1
    assert (n * D).substitute({"D": 8}) == 8 * n
    assert (n + 1).substitute({"m": 3}) is not None
    x = n + 1
    assert x.substitute({"m": 3}) is x  # unchanged: same object
    y = (h - 3).floordiv(2) * w + n
    assert y.substitute({"h": k + 3}) == k.floordiv(2) * w + n
    assert y.substitute({"h": 2 * k + 3}) == k * w + n
    assert (k * e).floordiv(k + n).substitute({"n": 0}) == e


def test_evaluate():
    x = (h - 3).floordiv(2) + 1
    assert x.evaluate({"h": 16}) == 7
    assert (n * n + 2 * n).evaluate({"n": 3}) == 15
    with pytest.raises(KeyError):
        x.evaluate({})
    with pytest.raises(ZeroDivisionError):
        n.floordiv(k).evaluate({"n": 1, "k": 0})


# -- printing --------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, text",
    [
        (C(16), "16"),
        (C(0), "0"),
        (C(-3), "-3"),
        (b, "b"),
        (P * P, "P*P"),
        (n + 1, "n + 1"),
        (1 + n, "n + 1"),
        (3 * D, "3*D"),
        (D * 3, "3*D"),
        ((h - 3).floordiv(2) + 1, "(h - 3)/2 + 1"),
        (16 * gh, "16*gh"),
        (gh * 16, "16*gh"),
        (3 - n, "3 - n"),
        (-n, "-n"),
        (n - 2 * k, "n - 2*k"),
        (n.floordiv(k * e), "n/(e*k)"),
        (n.floordiv(k + 1), "n/(k + 1)"),
        (3 * n.floordiv(2), "3*(n/2)"),
        (n - h.floordiv(2), "n - h/2"),
        (-(h.floordiv(2)), "-(h/2)"),
        (n * n + n + 1, "n*n + n + 1"),
        (V("?k") + 1, "?k + 1"),
    ],
)
def test_str(size, text):
    assert str(size) == text


def test_repr():
    assert repr(n + 1) == "Size('n + 1')"


def test_to_python():
    x = (h - 3).floordiv(2) + 1
    assert x.to_python(lambda v: v) == "(h - 3)//2 + 1"
    assert x.to_python(lambda v: f"x.shape[{2 if v == 'h' else 3}]") == "(x.shape[2] - 3)//2 + 1"
    assert (-(h.floordiv(2))).to_python(lambda v: v) == "-(h//2)"
    assert (n.floordiv(2) * 3).to_python(lambda v: v) == "3*(n//2)"
    assert (n * k).to_python(lambda v: f"{v} + 0") == "(k + 0)*(n + 0)"
    env = {"h": 17, "n": 5}
    for s in [x, -(h.floordiv(2)), n.floordiv(h - n) - 4, C(-3), 3 - n * n.floordiv(2)]:
        assert eval(s.to_python(lambda v: f"env[{v!r}]")) == s.evaluate(env)


# -- linear forms, exact division, solving ---------------------------------------


def test_linear():
    assert n.linear() == ("n", 1, 0)
    assert (16 * gh).linear() == ("gh", 16, 0)
    assert (3 * n + 2).linear() == ("n", 3, 2)
    assert (2 - n).linear() == ("n", -1, 2)
    assert C(4).linear() is None
    assert (n * n).linear() is None
    assert (n + k).linear() is None
    assert (n.floordiv(2)).linear() is None
    assert (n.floordiv(2) + n).linear() is None


def test_exact_div():
    assert exact_div(4 * n + 8, 4) == n + 2
    assert exact_div(4 * n + 6, 4) is None
    assert exact_div(k * e, k) == e
    assert exact_div(n * n - 1, n - 1) == n + 1
    assert exact_div(n * n + 1, n - 1) is None
    assert exact_div(40, 16) is None
    assert exact_div(48, 16) == 3
    assert exact_div(n, 0) is None
    assert exact_div(0, n) == 0
    assert exact_div(n.floordiv(2) * 6, 3) == 2 * n.floordiv(2)
    assert exact_div(n, n.floordiv(2)) is None


def test_solve_linear():
    assert solve_linear(16 * gh, 48) == ("gh", C(3))
    assert solve_linear(16 * gh, 40) is None  # ShapeError at run time
    assert solve_linear(n, D) == ("n", D)
    assert solve_linear(n + 1, V("T") + 1) == ("n", V("T"))
    assert solve_linear(2 * n + 3, 4 * k + 7) == ("n", 2 * k + 2)
    assert solve_linear(2 * n + 3, 4 * k + 6) is None
    assert solve_linear(16 * gh, V("m")) is None
    assert solve_linear(n * n, 16) is None
    assert solve_linear(C(3), 3) is None
    # A pattern group (k two) on a D axis with two=2: k = D/2 only when exact.
    assert solve_linear(2 * k, 2 * D) == ("k", D)
    assert solve_linear(2 * k, D) is None


def test_lower_bound():
    assert C(3).lower_bound() == 3
    assert n.lower_bound() == 1
    assert V("?k").lower_bound() == 0
    assert (2 * n * k + V("?m") + 1).lower_bound() == 3
    assert (n - 1).lower_bound() == 0
    assert (n - 2).lower_bound() == -1
    assert (n - k).lower_bound() is None
    assert (n.floordiv(2) + 1).lower_bound() == 1
    assert (n.floordiv(k) + 1).lower_bound() == 1
    assert n.provably_pos() and V("?k").provably_nonneg() and not V("?k").provably_pos()
    assert not (n - 2).provably_nonneg() and not (n - k).provably_nonneg()


def test_sort_key_deterministic():
    xs = [n + 1, C(3), n.floordiv(2), k * n, D]
    assert sorted(xs, key=Size.sort_key) == sorted(reversed(xs), key=Size.sort_key)


def test_not_implemented_operands():
    with pytest.raises(TypeError):
        n + 1.5
    with pytest.raises(TypeError):
        n * "x"
    assert (n == 1.5) is False




def test_lower_bound_checks_every_factor():
    # 1/a >= 0 but ((-1)/a)/2 is negative: no bound for the product.
    a = V("a")
    x = C(1).floordiv(a) * C(-1).floordiv(a).floordiv(2)
    assert x.lower_bound() is None
    assert (V("?k") * (n - 5).floordiv(2)).lower_bound() is None


def test_pickle_and_copy():
    import copy
    import pickle

    x = (h - 3).floordiv(w) * n + 1
    y = pickle.loads(pickle.dumps(x))
    assert y == x and hash(y) == hash(x) and str(y) == str(x)
    assert copy.copy(x) is x and copy.deepcopy(x) is x
