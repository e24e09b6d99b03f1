"""Every dim is a role: two dims of equal size are two different axes (E0414); a dim
defined by an expression is a name for it; `dim X ~ D` is a role of its own with `D`'s
size; generics keep matching by size."""

from __future__ import annotations

from shapescript.compiler import check_source

HEAD = "dim C = 16\ndim S = 16\ndim D = 8\ndim E = 8\ndim H = 2\n"


def codes(src: str, path: str = "t.ss") -> list[str]:
    return [d.code for d in check_source(HEAD + src, path)]


def message(src: str) -> str:
    (d,) = check_source(HEAD + src, "t.ss")
    return d.message


def test_a_reduction_over_the_wrong_one_of_two_equal_dims_is_caught():
    src = "fn pooled(x: [b C S]) -> [b C] = mean(x, over=C)\n"
    assert codes(src) == ["E0414"]
    assert message(src) == ("axis 1 is `S` where the return type declares `C`; they are "
                            "equal only in value (16)")
    assert codes("fn pooled(x: [b C S]) -> [b C] = mean(x, over=S)\n") == []


def test_an_argument_of_another_dim_is_caught():
    src = "fn keep(x: [b C]) -> [b C] = x\nfn f(x: [b S]) -> [b C] = keep(x)\n"
    assert codes(src) == ["E0414"]


def test_a_transposed_square_weight_with_declared_roles_is_caught():
    src = "dim Dout ~ D\nfn lin(x: [b D], w: [D Dout]) -> [b Dout] = x @ w\n"
    assert codes(src) == []
    assert codes("dim Dout ~ D\nfn lin(x: [b D], w: [Dout D]) -> [b Dout] = x @ w\n") == ["E0414"]
    assert codes("dim Dout ~ D\nfn lin(x: [b D], w: [D Dout]) -> [b D] = x @ w\n") == ["E0414"]


def test_a_role_declared_with_tilde_has_the_size_of_its_model():
    src = "dim Dout ~ D\nfn f(x: [b Dout]) -> [b 8] = x\n"
    assert codes(src) == []
    assert codes("dim Dout ~ D\nfn f(x: [b Dout]) -> [b 9] = x\n") == ["E0401"]


def test_equal_by_definition_is_equal():
    src = ("dim Dh = D / H\n"
           "fn heads(x: [b n D]) -> [b H n Dh] = rearrange(x, b n (h d) -> b h n d, h=H)\n"
           "fn merged(x: [b H n Dh]) -> [b n D] = rearrange(x, b h n d -> b n (h d))\n")
    assert codes(src) == []
    # Equal by coincidence: a literal 4 is not `D / H`.
    coincidence = src.replace("dim Dh = D / H", "dim Dh = 4")
    assert codes(coincidence) == ["E0414", "E0414"]


def test_a_number_and_a_generic_have_no_role():
    assert codes("fn f(x: [b 16]) -> [b C] = x\nfn g(x: [b C]) -> [b 16] = x\n") == []
    # Generics keep their rule: one generic bound to two dims of one size is fine.
    src = "fn pair(a: [n], b: [n]) -> [n] = a + b\nfn f(x: [C], y: [S]) -> [C] = pair(x, y)\n"
    assert codes(src) == []


def test_as_says_it_on_purpose():
    assert codes("fn f(x: [b C S]) -> [b C] = mean(x, over=C) as [b C]\n") == []


def test_a_dim_imported_under_another_name_keeps_its_role(tmp_path):
    (tmp_path / "sizes.ss").write_text("dim C = 16\ndim S = 16\ndim W = C\n", encoding="utf-8")
    main = tmp_path / "main.ss"
    src = ("from sizes import C as K, S, W\n"
           "fn f(x: [b W]) -> [b K] = x\n"
           "fn g(x: [b S]) -> [b K] = x\n")
    main.write_text(src, encoding="utf-8")
    got = [d.code for d in check_source(src, str(main))]
    assert got == ["E0414"]


ATTENTION = """
fn attend(x: [b n D]) -> [b n D]:
    s = einsum(x, x: b n d, b t d -> b n t)
    p = softmax(s, over=t)
    return einsum(p, x: b n t, b t d -> b n d)
"""


def test_self_attention_names_its_key_axis_as_written():
    # `t` is the key axis: its own label, though it matched `n`'s size.
    assert codes(ATTENTION) == []
    assert codes(ATTENTION.replace("over=t", "over=n")) == []
    mean = ATTENTION.replace("p = softmax(s, over=t)", "p = mean(s, over=t)")
    assert codes(mean.replace("einsum(p, x: b n t, b t d -> b n d)", "p")) == ["E0402"]


def test_a_local_role_names_masks_and_annotations():
    src = """
fn attend(x: [b n D]) -> [b n n]:
    s = einsum(x, x: b n d, b t d -> b n t)
    m: [b n t] = where(causal[n t], s, -1e9)
    return softmax(m, over=t)
"""
    assert codes(src) == []


def test_a_transposed_mask_is_aligned_by_its_labels():
    from shapescript.compiler import compile_source

    src = """
fn scores(x: [b n D]) -> [b n n]:
    s = einsum(x, x: b n d, b t d -> b n t)
    return where(causal[t n], s, 0.0)
"""
    assert codes(src) == []
    out = compile_source(HEAD + src, "t.ss")
    # The mask `[t n]` meets `[b n t]` by label: transposed to fit, not used as written.
    assert "permute(1, 0)" in out.python

