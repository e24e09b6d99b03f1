"""Axis names that are keywords (`in`, `dim`, `for`) in patterns: they parse as names,
check, and run without einops' warning about keywords."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

SRC = """
fn swap(x: [b n d]) -> [n b d] = rearrange(x, b in dim -> in b dim)
fn total(x: [b n d]) -> [b] = reduce(x, b in for -> b, sum)
fn mm(x: [b n], y: [n k]) -> [b k] = einsum(x, y: b in, in out -> b out)
fn halves(x: [b 6]) -> [b 2 3] = rearrange(x, b (in k) -> b in k, k=3)
"""


def test_keyword_axes_run_as_einops_would(ss):
    m = ss(SRC)
    x = torch.randn(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.equal(m.swap(x), x.transpose(0, 1))
        assert torch.allclose(m.total(x), x.sum((1, 2)))
        a, b = torch.randn(2, 3), torch.randn(3, 5)
        assert torch.allclose(m.mm(a, b), a @ b)
        y = torch.randn(2, 6)
        assert torch.equal(m.halves(y), y.reshape(2, 2, 3))


def test_a_keyword_axis_is_reported_as_written():
    from shapescript.compiler import check_source

    diags = check_source("fn f(x: [b n]) -> [n b] = rearrange(x, b in -> in b dim)\n", "t.ss")
    assert [d.code for d in diags] == ["E0602"]
    assert "`dim`" in diags[0].message
