"""Static checking of einops patterns (DECISIONS §4, §5), run with einops and torch."""

from __future__ import annotations

import re

import einops
import pytest
import torch

from shapescript.check.broadcast import broadcast, check_fits
from shapescript.check.fail import Fail
from shapescript.check.pattern_terms import pattern_text
from shapescript.check.patterns import check_pattern
from shapescript.check.sizes import Size
from shapescript.check.types import MASK, NOBOUND, REAL, Axis, Domain, TensorType
from shapescript.source import NO_SPAN
from shapescript.syntax import ast

DIMS = {"S": 16, "P": 4, "N": 16, "D": 32, "C": 4, "L": 2, "Dt": 64, "H": 4,
        "Hkv": 2, "R": 2, "Dh": 8}
GEN = {"b": 3, "n": 5, "k": 6, "h": 4, "w": 4}
V, K = Size.var, Size.const


# -- helpers ----------------------------------------------------------------------------


class _NS(dict):
    def __init__(self, sizes: bool) -> None:
        super().__init__()
        self.sizes = sizes

    def __missing__(self, name: str) -> Size:
        if self.sizes and name in DIMS:
            return K(DIMS[name])
        return V(name)


def _size(expr: str, sizes: bool) -> Size:
    v = eval(expr.replace("/", "//"), {}, _NS(sizes))  # noqa: S307 - fixed test strings
    return v if isinstance(v, Size) else K(v)


def T(spec: str, dtype: str = "f32", domain: Domain = REAL) -> TensorType:
    axes = []
    for tok in spec.split():
        if tok == "...":
            axes.append(Axis(V("..."), V("..."), True))
        else:
            axes.append(Axis(_size(tok, True), _size(tok, False)))
    return TensorType(tuple(axes), dtype, domain)


def _terms(text: str) -> tuple[ast.PatTerm, ...]:
    toks = re.findall(r"\.\.\.|\(|\)|\w+", text)
    out: list = []
    stack: list[list] = [out]
    for t in toks:
        if t == "(":
            stack.append([])
        elif t == ")":
            items = stack.pop()
            stack[-1].append(ast.PatGroup(tuple(items), NO_SPAN))
        elif t == "...":
            stack[-1].append(ast.PatEllipsis(NO_SPAN))
        elif t.isdigit():
            stack[-1].append(ast.PatInt(int(t), NO_SPAN))
        else:
            stack[-1].append(ast.PatName(t, NO_SPAN))
    return tuple(out)


def pat(text: str) -> ast.Pattern:
    lhs, rhs = text.split("->")
    return ast.Pattern(tuple(_terms(s) for s in lhs.split(",")), _terms(rhs), NO_SPAN)


def kw(**sizes: str) -> dict[str, tuple[Size, Size]]:
    return {k: (_size(v, True), _size(v, False)) for k, v in sizes.items()}


def check(kind, text, inputs, kws=None, generics="", op=None):
    return check_pattern(kind, pat(text), inputs, kws or {}, DIMS,
                         frozenset(generics.split()), op)


def labels(t: TensorType) -> str:
    return " ".join(str(a.label) for a in t.axes)


def sizes(t: TensorType, env=None) -> list[int]:
    return [a.size.evaluate({**GEN, **(env or {})}) for a in t.axes]


def run(kind, r, xs, op=None, env=None):
    """Runs the pattern with einops exactly as codegen would."""
    env = {**GEN, **(env or {})}
    kws = {k: v.evaluate(env) for k, v in r.einops_kwargs.items()}
    for c in r.runtime_checks:
        x = xs[c.input]
        assert x.shape[c.axis] % c.den.evaluate(env) == 0, c.text
    if kind == "rearrange":
        y = einops.rearrange(xs[0], r.einops_pattern, **kws)
    elif kind == "repeat":
        y = einops.repeat(xs[0], r.einops_pattern, **kws)
    elif kind == "reduce":
        y = einops.reduce(xs[0], r.einops_pattern, op, **kws)
    else:
        y = einops.einsum(*xs, r.einops_pattern)
    assert list(y.shape) == sizes(r.out, env)
    return y


def rand(t: TensorType, env=None) -> torch.Tensor:
    return torch.randn(*sizes(t, env))


