"""The prelude's runtime helpers against torch, the oracle, at several axis positions."""

from __future__ import annotations

import contextvars

import pytest
import torch
import torch.nn.functional as F

from shapescript import rt


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


SHAPE = (2, 3, 5, 4)


@pytest.mark.parametrize("over", [0, 1, 2, 3, -1, -3])
def test_softmax_log_softmax_logsumexp_cumsum(over):
    x = randn(*SHAPE)
    assert torch.equal(rt.softmax(x, over), torch.softmax(x, dim=over))
    assert torch.equal(rt.log_softmax(x, over), torch.log_softmax(x, dim=over))
    assert torch.equal(rt.logsumexp(x, over), torch.logsumexp(x, dim=over))
    assert torch.equal(rt.cumsum(x, over), torch.cumsum(x, dim=over))


def moved_reference(fn, x, over, *args):
    """``fn`` over the last axis, with the axis ``over`` moved there and back."""
    return fn(x.movedim(over, -1), *args).movedim(-1, over)


@pytest.mark.parametrize("over", [0, 1, 2, 3, -1, -2])
def test_layer_norm_over_any_axis(over):
    x = randn(*SHAPE)
    n = x.shape[over]
    w, b = randn(n, seed=1), randn(n, seed=2)
    for weight, bias in [(None, None), (w, None), (w, b)]:
        got = rt.layer_norm(x, over, weight, bias, eps=1e-5)
        want = moved_reference(lambda t: F.layer_norm(t, (n,), weight, bias, 1e-5), x, over)
        assert torch.equal(got, want)
        # and it is what layer normalisation means
        mu = x.mean(dim=over, keepdim=True)
        var = x.var(dim=over, keepdim=True, unbiased=False)
        shape = [1] * x.dim()
        shape[over] = n
        manual = (x - mu) / torch.sqrt(var + 1e-5)
        if weight is not None:
            manual = manual * weight.view(shape)
        if bias is not None:
            manual = manual + bias.view(shape)
        torch.testing.assert_close(got, manual)
    assert torch.equal(rt.layer_norm(x, over, eps=1e-3),
                       moved_reference(lambda t: F.layer_norm(t, (n,), eps=1e-3), x, over))


@pytest.mark.parametrize("over", [0, 2, 3, -1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_rms_norm_over_any_axis(over, dtype):
    x = randn(*SHAPE, dtype=dtype)
    n = x.shape[over]
    w = randn(n, seed=3, dtype=dtype)
    for weight, eps in [(None, None), (w, None), (w, 1e-6)]:
        got = rt.rms_norm(x, over, weight, eps)
        want = moved_reference(lambda t: F.rms_norm(t, (n,), weight, eps), x, over)
        assert torch.equal(got, want)
    if dtype == torch.bfloat16:
        return                     # torch computes in bf16: only the oracle above is exact
    # eps=None is the dtype's epsilon, as in torch
    x64 = x.double()
    manual = x64 / torch.sqrt((x64 * x64).mean(dim=over, keepdim=True) + torch.finfo(dtype).eps)
    torch.testing.assert_close(rt.rms_norm(x, over).double(), manual)


@pytest.mark.parametrize("over", [0, 1, 2, -1])
def test_cross_entropy_with_the_class_axis_anywhere(over):
    logits = randn(4, 3, 6)                     # class axis at `over`
    C = logits.shape[over]
    others = [s for i, s in enumerate(logits.shape) if i != over % 3]
    y = torch.randint(0, C, others, generator=torch.Generator().manual_seed(5))
    got = rt.cross_entropy(logits, y, over)
    want = F.cross_entropy(logits.movedim(over, 1), y)
    assert torch.equal(got, want)
    # the mean over the other axes of -log_softmax at the label
    lp = torch.log_softmax(logits, dim=over).movedim(over, -1)
    manual = -lp.gather(-1, y.unsqueeze(-1)).squeeze(-1).mean()
    torch.testing.assert_close(got, manual)


def test_cross_entropy_shapes_and_dtypes():
    logits = randn(8, 4)
    y = torch.randint(0, 4, (8,), generator=torch.Generator().manual_seed(1))
    assert torch.equal(rt.cross_entropy(logits, y, 1), F.cross_entropy(logits, y))
    assert torch.equal(rt.cross_entropy(logits.T, y, 0), F.cross_entropy(logits, y))
    assert torch.equal(rt.cross_entropy(logits, y.int(), 1), F.cross_entropy(logits, y))
    # unbatched: [C] and a 0-d label
    assert torch.equal(rt.cross_entropy(logits[0], y[0], 0), F.cross_entropy(logits[0], y[0]))


def test_dropout_is_the_identity_outside_training_mode():
    x = randn(100, 100)
    assert rt.dropout(x, 0.5) is x
    assert not rt.is_training()


def test_dropout_drops_in_training_mode():
    x = torch.ones(200, 200)
    torch.manual_seed(0)
    with rt.train():
        assert rt.is_training()
        y = rt.dropout(x, 0.25)
    zeros = (y == 0).float().mean().item()
    assert 0.2 < zeros < 0.3
    torch.testing.assert_close(y[y != 0], torch.full_like(y[y != 0], 1 / 0.75))
    assert not rt.is_training()
    with rt.train():
        assert rt.dropout(x, 0.0) is x


def test_training_mode_nests_and_is_independent_of_module_training():
    m = torch.nn.Linear(2, 2).eval()
    with rt.train():
        assert rt.is_training() and not m.training
        with rt.train(False):
            assert not rt.is_training()
            assert rt.dropout(torch.ones(5), 0.9).eq(1).all()
        assert rt.is_training()
    m.train()
    assert not rt.is_training()


def test_training_mode_is_per_context():
    with rt.train():
        other = contextvars.Context().run(rt.is_training)
        assert rt.is_training() and not other


def test_training_mode_context_manager_is_reusable():
    t = rt.train()
    with t:
        with t:
            assert rt.is_training()
        assert rt.is_training()
    assert not rt.is_training()


def test_stack_map():
    got = rt.stack_map(3, lambda c: torch.tensor([c, c * 2]))
    assert torch.equal(got, torch.tensor([[0, 0], [1, 2], [2, 4]]))
    assert rt.stack_map(3, lambda c: c).dtype == torch.int64
    assert rt.stack_map(2, lambda c: c / 2).dtype == torch.float32
    assert rt.stack_map(2, lambda c: c == 1).tolist() == [False, True]

