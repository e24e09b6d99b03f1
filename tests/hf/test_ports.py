"""The GPT-2 and Llama examples are ports of transformers' models: a checkpoint that
transformers writes (random init from a config, `save_pretrained`) loads into them
through `load(…, keys=…)`, and their logits agree with `GPT2LMHeadModel` and
`LlamaForCausalLM` to 1e-5. Greedy generation in ShapeScript then picks the tokens
transformers' own greedy `generate` picks."""

from __future__ import annotations

import importlib
import sys

import pytest

from hf_helpers import EXAMPLES

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("safetensors")


@pytest.fixture
def examples():
    """Imports ``examples/NAME.ss`` through the import hook; undone afterwards."""
    import shapescript

    sys.path.insert(0, str(EXAMPLES))
    shapescript.install()
    try:
        yield importlib.import_module
    finally:
        shapescript.uninstall()
        sys.path.remove(str(EXAMPLES))
        for name, mod in list(sys.modules.items()):
            if str(getattr(mod, "__file__", "") or "").startswith(str(EXAMPLES)):
                del sys.modules[name]


def gpt2_keys():
    from shapescript import Key

    h = "transformer.h.{l}."
    return {
        "embed": "transformer.wte.weight",
        "pos_embed": "transformer.wpe.weight",
        "ln1_w": Key(h + "ln_1.weight"), "ln1_b": Key(h + "ln_1.bias"),
        # Conv1D keeps [in out]: transposed into linear's [out in].
        "w_qkv": Key(h + "attn.c_attn.weight", transpose=True), "b_qkv": Key(h + "attn.c_attn.bias"),
        "w_o": Key(h + "attn.c_proj.weight", transpose=True), "b_o": Key(h + "attn.c_proj.bias"),
        "ln2_w": Key(h + "ln_2.weight"), "ln2_b": Key(h + "ln_2.bias"),
        "w_fc": Key(h + "mlp.c_fc.weight", transpose=True), "b_fc": Key(h + "mlp.c_fc.bias"),
        "w_proj": Key(h + "mlp.c_proj.weight", transpose=True), "b_proj": Key(h + "mlp.c_proj.bias"),
        "ln_f_w": "transformer.ln_f.weight", "ln_f_b": "transformer.ln_f.bias",
    }


def llama_keys(layers: int, head: int):
    from shapescript import Key

    # transformers rotates feature i with i + head/2 (rotate_half); the example rotates
    # neighbours 2i and 2i+1: each head's query and key rows are reordered to match.
    order = [j // 2 + (j % 2) * (head // 2) for j in range(head)]

    def rotated(proj):
        def read(get):
            ws = []
            for layer in range(layers):
                w = get(f"model.layers.{layer}.self_attn.{proj}.weight")
                heads = w.reshape(-1, head, w.shape[-1])
                ws.append(heads[:, order].reshape(w.shape))
            return torch.stack(ws)
        return read

    h = "model.layers.{l}."
    return {
        "embed": "model.embed_tokens.weight",
        "attn_norm": Key(h + "input_layernorm.weight"),
        "wq": rotated("q_proj"), "wk": rotated("k_proj"),
        "wv": Key(h + "self_attn.v_proj.weight"), "wo": Key(h + "self_attn.o_proj.weight"),
        "mlp_norm": Key(h + "post_attention_layernorm.weight"),
        "w_gate": Key(h + "mlp.gate_proj.weight"), "w_up": Key(h + "mlp.up_proj.weight"),
        "w_down": Key(h + "mlp.down_proj.weight"),
        "norm": "model.norm.weight", "output": "lm_head.weight",
    }


def hf_gpt2():
    config = transformers.GPT2Config(vocab_size=64, n_positions=128, n_embd=64, n_layer=2,
                                     n_head=4, activation_function="gelu_new",
                                     layer_norm_epsilon=1e-5, resid_pdrop=0.0, embd_pdrop=0.0,
                                     attn_pdrop=0.0)
    torch.manual_seed(0)
    return transformers.GPT2LMHeadModel(config).eval()


def hf_llama():
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=128,
                                      num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, max_position_embeddings=128,
                                      rms_norm_eps=1e-5, rope_theta=10000.0,
                                      tie_word_embeddings=False, attention_bias=False)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        # Norm scales other than ones, so a mix-up of norms can't pass unseen.
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.add_(torch.rand(p.shape) * 0.5)
    return model