def err(kind, text, inputs, kws=None, generics="", op=None) -> Fail:
    with pytest.raises(Fail) as e:
        check(kind, text, inputs, kws, generics, op)
    return e.value


# -- the book's examples ----------------------------------------------------------------


def test_spotter_patchify():
    img = T("b 1 S S")
    r = check("rearrange", "b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)", [img],
              kw(p1="P", p2="P"), generics="b")
    assert r.einops_pattern == "b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)"
    assert r.einops_kwargs == {"p1": K(4), "p2": K(4)}
    assert r.runtime_checks == ()
    assert [a.size for a in r.out.axes] == [V("b"), K(16), K(16)]
    assert labels(r.out) == "b (S/P)*(S/P) P*P"
    assert r.out.dtype == "f32" and r.out.domain == REAL
    check_fits(r.out, T("b N P*P"))  # patchify's return type
    x = rand(img)
    y = run("rearrange", r, [x])
    want = x.reshape(3, 1, 4, 4, 4, 4).permute(0, 2, 4, 3, 5, 1).reshape(3, 16, 16)
    assert torch.equal(y, want)


def test_nonblank_reduce():
    img = T("b 1 S S")
    r = check("reduce", "b c h w -> b", [img], generics="b", op="max")
    assert r.einops_pattern == "b c h w -> b" and r.einops_kwargs == {}
    assert labels(r.out) == "b" and r.out.domain == REAL
    x = rand(img)
    assert torch.equal(run("reduce", r, [x], "max"), x.amax(dim=(1, 2, 3)))
    u = check("reduce", "b c h w -> b", [T("b 1 S S", "u8")], generics="b", op="max")
    assert u.out.dtype == "u8"


def test_mix_patches_einsum():
    x, w1 = T("b N D"), T("N Dt")
    r = check("einsum", "b N D, N Dt -> b Dt D", [x, w1], generics="b")
    assert r.einops_pattern == "b N D, N Dt -> b Dt D" and r.einops_kwargs == {}
    assert labels(r.out) == "b Dt D" and sizes(r.out) == [3, 64, 32]
    assert r.out.domain == REAL and r.reduced == (V("N"), V("N"))
    xs = [rand(x), rand(w1)]
    assert torch.allclose(run("einsum", r, xs), torch.einsum("bnd,ne->bed", *xs), atol=1e-5)
    back = check("einsum", "b Dt D, Dt N -> b N D", [r.out, T("Dt N")], generics="b")
    assert labels(back.out) == "b N D"


def test_halves():
    r = check("rearrange", "b n (k two) -> two b n k", [T("b n D")], kw(two="2"),
              generics="b n")
    # `k` labels its axis (a local role) and stands for what it matched, `D/2`
    assert labels(r.out) == "2 b n k" and sizes(r.out) == [2, 3, 5, 16]
    assert r.locals == {"k": (K(16), V("D").floordiv(2))}
    assert r.einops_kwargs == {"two": K(2)}
    # `parts[0] * w` with `w: [D/2]`: k matches D/2 by what it stands for
    parts0 = TensorType(r.out.axes[1:], "f32", REAL)
    def role_of(lab):
        return lab.substitute({"k": V("D").floordiv(2)}), "k" in lab.free_vars()
    out = broadcast(parts0, T("D/2"), role_of)
    assert labels(TensorType(out.axes, "f32", REAL)) == "b n k"
    assert len(broadcast(parts0, T("D/2")).axes) == 4  # without roles, two axes
    check_fits(TensorType(out.axes, "f32", REAL), T("b n D/2"))
    x = rand(T("b n D"))
    assert torch.equal(run("rearrange", r, [x]), x.reshape(3, 5, 16, 2).permute(3, 0, 1, 2))


def test_heads():
    r = check("rearrange", "b n (three h d) -> three b h n d", [T("b n 3*D")],
              kw(three="3", h="H"), generics="b n")
    assert sizes(r.out) == [3, 3, 4, 5, 8]
    assert labels(r.out) == "3 b H n d" and r.locals == {"d": (K(8), V("D").floordiv(V("H")))}
    check_fits(r.out, T("3 b H n D/H"))
    assert r.einops_kwargs == {"three": K(3), "h": K(4)}
    x = rand(T("b n 3*D"))
    want = x.reshape(3, 5, 3, 4, 8).permute(2, 0, 3, 1, 4)
    assert torch.equal(run("rearrange", r, [x]), want)


