"""Folders that serve like transformers' own classes: keys and values cached at the
source's Hkv heads, padded batches (left and right) equal to transformers' Llama and
Mistral with the same weights, and sliding windows applied per layer."""

from __future__ import annotations

import json
import os

import pytest

from hf_helpers import greedy, native, variant_of

torch = pytest.importorskip("torch")

MISTRAL_MASK = "    y = scaled_dot_product_attention(q, k, v, attn_mask=window(n, W))\n"
# The same window, as a mask of the model's own: no serving form, so transformers only.
OWN_MASK = ("    mask = causal[n n](window=W)\n"
            "    y = scaled_dot_product_attention(q, k, v, attn_mask=mask)\n")


def load(folder, **options):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True,
                                                **options).eval()


@pytest.fixture(scope="module")
def own_mask(tmp_path_factory):
    """The mistral example with its window as a mask of its own, exported."""
    from shapescript_hf.api import export_hf

    tmp = tmp_path_factory.mktemp("own")
    path = variant_of("mistral", tmp, (MISTRAL_MASK, OWN_MASK))
    notes: list[str] = []
    config = export_hf(path, str(tmp / "hf"), seed=1, notes=notes)
    assert config["shapescript"]["vllm"] is False and "E3304" in notes[0]
    return str(tmp / "hf")


@pytest.mark.slow
def test_the_llama_folder_caches_its_hkv_heads(folders, source):
    src, m = source("llama")
    hkv, heads = src.namespace["Hkv"], src.namespace["H"]
    assert hkv < heads
    folder = folders("llama")
    config = json.load(open(os.path.join(folder, "config.json")))
    assert config["num_key_value_heads"] == hkv and config["num_attention_heads"] == heads
    model = load(folder)
    prompt = torch.tensor([[3, 17, 5, 60, 2, 9]])
    with torch.no_grad():
        cache = model(prompt, use_cache=True).past_key_values
    assert len(cache.layers) == config["num_hidden_layers"]
    for layer in cache.layers:
        assert layer.keys.shape == layer.values.shape == (1, hkv, 6, src.namespace["Dh"])
    want = greedy(src, m, prompt, 8)
    for impl in ("eager", "sdpa"):
        model.set_attn_implementation(impl)
        assert model.generate(prompt, max_new_tokens=8, do_sample=False).tolist() == want.tolist()
        assert model.generate(prompt, max_new_tokens=8, do_sample=False,
                              use_cache=False).tolist() == want.tolist()


def padded(side: str, pads: list[int], n: int, vocab: int):
    """A batch of sequences of n tokens, row r with pads[r] of them padding on ``side``,
    its attention_mask and positions counted over the real tokens."""
    g = torch.Generator().manual_seed(sum(pads) + n)
    ids = torch.randint(1, vocab, (len(pads), n), generator=g)
    mask = torch.ones(len(pads), n, dtype=torch.long)
    for r, p in enumerate(pads):
        if p:
            mask[r, :p] = 0 if side == "left" else 1
            if side == "right":
                mask[r, n - p:] = 0
    ids = ids * mask
    pos = (mask.cumsum(-1) - 1).clamp(min=0)
    return ids, mask, pos


@pytest.mark.slow
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("name", ["llama", "mistral", "own mask"])
def test_padded_batches_equal_transformers_own_class(name, side, folders, source, own_mask):
    folder = own_mask if name == "own mask" else folders(name)
    src, _ = source("llama" if name == "llama" else "mistral")
    ref = native(folder, src)
    ids, mask, pos = padded(side, [0, 1, 3, 6], 14, src.namespace["V"])
    with torch.no_grad():
        want = ref(input_ids=ids, attention_mask=mask, position_ids=pos).logits
        for impl in ("eager", "sdpa"):
            got = load(folder, attn_implementation=impl)(
                input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=False).logits
            real = mask.bool()
            err = (got[real] - want[real]).abs().max().item()
            assert err <= 1e-5 * max(1.0, want[real].abs().max().item()), (impl, err)
        # And a padded row gives what its real tokens give alone.
        alone = ref(input_ids=ids[3:][mask[3:].bool()][None]).logits[0]
        assert (got[3][mask[3].bool()] - alone).abs().max() <= 1e-5


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mistral", "own mask"])
def test_left_padded_generate_equals_transformers_own_class(name, folders, source, own_mask):
    folder = own_mask if name == "own mask" else folders(name)
    src, _ = source("mistral")
    ref = native(folder, src)
    ids, mask, _ = padded("left", [0, 2, 5], 7, src.namespace["V"])
    want = ref.generate(ids, attention_mask=mask, max_new_tokens=9, do_sample=False,
                        pad_token_id=0)
    got = load(folder).generate(ids, attention_mask=mask, max_new_tokens=9, do_sample=False,
                                pad_token_id=0)
    assert got.tolist() == want.tolist()


@pytest.mark.slow
def test_the_window_is_applied_per_layer(tmp_path, source):
    """Layer 0 windowed, layer 1 not: `layer_types` says so, and eager, sdpa and the
    cache apply each layer's own mask."""
    from shapescript_hf.api import export_hf

    path = variant_of("mistral", tmp_path, (MISTRAL_MASK, (
        "    if l == 0:\n"
        "        y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n](window=W))\n"
        "    else:\n"
        "        y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])\n")))
    config = export_hf(path, str(tmp_path / "hf"), seed=2, vllm=True)
    assert config["sliding_window"] == 8
    assert config["layer_types"] == ["sliding_attention", "full_attention"]
    from shapescript_export.model_export import load_model_source, make_weights

    src = load_model_source(path)
    m = make_weights(src, seed=2)
    ids = torch.randint(0, 64, (2, 20), generator=torch.Generator().manual_seed(0))
    pos = torch.arange(20).expand(2, 20)
    want = src.run(m, ids, pos)
    for impl in ("eager", "sdpa"):
        model = load(str(tmp_path / "hf"), attn_implementation=impl)
        with torch.no_grad():
            got = model(input_ids=ids, position_ids=pos, use_cache=False).logits
        assert (got - want).abs().max() <= 1e-5 * want.abs().max()
        # Cached generation, past the window, as the source computes it from the start.
        prompt = ids[:1, :5]
        assert model.generate(prompt, max_new_tokens=12, do_sample=False).tolist() == \
            greedy(src, m, prompt, 12).tolist()


@pytest.mark.slow
def test_a_model_mixing_positions_refuses_padded_input(tmp_path):
    from shapescript_hf.api import export_hf

    path = variant_of("llama", tmp_path, ("    return x + feed_forward(m, x, l)\n",
                                          "    return x + feed_forward(m, x, l) - mean(x, over=n)\n"))
    export_hf(path, str(tmp_path / "hf"), seed=1)
    model = load(str(tmp_path / "hf"))
    ids = torch.tensor([[5, 6, 7, 8], [0, 0, 7, 8]])
    with torch.no_grad():
        model(input_ids=ids, attention_mask=torch.ones_like(ids))   # no padding: fine
        with pytest.raises(ValueError, match="can't take padded input.*`mean` across positions"):
            model(input_ids=ids, attention_mask=(ids > 0).long())
