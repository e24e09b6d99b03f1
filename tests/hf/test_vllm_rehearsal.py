"""A rehearsal, on the CPU, of what vLLM's Transformers backend does to a folder (vLLM
itself needs a GPU): it builds the base model from its config on the meta device with
`_attn_implementation = "vllm"`, loads the weights by name, replaces the embedding (and
computes the output layer itself), packs the tokens of several requests into one row
with positions starting again at each request, calls each layer's attention through
transformers' table with `attention_instances` and `layer_idx`, and compiles the model
with `torch.compile(fullgraph=True, dynamic=True)`."""

from __future__ import annotations

import os

import pytest

from hf_helpers import positions

torch = pytest.importorskip("torch")


def instances(config) -> dict[int, tuple[int, int | None]]:
    """What the backend makes for each layer from the config alone: an attention
    instance (here a number) with the layer's sliding window, from `layer_types`."""
    types = getattr(config, "layer_types", None)
    return {i: (100 + i, config.sliding_window if types and types[i] == "sliding_attention"
                else None) for i in range(config.num_hidden_layers)}


def stand_in(lengths: list[int], seen: list[int]):
    """vLLM's attention function, as the backend registers it: it reads the layer's
    cache instance by `module.layer_idx`, keeps requests apart, serves each key and
    value head to its group of query heads, applies the instance's window and gives
    `[N, H*Dh]`."""

    def vllm_attention(module, query, key, value, attention_mask, scaling=None,
                       attention_instances=None, **kwargs):
        instance, window = attention_instances[module.layer_idx]
        # vLLM sizes its cache, and reshapes keys and values, by the config's key heads.
        assert key.shape[1] == value.shape[1] == module.config.num_key_value_heads
        seen.append(instance)
        outs, start = [], 0
        for n in lengths:
            q, k, v = (t[:, :, start:start + n] for t in (query, key, value))
            at = torch.arange(n)
            mask = at[None, :] <= at[:, None]
            if window is not None:
                mask = mask & (at[None, :] > at[:, None] - window)
            outs.append(torch.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, scale=scaling,
                enable_gqa=query.shape[1] != key.shape[1]))
            start += n
        out = torch.cat(outs, 2)[0]                      # [H N Dh]
        return out.transpose(0, 1).reshape(out.shape[1], -1), None

    return vllm_attention


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama", "gpt2", "mistral"])
def test_the_transformers_backend_gets_the_sources_logits(name, folders, source):
    from safetensors.torch import load_file
    from transformers import AttentionInterface, AutoConfig, AutoModel

    folder = folders(name)
    lengths = [9, 5, 3, 1]
    seen: list[int] = []
    AttentionInterface.register("vllm", stand_in(lengths, seen))
    config = AutoConfig.from_pretrained(folder, trust_remote_code=True)
    config._attn_implementation = "vllm"
    with torch.device("meta"):
        model = AutoModel.from_config(config, trust_remote_code=True, dtype=torch.float32)
    assert model._supports_attention_backend
    assert model.get_decoder() is model
    model.to_empty(device="cpu")
    state = load_file(os.path.join(folder, "model.safetensors"))
    missing, unexpected = model.load_state_dict(
        {k.removeprefix("model."): v for k, v in state.items() if k.startswith("model.")},
        strict=False)
    assert not missing and not unexpected
    # vLLM's own embedding and output layer.
    embedding = torch.nn.Embedding(config.vocab_size, config.hidden_size)
    embedding.weight.data.copy_(state["model.embed_tokens.weight"])
    model.set_input_embeddings(embedding)
    head = state.get("lm_head.weight", state["model.embed_tokens.weight"])

    g = torch.Generator().manual_seed(7)
    requests = [torch.randint(0, config.vocab_size, (n,), generator=g) for n in lengths]
    ids = torch.cat(requests)[None]
    pos = torch.cat([torch.arange(n) for n in lengths])[None]
    made = instances(config)
    compiled = torch.compile(model, fullgraph=True, dynamic=True, backend="aot_eager")
    with torch.no_grad():
        hidden = compiled(input_ids=ids, position_ids=pos, use_cache=False,
                          attention_instances=made, return_dict=False)[0][0]
    logits = hidden @ head.T
    assert seen == [100 + i for i in range(config.num_hidden_layers)]
    src, m = source(name)
    start = 0
    for r in requests:
        want = src.run(m, r[None], positions(r[None]))[0]
        got = logits[start:start + len(r)]
        assert (got - want).abs().max() <= 1e-5 * want.abs().max()
        start += len(r)