def test_repeat_kv_heads():
    k = T("b Hkv n Dh")
    r = check("repeat", "b Hkv n Dh -> b (Hkv R) n Dh", [k], generics="b n")
    assert labels(r.out) == "b Hkv*R n Dh" and sizes(r.out) == [3, 4, 5, 8]
    assert r.einops_kwargs == {"Hkv": K(2), "R": K(2), "Dh": K(8)}  # dims need no `R=R`
    x = rand(k)
    assert torch.equal(run("repeat", r, [x]), x.repeat_interleave(2, dim=1))


def test_literals_become_generated_names():
    r = check("rearrange", "b n (k 2) -> b 2 n k", [T("b n D")], generics="b n")
    assert r.einops_pattern == "b n (k ss_2) -> b ss_2 n k"
    assert r.einops_kwargs == {"ss_2": K(2)}
    assert labels(r.out) == "b 2 n k"
    x = rand(T("b n D"))
    assert torch.equal(run("rearrange", r, [x]), x.reshape(3, 5, 16, 2).permute(0, 3, 1, 2))
    # a user name `ss_2` is kept apart; two 2s on a side are numbered
    r = check("rearrange", "ss_2 (a 2) (c 2) -> ss_2 a 2 c 2", [T("n 4 6")], generics="n")
    assert "sss_2" in r.einops_pattern and "sss_2_2" in r.einops_pattern
    assert sizes(r.out) == [5, 2, 2, 3, 2]
    run("rearrange", r, [rand(T("n 4 6"))])
    r = check("repeat", "b n -> b n 3", [T("b n")], generics="b n")
    assert r.einops_pattern == "b n -> b n ss_3" and sizes(r.out) == [3, 5, 3]
    run("repeat", r, [rand(T("b n"))])


def test_ones_and_ellipsis():
    r = check("rearrange", "b 1 h w -> b h w 1", [T("b 1 S S")], generics="b")
    assert sizes(r.out) == [3, 16, 16, 1] and labels(r.out) == "b h w 1"
    r = check("rearrange", "b ... -> b (...)", [T("b n D")], generics="b n")
    assert sizes(r.out) == [3, 160] and r.out.axes[1].label == V("n") * V("D")
    run("rearrange", r, [rand(T("b n D"))])
    r = check("reduce", "b ... d -> b d", [T("b n k D")], generics="b n k", op="sum")
    assert labels(r.out) == "b d"
    run("reduce", r, [rand(T("b n k D"))], "sum")
    r = check("rearrange", "... n d -> ... d n", [T("... n D")], generics="n")
    assert labels(r.out) == "... d n" and r.out.axes[0].variadic


def test_undecidable_group_is_a_runtime_check():
    r = check("rearrange", "b (h p) -> b h p", [T("b n")], kw(p="2"), generics="b n")
    assert len(r.runtime_checks) == 1
    c = r.runtime_checks[0]
    assert (c.input, c.axis, c.num, c.den) == (0, 1, V("n"), K(2))
    assert "multiple of `2`" in c.text
    assert r.out.axes[1].size == V("n").floordiv(2)
    run("rearrange", r, [torch.randn(3, 8)], env={"n": 8})
    # after `...`, the axis counts from the end
    r = check("rearrange", "... (h p) -> ... h p", [T("b n")], kw(p="2"), generics="b n")
    assert r.runtime_checks[0].axis == -1


def test_generic_in_a_group_is_passed():
    r = check("rearrange", "(b k) d -> b k d", [T("b*k D")], generics="b k")
    assert r.einops_kwargs == {"b": V("b"), "k": V("k")}  # `d` is read from the shape
    assert sizes(r.out) == [3, 6, 32]
    run("rearrange", r, [rand(T("b*k D"))])


