"""Each language feature, compiled and run, against the same computation in torch."""

import einops
import pytest
import torch
import torch.nn.functional as F

FEATURES = """\
dim D = 8
dim H = 2
dim R = 2
dim C = 3

fn bcast_right(x: [b n D], s: [b n]) -> [b n D] = x - s
fn bcast_perm(s: [D], x: [b n D]) -> [D b n] = s * x
fn outer(a: [b n], k: [m]) -> [b n m] = a * k
fn heads(x: [b n 3*D]) -> [3 b H n D/H]:
    return rearrange(x, b n (three h d) -> three b h n d, three=3, h=H)
fn halves(x: [b n D]) -> [b n D/2]:
    parts = rearrange(x, b n (k two) -> two b n k, two=2)
    w = arange[D/2] to f32
    return parts[0] * w
fn rep(k: [b h n d]) -> [b h*R n d] = repeat(k, b h n d -> b (h R) n d)
fn pool2(img: [b c (h 2) (w 2)]) -> [b c h w] = reduce(img, b c (h 2) (w 2) -> b c h w, max)
fn contract(x: [b n D], w: [D m]) -> [b m n] = einsum(x, w: b n d, d m -> b m n)
fn squares(n: [k]) -> [k] = n * n
fn counts(x: [b n]) -> [n] i64 = n |> map(i => sum(x[0] > (i to f32)))
fn ctor(x: [n D]) -> [n D]:
    m = causal[n n]
    z = zeros[n D] + ones[n D] + eye[n n] @ x
    return where(m, 1.0, 0.0) @ z
fn filled(x: [n]) -> [n] = full[n](-2.5) + x
fn slices(x: [n D]) -> [2 D] = x[1..3]
fn masked(x: [n D], m: [n] Mask) -> [?k D] = x[m]
fn gather(table: [V D], ids: [b t] Index[V]) -> [b t D] = table[ids]
fn tuples(x: [n D]) -> [n 2*D]:
    a, b = (x, x * 2.0)
    return concat((a, b), over=D)
fn stacked(x: [n D]) -> [2 n D] = stack((x, -x))
fn splits(x: [n D]) -> [n D/2]:
    l, r = split(x, over=D, sizes=(D/2, D/2))
    return l - r
fn top(x: [b C]) -> [b 2] Index[C]:
    v, i = topk(x, 2, over=C)
    return i
fn branches(x: [n], flag: bool) -> [n]:
    if flag:
        y = x + 1.0
    elif sum(x) > 0.0:
        y = x * 2.0
    else:
        y = -x
    return y
fn loop(x: [n]) -> [n]:
    acc = x
    for i in 0..3:
        acc = acc + (i to f32)
    return acc
fn convert(img: [b] u8) -> [b] = img |> to Unit |> to Signed
fn xent(logits: [C b], y: [b] Index[C]) -> [] = cross_entropy(logits, y, over=C)
fn reductions(x: [b n D]) -> [b]:
    return sum(x, over=(n D)) + mean(max(x, over=D), over=n) + std(x[0, 0]) + logsumexp(x, over=(n D))
fn amax(x: [b C]) -> [b] Index[C] = argmax(x, over=C)
fn soft(x: [b C]) -> [b C] Prob over C = softmax(x, over=C)
fn ln(x: [b n D], w: [D]) -> [b n D] = layer_norm(x, over=D, weight=w)
fn ln_mid(x: [b D n]) -> [b D n] = layer_norm(x, over=D)
fn lin(x: [b n D], w: [m D]) -> [b n m] = linear(x, w)
fn maxi(x: [n]) -> [n] Pos = maximum(x, 0.5)
fn pipes(x: [n], y: [n]) -> [n] = x |> sub(y, _) |> exp
fn sizes(x: [b n D]) -> [] = (n to f32)
fn sizes_val(x: [b n D]) -> int = n * D
"""


@pytest.fixture(scope="module")
def m(tmp_path_factory, compile_ss):
    path = tmp_path_factory.mktemp("features") / "features.ss"
    return compile_ss(FEATURES, path)


def close(a, b):
    torch.testing.assert_close(a, b)


