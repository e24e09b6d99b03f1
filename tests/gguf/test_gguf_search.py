"""The search: architectures and pairings found by computing, refusals explained."""

from __future__ import annotations

import pytest
import shapescript
import torch
from gguf_helpers import model_path, model_source
from shapescript_gguf import NoMatch, match_architecture
from shapescript_gguf.arch import ROPE_BASES, Variant, permute_qk, solve_dim
from shapescript_gguf.search import MAX_PAIRINGS
from shapescript_gguf.targets import NAMES as ARCHITECTURES

LLAMA_FIELDS = {"token_embd": "embed", "attn_norm": "attn_norm", "attn_q": "wq",
                "attn_k": "wk", "attn_v": "wv", "attn_output": "wo", "ffn_norm": "mlp_norm",
                "ffn_gate": "w_gate", "ffn_up": "w_up", "ffn_down": "w_down",
                "output_norm": "norm"}


def line_of(text: str, part: str) -> int:
    """The line (from 1) of ``text`` that holds ``part``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if part in line)


def test_llama_example_is_llama_in_read_order_with_one_computation():
    m = match_architecture(model_path("examples/llama.ss"))
    assert m.arch == "llama"
    assert m.pairing == {**LLAMA_FIELDS, "output": "output"}
    assert not m.tied and not m.variant.permute_qk and m.variant.rope_base == 10000.0
    assert m.eps == 1e-5
    assert m.hparams["H"] == 4 and m.hparams["KV"] == 2 and m.hparams["L"] == 2
    assert m.computed == 1 and m.difference <= 1e-8


def test_gpt2_example_is_gpt2():
    m = match_architecture(model_path("examples/gpt2.ss"))
    assert m.arch == "gpt2"
    assert set(m.pairing) >= {"token_embd", "position_embd", "attn_qkv", "attn_qkv_b",
                              "ffn_up", "ffn_down", "output_norm_b"}
    assert m.difference <= 1e-8
    # llama is tried first and ruled out by its norm before anything is computed
    assert m.computed == 1


def test_rotary_on_halves_reorders_query_and_key_rows_and_finds_the_base():
    m = match_architecture(model_path("llama_halves.ss"))
    assert m.arch == "llama"
    assert m.variant.permute_qk and m.variant.rope_base == 500000.0
    assert m.eps == 1e-6
    assert m.pairing == {**LLAMA_FIELDS, "output": "output"}
    # bases 1e4 and 5e5, each without and with the reordering
    assert m.computed == 4


def test_fields_read_in_another_order_and_a_tied_output_are_paired_by_computing():
    m = match_architecture(model_path("llama_reordered.ss"))
    assert m.arch == "llama" and m.tied and "output" not in m.pairing
    # read order puts wv before wk and w_up before w_gate: the first pairings are wrong
    assert m.pairing == LLAMA_FIELDS
    assert m.computed > 4


def test_arch_option_limits_the_search():
    with pytest.raises(NoMatch) as e:
        match_architecture(model_path("llama_halves.ss"), arch="gpt2")
    assert list(e.value.reasons) == ["gpt2"]
    with pytest.raises(ValueError, match="unknown architecture 'mamba'"):
        match_architecture(model_path("llama_halves.ss"), arch="mamba")


def test_exact_gelu_is_refused_with_the_closest_pairings_difference():
    with pytest.raises(NoMatch) as e:
        match_architecture(model_path("gpt2_exact_gelu.ss"))
    reasons = e.value.reasons
    assert reasons["llama"] == ("a different norm: the model normalizes with layer_norm, "
                                "where llama.cpp's llama uses rms_norm")
    path = model_path("gpt2_exact_gelu.ss")
    # the line of the source's first GELU
    line = line_of(model_source("gpt2_exact_gelu.ss"), "gelu(")
    assert reasons["gpt2"].startswith(
        f"{path}:{line}: the model computes GELU exactly (with erf), where llama.cpp's gpt2 uses the tanh "
        "approximation: the closest pairing (the fields in the order the forward function "
        "reads them, the output layer tied to the embedding) gives logits that differ by ")
    lines = str(e.value).splitlines()
    assert lines[0] == (f"{path} can't be written as a GGUF file: no architecture llama.cpp "
                        "runs computes what it computes")
    # one line for each architecture, in the order they are tried
    assert lines[1:] == [f"  {arch}: {why}" for arch, why in reasons.items()]
    assert list(reasons) == list(ARCHITECTURES)


def test_layer_norm_llama_is_refused_for_its_norm_and_its_tensors():
    with pytest.raises(NoMatch) as e:
        match_architecture(model_path("llama_layernorm.ss"))
    assert e.value.reasons["llama"].startswith("a different norm: the model normalizes with "
                                               "layer_norm")
    assert e.value.reasons["gpt2"].startswith(
        "a different number of tensors: llama.cpp's gpt2 takes 16, 17, 20 or 21 (with the blocks "
        "stacked); the forward function reads 12 fields (embed, attn_norm, wq")
    assert e.value.computed == 0


def test_a_bias_on_the_attention_output_is_llamas_optional_bias():
    # llama.cpp's llama loads blk.N.attn_output.bias when the file has it
    m = match_architecture(model_path("llama_extra_tensor.ss"))
    assert m.arch == "llama" and m.pairing["attn_output_b"] == "wo_bias"
    assert m.tensor_names()["wo_bias"] == "blk.N.attn_output.bias"


@pytest.mark.slow
def test_an_extra_tensor_llama_cpp_does_not_have_is_refused(tmp_path):
    # the same field used as a gain, not a bias: no architecture computes that
    src = model_source("llama_extra_tensor.ss").replace(
        "m.wo[l], m.wo_bias[l])", "m.wo[l]) * m.wo_bias[l]")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"))
    # no pairing comes near, so the one in read order is reported, not a scramble
    assert e.value.reasons["llama"].startswith(
        "the closest pairing (the fields in the order the forward function reads them; "
        "rotary base 10000) gives logits that differ by ")
    assert e.value.reasons["gpt2"].startswith("a different norm")


def test_norms_with_different_eps_are_refused(tmp_path):
    src = model_source("llama_halves.ss")
    src = src.replace("weight=m.norm, eps=1e-6", "weight=m.norm, eps=1e-5")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"), arch="llama")
    assert e.value.reasons["llama"] == ("its rms_norm calls use different eps (1e-06, 1e-05); "
                                        "a GGUF file holds one eps for every norm")


def test_a_norm_without_eps_is_refused(tmp_path):
    src = model_source("llama_halves.ss")
    src = src.replace("weight=m.norm, eps=1e-6", "weight=m.norm")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch, match="an rms_norm call has no eps written in it"):
        match_architecture(str(tmp_path / "m.ss"), arch="llama")


def test_an_unknown_rotary_base_is_refused_with_the_closest_difference(tmp_path):
    src = model_source("llama_halves.ss")
    src = src.replace("13.122363377404328", "8.0")  # base e^8 ≈ 2981, not a common one
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"), arch="llama")
    assert e.value.reasons["llama"].startswith("the closest pairing (the fields in the order "
                                               "the forward function reads them; rotary base")
    # every base, with and without the reordering, on the pairing in read order
    assert e.value.computed >= 2 * len(ROPE_BASES)


def test_the_serving_rules_are_errors(tmp_path):
    (tmp_path / "m.ss").write_text("dim D = 4\nfn forward(x: [n D]) -> [n D] = x\n")
    with pytest.raises(shapescript.ShapeScriptError, match=r"error\[E3306\]"):
        match_architecture(str(tmp_path / "m.ss"))
    src = model_source("llama_halves.ss").replace(
        "|> linear(m.output)", "|> linear(m.output) |> softmax(over=V)").replace(
        "-> [b n V] Logit over V:", "-> [b n V]:")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(shapescript.ShapeScriptError, match=r"error\[E3302\]"):
        match_architecture(str(tmp_path / "m.ss"))


def test_permute_qk_turns_rotary_on_halves_into_rotary_on_pairs():
    torch.manual_seed(0)
    heads, hd, d, n = 3, 8, 12, 5
    w = torch.randn(heads * hd, d, dtype=torch.float64)
    x = torch.randn(n, d, dtype=torch.float64)
    pos = torch.arange(n)
    theta = pos[:, None].double() * 10000.0 ** (-torch.arange(0, hd, 2).double() / hd)
    c, s = theta.cos()[:, None, :], theta.sin()[:, None, :]
    y = (x @ w.T).reshape(n, heads, hd)
    a, b = y[..., : hd // 2], y[..., hd // 2:]
    halves = torch.cat((a * c - b * s, a * s + b * c), -1)
    z = (x @ permute_qk(w, heads).T).reshape(n, heads, hd)
    z0, z1 = z[..., 0::2], z[..., 1::2]
    pairs = torch.stack((z0 * c - z1 * s, z0 * s + z1 * c), -1).reshape(n, heads, hd)
    # the same rows, each head's features in the interleaved order
    order = torch.stack((torch.arange(hd // 2), torch.arange(hd // 2) + hd // 2), -1).flatten()
    assert torch.allclose(pairs, halves[..., order], atol=1e-12)


def test_solve_dim_binds_the_one_unknown():
    assert solve_dim("KV*hd", 32, {"hd": 8}) == {"KV": 4}
    assert solve_dim("KV*hd", 30, {"hd": 8}) is None
    assert solve_dim("H*hd+2*KV*hd", 96, {"H": 4, "hd": 8}) == {"KV": 4}
    assert solve_dim("D", 64, {"D": 64}) == {}
    assert solve_dim("D", 32, {"D": 64}) is None


def test_variant_descriptions():
    assert Variant(10000.0, True).describe() == ("rotary base 10000, query and key rows "
                                                 "reordered for rotary on halves")
    assert Variant().describe() == ""


def test_a_gelu_gate_is_refused_and_explained(tmp_path):
    src = model_source("llama_halves.ss").replace("silu(", "gelu(")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"), arch="llama")
    assert e.value.reasons["llama"].startswith(
        f"{tmp_path / 'm.ss'}:{line_of(src, 'gelu(')}: "
        "the feed-forward layer's gate uses GELU where llama.cpp's llama uses SiLU (SwiGLU): "
        "the closest pairing (the fields in the order the forward function reads them; "
        "rotary base 500000, query and key rows reordered for rotary on halves) gives "
        "logits that differ by ")


def test_a_field_of_another_shape_is_refused_naming_the_tensor(tmp_path):
    # one attention norm shared by every block: [D], where llama.cpp has one per block
    src = model_source("llama_halves.ss").replace(
        "param attn_norm: [L D] = ones", "param attn_norm: [D] = ones").replace(
        "weight=m.attn_norm[l]", "weight=m.attn_norm")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"), arch="llama")
    assert e.value.reasons["llama"] == (
        "a different shape: no field left fits blk.N.ffn_norm.weight, [D] with D = 32, "
        "stacked along a leading axis of L = 2")
    assert e.value.computed == 0


def test_matrices_multiplied_as_x_at_w_are_written_transposed():
    m = match_architecture(model_path("gpt2_conv1d.ss"))
    assert m.arch == "gpt2" and not m.tied and m.pairing["output"] == "lm_head"
    assert m.transposed == {"attn_qkv", "attn_output", "ffn_up", "ffn_down"}
    # c_proj is square: as it is, then transposed; the others fit only transposed. The
    # pairing in read order is computed (the fused rows as they are and regrouped by
    # head) and diagnosed first: one or two of four differences (ten near computations),
    # each with the fused rows both ways, and in sequence and in parallel where the
    # difference is a parallel residual.
    assert m.computed <= 32
    assert m.tensor_names()["c_attn"] == "blk.N.attn_qkv.weight (transposed)"


@pytest.mark.slow
def test_a_search_that_finds_nothing_stops_and_says_where(tmp_path):
    src = model_source("gpt2_conv1d.ss").replace(
        'approximate="tanh")', 'approximate="tanh") |> relu')
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"), arch="gpt2")
    assert e.value.reasons["gpt2"].endswith(
        f"(the search stopped after the {MAX_PAIRINGS} pairings closest to the read order)")
    # no pairing comes near (within 1e-2), so the one in read order is reported
    assert e.value.reasons["gpt2"].startswith(
        "the closest pairing (the fields in the order the forward function reads them, "
        "c_attn, c_fc, mlp_proj transposed; the fused projection's rows regrouped from per "
        "head to per kind) gives logits that differ by ")
    assert e.value.computed >= MAX_PAIRINGS


def test_the_watch_records_norms_however_called_and_runs_in_f64():
    from shapescript_gguf.source import _Watch

    x = torch.randn(2, 4)
    w = torch.ones(4)
    watch = _Watch()
    with watch:
        torch.nn.functional.rms_norm(x, (4,), w, 1e-6)
        torch.rms_norm(x, (4,), w, eps=1e-6)
        torch.nn.functional.layer_norm(x, (4,), w, None, 1e-5)
        torch.layer_norm(x, (4,))
        angle = torch.arange(3).to(torch.float32)
        half = x.half()
    assert watch.norms == [("rms_norm", 1e-6), ("rms_norm", 1e-6), ("layer_norm", 1e-5),
                           ("layer_norm", 1e-5)]
    assert angle.dtype == torch.float64 and half.dtype == torch.float64


# For each architecture, its example with one computation changed, and the refusal
# that names the change (the reason given for that architecture).
NEAR_MISSES = [
    ("examples/architectures/qwen2.ss", "x + linear(silu(", "x + linear(gelu(", "qwen2",
     "the feed-forward layer's gate uses GELU where llama.cpp's qwen2 uses SiLU (SwiGLU): ",
     "gelu("),
    ("examples/llama.ss", "x = embedding(ids, m.embed)", "x = embedding(ids, m.embed) * (D ** 0.5)",
     "llama", "the embedding is multiplied by sqrt(D); gemma, gemma2 and gemma3 do that, "
     "llama doesn't: ", "embedding(ids"),
    ("examples/architectures/mistral.ss", "linear(silu(", "linear(gelu(", "llama",
     "the feed-forward layer's gate uses GELU where llama.cpp's llama uses SiLU (SwiGLU): ",
     "gelu("),
    ("examples/architectures/gemma.ss", "x = embedding(ids, m.embed) * (D ** 0.5)",
     "x = embedding(ids, m.embed)", "gemma",
     "the embedding isn't multiplied by sqrt(D); gemma does that: ", "embedding(ids"),
    ("examples/architectures/gemma2.ss", 'gelu(linear(h, m.w_gate[l]), approximate="tanh")',
     "gelu(linear(h, m.w_gate[l]))", "gemma2",
     "the model computes GELU exactly (with erf), where llama.cpp's gemma2 uses the tanh "
     "approximation: ", "gelu("),
    ("examples/architectures/gemma3.ss", "x = embedding(ids, m.embed) * (D ** 0.5)",
     "x = embedding(ids, m.embed)", "gemma3",
     "the embedding isn't multiplied by sqrt(D); gemma3 does that: ", "embedding(ids"),
    ("examples/architectures/qwen3.ss", "x + linear(silu(", "x + linear(gelu(", "qwen3",
     "the feed-forward layer's gate uses GELU where llama.cpp's qwen3 uses SiLU (SwiGLU): ",
     "gelu("),
    ("examples/architectures/phi3.ss", "silu(gate) * up", "gelu(gate) * up", "phi3",
     "the feed-forward layer's gate uses GELU where llama.cpp's phi3 uses SiLU (SwiGLU): ",
     "gelu("),
    ("examples/architectures/neox.ss", 'approximate="tanh")', ")", "gptneox",
     "the model computes GELU exactly (with erf), where llama.cpp's gptneox uses the tanh "
     "approximation: ", "gelu("),
    ("examples/architectures/starcoder2.ss",
     "        x = x + attention(m, x, pos, l)\n        x = x + feed_forward(m, x, l)",
     "        x = x + attention(m, x, pos, l) + feed_forward(m, x, l)", "starcoder2",
     "attention and the feed-forward layer read the same input (a parallel residual); "
     "gptneox does that, starcoder2 runs them in sequence: ",
     "attention(m, x, pos, l) + feed_forward"),
    ("examples/gpt2.ss", "x = embedding(ids, m.embed) + embedding(pos, m.pos_embed)",
     "x = embedding(ids, m.embed) * (D ** 0.5) + embedding(pos, m.pos_embed)", "gpt2",
     "the embedding is multiplied by sqrt(D); gemma, gemma2 and gemma3 do that, gpt2 "
     "doesn't: ", "embedding(ids"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,old,new,arch,why,at", NEAR_MISSES,
                         ids=[arch for _, _, _, arch, _, _ in NEAR_MISSES])
def test_a_near_miss_is_refused_naming_the_computation(tmp_path, name, old, new, arch, why,
                                                       at):
    src = model_source(name)
    assert old in src
    changed = src.replace(old, new)
    (tmp_path / "m.ss").write_text(changed)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"))
    where = f"{tmp_path / 'm.ss'}:{line_of(changed, at)}: " if at else ""
    assert e.value.reasons[arch].startswith(where + why), e.value.reasons[arch]
    # the pairing reported is the read order, not a scramble of the fields
    assert "the closest pairing (the fields in the order the forward function reads them" \
        in e.value.reasons[arch]


def test_every_architecture_has_an_example_and_a_near_miss():
    from test_gguf_llamacpp import ARCHITECTURE_EXAMPLES

    examples = {arch for _, arch, _ in ARCHITECTURE_EXAMPLES} | {"llama", "gpt2"}
    assert examples == set(ARCHITECTURES)
    assert {arch for _, _, _, arch, _, _ in NEAR_MISSES} == set(ARCHITECTURES)


def test_a_sliding_window_model_is_llama_with_its_context_capped_at_the_window():
    # llama.cpp's llama runs no window: within W positions the window hides nothing
    m = match_architecture(model_path("examples/architectures/mistral.ss"))
    assert m.arch == "llama" and m.context_cap == 24 and m.windows == ()
    assert m.variant.permute_qk and m.variant.rope_base == 1000000.0


def test_a_window_too_short_to_cap_the_context_at_is_refused(tmp_path):
    src = model_source("examples/architectures/mistral.ss").replace("dim W = 24", "dim W = 4")
    (tmp_path / "m.ss").write_text(src)
    with pytest.raises(NoMatch) as e:
        match_architecture(str(tmp_path / "m.ss"), arch="llama")
    assert e.value.reasons["llama"] == (
        "llama.cpp's llama runs no sliding window, and a file capped at the model's window "
        "of 4 positions (where it hides nothing) would hold fewer than 8")


def test_gemma2_runs_the_windows_on_the_layers_that_have_them():
    m = match_architecture(model_path("examples/architectures/gemma2.ss"))
    assert m.arch == "gemma2" and m.tied
    assert m.windows == (6, None) and m.context_cap is None
    assert m.variant.norm_offset == 1.0 and m.variant.rope_base == 10000.0
    assert m.pairing["attn_post_norm"] == "post_attn_norm"
    assert m.pairing["ffn_post_norm"] == "post_mlp_norm"


def test_gemma3_finds_the_windowed_layers_rotary_base():
    m = match_architecture(model_path("examples/architectures/gemma3.ss"))
    assert m.arch == "gemma3" and m.windows == (6, None)
    assert m.variant.rope_base == 1000000.0 and m.variant.rope_base_swa == 10000.0
    assert m.pairing["attn_q_norm"] == "q_norm"


def test_separate_query_key_and_value_projections_are_fused_for_gpt2():
    # llama.cpp's gpt2 reads only blk.N.attn_qkv
    m = match_architecture(model_path("gpt2_separate.ss"))
    assert m.arch == "gpt2"
    assert [j.describe() for j in m.joins] == ["attn_q, attn_k, attn_v fused into attn_qkv",
                                               "attn_q_b, attn_k_b, attn_v_b fused into "
                                               "attn_qkv_b"]
    assert m.tensor_names()["wk"] == "blk.N.attn_k.weight -> attn_qkv"


def test_a_fused_gate_and_up_projection_is_split_for_llama():
    with pytest.raises(NoMatch) as e:
        match_architecture(model_path("llama_gate_up.ss"), arch="phi3")
    assert e.value.reasons["phi3"] == ("llama.cpp's phi3 takes the head width as D / H = 32 / "
                                       "4, but the attentions' heads are 16 wide")
    m = match_architecture(model_path("llama_gate_up.ss"))
    assert m.arch == "llama" and m.pairing["ffn_up_gate"] == "w_gate_up"
    assert [j.describe() for j in m.joins] == ["ffn_up_gate split into ffn_gate, ffn_up"]
