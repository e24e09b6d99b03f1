"""einops parity: patterns in the style of einops' own test suite (identity, equivalent
rearrangements and reductions, pack and unpack), each compiled by ShapeScript and
compared with einops on the same tensor, in shape and values."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
einops = pytest.importorskip("einops")

SHAPE = (2, 3, 4, 5, 6)

# (einops pattern, ShapeScript pattern, operation)
CASES = [
    ("a b c d e -> a b c d e", "a b c d e -> a b c d e", "rearrange"),
    ("a b c d e ... -> ... a b c d e", "a b c d e ... -> ... a b c d e", "rearrange"),
    ("a b c d e ... -> a ... b c d e", "a b c d e ... -> a ... b c d e", "rearrange"),
    ("a ... e -> a ... e", "a ... e -> a ... e", "rearrange"),
    ("a ... c d e -> a (...) c d e", "a ... c d e -> a (...) c d e", "rearrange"),
    ("a b c d e -> (a b) c d e", "a b ... -> (a b) ...", "rearrange"),
    ("a b c d e -> a b (c d) e", "... c d e -> ... (c d) e", "rearrange"),
    ("a b c d e -> (a b c d e)", "... -> (...)", "rearrange"),
    ("a b c d e -> b (c d e) a", "a b ... -> b (...) a", "rearrange"),
    ("a b c d e -> b (a c d) e", "a b ... e -> b (a ...) e", "rearrange"),
    ("a b c d e -> (e a)", "a ... e -> (e a)", "sum"),
    ("a b c d e -> d (a e)", "a b c d e ... -> d (a e)", "max"),
    ("a b c d e -> (a b)", "... c d e -> (...)", "mean"),
    ("a b c d e -> e d", "a b c d e -> e d", "min"),
    ("a b c d e -> a b c d e 2", "a b c d e -> a b c d e two", "repeat"),
    ("a b c d e -> (a 2) b c d e", "a b c d e -> (a two) b c d e", "repeat"),
]


def _fn(op: str, pattern: str, rank: int) -> str:
    ret = "[" + " ".join(f"?o{i}" for i in range(rank)) + "]"
    call = {"rearrange": f"rearrange(x, {pattern})",
            "repeat": f"repeat(x, {pattern}, two=2)"}.get(op, f"reduce(x, {pattern}, {op})")
    return f"fn f(x: [a b c d e]) -> {ret} = {call}\n"


@pytest.mark.parametrize("theirs, ours, op", CASES)
def test_patterns_agree_with_einops(theirs, ours, op, ss):
    x = torch.randn(*SHAPE, generator=torch.Generator().manual_seed(0))
    if op == "rearrange":
        want = einops.rearrange(x, theirs)
    elif op == "repeat":
        want = einops.repeat(x, theirs)
    else:
        want = einops.reduce(x, theirs, op)
    m = ss(_fn(op, ours, want.dim()))
    got = m.f(x)
    assert got.shape == want.shape
    assert torch.allclose(got, want)


PACK_CASES = [
    # (einops pattern, ShapeScript pattern, shapes of the tensors packed)
    ("a b *", "a b *", [(2, 3, 5), (2, 3), (2, 3, 7, 5)]),
    ("* a b", "* a b", [(5, 2, 3), (2, 3), (7, 5, 2, 3)]),
    ("a * b", "a * b", [(2, 5, 3), (2, 3), (2, 7, 5, 3)]),
    ("*", "*", [(5,), (2, 3), ()]),
]


@pytest.mark.parametrize("theirs, ours, shapes", PACK_CASES)
def test_pack_and_unpack_agree_with_einops(theirs, ours, shapes, ss):
    g = torch.Generator().manual_seed(1)
    xs = [torch.randn(s, generator=g) for s in shapes]
    packed, ps = einops.pack(xs, theirs)
    names = [f"x{i}" for i in range(len(xs))]
    letters = iter("pqrstuvw")
    outer = ours.split()
    star = outer.index("*")
    params, parts, ret = [], [], []
    for name, s in zip(names, shapes):
        own = [next(letters) for _ in range(len(s) - len(outer) + 1)]
        axes = outer[:star] + own + outer[star + 1:]
        params.append(f"{name}: [{' '.join(axes)}]")
        parts.append(" ".join(axes))
        ret.append(f"[{' '.join(axes)}]")
    tup = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    src = (f"fn packed({', '.join(params)}) -> [{' '.join('?k' + str(i) for i in range(packed.dim()))}]"
           f" = pack({tup}, {ours})\n"
           f"fn round_trip({', '.join(params)}) -> ({', '.join(ret)}) = "
           f"unpack(pack({tup}, {ours}), {ours} -> {', '.join(parts)})\n")
    m = ss(src)
    assert torch.equal(m.packed(*xs), packed)
    back = m.round_trip(*xs)
    want = einops.unpack(packed, ps, theirs)
    assert len(back) == len(want)
    assert all(torch.equal(a, b) for a, b in zip(back, want))


# -- keyword sizes for axes the types leave open -----------------------------------------
# einops' `repeat_test_cases` (tests/test_ops.py) give sizes for axes of the input too
# (`a=2` on an input of shape (2, 3, 5)), and its `check_reversion` reduces the result back
# with the same keywords. On a generic input axis the keyword is checked when the call runs.

KEYWORD_CASES = [
    # (pattern, its keyword sizes), for an input of shape (2, 3, 5)
    ("a b c -> (c copy a b)", dict(copy=2, a=2, b=3, c=5)),
    ("a b c -> (c a) (copy1 b copy2)", dict(a=2, copy1=1, copy2=2)),
    ("a b c -> c a b", dict()),
]


def _keywords(sizes: dict) -> str:
    return "".join(f", {k}={v}" for k, v in sizes.items())


@pytest.mark.parametrize("pattern, sizes", KEYWORD_CASES)
def test_keyword_sizes_for_generic_input_axes_agree_with_einops(pattern, sizes, ss):
    x = torch.arange(2 * 3 * 5).reshape(2, 3, 5)
    left, right = pattern.split("->")
    repeated = einops.repeat(x, pattern, **sizes)
    kws = _keywords(sizes)
    src = (f"fn rep(x: [p q r] i64) -> [{' '.join(f'?o{i}' for i in range(repeated.dim()))}] i64"
           f" = repeat(x, {pattern}{kws})\n")
    for op in ("min", "max"):
        src += (f"fn back_{op}(y: [{' '.join(f'?o{i}' for i in range(repeated.dim()))}] i64) -> "
                f"[?a ?b ?c] i64 = reduce(y, {right} -> {left}, {op}{kws})\n")
    m = ss(src)
    got = m.rep(x)
    assert torch.equal(got, repeated)
    for op in ("min", "max"):
        back = getattr(m, f"back_{op}")(got)
        assert torch.equal(back, einops.reduce(repeated, f"{right} -> {left}", op, **sizes))
        assert torch.equal(back, x)


def test_a_keyword_size_on_a_generic_input_axis_reduces_as_einops(ss):
    # The case: `reduce(x, a b c d e -> (e c) a, sum, a=2)` on [p q r s t].
    x = torch.randn(*SHAPE, generator=torch.Generator().manual_seed(2))
    m = ss("fn f(x: [p q r s t]) -> [t*r p] = reduce(x, a b c d e -> (e c) a, sum, a=2)\n")
    assert torch.allclose(m.f(x), einops.reduce(x, "a b c d e -> (e c) a", "sum", a=2))


def test_a_keyword_size_the_axis_does_not_have_is_a_shape_error(ss):
    from shapescript import ShapeError

    m = ss("fn f(x: [p q r s t]) -> [t*r p] = reduce(x, a b c d e -> (e c) a, sum, a=3)\n")
    with pytest.raises(ShapeError, match=r"m\.ss:1:.*`a=3` needs axis `p` to be 3, but it is 2"):
        m.f(torch.randn(*SHAPE))
    with pytest.raises(einops.EinopsError):
        einops.reduce(torch.randn(*SHAPE), "a b c d e -> (e c) a", "sum", a=3)


def test_a_keyword_size_a_static_axis_does_not_have_is_still_e0605():
    from shapescript.compiler import check_source

    src = "fn f(x: [2 q]) -> [q] = reduce(x, a b -> b, sum, a=3)\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0605"]
    src = "fn f(x: [p+1 q]) -> [q] = reduce(x, a b -> b, sum, a=p)\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0605"]


# -- non-ASCII axis names ---------------------------------------------------------------
# einops' test_parsing accepts `camelCase under_scored cApiTaLs ß ...`: any Python
# identifier is an axis name.

UNICODE_CASES = [
    ("camelCase under_scored cApiTaLs ß ... -> ß ... cApiTaLs under_scored camelCase", "rearrange"),
    ("camelCase under_scored cApiTaLs ß ... -> (ß camelCase) ... (under_scored cApiTaLs)", "rearrange"),
    ("camelCase under_scored cApiTaLs ß ... -> ß camelCase", "sum"),
    ("camelCase under_scored cApiTaLs ß ... -> ß ... copy camelCase under_scored cApiTaLs", "repeat"),
]


@pytest.mark.parametrize("pattern, op", UNICODE_CASES)
def test_non_ascii_axis_names_agree_with_einops(pattern, op, ss):
    x = torch.randn(*SHAPE, generator=torch.Generator().manual_seed(3))
    if op == "rearrange":
        want = einops.rearrange(x, pattern)
    elif op == "repeat":
        want = einops.repeat(x, pattern, copy=2)
    else:
        want = einops.reduce(x, pattern, op)
    ret = "[" + " ".join(f"?o{i}" for i in range(want.dim())) + "]"
    call = {"rearrange": f"rearrange(x, {pattern})",
            "repeat": f"repeat(x, {pattern}, copy=2)"}.get(op, f"reduce(x, {pattern}, {op})")
    m = ss(f"fn f(x: [p q r ß t]) -> {ret} = {call}\n")
    got = m.f(x)
    assert got.shape == want.shape
    assert torch.allclose(got, want)


def test_non_ascii_names_in_types_and_values(ss):
    m = ss("dim Größe = 4\nfn f(x: [ß Größe]) -> [Größe ß] = rearrange(x, ß g -> g ß) * ß\n")
    x = torch.randn(3, 4)
    assert torch.allclose(m.f(x), x.T * 3)
    assert m.Größe == 4


@pytest.mark.parametrize("name, fix", [("\ufb01le", "file"), ("\u2126", "\u03a9")])
def test_a_name_python_would_read_otherwise_is_e0101(name, fix):
    from shapescript.compiler import check_source

    diags = check_source(f"fn f(x: [{name}]) -> [{name}] = x\n", "t.ss")
    assert [d.code for d in diags] == ["E0101", "E0101"]
    assert f"write it `{fix}`" in diags[0].help


# -- einsum broadcasts an axis of size 1 --------------------------------------------------
# torch's einsum (which einops' calls) broadcasts an axis of size 1 against the same name
# in another input: `i j, j k -> i k` on (2, 1) and (3, 4) sums `b` over `j` times `a`.

EINSUM_BROADCAST = [
    # (pattern, ShapeScript's input types, shapes)
    ("i j, j k -> i k", ("[2 1]", "[3 4]"), ((2, 1), (3, 4))),
    ("i j, j k -> i j k", ("[2 1]", "[3 4]"), ((2, 1), (3, 4))),
    ("i j, j k -> i j k", ("[2 3]", "[1 4]"), ((2, 3), (1, 4))),
    ("z i j, z j k -> z i k", ("[p 2 1]", "[1 n 4]"), ((5, 2, 1), (1, 3, 4))),
]


@pytest.mark.parametrize("pattern, types, shapes", EINSUM_BROADCAST)
def test_einsum_broadcasts_a_size_one_axis_as_einops(pattern, types, shapes, ss):
    g = torch.Generator().manual_seed(4)
    a, b = (torch.randn(s, generator=g) for s in shapes)
    want = einops.einsum(a, b, pattern)
    ret = "[" + " ".join(f"?o{i}" for i in range(want.dim())) + "]"
    m = ss(f"fn f(a: {types[0]}, b: {types[1]}) -> {ret} = einsum(a, b: {pattern})\n")
    got = m.f(a, b)
    assert got.shape == want.shape
    assert torch.allclose(got, want, atol=1e-6)


def test_einsum_result_takes_the_broadcast_size():
    from shapescript.compiler import check_program

    p = check_program("fn f(a: [2 1], b: [3 4]) = einsum(a, b: i j, j k -> i j k)\n", "t.ss")
    assert p.ok
    t = p.main.type_of(p.main.fns["f"].sig.decl.body)
    assert [str(ax.size) for ax in t.axes] == ["2", "3", "4"]


@pytest.mark.parametrize("types", [("[2 2]", "[3 4]"), ("[2 n]", "[3 4]")])
def test_einsum_sizes_other_than_one_must_agree(types):
    from shapescript.compiler import check_source

    src = f"fn f(a: {types[0]}, b: {types[1]}) = einsum(a, b: i j, j k -> i k)\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0401"]


def test_a_trace_does_not_broadcast():
    from shapescript.compiler import check_source

    src = "fn f(a: [1 3]) = einsum(a: i i -> i)\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0401"]
