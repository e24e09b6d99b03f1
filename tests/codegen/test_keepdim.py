"""A reduction whose every use broadcasts it back along the axes it reduced is computed
with ``keepdim=True``, as written by hand, instead of being ``unsqueeze``d back; any other
use keeps the reduced type. Values are compared with torch."""

from __future__ import annotations

import pytest

from shapescript.compiler import compile_source

torch = pytest.importorskip("torch")


def body(src: str, fn: str) -> str:
    """The generated body of ``fn`` (its ``_unchecked_`` function), as text."""
    py = compile_source(src, "m.ss").python
    lines = py.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"def _unchecked_{fn}("))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i] and not lines[i].startswith((" ", "\t"))), len(lines))
    return "\n".join(lines[start:end])


NORM = """
import python torch
dim D = 8
fn norm(x: [b n D], eps = 1e-5) -> [b n D]:
    mu = mean(x, over=D)
    var = mean(square(x - mu), over=D)
    return (x - mu) / sqrt(var + eps)
"""


def test_layer_norm_written_out_compiles_to_keepdim(ss):
    code = body(NORM, "norm")
    assert "unsqueeze" not in code
    assert code.count("keepdim=True") == 2
    m = ss(NORM)
    x = torch.randn(3, 5, 8)
    mu = x.mean(-1, keepdim=True)
    want = (x - mu) / torch.sqrt((x - mu).square().mean(-1, keepdim=True) + 1e-5)
    assert torch.allclose(m.norm(x), want, atol=1e-6)


def test_directly_broadcast_reductions_and_the_pipe_forms(ss):
    src = """
dim C = 4
fn centred(x: [b C]) -> [b C] = x - mean(x, over=C)
fn log_probs(x: [b C]) -> [b C] = x |> sub(_, logsumexp(x, over=C))
fn scaled(x: [b n C]) -> [b n C] = x / (max(abs(x), over=C) * 2.0 + 1.0)
fn spread(x: [b C]) -> [b C] = (x - mean(x, over=C)) / std(x, over=C)
"""
    m = ss(src)
    for fn in ("centred", "log_probs", "scaled", "spread"):
        code = body(src, fn)
        assert "keepdim=True" in code and "unsqueeze" not in code, code
    x = torch.randn(6, 4)
    assert torch.allclose(m.centred(x), x - x.mean(1, keepdim=True))
    assert torch.allclose(m.log_probs(x), torch.log_softmax(x, 1), atol=1e-6)
    y = torch.randn(2, 3, 4)
    assert torch.allclose(m.scaled(y), y / (y.abs().amax(2, keepdim=True) * 2 + 1))
    assert torch.allclose(m.spread(x), (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True))


@pytest.mark.parametrize("use, check", [
    # returned: its type is [b n]
    ("return x - mu, mu", lambda x, r: torch.allclose(r[1], x.mean(2))),
    # combined with a tensor of the reduced shape: [b n] + [b n], no broadcast back
    ("return x - mu, mu + bias",
     lambda x, r: torch.allclose(r[1], x.mean(2) + x.amax(2))),
    # passed to a function
    ("return x - mu, twice(mu)", lambda x, r: torch.allclose(r[1], 2 * x.mean(2))),
    # indexed
    ("return x - mu, mu[0..1]", lambda x, r: torch.allclose(r[1], x.mean(2)[0:1])),
])
def test_a_local_used_as_its_reduced_type_keeps_it(ss, use, check):
    src = f"""
dim D = 4
fn twice(v: [b n]) -> [b n] = v * 2.0
fn f(x: [b n D]) -> ([b n D], [?k n]):
    mu = mean(x, over=D)
    bias = reduce(x, b n d -> b n, max)
    {use}
"""
    if "mu[0..1]" not in use:
        src = src.replace("[?k n]", "[b n]")
    code = body(src, "f")
    assert "keepdim" not in code and "unsqueeze(2)" in code
    m = ss(src)
    x = torch.randn(2, 3, 4)
    r = m.f(x)
    assert torch.allclose(r[0], x - x.mean(2, keepdim=True))
    assert check(x, r)


def test_broadcast_along_other_axes_is_left_to_its_plan(ss):
    src = """
dim D = 4
fn f(x: [b n D], y: [D n b]) -> [D n b] = y - mean(x, over=D)
fn g(x: [b n D]) -> [b n D] = x - mean(x, over=n)
fn h(x: [b n D]) -> [b D n] = mean(x, over=n) + (x |> rearrange(b n d -> b d n))
"""
    m = ss(src)
    x, y = torch.randn(2, 3, 4), torch.randn(4, 3, 2)
    assert torch.allclose(m.f(x, y), y - x.mean(2).T.unsqueeze(0))
    assert "permute" in body(src, "f") and "keepdim" not in body(src, "f")
    assert torch.allclose(m.g(x), x - x.mean(1, keepdim=True))
    assert torch.allclose(m.h(x), x.mean(1).unsqueeze(2) + x.permute(0, 2, 1))


def test_two_reductions_of_different_axes_are_not_mixed(ss):
    src = """
dim D = 4
fn f(x: [b n D]) -> [b n D]:
    a = mean(x, over=D)
    c = sum(x, over=D)
    return x * (a + c) - x / (exp(a) + 1.0)
fn g(x: [b n D]) -> [b n D]:
    a = mean(x, over=D)
    t = mean(x, over=n)
    return (x - a) + t
"""
    m = ss(src)
    x = torch.randn(2, 3, 4)
    a, c = x.mean(2, keepdim=True), x.sum(2, keepdim=True)
    assert torch.allclose(m.f(x), x * (a + c) - x / (a.exp() + 1))
    assert "unsqueeze" not in body(src, "f")
    assert torch.allclose(m.g(x), (x - a) + x.mean(1, keepdim=True))


def test_a_reassigned_or_loop_local_is_left_alone(ss):
    src = """
dim D = 4
fn f(x: [b n D]) -> [b n D]:
    mu = mean(x, over=D)
    mu = mu * 2.0
    return x - mu
fn g(x: [b n D]) -> [b n D]:
    y = x
    for i in 0..2:
        mu = mean(y, over=D)
        y = y - mu
    return y
"""
    m = ss(src)
    x = torch.randn(2, 3, 4)
    assert torch.allclose(m.f(x), x - 2 * x.mean(2, keepdim=True))
    assert "keepdim" not in body(src, "f")
    y = x - x.mean(2, keepdim=True)
    assert torch.allclose(m.g(x), y - y.mean(2, keepdim=True), atol=1e-6)


def test_gradients_match_the_hand_written_norm(ss):
    m = ss(NORM)
    x = torch.randn(3, 5, 8, requires_grad=True)
    (g,) = torch.autograd.grad(m.norm(x).square().sum(), x)
    x2 = x.detach().clone().requires_grad_()
    mu = x2.mean(-1, keepdim=True)
    ref = (x2 - mu) / torch.sqrt((x2 - mu).square().mean(-1, keepdim=True) + 1e-5)
    (g2,) = torch.autograd.grad(ref.square().sum(), x2)
    assert torch.allclose(g, g2, atol=1e-5)
