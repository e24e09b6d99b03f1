"""transformers' own ``LlamaForCausalLM`` holding the weights of an exported llama folder,
the native model the benchmarks (``hf_forward.py``, ``gpu.py``) and the CUDA tests compare
the exported folder with.

The weights are mapped, not retrained: the source turns neighbouring pairs of features
(2i, 2i+1) by its rotary embedding, Hugging Face's llama the two halves of a head
(i, i + Dh/2), so each head's query and key rows are reordered (the same order for both,
which leaves every score unchanged).
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

LLAMA = str(Path(__file__).resolve().parents[1] / "examples" / "llama.ss")


def halves_order(heads: int, head_dim: int) -> torch.Tensor:
    """Row order taking neighbouring-pairs rotary weights to rotate-half ones."""
    per_head = list(range(0, head_dim, 2)) + list(range(1, head_dim, 2))
    return torch.tensor([h * head_dim + j for h in range(heads) for j in per_head])


def reference_model(folder: str, source: str = LLAMA):
    """transformers' LlamaForCausalLM with the folder's configuration and weights;
    ``source``: the ``.ss`` file the folder was exported from (its dims)."""
    from safetensors.torch import load_file
    from transformers import LlamaConfig, LlamaForCausalLM

    from shapescript_export.model_export import load_model_source

    dims = load_model_source(source).namespace
    H, Hkv, Dh, L = dims["H"], dims["Hkv"], dims["Dh"], dims["L"]
    V, D, F, P = dims["V"], dims["D"], dims["F"], dims["P"]
    config = LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=F,
                         num_hidden_layers=L, num_attention_heads=H, num_key_value_heads=Hkv,
                         head_dim=Dh, rms_norm_eps=1e-5, rope_theta=10000.0,
                         max_position_embeddings=P, tie_word_embeddings=False,
                         attention_bias=False, mlp_bias=False)
    w = load_file(os.path.join(folder, "model.safetensors"))
    model = LlamaForCausalLM(config).to(w["lm_head.weight"].dtype).eval()
    q_order, k_order = halves_order(H, Dh), halves_order(Hkv, Dh)
    if "model.wq" not in w:
        # The layered layout's names are transformers' own; only the rotary's order differs.
        state = dict(w)
        for i in range(L):
            p = f"model.layers.{i}.self_attn."
            state[p + "q_proj.weight"] = w[p + "q_proj.weight"][q_order]
            state[p + "k_proj.weight"] = w[p + "k_proj.weight"][k_order]
        missing, unexpected = model.load_state_dict(state, strict=False)
        assert not unexpected and all("rotary" in k for k in missing), (missing, unexpected)
        return model
    state = {"model.embed_tokens.weight": w["model.embed_tokens.weight"],
             "lm_head.weight": w["lm_head.weight"], "model.norm.weight": w["model.norm"]}
    for i in range(L):
        p = f"model.layers.{i}."
        state[p + "self_attn.q_proj.weight"] = w["model.wq"][i][q_order]
        state[p + "self_attn.k_proj.weight"] = w["model.wk"][i][k_order]
        state[p + "self_attn.v_proj.weight"] = w["model.wv"][i]
        state[p + "self_attn.o_proj.weight"] = w["model.wo"][i]
        state[p + "mlp.gate_proj.weight"] = w["model.w_gate"][i]
        state[p + "mlp.up_proj.weight"] = w["model.w_up"][i]
        state[p + "mlp.down_proj.weight"] = w["model.w_down"][i]
        state[p + "input_layernorm.weight"] = w["model.attn_norm"][i]
        state[p + "post_attention_layernorm.weight"] = w["model.mlp_norm"][i]
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected and all("rotary" in k for k in missing), (missing, unexpected)
    return model
