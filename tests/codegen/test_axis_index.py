"""Indexing any axis: `x[.., 0..k]` (`..` keeps an axis whole), `x[..., i]` (`...` stands
for the axes between), `x[i, 0..k]`, and by label, `x[D=0..k]`, `x[n=i]`; a slice's axis is
labelled as a leading slice's is (`n - 1` for `0..n-1`), and bounds the types don't prove
are checked at run time."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from shapescript.compiler import check_source  # noqa: E402

SRC = """
dim D = 8
dim K = 3

fn second(x: [a b c D]) -> [a 2 c D] = x[.., 0..2]
fn last(x: [a b c D]) -> [a b c] = x[..., 1]
fn named(x: [a b c D]) -> [a b c K] = x[D=1..K + 1]
fn both(x: [n D]) -> [n - 1 D - 2] = x[0..n - 1, 2..D]
fn row(x: [n D], t: int) -> [D] = x[n=t]
fn upto(x: [n D], k: int) -> [n ?m] = x[.., 0..k]
fn mixed(x: [a n D], i: int) -> [n K] = x[i, .., 0..K]
fn shorter(x: [n D]) -> [D - 1 n] = rearrange(x[.., 1..D], n d -> d n)
"""


def codes(src: str) -> list[str]:
    return [d.code for d in check_source(src, "t.ss")]


def test_any_axis_checks_with_its_sizes():
    assert codes(SRC) == []


def test_a_sliced_axis_has_the_size_and_label_of_a_leading_slice():
    # `0..n - 1` is `n - 1`; two slices of one length broadcast together by that label.
    (d,) = check_source("fn f(x: [n D]) -> [n - 2 D] = x[0..n - 1, ..]\n", "t.ss")
    assert d.code == "E0401"
    assert codes("fn f(x: [n m]) -> [n - 1 m] = x[0..n - 1, ..]\n") == []
    assert codes("fn f(x: [a m]) -> [a 2] = x[m=1..3] + x[.., 0..2]\n") == []


@pytest.mark.parametrize("index,code", [
    ("x[.., 0..9]", "E0406"),      # provably past the end of D = 8
    ("x[..., ..., 0]", "E0410"),   # two `...`
    ("x[E=0..1]", "E1001"),        # no axis labelled E
    ("x[n=0, .., 0..1]", "E0410"),  # named beside positional
    ("x[.., .., .., 0]", "E0406"),  # more indices than axes
    ("x[D=0..1, D=1..2]", "E0410"),  # one axis twice
    ("x[.., x > 0]", "E0410"),     # a mask only indexes the leading axes
])
def test_bad_indices_are_diagnosed(index, code):
    (d,) = check_source(f"dim D = 8\nfn f(x: [n D]) -> [n] = sum({index})\n", "t.ss")
    assert d.code == code, d.message


def test_results_agree_with_torch(ss):
    m = ss(SRC)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, 8, generator=g)
    assert torch.equal(m.second(x), x[:, 0:2])
    assert torch.equal(m.last(x), x[..., 1])
    assert torch.equal(m.named(x), x[..., 1:4])
    y = torch.randn(5, 8, generator=g)
    assert torch.equal(m.both(y), y[0:4, 2:8])
    assert torch.equal(m.row(y, -2), y[-2])
    assert torch.equal(m.upto(y, 3), y[:, 0:3])
    assert torch.equal(m.mixed(x[0], 1), x[0][1, :, 0:3])
    assert torch.equal(m.shorter(y), y[:, 1:].T)


def test_bounds_the_types_dont_prove_are_checked(ss):
    from shapescript import ShapeError

    m = ss(SRC)
    y = torch.zeros(5, 8)
    with pytest.raises(ShapeError, match=r"the slice 0\.\.9 is out of bounds for axis 1, of size 8"):
        m.upto(y, 9)
    with pytest.raises(ShapeError, match="index 5 is out of bounds for axis 0, of size 5"):
        m.row(y, 5)
