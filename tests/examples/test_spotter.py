"""The book's spotter, compiled, against the same model written by hand in torch."""


import pytest
import torch

from spotter_env import SPOTTER, spotter_modules


@pytest.fixture(scope="module")
def mods():
    with spotter_modules("spotter", "reference") as found:
        yield found


def images(b, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (b, 1, 16, 16), dtype=torch.uint8, generator=g)


@pytest.mark.parametrize("b", [1, 3, 64])
def test_every_function_matches_hand_written_torch(mods, b):
    ss, ref = mods
    w = ref.weights(b)
    img = images(b, b)
    y = torch.randint(0, 4, (b,), generator=torch.Generator().manual_seed(b + 1))
    x = torch.randn(b, 16, 32)
    imgf = img.float()
    torch.testing.assert_close(ss.norm(x), ref.norm(x))
    torch.testing.assert_close(ss.norm(x, eps=0.5), ref.norm(x, eps=0.5))
    torch.testing.assert_close(ss.pool(x), ref.pool(x))
    torch.testing.assert_close(ss.head(x, w[5]), ref.head(x, w[5]))
    torch.testing.assert_close(ss.patchify(imgf), ref.patchify(imgf))
    torch.testing.assert_close(ss.embed(imgf, w[0]), ref.embed(imgf, w[0]))
    torch.testing.assert_close(ss.mix_patches(x, w[1][0], w[2][0]), ref.mix_patches(x, w[1][0], w[2][0]))
    torch.testing.assert_close(ss.mix_channels(x, w[3][0], w[4][0]), ref.mix_channels(x, w[3][0], w[4][0]))
    torch.testing.assert_close(ss.forward(img, *w), ref.forward(img, *w))
    torch.testing.assert_close(ss.loss(img, y, *w), ref.loss(img, y, *w))
    pred = ss.predict(img, *w)
    assert torch.equal(pred, ref.predict(img, *w))
    torch.testing.assert_close(ss.per_class_accuracy(pred, y), ref.per_class_accuracy(pred, y))
    assert torch.equal(ss.confusion(pred, y), ref.confusion(pred, y))
    assert torch.equal(ss.nudge(img), ref.nudge(img))
    torch.testing.assert_close(ss.thumbnail(imgf), ref.thumbnail(imgf))
    assert ss.thumbnail(imgf).shape == (b, 1, 7, 7)
    sparse = imgf * (torch.arange(b) % 2 == 0).float()[:, None, None, None]
    torch.testing.assert_close(ss.nonblank(sparse), ref.nonblank(sparse))


def test_gradients_flow_through_the_compiled_loss(mods):
    ss, ref = mods
    w = [t.requires_grad_() for t in ref.weights(0)]
    w2 = [t.detach().clone().requires_grad_() for t in w]
    img, y = images(8, 0), torch.arange(8) % 4
    ss.loss(img, y, *w).backward()
    ref.loss(img, y, *w2).backward()
    for a, b in zip(w, w2):
        torch.testing.assert_close(a.grad, b.grad)


def test_dims_are_module_constants(mods):
    ss, _ = mods
    assert (ss.S, ss.P, ss.N, ss.D, ss.C, ss.L) == (16, 4, 16, 32, 4, 2)
