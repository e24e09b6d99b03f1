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
