"""`shapescript.load_module(path, dims=…)`: a module compiled with dims set from outside,
checked again for them."""

from __future__ import annotations

from pathlib import Path

import pytest

import shapescript
from shapescript.configured import source_with_dims

GPT2 = Path(__file__).resolve().parents[1] / "examples" / "gpt2.ss"


def test_the_values_are_replaced_in_place():
    src = "dim D = 64\n## width\ndim H = D / 16\ndim Tokens = [b n D]\n"
    assert source_with_dims(src, "m.ss", {"D": 32, "H": 2}) == (
        "dim D = 32\n## width\ndim H = 2\ndim Tokens = [b n D]\n")


@pytest.mark.parametrize("dims, match", [
    ({"Q": 3}, r"no dim of that name: `Q` \(its dims: D\)"),
    ({"Tokens": 3}, "an alias of a type, not a size: `Tokens`"),
    ({"D": 0}, "`D` must be a positive int"),
    ({"D": 2.5}, "`D` must be a positive int"),
    ({"D": True}, "`D` must be a positive int"),
])
def test_bad_dims_are_value_errors(dims, match):
    with pytest.raises(ValueError, match=match):
        source_with_dims("dim D = 64\ndim Tokens = [b n D]\n", "m.ss", dims)


def test_a_module_with_other_sizes_runs_with_them():
    torch = pytest.importorskip("torch")
    g = shapescript.load_module(GPT2, dims={"D": 32, "H": 2, "L": 1})
    m = g.GPT2.init(seed=0)
    assert tuple(m.w_qkv.shape) == (1, 96, 32) and tuple(m.w_fc.shape) == (1, 128, 32)
    ids = torch.randint(0, 64, (2, 5))
    assert g.forward(m, ids, torch.arange(5).expand(2, 5)).shape == (2, 5, 64)
    # The file's own sizes are untouched.
    assert shapescript.load_module(GPT2).D == 64


def test_sizes_the_code_cannot_take_are_its_diagnostics():
    with pytest.raises(shapescript.ShapeScriptError) as e:
        shapescript.load_module(GPT2, dims={"H": 5})
    # At the pattern that splits the heads, where the file has it.
    line = next(i for i, text in enumerate(open(GPT2, encoding="utf-8"), 1) if "(three H Dh)" in text)
    assert [d.code for d in e.value.diagnostics] and f"gpt2.ss:{line}" in str(e.value)
