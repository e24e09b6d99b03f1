"""Axis names as written: a pattern's output names (`over=v`) and growing unknowns
(`over=s`) reduce and concatenate the axes they name at run time."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_over_a_pattern_name_reduces_that_axis(ss):
    m = ss("""
dim V = 5
fn f(l: [b n V]) -> [n b] = sum(rearrange(l, b n v -> n b v), over=v)
""")
    x = torch.randn(2, 3, 5)
    assert torch.allclose(m.f(x), x.sum(-1).T)


def test_over_an_unknown_concatenates_along_it(ss):
    m = ss("""
fn f(x: [b n], steps: int) -> [b ?t]:
    out: [b ?s] = x
    for i in 0..steps:
        out = concat((out, x), over=s)
    return out
""")
    x = torch.randn(2, 3)
    assert torch.equal(m.f(x, 2), torch.cat([x, x, x], 1))


def test_an_index_bound_is_shown_as_written_and_as_its_value(ss):
    import shapescript

    m = ss("""
dim P = 8
fn f(i: [n] i64) -> [n] Index[P] = i as [n] Index[P]
""", value_checks="always")
    with pytest.raises(shapescript.DomainError, match=r"expected Index\[P\] = Index\[8\]"):
        m.f(torch.tensor([1, 9]))
