"""A tuple `as` gives one unknown to every axis written with it: `([?k D], [?k])` checks
at run time that the elements agree on `?k`, as the checker assumes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

SRC = """
import python torch
fn pair(x: [n], y: [m]) -> [?k]:
    t = (x, y) as ([?k], [?k])
    return t[0] + t[1]
fn kept(v: [n D], keep: [n] Mask) -> [?k D]:
    vals, idx = (v[keep], torch.nonzero(keep).squeeze(1)) as ([?k D], [?k] i64)
    return vals * (idx to f32)
dim D = 2
"""


def test_elements_that_agree_pass(ss):
    m = ss(SRC)
    assert torch.equal(m.pair(torch.ones(3), torch.ones(3)), torch.full((3,), 2.0))
    v = torch.tensor([[1.0, 2.0], [-1.0, 0.0], [3.0, 1.0]])
    assert torch.equal(m.kept(v, v[:, 0] > 0), torch.tensor([[0.0, 0.0], [6.0, 2.0]]))


def test_elements_that_disagree_on_the_unknown_are_a_shape_error(ss):
    import shapescript

    m = ss(SRC)
    with pytest.raises(shapescript.ShapeError, match=r"`\?k` is 3 in element 0 \(axis 0\) but 4 in element 1"):
        m.pair(torch.ones(3), torch.ones(4))


def test_with_checks_off_nothing_is_checked(ss):
    m = ss(SRC, checks="never")
    with pytest.raises(RuntimeError):  # torch's own error, from the addition
        m.pair(torch.ones(3), torch.ones(4))
