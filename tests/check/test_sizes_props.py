"""Property tests of the size normal forms: normalising is sound (evaluation agrees with
Python ints), ring identities are decided, substitution commutes with evaluation, and
printing round-trips through a tiny parser of the size grammar."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapescript.check.size_solve import exact_div, solve_linear
from shapescript.check.sizes import Size

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
VARS = ("a", "b", "c")

# Expression trees: ("c", int) | ("v", name) | (op, left, right) with op in + - * /.
# Every divisor evaluates > 0 when the variables are >= 1.

leaves = st.one_of(
    st.integers(-6, 20).map(lambda v: ("c", v)),
    st.sampled_from(VARS).map(lambda v: ("v", v)),
)


def _divisors(tree):
    return st.one_of(
        st.integers(1, 6).map(lambda v: ("c", v)),
        st.sampled_from(VARS).map(lambda v: ("v", v)),
        st.tuples(st.sampled_from(VARS), st.integers(0, 3)).map(
            lambda p: ("+", ("v", p[0]), ("c", p[1]))),
        st.tuples(st.sampled_from(VARS), st.sampled_from(VARS)).map(
            lambda p: ("*", ("v", p[0]), ("v", p[1]))),
        tree.map(lambda t: ("+", ("*", t, t), ("c", 1))),  # t*t + 1 >= 1
    )


def _extend(tree):
    return st.one_of(
        st.tuples(st.sampled_from("+-*"), tree, tree),
        st.tuples(st.just("/"), tree, _divisors(tree)),
    )


trees = st.recursive(leaves, _extend, max_leaves=10)
envs = st.fixed_dictionaries({v: st.integers(1, 40) for v in VARS})


def build(t) -> Size:
    tag = t[0]
    if tag == "c":
        return Size.const(t[1])
    if tag == "v":
        return Size.var(t[1])
    x, y = build(t[1]), build(t[2])
    if tag == "+":
        return x + y
    if tag == "-":
        return x - y
    if tag == "*":
        return x * y
    return x.floordiv(y)


def run(t, env) -> int:
    tag = t[0]
    if tag == "c":
        return t[1]
    if tag == "v":
        return env[t[1]]
    x, y = run(t[1], env), run(t[2], env)
    if tag == "+":
        return x + y
    if tag == "-":
        return x - y
    if tag == "*":
        return x * y
    assert y > 0
    return x // y


# A tiny parser of the printed form (the size grammar plus a leading unary minus).

_TOKEN = re.compile(r"\s*(\d+|\??[A-Za-z_]\w*|[-+*/()])")


def parse(text: str) -> Size:
    toks = _TOKEN.findall(text)
    assert "".join(toks) == text.replace(" ", ""), text
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def factor():
        tok = take()
        if tok == "(":
            v = sum_()
            assert take() == ")"
            return v
        if tok.isdigit():
            return Size.const(int(tok))
        return Size.var(tok)

    def term():
        v = factor()
        while peek() in ("*", "/"):
            op = take()
            v = v * factor() if op == "*" else v.floordiv(factor())
        return v

    def sum_():
        neg = peek() == "-"
        if neg:
            take()
        v = term()
        if neg:
            v = -v
        while peek() in ("+", "-"):
            op = take()
            v = v + term() if op == "+" else v - term()
        return v

    v = sum_()
    assert pos == len(toks), text
    return v


# Rewrites that preserve the value as a ring identity (applied anywhere, also inside
# floor divisions): the normal form must not change.


@st.composite
def rewritten(draw, t):
    tag = t[0]
    if tag in ("c", "v"):
        choice = draw(st.integers(0, 3))
        if choice == 1:
            return ("+", t, ("c", 0))
        if choice == 2:
            return ("*", ("c", 1), t)
        if choice == 3 and tag == "c":
            # split a constant: c = (c - 7) + 7
            return ("+", ("c", t[1] - 7), ("c", 7))
        return t
    x = draw(rewritten(t[1]))
    y = draw(rewritten(t[2]))
    if tag == "/":
        return ("/", x, y)
    if tag in "+*" and draw(st.booleans()):
        x, y = y, x  # commute
    if tag == "-" and draw(st.booleans()):
        return ("+", x, ("*", ("c", -1), y))
    if tag == "*" and y[0] == "+" and draw(st.booleans()):
        return ("+", ("*", x, y[1]), ("*", x, y[2]))  # distribute
    if tag == "+" and y[0] == "+" and draw(st.booleans()):
        return ("+", ("+", x, y[1]), y[2])  # re-associate
    return (tag, x, y)


@SETTINGS
@given(trees, st.lists(envs, min_size=1, max_size=4))
def test_normal_form_evaluates_like_python(t, env_list):
    s = build(t)
    for env in env_list:
        assert s.evaluate(env) == run(t, env)


@SETTINGS
@given(trees.flatmap(lambda t: st.tuples(st.just(t), rewritten(t))), envs)
def test_ring_identities_are_decided(pair, env):
    t1, t2 = pair
    s1, s2 = build(t1), build(t2)
    assert s1 == s2
    assert hash(s1) == hash(s2)
    assert str(s1) == str(s2)
    assert s1.evaluate(env) == s2.evaluate(env) == run(t1, env)


@SETTINGS
@given(trees, trees, st.lists(envs, min_size=1, max_size=4))
def test_equal_normal_forms_evaluate_equally(t1, t2, env_list):
    s1, s2 = build(t1), build(t2)
    if s1 == s2:
        assert hash(s1) == hash(s2) and str(s1) == str(s2)
        for env in env_list:
            assert run(t1, env) == run(t2, env)
    if s1 - s2 == 0:
        assert s1 == s2


# Values substituted for a variable must stay >= 1 so that every divisor stays > 0.
positive_sizes = st.one_of(
    st.integers(1, 20).map(Size.const),
    st.sampled_from(("x", "y")).map(Size.var),
    st.tuples(st.sampled_from(("x", "y")), st.integers(0, 5)).map(
        lambda p: Size.var(p[0]) + p[1]),
    st.tuples(st.sampled_from(("x", "y")), st.integers(1, 4)).map(
        lambda p: Size.var(p[0]) * p[1]),
    st.just(Size.var("x") * Size.var("y")),
    st.just(Size.var("x").floordiv(2) + 1),
)


@SETTINGS
@given(trees, st.dictionaries(st.sampled_from(VARS), positive_sizes | st.integers(1, 9)),
       st.fixed_dictionaries({v: st.integers(1, 30) for v in VARS + ("x", "y")}))
def test_substitute_then_evaluate(t, sub, env):
    s = build(t)
    r = s.substitute(sub)
    combined = dict(env)
    for name, v in sub.items():
        combined[name] = v if isinstance(v, int) else v.evaluate(env)
    assert r.evaluate(env) == s.evaluate(combined) == run(t, combined)
    if all(isinstance(v, int) for v in sub.values()) and set(sub) >= s.free_vars():
        assert r.is_const
    assert r.free_vars() <= (s.free_vars() - set(sub)) | {"x", "y"}


@SETTINGS
@given(trees)
def test_str_round_trips(t):
    s = build(t)
    text = str(s)
    assert str(s) == text  # cached and deterministic
    back = parse(text)
    assert back == s, (text, str(back))
    assert str(back) == text


@SETTINGS
@given(trees, envs)
def test_to_python_evaluates(t, env):
    s = build(t)
    code = s.to_python(lambda v: f"env[{v!r}]")
    assert eval(code, {"env": env}) == s.evaluate(env)


@SETTINGS
@given(trees, envs)
def test_lower_bound_is_sound(t, env):
    s = build(t)
    lb = s.lower_bound()
    if lb is not None:
        assert s.evaluate(env) >= lb
        ones = {v: 1 for v in VARS}
        assert s.evaluate(ones) >= lb


@SETTINGS
@given(st.sampled_from(VARS), st.integers(-9, 9).filter(bool), st.integers(-20, 20),
       st.integers(-30, 30), st.integers(-30, 30))
def test_linear_and_solve(name, a, c, val, other):
    n = Size.var(name)
    expr = a * n + c
    assert expr.linear() == (name, a, c)
    # a value in the image solves exactly, symbolic or constant
    assert solve_linear(expr, a * val + c) == (name, Size.const(val))
    m = Size.var("m")
    assert solve_linear(expr, a * (m + val) + c) == (name, m + val)
    # a value off the lattice does not
    if (other - c) % a:
        assert solve_linear(expr, other) is None
    else:
        assert solve_linear(expr, other) == (name, Size.const((other - c) // a))
    if abs(a) > 1:
        assert solve_linear(expr, m) is None


@SETTINGS
@given(trees, trees)
def test_exact_div_of_products(t1, t2):
    p, q = build(t1), build(t2)
    if q == 0:
        assert exact_div(p, q) is None
        return
    assert exact_div(p * q, q) == p
    assert (p * q).floordiv(q) == p


@SETTINGS
@given(trees, st.integers(1, 12))
def test_constant_multiple_divides_exactly(t, k):
    p = build(t)
    assert (p * k).floordiv(k) == p
    assert (p * k + 2 * k).floordiv(k) == p + 2
