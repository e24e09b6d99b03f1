"""``value_and_grad`` takes the model's gradients by ``backward()`` when the arguments hold
nothing else that takes a gradient, and by ``torch.autograd.grad`` otherwise: the same
gradients either way, the fields' ``.grad`` left as they were, and no ``.grad`` on an
argument."""

from __future__ import annotations

import pytest
import torch

from shapescript import rt

SRC = """
dim D = 4
dim C = 3

model Lin:
    param w: [D C]
    param b: [C]

fn loss(m: Lin, x: [n D], y: [n] Index[C]) -> [] = cross_entropy(x @ m.w + m.b, y, over=C)
fn two(m: Lin, other: Lin, x: [n D], y: [n] Index[C]) -> [] = loss(m, x, y) + loss(other, x, y)
"""


@pytest.fixture()
def program(ss):
    return ss(SRC)


def _data():
    g = torch.Generator().manual_seed(0)
    return torch.randn(5, 4, generator=g), torch.randint(0, 3, (5,), generator=g)


def _expected(m, x, y, *extra):
    w = [m.w.detach().clone().requires_grad_(), m.b.detach().clone().requires_grad_()]
    loss = torch.nn.functional.cross_entropy(x @ w[0] + w[1], y)
    for o in extra:
        loss = loss + torch.nn.functional.cross_entropy(x @ o.w.detach() + o.b.detach(), y)
    return torch.autograd.grad(loss, w)


def test_gradients_by_backward_leave_grad_as_it_was(program):
    m = program.Lin.init(seed=1)
    x, y = _data()
    mark = torch.full((3,), 7.0)
    m.b.grad = mark
    _, g = rt.value_and_grad(program.loss, m, x, y)
    gw, gb = _expected(m, x, y)
    assert torch.allclose(g.w, gw) and torch.allclose(g.b, gb)
    assert m.w.grad is None and m.b.grad is mark


def test_an_argument_that_takes_a_gradient_gets_no_grad(program):
    m, other = program.Lin.init(seed=1), program.Lin.init(seed=2)
    x, y = _data()
    _, g = rt.value_and_grad(program.two, m, other, x, y)
    gw, gb = _expected(m, x, y, other)
    assert torch.allclose(g.w, gw) and torch.allclose(g.b, gb)
    assert other.w.grad is None and other.b.grad is None and m.w.grad is None
    xg = x.clone().requires_grad_()
    _, g = rt.value_and_grad(program.loss, m, xg, y)
    assert xg.grad is None and torch.allclose(g.w, gw)
    _, g = rt.value_and_grad(program.loss, m, x=xg, y=y)
    assert xg.grad is None and torch.allclose(g.w, gw)
