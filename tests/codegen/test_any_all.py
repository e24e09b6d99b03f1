"""`any` and `all`: reductions of a mask, as functions (`over=`) and in `reduce`."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

SRC = """
fn some(x: [b n]) -> [b] Mask = any(x > 0.0, over=n)
fn every(x: [b n]) -> [] Mask = all(x > 0.0)
fn every2(x: [b n h]) -> [b] Mask = all(x > 0.0, over=(n, h))
fn some_pattern(x: [b n]) -> [b] Mask = reduce(x > 0.0, b n -> b, any)
fn every_pattern(x: [b n h]) -> [n] Mask = reduce(x > 0.0, b n h -> n, all)
"""


def test_any_and_all_agree_with_torch(ss):
    m = ss(SRC)
    x = torch.randn(4, 3, 2, generator=torch.Generator().manual_seed(0))
    x2 = x[..., 0]
    assert torch.equal(m.some(x2), (x2 > 0).any(1))
    assert torch.equal(m.every(x2), (x2 > 0).all())
    assert torch.equal(m.every2(x), (x > 0).flatten(1).all(1))
    assert torch.equal(m.some_pattern(x2), (x2 > 0).any(1))
    assert torch.equal(m.every_pattern(x), (x > 0).transpose(0, 1).flatten(1).all(1))


def test_any_of_floats_is_an_error():
    from shapescript.compiler import check_source

    diags = check_source("fn f(x: [b n]) -> [b] Mask = any(x, over=n)\n", "t.ss")
    assert [(d.code, d.message) for d in diags] == [("E0404", "`any` takes a mask, not `f32`")]
    diags = check_source("fn f(x: [b n]) -> [b] = reduce(x, b n -> b, all)\n", "t.ss")
    assert [d.code for d in diags] == ["E0404"]
