"""The examples exported with --hf and loaded by real transformers."""

from __future__ import annotations

import ast
import json
import os

import pytest

from hf_helpers import GPT2, LLAMA, greedy, positions

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def load(folder, **kwargs):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True, **kwargs).eval()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama", "gpt2"])
def test_examples_load_and_match_the_source(name, folders, source):
    folder = folders(name)
    model = load(folder)
    assert type(model).__name__ == "ShapeScriptForCausalLM"
    src, m = source(name)
    g = torch.Generator().manual_seed(5)
    for b, n in [(1, 1), (3, 11)]:
        ids = torch.randint(0, 64, (b, n), generator=g)
        want = src.run(m, ids, positions(ids))
        with torch.no_grad():
            got = model(input_ids=ids, position_ids=positions(ids), use_cache=False).logits
            # Without position_ids the folder counts them from 0, as the engine does.
            default = model(input_ids=ids).logits
        assert (got - want).abs().max() <= 1e-5 * want.abs().max()
        assert (default - want).abs().max() <= 1e-5 * want.abs().max()


@pytest.mark.slow
def test_folder_layout_names_and_config(folders, source):
    from safetensors import safe_open

    folder = folders("llama")
    assert sorted(os.listdir(folder)) == ["config.json", "generation_config.json",
                                          "model.safetensors", "modeling_shapescript.py"]
    src, _ = source("llama")
    with safe_open(os.path.join(folder, "model.safetensors"), "pt") as f:
        shapes = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
    assert shapes["model.embed_tokens.weight"] == (64, 64)
    assert shapes["lm_head.weight"] == (64, 64)
    # Each layer a module, its projections nn.Linears under the usual names.
    assert shapes["model.layers.1.self_attn.q_proj.weight"] == (64, 64)
    assert shapes["model.layers.0.self_attn.k_proj.weight"] == (32, 64)
    assert shapes["model.layers.0.mlp.down_proj.weight"] == (64, 128)
    assert shapes["model.layers.0.input_layernorm.weight"] == (64,)
    assert shapes["model.norm.weight"] == (64,)
    assert "model.wq" not in shapes
    assert "model.embed" not in shapes and "model.output" not in shapes
    # 9 stacked fields over 2 layers, the final norm, the embedding, the output layer.
    assert len(shapes) == 9 * 2 + 3
    config = json.load(open(os.path.join(folder, "config.json")))
    assert config["num_hidden_layers"] == 2               # the attentions the forward runs
    # keys and values keep the source's Hkv heads; the attention repeats them to H
    assert config["num_attention_heads"] == 4 and config["num_key_value_heads"] == 2
    assert "sliding_window" not in config and "layer_types" not in config
    assert config["head_dim"] == 16 and config["hidden_size"] == 64
    assert config["attention_scales"] == [0.25, 0.25]
    assert config["max_position_embeddings"] == 128       # P of pos: Index[P]
    assert config["auto_map"]["AutoModel"] == "modeling_shapescript.ShapeScriptModel"
    assert list(config["auto_map"])[:2] == ["AutoConfig", "AutoModel"]
    assert config["shapescript"]["vllm"] is True and "unservable" not in config["shapescript"]
    assert config["use_cache"] is True and config["tie_word_embeddings"] is False


@pytest.mark.slow
def test_gpt2_ties_its_output_layer_to_the_embedding(folders):
    from safetensors import safe_open

    folder = folders("gpt2")
    with safe_open(os.path.join(folder, "model.safetensors"), "pt") as f:
        keys = set(f.keys())
    assert "lm_head.weight" not in keys and "model.embed_tokens.weight" in keys
    assert "model.w_qkv" in keys and "model.b_qkv" in keys
    model = load(folder)
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    assert json.load(open(os.path.join(folder, "config.json")))["tie_word_embeddings"] is True


