"""Forms that porting a U-Net, a StarGAN generator, MobileNetV2 and a Mixtral MoE block
needed: `topk`'s labels and domains, a generic `groups=`, externs with keyword-named
parameters called by position, sizes narrowed by `if i == o`, indexing a constructor's
result and `over=` a computed axis. Each is checked, then run against torch."""

from __future__ import annotations

import pytest

from shapescript.compiler import check_program, check_source


def _codes(src: str) -> list[str]:
    return [d.code for d in check_source(src, "t.ss")]


def _types(src: str) -> dict[str, str]:
    program = check_program(src, "t.ss")
    assert program.ok, [d.message for d in program.diagnostics]
    return {name: str(program.main.type_of(fn.sig.decl.body))
            for name, fn in program.main.fns.items()}


# -- topk: the axis as written, the values without a class marking ----------------------

ROUTER = """dim E = 8
dim A = 2
fn route(x: [t E] Prob over E) -> ([t A], [t A] Index[E]):
    vals, idx = topk(x, A, over=E)
    return vals / sum(vals, over=A), idx
"""


def test_topk_labels_its_axis_as_k_is_written():
    # Before: the axis was labelled `2`, so `over=A` found nothing (E0403).
    assert _codes(ROUTER) == []
    src = "dim E = 8\ndim A = 2\nfn f(x: [t E]) = topk(x, A, over=E)[0]\n"
    assert _types(src)["f"] == "[t A] f32"
    src = "dim E = 8\nfn f(x: [t E]) = topk(x, 2, over=E)[0]\n"
    assert _types(src)["f"] == "[t 2] f32"


@pytest.mark.parametrize("domain, values", [
    ("Prob over E", "Unit"),
    ("Logit over E", "f32"),
    ("LogProb over E", "f32"),
    ("Pos", "Pos"),
])
def test_topk_values_lose_a_class_marking(domain, values):
    # Before: `Prob over E` stayed on values whose axis `E` was gone.
    src = f"dim E = 8\nfn f(x: [t E] {domain}) = topk(x, 2, over=E)[0]\n"
    assert _types(src)["f"] == f"[t 2] f32 {values}".replace("f32 f32", "f32")


def test_topk_over_another_axis_loses_the_marking_too():
    src = "dim E = 8\nfn f(x: [t E] Prob over E) = topk(x, 1, over=t)[0]\n"
    assert _types(src)["f"] == "[1 E] f32 Unit"


def test_the_router_runs_as_torch(ss):
    torch = pytest.importorskip("torch")
    m = ss(ROUTER)
    x = torch.softmax(torch.randn(5, 8), dim=-1)
    vals, idx = m.route(x)
    want_v, want_i = torch.topk(x, 2, dim=-1)
    assert torch.allclose(vals, want_v / want_v.sum(-1, keepdim=True))
    assert torch.equal(idx, want_i)


# -- over= a computed axis --------------------------------------------------------------

POOL = """dim S = 64
dim D = 4
fn pool(x: [b S/32 D]) -> [b D] = mean(x, over=S/32)
fn spaced(x: [b S / 32 D]) -> [b D] = sum(x, over=(S/32))
fn odd(x: [b 2*n + 1 D]) -> [b D] = max(x, over=2*n+1)
fn soft(x: [b S/32 D]) -> [b S/32 D] = softmax(x, over=S/32)
"""


def test_over_names_an_axis_written_as_a_size_expression(ss):
    # Before: E0403 "`over=` takes an axis name or a group of names, not an expression".
    assert _codes(POOL) == []
    torch = pytest.importorskip("torch")
    m = ss(POOL)
    x = torch.randn(3, 2, 4)
    assert torch.allclose(m.pool(x), x.mean(1))
    assert torch.allclose(m.spaced(x), x.sum(1))
    y = torch.randn(3, 5, 4)
    assert torch.allclose(m.odd(y), y.amax(1))
    assert torch.allclose(m.soft(x), torch.softmax(x, 1))


def test_over_a_computed_axis_the_value_lacks_is_e0403():
    src = "dim S = 64\nfn f(x: [b S/32]) -> [b] = sum(x, over=S/16)\n"
    assert _codes(src) == ["E0403"]


# -- extern fn parameters named like keywords --------------------------------------------

INDEX_COPY = """extern fn index_copy(input: [n ...] Float, dim: int, index: [k] i64, source: [k ...] Float) -> [n ...] Float = "torch.index_copy"
fn by_position(x: [n D], i: [k] i64, s: [k D]) -> [n D] = index_copy(x, 0, i, s)
fn by_name(x: [n D], i: [k] i64, s: [k D]) -> [n D] = index_copy(x, dim=0, index=i, source=s)
"""


def test_an_extern_parameter_may_be_named_dim_and_torch_is_called_without_a_shim(ss):
    # Before: E0101 "unexpected token `dim`" in the declaration.
    assert _codes(INDEX_COPY) == []
    torch = pytest.importorskip("torch")
    m = ss(INDEX_COPY)
    x, s, i = torch.zeros(5, 3), torch.randn(2, 3), torch.tensor([4, 1])
    want = torch.index_copy(x, 0, i, s)
    assert torch.equal(m.by_position(x, i, s), want)
    assert torch.equal(m.by_name(x, i, s), want)
    assert torch.equal(m.index_copy(x, 0, i, s), want)  # the checked entry, from Python