def test_broadcasting_by_label(m):
    x, s = torch.randn(2, 3, 8), torch.randn(2, 3)
    close(m.bcast_right(x, s), x - s[:, :, None])
    w = torch.randn(8)
    close(m.bcast_perm(w, x), (w * x).permute(2, 0, 1))
    a, k = torch.randn(2, 3), torch.randn(5)
    close(m.outer(a, k), a[:, :, None] * k)


def test_patterns(m):
    x = torch.randn(2, 5, 24)
    close(m.heads(x), einops.rearrange(x, "b n (t h d) -> t b h n d", t=3, h=2))
    x = torch.randn(2, 3, 8)
    parts = einops.rearrange(x, "b n (k two) -> two b n k", two=2)
    close(m.halves(x), parts[0] * torch.arange(4).float())
    k = torch.randn(2, 3, 4, 5)
    close(m.rep(k), einops.repeat(k, "b h n d -> b (h r) n d", r=2))
    img = torch.randn(2, 3, 8, 6)
    close(m.pool2(img), F.max_pool2d(img, 2))
    w = torch.randn(8, 7)
    close(m.contract(x, w), torch.einsum("bnd,dm->bmn", x, w))


def test_map_and_sizes(m):
    x = torch.randn(2, 5)
    want = torch.stack([(x[0] > i).sum() for i in range(5)])
    assert torch.equal(m.counts(x), want)
    assert m.sizes(torch.zeros(2, 7, 8)).item() == 7.0
    assert m.sizes_val(torch.zeros(2, 7, 8)) == 56


def test_constructors(m):
    x = torch.randn(4, 8)
    z = torch.zeros(4, 8) + torch.ones(4, 8) + torch.eye(4) @ x
    close(m.ctor(x), torch.tril(torch.ones(4, 4)) @ z)
    v = torch.randn(3)
    close(m.filled(v), torch.full((3,), -2.5) + v)


def test_indexing(m):
    x = torch.randn(5, 8)
    close(m.slices(x), x[1:3])
    mask = torch.tensor([True, False, True, True, False])
    close(m.masked(x, mask), x[mask])
    table, ids = torch.randn(10, 8), torch.randint(0, 10, (2, 3))
    close(m.gather(table, ids), table[ids])


def test_tuples_stack_concat_split(m):
    x = torch.randn(3, 8)
    close(m.tuples(x), torch.cat([x, 2 * x], dim=1))
    close(m.stacked(x), torch.stack([x, -x]))
    close(m.splits(x), x[:, :4] - x[:, 4:])


def test_topk_argmax_softmax(m):
    x = torch.randn(4, 3)
    assert torch.equal(m.top(x), torch.topk(x, 2, dim=1).indices)
    assert torch.equal(m.amax(x), x.argmax(1))
    close(m.soft(x), torch.softmax(x, 1))


def test_control_flow(m):
    x = torch.tensor([1.0, -2.0])
    close(m.branches(x, True), x + 1)
    close(m.branches(torch.tensor([1.0, 2.0]), False), torch.tensor([2.0, 4.0]))
    close(m.branches(torch.tensor([-1.0, -2.0]), False), torch.tensor([1.0, 2.0]))
    close(m.loop(x), x + 3.0)


def test_conversions_and_reductions(m):
    img = torch.tensor([0, 255, 51], dtype=torch.uint8)
    close(m.convert(img), img.float() / 255 * 2 - 1)
    logits, y = torch.randn(3, 5), torch.randint(0, 3, (5,))
    close(m.xent(logits, y), F.cross_entropy(logits.T, y))
    x = torch.randn(2, 3, 8)
    want = x.sum((1, 2)) + x.amax(2).mean(1) + x[0, 0].std() + torch.logsumexp(x, (1, 2))
    close(m.reductions(x), want)


def test_prelude_externs(m):
    x, w = torch.randn(2, 3, 8), torch.randn(8)
    close(m.ln(x, w), F.layer_norm(x, (8,), weight=w))
    y = torch.randn(2, 8, 5)
    close(m.ln_mid(y), F.layer_norm(y.transpose(1, 2), (8,)).transpose(1, 2))
    W = torch.randn(6, 8)
    close(m.lin(x, W), F.linear(x, W))
    v = torch.tensor([0.1, 2.0])
    close(m.maxi(v), torch.tensor([0.5, 2.0]))
    a, b = torch.randn(3), torch.randn(3)
    close(m.pipes(a, b), torch.exp(b - a))