def test_reduce_domains_and_dtypes():
    r = check("reduce", "b n -> b", [T("b n", "bool", MASK)], generics="b n", op="sum")
    assert (r.out.dtype, r.out.domain) == ("i64", NOBOUND)
    r = check("reduce", "b n -> b", [T("b n", "f32", Domain("Unit"))], generics="b n", op="mean")
    assert r.out.domain == Domain("Unit")
    e = err("reduce", "b n -> b", [T("b n", "i64", NOBOUND)], generics="b n", op="mean")
    assert e.code == "E0411"
    probs = T("b C", "f32", Domain("Prob", over=V("C")))
    assert check("reduce", "b c -> b", [probs], generics="b", op="sum").out.domain == Domain("NonNeg")
    e = err("reduce", "b c -> c", [probs], generics="b", op="sum")
    assert e.code == "E0704"


def test_class_domain_kept_or_dropped_by_rearrange():
    logits = T("b C", "f32", Domain("Logit", over=V("C")))
    r = check("rearrange", "b c -> c b", [logits], generics="b")
    assert r.out.domain == Domain("Logit", over=V("c"))  # the class axis, as the output names it
    r = check("rearrange", "b C -> C b", [logits], generics="b")
    assert r.out.domain == Domain("Logit", over=V("C"))
    r = check("rearrange", "b c -> (b c)", [logits], generics="b")
    assert r.out.domain == REAL


def test_einsum_domains_and_dtypes():
    nn = Domain("NonNeg")
    r = check("einsum", "b n, n k -> b k", [T("b n", domain=nn), T("n k", domain=Domain("Pos"))],
              generics="b n k")
    assert r.out.domain == nn
    e = err("einsum", "b n, n k -> b k", [T("b n"), T("n k", "bf16")], generics="b n k")
    assert e.code == "E0404"
    r = check("einsum", "i i -> i", [T("n n")], generics="n")
    assert labels(r.out) == "i"
    x = rand(T("n n"))
    assert torch.equal(run("einsum", r, [x]), torch.diagonal(x))


# -- every error code ----------------------------------------------------------------------


def test_E0601_syntax():
    assert err("rearrange", "b b -> b", [T("n n")]).code == "E0601"
    assert err("rearrange", "b n -> n n", [T("b n")]).code == "E0601"
    assert err("rearrange", "... b ... -> b", [T("b n k")]).code == "E0601"
    assert err("rearrange", "b (n ...) -> b", [T("b n")]).code == "E0601"
    assert err("einsum", "b (n d), d e -> b e", [T("b n"), T("n k")]).code == "E0601"
    assert err("einsum", "b 2, d e -> b e", [T("b n"), T("n k")]).code == "E0601"
    assert err("rearrange", "_x n -> n _x", [T("b n")]).code == "E0601"
    nested = ast.Pattern(((ast.PatGroup((ast.PatGroup((ast.PatName("a", NO_SPAN),), NO_SPAN),),
                                        NO_SPAN),),), (ast.PatName("a", NO_SPAN),), NO_SPAN)
    with pytest.raises(Fail) as e:
        check_pattern("rearrange", nested, [T("n")], {}, DIMS, frozenset(), None)
    assert e.value.code == "E0601"


def test_E0602_one_side_and_unknown_op():
    e = err("rearrange", "b c h w -> b h w", [T("b 1 S S")])
    assert e.code == "E0602" and "`c`" in e.message and "reduce" in e.help
    assert err("rearrange", "b n -> b n z", [T("b n")]).code == "E0602"
    assert err("rearrange", "b (n 2) -> b n", [T("b D")]).code == "E0602"
    assert err("rearrange", "b n -> b n 3", [T("b n")]).code == "E0602"
    assert err("rearrange", "b ... -> b", [T("b n k")]).code == "E0602"
    assert err("rearrange", "b n -> ... b n", [T("b n")]).code == "E0602"
    assert err("reduce", "b n -> b", [T("b n")], op="median").code == "E0602"
    assert err("reduce", "b n -> b", [T("b n")], op=None).code == "E0602"
    assert err("reduce", "b n -> b n z", [T("b n")], op="sum").code == "E0602"
    e = err("repeat", "b n -> b n r", [T("b n")])
    assert e.code == "E0602" and "r=" in e.help
    assert err("repeat", "b n -> b", [T("b n")]).code == "E0602"
    assert err("einsum", "b n, n k -> b z", [T("b n"), T("n k")]).code == "E0602"
    assert err("rearrange", "b n -> b D n", [T("b n")], generics="b n").code == "E0602"


