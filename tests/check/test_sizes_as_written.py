"""Messages show sizes the way the source writes them, with the value where it helps
(`D = 30`, `C*D = 128`), at check time and at run time."""

from __future__ import annotations

import pytest

from shapescript.compiler import check_source


def messages(src):
    return [(d.code, d.message) for d in check_source(src, "t.ss")]


def labels(src):
    return [d.labels[0].message for d in check_source(src, "t.ss")]


def test_pattern_groups_name_their_sizes():
    src = "dim D = 30\ndim H = 4\nfn f(x: [n D]) -> [n H D/H] = rearrange(x, n (h d) -> n h d, h=H)\n"
    assert messages(src) == [("E0604", "the group `(h d)` doesn't divide its axis exactly: "
                                       "`D = 30` is not a multiple of `H = 4`")]
    assert labels(src) == ["`D` / `H`"]
    src = "dim C = 4\ndim D = 32\nfn f(x: [b D]) -> [b D] = rearrange(x, b (h w) -> b (h w), h=C, w=D)\n"
    assert messages(src) == [("E0605", "the group `(h w)` is `C*D = 128` but its axis is `D = 32`")]
    src = "dim D = 30\nfn f(x: [n D]) -> [n D] = rearrange(x, n (h d) -> n (d h))\n"
    assert messages(src) == [("E0604", "the group `(h d)` has 2 unknown sizes (`h`, `d`) on the "
                                       "axis `D = 30`")]


def test_keyword_and_repeated_names():
    src = "dim N = 4\ndim M = 3\nfn f(x: [b N]) -> [b N] = rearrange(x, b N -> b N, N=M)\n"
    assert messages(src) == [("E0605", "`N` is `N = 4` but its keyword says `M = 3`")]
    src = "dim D = 8\ndim C = 4\nfn f(x: [D n], y: [C m]) -> [n m] = einsum(x, y: k a, k b -> a b)\n"
    assert messages(src) == [("E0401", "sizes not provably equal: `k` is `D = 8` in one place "
                                       "but `C = 4` in another")]


def test_matmul_split_and_topk():
    src = "dim D = 8\ndim C = 4\nfn f(x: [b D], w: [C C]) -> [b C] = x @ w\n"
    assert labels(src) == ["`D = 8` against `C = 4`"]
    src = "dim D = 8\ndim H = 3\nfn f(x: [n D]) -> ([n H], [n H]) = split(x, over=D, sizes=(H, H))\n"
    assert messages(src) == [("E0401", "the sizes add up to `2*H = 6`, but the axis `D` is `8`")]
    src = "dim D = 8\nfn f(x: [n D]) -> [n 9] = topk(x, 9, over=D)[0]\n"
    assert messages(src) == [("E0406", "`topk` takes 9 of the axis `D = 8`")]


def test_run_time_group_checks_name_the_sizes(ss):
    torch = pytest.importorskip("torch")
    from shapescript import ShapeError

    m = ss("dim H = 4\nfn f(x: [b n]) -> [b ?k H] = rearrange(x, b (k h) -> b k h, h=H)\n")
    assert m.f(torch.zeros(2, 8)).shape == (2, 2, 4)
    with pytest.raises(ShapeError, match=r"`\(k h\)` needs axis `n` to be a multiple of `H = 4`, "
                                         r"but it is 10"):
        m.f(torch.zeros(2, 10))