@pytest.mark.slow
def test_modeling_file_is_code_needing_torch_einops_and_transformers(folders):
    folder = folders("llama")
    text = open(os.path.join(folder, "modeling_shapescript.py"), encoding="utf-8").read()
    tree = ast.parse(text)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    assert imported <= {"torch", "einops", "transformers", "types"}, imported
    defs = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert {"forward", "block", "attention", "rotary", "feed_forward", "ShapeScriptConfig",
            "ShapeScriptModel", "ShapeScriptForCausalLM", "ShapeScriptAttention"} <= defs
    # No source text to exec: no string holds a line of the .ss file.
    source_lines = [ln.strip() for ln in open(LLAMA, encoding="utf-8")
                    if ln.strip() and not ln.strip().startswith("#")]
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in strings for ln in source_lines if len(ln) > 30 and ln in s]
    assert "exec(" not in text


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama", "gpt2", "mistral"])
def test_greedy_generate_equals_the_source_with_and_without_the_cache(name, folders, source):
    model = load(folders(name))
    src, m = source(name)
    prompt = torch.tensor([[3, 17, 5, 60, 2, 9]])
    want = greedy(src, m, prompt, 8)
    cached = model.generate(prompt, max_new_tokens=8, do_sample=False)
    uncached = model.generate(prompt, max_new_tokens=8, do_sample=False, use_cache=False)
    assert cached.tolist() == want.tolist()
    assert uncached.tolist() == want.tolist()
    # The book's cache-less path, chosen in config.json.
    model.config.use_cache = False
    model.generation_config.use_cache = True  # the model still takes every token
    assert model.generate(prompt, max_new_tokens=8, do_sample=False).tolist() == want.tolist()


@pytest.mark.slow
def test_padded_batch_generates_as_each_prompt_alone(folders, source):
    model = load(folders("llama"))
    src, m = source("llama")
    ids = torch.tensor([[0, 0, 0, 7, 1, 30], [4, 8, 15, 16, 23, 42]])
    mask = torch.tensor([[0, 0, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    out = model.generate(ids, attention_mask=mask, max_new_tokens=5, do_sample=False,
                         pad_token_id=0)
    assert out[0, 3:].tolist() == greedy(src, m, ids[:1, 3:], 5)[0].tolist()
    assert out[1].tolist() == greedy(src, m, ids[1:], 5)[0].tolist()


@pytest.mark.slow
def test_bfloat16_verifies_and_writes_bfloat16_matrices(folders, source):
    from safetensors import safe_open

    folder = folders("llama", dtype="bfloat16")
    with safe_open(os.path.join(folder, "model.safetensors"), "pt") as f:
        assert f.get_tensor("model.layers.0.self_attn.q_proj.weight").dtype == torch.bfloat16
    model = load(folder)
    assert model.dtype == torch.bfloat16
    src, m = source("llama")
    ids = torch.randint(0, 64, (2, 9), generator=torch.Generator().manual_seed(2))
    want = src.run(m, ids, positions(ids))
    with torch.no_grad():
        got = model(input_ids=ids, position_ids=positions(ids)).logits.float()
    assert (got - want).abs().max() <= 5e-2 * want.abs().max()
    text = open(os.path.join(folder, "modeling_shapescript.py"), encoding="utf-8").read()
    # rotary computes in f32 on purpose and gives its result back in the model's dtype
    assert "return attn.in_model_dtype(" in text


@pytest.mark.slow
def test_weights_from_a_checkpoint_and_from_a_model_value(tmp_path, source):
    from shapescript import api

    from shapescript_hf import export_hf

    src, m = source("llama", seed=4)
    ckpt = tmp_path / "llama.safetensors"
    api.save_checkpoint(str(ckpt), m)
    a = tmp_path / "from_ckpt"
    b = tmp_path / "from_value"
    export_hf(LLAMA, str(a), weights=str(ckpt))
    export_hf(LLAMA, str(b), weights=m, verify=False)
    ids = torch.tensor([[1, 2, 3, 4]])
    want = src.run(m, ids, positions(ids))
    for folder in (a, b):
        with torch.no_grad():
            got = load(str(folder))(input_ids=ids).logits
        assert (got - want).abs().max() <= 1e-5 * want.abs().max()


@pytest.mark.slow
def test_tokenizer_folder_is_copied(tmp_path, folders):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=64, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()[:40],
                                  special_tokens=["<|end|>"])
    tok.train_from_iterator(["counting one two three four", "one two three"] * 10, trainer)
    tdir = tmp_path / "tok"
    PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|end|>").save_pretrained(tdir)
    folder = folders("gpt2", tokenizer=str(tdir))
    assert os.path.isfile(os.path.join(folder, "tokenizer.json"))
    loaded = AutoTokenizer.from_pretrained(folder)
    assert loaded("one two").input_ids == tok.encode("one two").ids
