"""`(...)` over axes of unknown rank: one axis of an unknown size."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_a_group_of_unknown_rank_flattens(ss):
    m = ss("""
fn flat(x: [b ...]) -> [b ?k] = rearrange(x, b ... -> b (...))
fn whole(x: [...]) -> [?k] = rearrange(x, ... -> (...))
fn per_row(x: [b ...]) -> [b] = reduce(rearrange(x, b ... -> b (...)), b k -> b, sum)
""")
    x = torch.randn(2, 3, 4)
    assert torch.equal(m.flat(x), x.reshape(2, 12))
    assert torch.equal(m.whole(x), x.reshape(24))
    assert torch.allclose(m.per_row(x), x.sum((1, 2)))


def test_the_group_is_not_a_known_size():
    from shapescript.compiler import check_source

    src = "fn f(x: [b ...]) -> [b 12] = rearrange(x, b ... -> b (...))\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0401"]
