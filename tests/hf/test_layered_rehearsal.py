"""A rehearsal, on the CPU, of what vLLM does to a layered folder beyond the attention
(its fusers and its pipeline stages; vLLM itself needs a GPU): one layer traced with
`torch.fx`, its projections as leaves, shows three `nn.Linear`s on one input (q the
largest, k and v equal) and two more on another (gate and up); and the model cut at the
`base_model_pp_plan`'s boundary, each stage with stand-ins for what it doesn't run,
gives the whole model's logits."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _model(folder):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True,
                                                dtype=torch.float32).eval()


@pytest.mark.slow
def test_fx_finds_the_qkv_and_gate_up_patterns(folders):
    from torch import fx

    model = _model(folders("llama"))
    layer = model.model.layers[0]

    class Leaves(fx.Tracer):
        def is_leaf_module(self, m, name):
            return isinstance(m, torch.nn.Linear)

    import sys

    # The model's own call state, as its forward makes it (no cache, no padding).
    call = sys.modules[type(model.model).__module__].ShapeScriptCall(model.model, None, None,
                                                                     {})

    def attention(q, k, v, scale, window=None):
        # The attention function as vLLM's tracer sees it: one opaque node.
        return q.tracer.create_proxy("call_function",
                                     torch.nn.functional.scaled_dot_product_attention,
                                     (q, k, v), {})

    call.attention = attention

    class One(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, x, c, s):
            return self.layer(x, c, s, call)

    graph = Leaves().trace(One())
    by_input: dict = {}
    for node in graph.nodes:
        if node.op == "call_module" and isinstance(layer.get_submodule(
                node.target.removeprefix("layer.")), torch.nn.Linear):
            by_input.setdefault(node.args[0], []).append(node.target.removeprefix("layer."))
    groups = sorted(by_input.values(), key=len)
    assert ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"] in groups
    assert ["mlp.gate_proj", "mlp.up_proj"] in groups
    outs = [layer.get_submodule(n).out_features for n in
            ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj")]
    assert outs[0] == max(outs) and outs[1] == outs[2]


class _Missing(torch.nn.Module):
    """vLLM's stand-in for a part another stage runs: it gives its first input back."""

    def forward(self, *args, **kwargs):
        return args[0] if args else next(iter(kwargs.values()))


@pytest.mark.slow
def test_two_pipeline_stages_give_the_whole_models_logits(folders):
    folder = folders("llama")
    whole = _model(folder)
    plan = type(whole.config).base_model_pp_plan
    assert list(plan) == ["embed_tokens", "layers", "norm"]
    ids = torch.randint(0, 64, (2, 9), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        want = whole(input_ids=ids, use_cache=False).logits
        first, second = _model(folder), _model(folder)
        first.model.layers[1] = _Missing()
        first.model.norm = _Missing()
        hidden = first.model(input_ids=ids, use_cache=False).last_hidden_state
        second.model.embed_tokens = _Missing()
        second.model.layers[0] = _Missing()
        got = second(inputs_embeds=hidden, input_ids=None, use_cache=False).logits
    assert (got - want).abs().max().item() <= 1e-5
