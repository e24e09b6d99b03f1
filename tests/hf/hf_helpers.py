"""Helpers of the Hugging Face tests (fixtures: ``conftest``)."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LLAMA = str(EXAMPLES / "llama.ss")
GPT2 = str(EXAMPLES / "gpt2.ss")


def positions(ids):
    import torch

    return torch.arange(ids.shape[1]).expand(ids.shape[0], ids.shape[1])


def greedy(src, model, ids, steps: int):
    """Greedy decoding by the source's own forward function, from the start each step."""
    import torch

    for _ in range(steps):
        logits = src.run(model, ids, positions(ids))
        ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return ids


def variant_of(name: str, tmp_path, *changes: tuple[str, str]) -> str:
    """The example ``name`` with each ``(old, new)`` text replaced once, as a new file."""
    text = (EXAMPLES / f"{name}.ss").read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / f"{name}.ss"
    path.write_text(text, encoding="utf-8")
    return str(path)


def native(folder: str, src):
    """transformers' own class with the folder's sizes and weights: LlamaForCausalLM for
    the llama example (its rotary turns neighbouring features, Llama's the two halves of
    a head, so query and key rows are reordered alike, which keeps every score), and
    MistralForCausalLM, with the same window, for the mistral example."""
    import json
    import os

    import torch
    from safetensors.torch import load_file
    from transformers import LlamaConfig, LlamaForCausalLM, MistralConfig, MistralForCausalLM

    d = src.namespace
    H, Hkv, Dh, L = d["H"], d["Hkv"], d["Dh"], d["L"]
    sizes = dict(vocab_size=d["V"], hidden_size=d["D"], intermediate_size=d["F"],
                 num_hidden_layers=L, num_attention_heads=H, num_key_value_heads=Hkv,
                 head_dim=Dh, rms_norm_eps=1e-5, rope_theta=10000.0,
                 max_position_embeddings=d["P"], tie_word_embeddings=False)
    config = json.load(open(os.path.join(folder, "config.json")))
    w = load_file(os.path.join(folder, "model.safetensors"))
    if "W" in d:
        assert config.get("sliding_window", d["W"]) == d["W"]
        model = MistralForCausalLM(MistralConfig(sliding_window=d["W"], **sizes))
        q_order = k_order = None
    else:
        model = LlamaForCausalLM(LlamaConfig(attention_bias=False, mlp_bias=False, **sizes))

        def halves(heads):
            per_head = list(range(0, Dh, 2)) + list(range(1, Dh, 2))
            return torch.tensor([h * Dh + j for h in range(heads) for j in per_head])

        q_order, k_order = halves(H), halves(Hkv)
    if "model.wq" in w:
        # A stacked folder (one an engine can't serve): each layer's slice.
        names = {"self_attn.q_proj": "wq", "self_attn.k_proj": "wk", "self_attn.v_proj": "wv",
                 "self_attn.o_proj": "wo", "mlp.gate_proj": "w_gate", "mlp.up_proj": "w_up",
                 "mlp.down_proj": "w_down", "input_layernorm": "attn_norm",
                 "post_attention_layernorm": "mlp_norm"}
        state = {"model.embed_tokens.weight": w["model.embed_tokens.weight"],
                 "lm_head.weight": w["lm_head.weight"], "model.norm.weight": w["model.norm"]}
        for i in range(L):
            for ours, field in names.items():
                state[f"model.layers.{i}.{ours}.weight"] = w[f"model.{field}"][i]
    else:
        # The layered folder's names are transformers' own.
        state = dict(w)
    for i in range(L):
        p = f"model.layers.{i}.self_attn."
        if q_order is not None:
            state[p + "q_proj.weight"] = state[p + "q_proj.weight"][q_order]
            state[p + "k_proj.weight"] = state[p + "k_proj.weight"][k_order]
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected and all("rotary" in k for k in missing), (missing, unexpected)
    # The folders have no end-of-sequence token: generate stops at none here either.
    model.generation_config.eos_token_id = model.config.eos_token_id = None
    return model.eval()
