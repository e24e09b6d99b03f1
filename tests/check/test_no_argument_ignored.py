"""No argument is ever ignored: every built-in and constructor, given one argument more
than it takes (by position, then by keyword), is a diagnostic with a code.

The built-ins are enumerated from the registry, so one added without a case here fails
`test_every_built_in_has_a_case`: a new built-in is covered once it is written.
"""

from __future__ import annotations

import pytest

from shapescript.builtin_registry import BUILTINS, BUILTINS_BY_NAME
from shapescript.compiler import check_source, compile_source

HEAD = """dim D = 4
dim C = 3
model M:
    param w: [D D]
fn loss(m: M, x: [b D]) -> [] = mean(x @ m.w)
"""
# A function with a tensor of each kind a built-in takes, and host code with a model, its
# gradients and an optimizer.
BODY = ("fn f(x: [b D], y: [b D], m: [b D] Mask, i: [b] Index[C], l: [b C] Logit over C) -> []:\n"
        "    r = {call}\n    return mean(x)\n")
HOST = ("fn main():\n    m = M.init(seed=0)\n    x = zeros[2 D]\n"
        "    v, g = value_and_grad(loss, m, x)\n    o = sgd(m, lr=0.1)\n    {call}\n")

# name -> (context, a call that checks; `{P}` is where one more positional argument goes,
# `{K}` where one more keyword argument goes)
CASES: dict[str, tuple[str, str]] = {
    **{n: (BODY, f"{n}(x, y{{P}}{{K}})") for n in
       ("add", "sub", "mul", "div", "maximum", "minimum")},
    "where": (BODY, "where(m, x, y{P}{K})"),
    "matmul": (BODY, "matmul(x, rearrange(y, b d -> d b){P}{K})"),
    **{n: (BODY, f"{n}(x{{P}}, over=D{{K}})") for n in
       ("sum", "mean", "max", "min", "prod", "var", "std", "logsumexp", "argmax", "argmin",
        "cumprod")},
    "any": (BODY, "any(m{P}, over=D{K})"),
    "all": (BODY, "all(m{P}, over=D{K})"),
    "cross_entropy": (BODY, "cross_entropy(l, i{P}, over=C{K})"),
    "topk": (BODY, "topk(x, 2{P}, over=D{K})"),
    "rearrange": (BODY, "rearrange(x{P}, b d -> d b{K})"),
    "reduce": (BODY, "reduce(x{P}, b d -> d, sum{K})"),
    "repeat": (BODY, "repeat(x{P}, b d -> b d k, k=2{K})"),
    "einsum": (BODY, "einsum(x, y{P}: b d, b d -> b{K})"),
    "stack": (BODY, "stack((x, y){P}{K})"),
    "concat": (BODY, "concat((x, y){P}, over=D{K})"),
    "split": (BODY, "split(x{P}, over=D, sizes=(2, 2){K})"),
    "pack": (BODY, "pack((x, y){P}, b *{K})"),
    "unpack": (BODY, "unpack(x{P}, b * -> b D{K})"),
    "map": (BODY, "C |> map(c => x{P}{K})"),
    **{n: (BODY, f"{n}[b D]({{P}}{{K}})") for n in ("zeros", "ones", "randn", "rand")},
    "eye": (BODY, "eye[b b]({P}{K})"),
    "arange": (BODY, "arange[b]({P}{K})"),
    "causal": (BODY, "causal[b b]({P}window=2{K})"),
    "full": (BODY, "full[b D](1.0{P}{K})"),
    "print": (HOST, "print(x{P}{K})"),
    "value_and_grad": (HOST, "value_and_grad(loss, m, x{P}{K})"),
    "sgd": (HOST, "sgd(m{P}, lr=0.1{K})"),
    "adamw": (HOST, "adamw(m{P}, lr=0.1{K})"),
    "update": (HOST, "update(m, g, o{P}{K})"),
    "clip_norm": (HOST, "clip_norm(g{P}, max=1.0{K})"),
    "cosine": (HOST, "cosine(10{P}, lr=0.1{K})"),
    "warmup": (HOST, "warmup(10, cosine(10, lr=0.1){P}{K})"),
    "shuffle": (HOST, "shuffle((x, x){P}, seed=0{K})"),
    "batches": (HOST, "batches((x, x){P}, size=1{K})"),
    "report": (HOST, "report(1{P}, loss=mean(x){K})"),
    "sink": (HOST, 'sink("run.jsonl"{P}{K})'),
    "save": (HOST, 'save("a.safetensors", m{P}{K})'),
    "load": (HOST, 'load("a.safetensors", M{P}{K})'),
}

# What a variadic parameter takes is used, not ignored: `print` prints every value and
# `report` reports every keyword. Those two extras must reach the generated code.
USED = {("print", "positional"), ("report", "keyword")}


def _program(name: str, extra: str | None) -> str:
    context, call = CASES[name]
    constructor = BUILTINS_BY_NAME[name].form == "constructor"
    p = k = ""
    if extra == "positional":
        p = "x, " if "({P}" in call else ", x"
    elif extra == "keyword":
        k = "bogus=mean(x)" if "({K}" in call else ", bogus=mean(x)"
    text = call.replace("{P}", p).replace("{K}", k)
    if constructor and text.endswith("()"):
        text = text[:-2]  # `zeros[b D]`: no value at all
    return HEAD + context.format(call=text)


def test_every_built_in_has_a_case():
    assert sorted(CASES) == sorted(b.name for b in BUILTINS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_call_without_an_extra_argument_checks(name):
    assert [d.message for d in check_source(_program(name, None), "t.ss")] == []


@pytest.mark.parametrize("extra", ["positional", "keyword"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_extra_argument_is_a_diagnostic_with_a_code(name, extra):
    src = _program(name, extra)
    if (name, extra) in USED:
        out = compile_source(src, "t.ss")
        assert out.python is not None, [d.message for d in out.diagnostics]
        assert ("x, x" if extra == "positional" else "bogus") in out.python
        return
    codes = [d.code for d in check_source(src, "t.ss")]
    assert codes, f"`{name}` ignored an extra {extra} argument"
    assert "E0000" not in codes


@pytest.mark.parametrize("call, code", [
    ("causal[n n](4)", "E0501"),            # a sliding window is `window=W`
    ("zeros[n n](0.0)", "E0501"),
    ("full[n n](bogus=1.0)", "E0501"),
])
def test_a_constructor_rejects_a_value_it_does_not_take(call, code):
    src = f"fn f(x: [n n]) -> [n n] = x\nfn g(x: [n n]) = {call}\n"
    assert [d.code for d in check_source(src, "t.ss")] == [code]


def _prelude_functions() -> list[str]:
    from shapescript.compiler import prelude_env

    env, names = prelude_env(), set()
    while env is not None:
        names |= set(env.fns)
        env = env.prelude
    return sorted(names)


@pytest.mark.parametrize("name", _prelude_functions())
def test_a_prelude_function_names_a_keyword_it_does_not_take(name):
    # The prelude's functions are `extern fn`s: their signatures say every parameter, and
    # a keyword none of them names is E0502, whatever else the call gives.
    src = f"fn f(x: [n]) -> [n]:\n    y = {name}(bogus=1)\n    return x\n"
    diags = [d for d in check_source(src, "t.ss") if d.code == "E0502"]
    assert [d.message for d in diags] == [f"`{name}` has no parameter `bogus`"]
    assert diags[0].help and diags[0].help != "parameters: "
