"""Host code (a function that returns nothing, like `main`) builds no autograd graph;
`value_and_grad` inside it still differentiates."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

SRC = """
import python torch
dim D = 4
model M:
    param w: [D] = ones
fn loss(m: M, x: [b D]) -> [] = mean((x * m.w) * (x * m.w))
fn show(m: M, x: [b D]):
    print(loss(m, x))
    print(torch.is_grad_enabled())
fn step(m: M, x: [b D]):
    l, grads = value_and_grad(loss, m, x)
    update(m, grads, sgd(m, lr=0.1))
    print(l)
"""


def test_a_loss_printed_in_host_code_has_no_graph(ss, capsys):
    m = ss(SRC)
    model = m.M.init(seed=0)
    m.show(model, torch.randn(3, 4))
    out = capsys.readouterr().out
    assert "grad_fn" not in out and out.splitlines()[-1] == "False"
    # A function that returns a value is not host code: its result keeps its graph.
    assert m.loss(model, torch.randn(3, 4)).requires_grad


def test_value_and_grad_in_host_code_still_trains(ss, capsys):
    m = ss(SRC)
    model = m.M.init(seed=0)
    before = model.w.detach().clone()
    m.step(model, torch.randn(3, 4, generator=torch.Generator().manual_seed(0)))
    assert not torch.equal(model.w.detach(), before)
    assert "grad_fn" not in capsys.readouterr().out
    assert torch.is_grad_enabled()  # restored after the call
