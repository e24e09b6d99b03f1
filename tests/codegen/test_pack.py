"""`pack` and `unpack`: einops' pack/unpack with checked shapes, compared with einops on
values, and their diagnostics."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
einops = pytest.importorskip("einops")

from shapescript.compiler import check_source  # noqa: E402

SRC = """
dim D = 8
dim N = 4

fn with_cls(cls: [b D], x: [b n D]) -> [b 1+n D] = pack((cls, x), b * D)
fn grid(cls: [b D], x: [b h w D]) -> [b h*w + 1 D] = pack((cls, x), b * D)
fn leading(a: [n], b: [h w]) -> [n + h*w] = pack((a, b), *)
fn trailing(a: [b c], d: [b c e f]) -> [b c + c*e*f] = pack((a, d), b *)
fn three(a: [b D], x: [b n D], y: [b D]) -> [b n+2 D] = pack((a, x, y), b * D)

fn split_cls(p: [b 1+n D]) -> ([b D], [b n D]) = unpack(p, b * D -> b D, b n D)
fn split_dims(p: [b N+1 D]) -> ([b D], [b N D]) = unpack(p, b * D -> b D, b N D)
fn split_grid(p: [b m D]) -> ([b D], [b 2 ?k D]):
    c, x = unpack(p, b * D -> b D, b two k D, two=2)
    return c, x
fn split_piped(p: [b m D]) -> ([b D], [b ?r D], [b D]):
    c, x, e = p |> unpack(b * D -> b D, b r D, b D)
    return c, x, e
fn round_trip(cls: [b D], x: [b h w D]) -> [b h w D]:
    c, y = unpack(pack((cls, x), b * D), b * D -> b D, b h w D)
    return y + c
"""


@pytest.fixture(scope="module")
def m(compile_ss, tmp_path_factory):
    return compile_ss(SRC, tmp_path_factory.mktemp("pack") / "m.ss")


def _t(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def test_pack_agrees_with_einops(m):
    cls, x, g = _t(2, 8), _t(2, 3, 8, seed=1), _t(2, 2, 3, 8, seed=2)
    assert torch.equal(m.with_cls(cls, x), einops.pack([cls, x], "b * d")[0])
    assert torch.equal(m.grid(cls, g), einops.pack([cls, g], "b * d")[0])
    a, b = _t(5), _t(2, 3, seed=3)
    assert torch.equal(m.leading(a, b), einops.pack([a, b], "*")[0])
    a, d = _t(2, 3), _t(2, 3, 4, 5, seed=4)
    assert torch.equal(m.trailing(a, d), einops.pack([a, d], "b *")[0])
    y = _t(2, 8, seed=5)
    assert torch.equal(m.three(cls, x, y), einops.pack([cls, x, y], "b * d")[0])


def test_unpack_agrees_with_einops(m):
    cls, x, g = _t(2, 8), _t(2, 3, 8, seed=1), _t(2, 2, 3, 8, seed=2)
    p, ps = einops.pack([cls, x], "b * d")
    want = einops.unpack(p, ps, "b * d")
    got = m.split_cls(p)
    assert all(torch.equal(a, b) for a, b in zip(got, want))
    p4, ps4 = einops.pack([cls, _t(2, 4, 8, seed=6)], "b * d")
    assert all(torch.equal(a, b) for a, b in zip(m.split_dims(p4), einops.unpack(p4, ps4, "b * d")))
    pg, psg = einops.pack([cls, g], "b * d")
    assert all(torch.equal(a, b) for a, b in zip(m.split_grid(pg), einops.unpack(pg, psg, "b * d")))
    p3, ps3 = einops.pack([cls, x, cls], "b * d")
    assert all(torch.equal(a, b) for a, b in zip(m.split_piped(p3), einops.unpack(p3, ps3, "b * d")))
    assert torch.equal(m.round_trip(cls, g), g + cls[:, None, None, :])


def test_unpack_checks_its_sizes_when_it_runs(m):
    from shapescript import ShapeError

    with pytest.raises(ShapeError, match=r"m\.ss:14:12: `unpack`: 3 left for part 1, not a multiple of 2"):
        m.split_grid(_t(2, 4, 8))
    with pytest.raises(ShapeError, match=r"`unpack`: the known parts take 2, more than the packed axis's 1"):
        m.split_piped(_t(2, 1, 8))


def codes(src):
    return [(d.code, d.message) for d in check_source("dim D = 8\n" + src, "t.ss")]


def test_pack_diagnostics():
    assert [c for c, _ in codes("fn f(a: [b D], x: [b n D]) -> [b n D] = pack((a, x), b * D)\n")] == [
        "E0401"]
    assert [c for c, _ in codes("fn f(a: [D], x: [b n D]) -> [b n D] = pack((a, x), b * D)\n")] == ["E0603"]
    assert codes("fn f(a: [b D], x: [c n D]) -> [b n D] = pack((a, x), p * D)\n") == [
        ("E0401", "`p` is `b` in element 0 but `c` in element 1")]
    assert codes("fn f(a: [b D], x: [c n D]) -> [b n D] = pack((a, x), b * D)\n") == [
        ("E0605", "`b` is a generic axis of this signature but element 1's axis is `c`")]
    assert [c for c, _ in codes("fn f(a: [b 4], x: [b n 4]) -> [b 1+n 4] = pack((a, x), b * D)\n")] == ["E0605"]
    assert [c for c, _ in codes("fn f(a: [b D], x: [b n D] i64) -> [b 1+n D] = pack((a, x), b * D)\n")] == ["E0404"]
    assert [c for c, _ in codes("fn f(a: [b D]) -> [b D] = pack(a, b * D)\n")] == ["E0408"]
    assert [c for c, _ in codes("fn f(a: [b D], x: [b n D]) -> [b 1+n D] = pack((a, x), b D)\n")] == ["E0601"]
    assert [c for c, _ in codes("fn f(a: [b D], x: [b n D]) -> [b 1+n D] = pack((a, x), b * * D)\n")] == ["E0601"]
    assert [c for c, _ in codes("fn f(a: [b D], x: [b n D]) -> [b 1+n D] = pack((a, x))\n")] == ["E0601"]


def test_unpack_diagnostics():
    assert codes("fn f(p: [b 5 D]) -> ([b D], [b 3 D]) = unpack(p, b * D -> b D, b k D, k=3)\n") == [
        ("E0605", "the parts add up to `4`, but the packed axis is `5`")]
    assert [c for c, _ in codes(
        "fn f(p: [b m D]) -> ([b ?i D], [b ?j D]) = unpack(p, b * D -> b i D, b j D)\n")] == ["E0604"]
    assert [c for c, _ in codes(
        "fn f(p: [b m D]) -> ([b D], [b ?j D]) = unpack(p, b * D -> b D, j b D)\n")] == ["E0602"]
    assert [c for c, _ in codes(
        "fn f(p: [b m D]) -> ([b D], [b ?j D]) = unpack(p, b * D -> b D, b j D, q=2)\n")] == ["E0502"]
    assert [c for c, _ in codes(
        "fn f(p: [b m]) -> ([b D], [b ?j D]) = unpack(p, b * D -> b D, b j D)\n")] == ["E0603"]
    assert [c for c, _ in codes("fn f(p: [b m D]) -> [b D] = unpack(p, b * D)\n")] == ["E0601"]
