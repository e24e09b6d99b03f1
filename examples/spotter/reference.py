"""The spotter written by hand in torch and einops: the oracle for tests and benchmarks.

Each function computes what the function of the same name in ``spotter.ss`` computes,
written the way a PyTorch user would write it, with no checks.
"""

import einops
import torch
import torch.nn.functional as F

S, P, D, C, L = 16, 4, 32, 4, 2


def norm(x, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).square().mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps)


def pool(x):
    return x.mean(1)


def head(x, w):
    return pool(x) @ w


def patchify(img):
    return einops.rearrange(img, "b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)", p1=P, p2=P)


def mix_patches(x, w1, w2):
    h = F.gelu(torch.einsum("bnd,nt->btd", norm(x), w1))
    return x + torch.einsum("btd,tn->bnd", h, w2)


def embed(img, w_e):
    return patchify(img) @ w_e


def mix_channels(x, w1, w2):
    return x + F.gelu(norm(x) @ w1) @ w2


def forward(img, w_e, tw1, tw2, cw1, cw2, w_h):
    x = embed(img.float() / 255 * 2 - 1, w_e)
    for l in range(L):
        x = mix_channels(mix_patches(x, tw1[l], tw2[l]), cw1[l], cw2[l])
    return head(norm(x), w_h)


def loss(img, y, *w):
    return F.cross_entropy(forward(img, *w), y)


def predict(img, *w):
    return forward(img, *w).argmax(-1)


def per_class_accuracy(pred, y):
    out = []
    for c in range(C):
        right = ((pred == c) & (y == c)).sum().float()
        out.append(right / torch.clamp_min((y == c).sum().float(), 1.0))
    return torch.stack(out)


def confusion(pred, y):
    return torch.stack([torch.stack([((y == t) & (pred == p)).sum() for p in range(C)])
                        for t in range(C)])


def nonblank(img):
    return img[einops.reduce(img, "b c h w -> b", "max") > 0.5]


def nudge(img):
    return torch.roll(img, 1, dims=3)


def thumbnail(img):
    return F.max_pool2d(img, 3, stride=2)


def weights(seed=0):
    """Weights as train.py makes them: normal noise over the square root of the fan-in."""
    g = torch.Generator().manual_seed(seed)

    def w(*shape):
        return torch.randn(*shape, generator=g) / shape[-2] ** 0.5

    return [w(16, 32), w(2, 16, 64), w(2, 64, 16), w(2, 32, 64), w(2, 64, 32), w(32, 4)]
