"""A forward function that calls functions of another `.ss` file exports: the modeling
file holds them too, under names of their own, and still imports no ShapeScript."""

from __future__ import annotations

import ast

import pytest

from hf_helpers import LLAMA, greedy

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# The llama example's forward function in a file of its own; the model and its blocks
# stay in llama_blocks.ss (the example up to its forward function). The final norm is
# named as a function the modeling file defines itself.
FORWARD = '''\
## The llama example's forward function, its blocks imported from llama_blocks.ss.

import llama_blocks
from llama_blocks import Llama, block, V, P, D, L

## The final norm.
fn causal_mask(m: Llama, x: [b n D]) -> [b n D] = rms_norm(x, over=D, weight=m.norm, eps=1e-5)

## The scores of the next token after each position.
fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    c, s = llama_blocks.rotation(pos)
    for l in 0..L:
        x = block(m, x, c, s, l)
    return causal_mask(m, x) |> linear(m.output)
'''


@pytest.fixture(scope="module")
def two_files(tmp_path_factory):
    """(the forward's file, the exported folder)."""
    from shapescript_hf import export_hf

    root = tmp_path_factory.mktemp("two_files")
    text = open(LLAMA, encoding="utf-8").read()
    (root / "llama_blocks.ss").write_text(text[:text.index("\n## The scores of the next token")])
    (root / "llama_lm.ss").write_text(FORWARD)
    config = export_hf(str(root / "llama_lm.ss"), str(root / "lm_hf"), seed=1)
    assert config["shapescript"]["vllm"] is True
    return str(root / "llama_lm.ss"), str(root / "lm_hf")


@pytest.mark.slow
def test_a_forward_calling_another_files_functions_exports(two_files):
    from shapescript_export.model_export import load_model_source, make_weights
    from transformers import AutoModelForCausalLM

    path, folder = two_files
    model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True).eval()
    src = load_model_source(path)
    m = make_weights(src, seed=1)
    ids = torch.tensor([[3, 17, 5, 60, 2, 9], [1, 2, 3, 4, 5, 6]])
    pos = torch.arange(6).expand(2, 6)
    with torch.no_grad():
        got = model(input_ids=ids, use_cache=False).logits
    want = src.run(m, ids, pos)
    assert (got - want).abs().max() <= 1e-5 * want.abs().max()
    prompt = ids[:1]
    assert model.generate(prompt, max_new_tokens=6, do_sample=False).tolist() == \
        greedy(src, m, prompt, 6).tolist()


@pytest.mark.slow
def test_the_other_files_functions_have_names_of_their_own(two_files):
    _, folder = two_files
    text = open(f"{folder}/modeling_shapescript.py", encoding="utf-8").read()
    tree = ast.parse(text)
    defs = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert len(defs) == len(set(defs))
    assert {"forward", "llama_blocks_rotation", "llama_blocks_rotary", "llama_blocks_attention",
            "llama_blocks_feed_forward", "llama_blocks_block"} <= set(defs)
    # The source's `causal_mask` is renamed: the modeling file has a function of that name.
    assert "causal_mask_2" in defs and "causal_mask" in defs
    assert "return causal_mask_2(attn, m, x)" in text
    assert "# Of llama_blocks.ss, which llama_lm.ss imports." in text
    imported = {(n.module if isinstance(n, ast.ImportFrom) else n.names[0].name).split(".")[0]
                for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))}
    assert imported <= {"torch", "einops", "transformers", "types"}, imported