def test_E0603_rank():
    e = err("rearrange", "b c h w -> b c h w", [T("b S S")])
    assert e.code == "E0603" and "4 axes" in e.message
    assert err("rearrange", "a b c ... -> a b c ...", [T("b n")]).code == "E0603"
    assert err("einsum", "b n -> b", [T("b n"), T("n")]).code == "E0603"


def test_E0604_groups():
    e = err("rearrange", "b (gh p) -> b gh p", [T("b S")], kw(p="5"))
    assert e.code == "E0604" and "16" in e.message and "5" in e.message
    e = err("rearrange", "b (gh p) -> b gh p", [T("b S")])
    assert e.code == "E0604" and "two" not in e.message and "2 unknown" in e.message
    # 2n + 1 is never even
    assert err("rearrange", "(h p) -> h p", [T("2*n+1")], kw(p="2"), generics="n").code == "E0604"
    # 4n is a multiple of 2: exact, no check
    r = check("rearrange", "(h p) -> h p", [T("4*n")], kw(p="2"), generics="n")
    assert r.runtime_checks == () and r.out.axes[0].size == 2 * V("n")


def test_E0605_fits():
    e = err("rearrange", "b D -> D b", [T("b C")])
    assert e.code == "E0605" and "the dim `D` is 32" in e.message
    e = err("rearrange", "b n -> n b", [T("b k")], generics="b n")
    assert e.code == "E0605" and "generic" in e.message
    e = err("rearrange", "b (p q) -> b p q", [T("b S")], kw(p="2", q="2"))
    assert e.code == "E0605"
    assert err("rearrange", "b 1 -> b", [T("b S")]).code == "E0605"
    assert err("rearrange", "b 3 -> b 3", [T("b S")]).code == "E0605"
    assert err("rearrange", "b n -> n b", [T("b n")], kw(n="4"), generics="b n").code == "E0605"


def test_E0401_einsum_shared_name():
    e = err("einsum", "b n, n k -> b k", [T("b D"), T("C k")], generics="b k")
    assert e.code == "E0401"
    e = err("einsum", "b D, D k -> b k", [T("b D"), T("C k")], generics="b k")
    assert e.code == "E0605"


def test_E0409_E0502():
    assert err("rearrange", "b n -> n b", [T("... n")]).code == "E0409"
    # `(...)` over axes of unknown rank is one axis of an unknown size.
    out = check("rearrange", "b ... -> (...) b", [T("b ...")]).out
    assert [str(a) for a in out.axes] == ["?k", "b"]
    assert err("rearrange", "b n -> n b", [T("b n")], kw(z="2")).code == "E0502"
    assert err("einsum", "b n, n k -> b k", [T("b n"), T("n k")], kw(k="2")).code == "E0502"


def test_pattern_text():
    assert pattern_text(pat("b (h 2) ..., d -> b")) == "b (h 2) ..., d -> b"


def test_repeat_with_generic_and_einsum_with_ellipsis():
    r = check("repeat", "d -> n d", [T("D")], generics="n")
    assert labels(r.out) == "n d" and r.einops_kwargs == {"n": V("n")}
    run("repeat", r, [rand(T("D"))])
    r = check("einsum", "... d, ... d -> ...", [T("b n D"), T("b n D")], generics="b n")
    assert labels(r.out) == "b n"
    xs = [rand(T("b n D")), rand(T("b n D"))]
    assert torch.allclose(run("einsum", r, xs), (xs[0] * xs[1]).sum(-1), atol=1e-5)
    e = err("einsum", "... d, ... d -> ...", [T("b n D"), T("n D")], generics="b n")
    assert e.code == "E0401"


def test_messages():
    e = err("rearrange", "b D -> D b", [T("b C")])
    assert e.message == "the dim `D` is 32 but its axis `C` has size 4"
    e = err("rearrange", "b c h w -> b c h w", [T("b S S")])
    assert e.message == "the pattern `b c h w` has 4 axes but the input `[b S S]` has 3"
    r = check("reduce", "b (h w) c -> b c", [T("b 16 C")], kw(h="4"), generics="b", op="mean")
    assert r.reduced == (K(16),) and sizes(r.out) == [3, 4]
