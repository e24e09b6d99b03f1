"""The architecture examples are ports of transformers' own classes: a checkpoint that
transformers writes (random weights from a config, nothing downloaded) loads into each
through ``load(…, keys=…)``, and their logits agree to 1e-5 in f32."""

from __future__ import annotations

import pytest
from gguf_helpers import ROOT

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _layers(pattern: dict[str, str]) -> dict:
    from shapescript import Key

    return {field: Key("model.layers.{l}." + key) for field, key in pattern.items()}


def qwen2():
    config = transformers.Qwen2Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=False)
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight",
            "output": "lm_head.weight", **_layers({
                "attn_norm": "input_layernorm.weight",
                "wq": "self_attn.q_proj.weight", "bq": "self_attn.q_proj.bias",
                "wk": "self_attn.k_proj.weight", "bk": "self_attn.k_proj.bias",
                "wv": "self_attn.v_proj.weight", "bv": "self_attn.v_proj.bias",
                "wo": "self_attn.o_proj.weight", "mlp_norm": "post_attention_layernorm.weight",
                "w_gate": "mlp.gate_proj.weight", "w_up": "mlp.up_proj.weight",
                "w_down": "mlp.down_proj.weight"})}
    return "Qwen2", transformers.Qwen2ForCausalLM, config, keys


def qwen3():
    config = transformers.Qwen3Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
        rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=False,
        attention_bias=False)
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight",
            "output": "lm_head.weight", **_layers({
                "attn_norm": "input_layernorm.weight",
                "wq": "self_attn.q_proj.weight", "wk": "self_attn.k_proj.weight",
                "wv": "self_attn.v_proj.weight", "q_norm": "self_attn.q_norm.weight",
                "k_norm": "self_attn.k_norm.weight", "wo": "self_attn.o_proj.weight",
                "mlp_norm": "post_attention_layernorm.weight",
                "w_gate": "mlp.gate_proj.weight", "w_up": "mlp.up_proj.weight",
                "w_down": "mlp.down_proj.weight"})}
    return "Qwen3", transformers.Qwen3ForCausalLM, config, keys


def gemma():
    config = transformers.GemmaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=1, head_dim=8, max_position_embeddings=64,
        rms_norm_eps=1e-6, rope_theta=10000.0, hidden_activation="gelu_pytorch_tanh")
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight", **_layers({
        "attn_norm": "input_layernorm.weight", "wq": "self_attn.q_proj.weight",
        "wk": "self_attn.k_proj.weight", "wv": "self_attn.v_proj.weight",
        "wo": "self_attn.o_proj.weight", "mlp_norm": "post_attention_layernorm.weight",
        "w_gate": "mlp.gate_proj.weight", "w_up": "mlp.up_proj.weight",
        "w_down": "mlp.down_proj.weight"})}
    return "Gemma", transformers.GemmaForCausalLM, config, keys


def phi3():
    config = transformers.Phi3Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        original_max_position_embeddings=64, rms_norm_eps=1e-5, rope_theta=10000.0,
        tie_word_embeddings=False, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight",
            "output": "lm_head.weight", **_layers({
                "attn_norm": "input_layernorm.weight", "w_qkv": "self_attn.qkv_proj.weight",
                "wo": "self_attn.o_proj.weight", "mlp_norm": "post_attention_layernorm.weight",
                "w_gate_up": "mlp.gate_up_proj.weight", "w_down": "mlp.down_proj.weight"})}
    return "Phi3", transformers.Phi3ForCausalLM, config, keys


def neox():
    from shapescript import Key

    config = transformers.GPTNeoXConfig(
        vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, max_position_embeddings=64, rotary_pct=0.25,
        rotary_emb_base=10000, hidden_act="gelu_pytorch_tanh", layer_norm_eps=1e-5,
        use_parallel_residual=True, tie_word_embeddings=False)
    h = "gpt_neox.layers.{l}."
    names = {"ln1_w": "input_layernorm.weight", "ln1_b": "input_layernorm.bias",
             "w_qkv": "attention.query_key_value.weight",
             "b_qkv": "attention.query_key_value.bias", "w_o": "attention.dense.weight",
             "b_o": "attention.dense.bias", "ln2_w": "post_attention_layernorm.weight",
             "ln2_b": "post_attention_layernorm.bias", "w_up": "mlp.dense_h_to_4h.weight",
             "b_up": "mlp.dense_h_to_4h.bias", "w_down": "mlp.dense_4h_to_h.weight",
             "b_down": "mlp.dense_4h_to_h.bias"}
    keys = {"embed": "gpt_neox.embed_in.weight", "ln_f_w": "gpt_neox.final_layer_norm.weight",
            "ln_f_b": "gpt_neox.final_layer_norm.bias", "output": "embed_out.weight",
            **{field: Key(h + key) for field, key in names.items()}}
    return "NeoX", transformers.GPTNeoXForCausalLM, config, keys


def starcoder2():
    config = transformers.Starcoder2Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        norm_epsilon=1e-5, rope_theta=100000.0, hidden_act="gelu_pytorch_tanh",
        use_bias=True, tie_word_embeddings=True)
    keys = {"embed": "model.embed_tokens.weight", "ln_f_w": "model.norm.weight",
            "ln_f_b": "model.norm.bias", **_layers({
                "ln1_w": "input_layernorm.weight", "ln1_b": "input_layernorm.bias",
                "wq": "self_attn.q_proj.weight", "bq": "self_attn.q_proj.bias",
                "wk": "self_attn.k_proj.weight", "bk": "self_attn.k_proj.bias",
                "wv": "self_attn.v_proj.weight", "bv": "self_attn.v_proj.bias",
                "wo": "self_attn.o_proj.weight", "bo": "self_attn.o_proj.bias",
                "ln2_w": "post_attention_layernorm.weight",
                "ln2_b": "post_attention_layernorm.bias",
                "w_fc": "mlp.c_fc.weight", "b_fc": "mlp.c_fc.bias",
                "w_proj": "mlp.c_proj.weight", "b_proj": "mlp.c_proj.bias"})}
    return "StarCoder2", transformers.Starcoder2ForCausalLM, config, keys