PORTS = {"gpt2": ("GPT2", hf_gpt2, gpt2_keys), "llama": ("Llama", hf_llama, lambda: llama_keys(2, 16))}


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_port_matches_transformers(tmp_path, examples, name):
    import shapescript

    cls_name, make, keys = PORTS[name]
    hf = make()
    hf.save_pretrained(tmp_path)
    ours = examples(name)
    m = shapescript.load(tmp_path / "model.safetensors", getattr(ours, cls_name), keys=keys())
    ids = torch.randint(0, 64, (2, 11), generator=torch.Generator().manual_seed(2))
    pos = torch.arange(11).expand(2, 11)
    with torch.no_grad():
        want = hf(ids).logits
        got = ours.forward(m, ids, pos)
    assert got.shape == want.shape
    assert (got - want).abs().max().item() <= 1e-5


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_generation_in_shapescript_matches_transformers_generate(tmp_path, examples, name):
    import shapescript

    cls_name, make, keys = PORTS[name]
    hf = make()
    hf.save_pretrained(tmp_path)
    ours = examples(name)
    gen = examples(f"generate_{name}")
    m = shapescript.load(tmp_path / "model.safetensors", getattr(ours, cls_name), keys=keys())
    ids = torch.randint(0, 64, (2, 6), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        want = hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=8,
                           do_sample=False, pad_token_id=0)
        got = gen.generate(m, ids, 8)
    assert torch.equal(got, want)


def test_a_key_of_the_wrong_shape_names_the_field(tmp_path, examples):
    import shapescript

    hf_gpt2().save_pretrained(tmp_path)
    ours = examples("gpt2")
    keys = gpt2_keys()
    keys["w_qkv"] = shapescript.Key("transformer.h.{l}.attn.c_attn.weight")  # not transposed
    with pytest.raises(shapescript.ShapeError, match=r"GPT2\.w_qkv: expected \[L 3\*D D\] = \(2, 192, 64\)"):
        shapescript.load(tmp_path / "model.safetensors", ours.GPT2, keys=keys)


def test_a_missing_key_and_an_unknown_field_are_errors(tmp_path, examples):
    import shapescript

    hf_gpt2().save_pretrained(tmp_path)
    ours = examples("gpt2")
    keys = gpt2_keys()
    keys["embed"] = "transformer.wte.weights"
    with pytest.raises(shapescript.ShapeError, match=r"GPT2\.embed: .* has no tensor 'transformer.wte.weights'"):
        shapescript.load(tmp_path / "model.safetensors", ours.GPT2, keys=keys)
    with pytest.raises(ValueError, match="GPT2 has no field wte"):
        shapescript.load(tmp_path / "model.safetensors", ours.GPT2, keys={"wte": "x"})


def test_another_configuration_loads_through_load_module(tmp_path):
    """GPT-2 with other sizes: the example compiled with those dims takes transformers'
    checkpoint of them, and agrees."""
    import shapescript

    config = transformers.GPT2Config(vocab_size=64, n_positions=128, n_embd=48, n_layer=3,
                                     n_head=3, activation_function="gelu_new",
                                     layer_norm_epsilon=1e-5)
    torch.manual_seed(1)
    hf = transformers.GPT2LMHeadModel(config).eval()
    hf.save_pretrained(tmp_path)
    ours = shapescript.load_module(EXAMPLES / "gpt2.ss", dims={"D": 48, "H": 3, "L": 3})
    m = shapescript.load(tmp_path / "model.safetensors", ours.GPT2, keys=gpt2_keys())
    ids = torch.randint(0, 64, (2, 9), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        got = ours.forward(m, ids, torch.arange(9).expand(2, 9))
        want = hf(ids).logits
    assert (got - want).abs().max().item() <= 1e-5
    # The file's own configuration refuses that checkpoint, naming the field.
    base = shapescript.load_module(EXAMPLES / "gpt2.ss")
    with pytest.raises(shapescript.ShapeError, match=r"GPT2\.embed: expected \[V D\] = \(64, 64\)"):
        shapescript.load(tmp_path / "model.safetensors", base.GPT2, keys=gpt2_keys())