@pytest.mark.parametrize("src", [
    "fn f(x: [n], dim: int) -> [n] = x\n",                       # only an extern's
    'extern fn f(x: [n] Float, in: int) -> [n] Float = "torch.neg"\n',  # a Python keyword
])
def test_other_keywords_stay_keywords(src):
    assert _codes(src) == ["E0101"]


# -- a generic `Size` argument: groups=e -------------------------------------------------

DEPTHWISE = """extern fn conv_groups(input: [b c h w] Float, weight: [o cg kh kw] Float, groups: Size[G]) -> [b o h-kh+1 w-kw+1] Float = "torch.nn.functional.conv2d"
fn depthwise(x: [b e h w], k: [e 1 3 3]) -> [b e h-2 w-2] = conv_groups(x, k, groups=e)
fn doubled(x: [b e h w], k: [2*e 1 3 3]) -> [b 2*e h-2 w-2] = conv_groups(x, k, groups=e)
"""


def test_a_generic_axis_is_a_size_argument(ss):
    # Before: E1003 "a `Size` argument must be known before the program runs".
    assert _codes(DEPTHWISE) == []
    torch = pytest.importorskip("torch")
    m = ss(DEPTHWISE)
    F = torch.nn.functional
    x, k = torch.randn(2, 5, 8, 8), torch.randn(5, 1, 3, 3)
    assert torch.allclose(m.depthwise(x, k), F.conv2d(x, k, groups=5), atol=1e-6)
    k2 = torch.randn(10, 1, 3, 3)
    assert torch.allclose(m.doubled(x, k2), F.conv2d(x, k2, groups=5), atol=1e-6)
    x3, k3 = torch.randn(1, 3, 6, 6), torch.randn(3, 1, 3, 3)
    assert torch.allclose(m.depthwise(x3, k3), F.conv2d(x3, k3, groups=3), atol=1e-6)


def test_a_host_int_is_still_no_size_argument():
    src = DEPTHWISE.splitlines()[0] + (
        "\nfn f(x: [b e h w], k: [e 1 3 3], g: int) -> [b e h-2 w-2] = conv_groups(x, k, groups=g)\n")
    assert _codes(src) == ["E1003"]


# -- indexing a constructor's result -----------------------------------------------------

ROWS = """dim M = 16
fn rows(pos: [n] Index[M]) -> [n M] Mask = causal[M M][pos]
fn windowed(pos: [n] Index[M]) -> [n M] Mask = causal[M M](window=4)[pos]
fn last() -> [M] = arange[M][M - 1] + zeros[M M][0]
"""


def test_a_constructor_is_indexed(ss):
    # Before: E0101 "unexpected token `[`" after `causal[M M]`.
    assert _codes(ROWS) == []
    torch = pytest.importorskip("torch")
    m = ss(ROWS)
    pos = torch.tensor([0, 5, 15])
    full = torch.ones(16, 16, dtype=torch.bool).tril()
    assert torch.equal(m.rows(pos), full[pos])
    assert torch.equal(m.windowed(pos), full.triu(-3)[pos])
    assert torch.equal(m.last(), torch.full((16,), 15.0))


# -- `if i == o` narrows sizes in its branch ---------------------------------------------

RESIDUAL = """fn block(x: [b i], w: [i o]) -> [b o]:
    h = x @ w
    if i == o:
        return h + x
    return h
fn swapped(x: [b i], w: [i o]) -> [b o]:
    h = x @ w
    if o == i:
        h = h + x
    return h
fn merged(x: [b i], w: [i o]) -> [b o]:
    h = x @ w
    if i == o and b == 2:
        y = h + x
    else:
        y = h
    return y
"""


def test_an_if_on_sizes_narrows_them_in_its_branch(ss):
    # Before: E0402, `h + x` was `[b o i]` (two labels broadcast).
    assert _codes(RESIDUAL) == []
    torch = pytest.importorskip("torch")
    m = ss(RESIDUAL)
    x, sq, wide = torch.randn(2, 4), torch.randn(4, 4), torch.randn(4, 6)
    for f in (m.block, m.swapped, m.merged):
        assert torch.allclose(f(x, sq), x @ sq + x)
        assert torch.allclose(f(x, wide), x @ wide)
    x3 = torch.randn(3, 4)
    assert torch.allclose(m.merged(x3, sq), x3 @ sq)  # b == 2 fails: no residual


@pytest.mark.parametrize("cond", ["i != o", "i < o", "i == o or b == 2"])
def test_only_an_equality_narrows(cond):
    src = f"fn f(x: [b i], w: [i o]) -> [b o]:\n    h = x @ w\n    if {cond}:\n        return h + x\n    return h\n"
    assert _codes(src) == ["E0402"]


def test_the_narrowing_ends_with_its_branch():
    src = ("fn f(x: [b i], w: [i o]) -> [b o]:\n    h = x @ w\n    if i == o:\n        h = h + x\n"
           "    else:\n        h = h + x\n    return h\n")
    assert _codes(src) == ["E0401"]  # the `else` knows nothing: `[b o i]` there