def mistral():
    config = transformers.MistralConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
        rms_norm_eps=1e-5, rope_theta=1000000.0, sliding_window=24,
        tie_word_embeddings=False)
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight",
            "output": "lm_head.weight", **_layers({
                "attn_norm": "input_layernorm.weight", "wq": "self_attn.q_proj.weight",
                "wk": "self_attn.k_proj.weight", "wv": "self_attn.v_proj.weight",
                "wo": "self_attn.o_proj.weight", "mlp_norm": "post_attention_layernorm.weight",
                "w_gate": "mlp.gate_proj.weight", "w_up": "mlp.up_proj.weight",
                "w_down": "mlp.down_proj.weight"})}
    return "Mistral", transformers.MistralForCausalLM, config, keys


_GEMMA2_LAYERS = {
    "attn_norm": "input_layernorm.weight", "wq": "self_attn.q_proj.weight",
    "wk": "self_attn.k_proj.weight", "wv": "self_attn.v_proj.weight",
    "wo": "self_attn.o_proj.weight", "post_attn_norm": "post_attention_layernorm.weight",
    "mlp_norm": "pre_feedforward_layernorm.weight", "w_gate": "mlp.gate_proj.weight",
    "w_up": "mlp.up_proj.weight", "w_down": "mlp.down_proj.weight",
    "post_mlp_norm": "post_feedforward_layernorm.weight"}


def gemma2():
    # without soft-capping (the serving form has none); attention scaled by 1/sqrt(head_dim)
    config = transformers.Gemma2Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
        rms_norm_eps=1e-6, rope_theta=10000.0, hidden_activation="gelu_pytorch_tanh",
        query_pre_attn_scalar=8, sliding_window=6, attn_logit_softcapping=None,
        final_logit_softcapping=None)
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight",
            **_layers(_GEMMA2_LAYERS)}
    return "Gemma2", transformers.Gemma2ForCausalLM, config, keys


def gemma3():
    # the first layer windowed (local rotary base 10000), the second not (1000000)
    config = transformers.Gemma3TextConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
        rms_norm_eps=1e-6, hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=8,
        sliding_window=6, layer_types=["sliding_attention", "full_attention"])
    keys = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight",
            **_layers({**_GEMMA2_LAYERS, "q_norm": "self_attn.q_norm.weight",
                       "k_norm": "self_attn.k_norm.weight"})}
    return "Gemma3", transformers.Gemma3ForCausalLM, config, keys


PORTS = {"qwen2": qwen2, "qwen3": qwen3, "gemma": gemma, "phi3": phi3, "neox": neox,
         "starcoder2": starcoder2, "mistral": mistral, "gemma2": gemma2, "gemma3": gemma3}

# Tokens per sequence: more than the windows (24 and 6), so that they matter.
_TOKENS = 40


@pytest.mark.parametrize("name", list(PORTS))
def test_architecture_example_matches_transformers(tmp_path, name):
    import shapescript

    cls_name, hf_class, config, keys = PORTS[name]()
    torch.manual_seed(0)
    hf = hf_class(config).eval()
    with torch.no_grad():
        # norms and biases other than ones and zeros, so that a mix-up can't pass unseen
        for p in hf.parameters():
            if p.dim() == 1:
                p.add_(torch.randn(p.shape) * 0.2)
    hf.save_pretrained(tmp_path)
    ours = shapescript.load_module(ROOT / "examples" / "architectures" / f"{name}.ss")
    m = shapescript.load(tmp_path / "model.safetensors", getattr(ours, cls_name), keys=keys)
    ids = torch.randint(0, 64, (2, _TOKENS), generator=torch.Generator().manual_seed(2))
    pos = torch.arange(_TOKENS).expand(2, _TOKENS)
    with torch.no_grad():
        want = hf(ids).logits
        got = ours.forward(m, ids, pos)
    assert got.shape == want.shape
    assert (got - want).abs().max().item() <= 1e-5


def test_qwen2_tied_by_its_const_matches_transformers(tmp_path):
    """`const tied = true` switches the Qwen2 example's output layer to the embedding
    table: it matches transformers' Qwen2 with `tie_word_embeddings=True`."""
    import shapescript

    _, hf_class, config, keys = qwen2()
    config.tie_word_embeddings = True
    torch.manual_seed(0)
    hf = hf_class(config).eval()
    hf.save_pretrained(tmp_path)
    src = (ROOT / "examples" / "architectures" / "qwen2.ss").read_text(encoding="utf-8")
    assert "const tied = false\n" in src
    (tmp_path / "qwen2_tied.ss").write_text(src.replace("const tied = false\n", "const tied = true\n"),
                                            encoding="utf-8")
    ours = shapescript.load_module(tmp_path / "qwen2_tied.ss")
    # The tied file has no lm_head: `output` goes unused, so any [V D] table fills it.
    m = shapescript.load(tmp_path / "model.safetensors", ours.Qwen2,
                         keys={**keys, "output": "model.embed_tokens.weight"})
    ids = torch.randint(0, 64, (2, 11), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        want = hf(ids).logits
        got = ours.forward(m, ids, torch.arange(11).expand(2, 11))
    assert (got - want).abs().max().item() <= 1e-5
