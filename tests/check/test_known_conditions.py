"""Conditions known when checking: `if tied:` on a `const bool` (or a comparison of consts,
dims and literals) rules the other branch out. That branch is still checked for types, but
code generation leaves it out and neither the export nor the serving rules see it, so a
model can switch its structure (tied or untied output) with a const."""

from __future__ import annotations

import pytest

from shapescript import api
from shapescript.compiler import check_source, compile_source

TIED = """
dim V = 32
dim D = 16
dim H = 2

const tied = {tied}

model Tiny:
    param embed: [V D]
    param wqkv: [3*D D]
    param output: [V D]

fn forward(m: Tiny, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    qkv = linear(x, m.wqkv) |> rearrange(b n (three h e) -> three b h n e, three=3, h=H)
    y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=causal[n n])
    a: [b n D] = rearrange(y, b h n e -> b n (h e))
    x = x + a
    {tail}
"""
IF_ELSE = ("if tied:\n        return linear(x, m.embed)\n    else:\n"
           "        return linear(x, m.output)")
IF_THEN_RETURN = "if tied:\n        return linear(x, m.embed)\n    return linear(x, m.output)"
IF_NOT = "if not tied:\n        return linear(x, m.output)\n    return linear(x, m.embed)"


def serving_codes(src: str) -> list[str]:
    program = api.check_program(src, "tiny.ss")
    assert program.ok, [d.message for d in program.diagnostics]
    return [d.code for d in api.serving_diagnostics(program, "forward")]


@pytest.mark.parametrize("tail", [IF_ELSE, IF_THEN_RETURN, IF_NOT])
@pytest.mark.parametrize("tied", ["true", "false"])
def test_a_const_switch_keeps_the_serving_rules(tail, tied):
    assert serving_codes(TIED.format(tied=tied, tail=tail)) == []


def test_a_switch_on_a_host_value_is_still_two_outputs():
    src = TIED.format(tied="true", tail=IF_ELSE).replace(
        "Index[V]) ->", "Index[V], t: bool = true) ->").replace("if tied:", "if t:")
    assert "E3302" in serving_codes(src)


def test_the_branch_ruled_out_is_left_out_of_the_generated_code():
    out = compile_source(TIED.format(tied="true", tail=IF_ELSE), "tiny.ss")
    assert out.python is not None
    assert "m.embed" in out.python and "m.output" not in out.python and "if tied" not in out.python
    out = compile_source(TIED.format(tied="false", tail=IF_THEN_RETURN), "tiny.ss")
    assert "m.output" in out.python and "linear(x, m.embed" not in out.python


def test_the_branch_ruled_out_is_still_checked_for_types():
    src = ("dim D = 4\nconst on = true\nfn f(x: [D]) -> [D]:\n    if on:\n        return x\n"
           "    else:\n        return x @ x\n")
    assert [d.code for d in check_source(src, "t.ss")] == ["E0402"]


def test_names_bound_in_the_branch_taken_are_defined_after_it():
    src = ("dim D = 4\nconst on = true\nfn f(x: [D]) -> [D]:\n    if on and D > 2:\n        y = x * 2\n"
           "    elif D == 4:\n        z = x\n    return y\n")
    assert check_source(src, "t.ss") == []
    # Not so for a condition known only when running.
    src = "dim D = 4\nfn f(x: [D], on: bool) -> [D]:\n    if on:\n        y = x * 2\n    return y\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0802"]


def test_the_export_rules_skip_the_branch_ruled_out():
    src = ("import python torch\ndim D = 4\nconst debug = false\n"
           "export fn f(x: [b D]) -> [b D]:\n    if debug:\n        print(torch.sum(x))\n    return x * 2\n")
    assert check_source(src, "t.ss") == []
    assert [d.code for d in check_source(src.replace("= false", "= true"), "t.ss")] == ["E1704", "E1701"]
