"""The written files run in real llama.cpp (through llama-cpp-python), on the CPU, and
give the source's log-probabilities and greedy tokens."""

from __future__ import annotations

import numpy as np
import pytest
import shapescript
import torch
from gguf_helpers import model_path, model_source
from shapescript_gguf import export_gguf
from torch.overrides import TorchFunctionMode

pytestmark = pytest.mark.slow

PROMPT = [3, 17, 5, 60, 2, 9, 33, 41, 7, 12, 63, 0]


def _log_probs(logits) -> np.ndarray:
    return torch.as_tensor(np.asarray(logits, dtype=np.float64)).log_softmax(-1).numpy()


def _llama_cpp_log_probs(llm, ids: list[int]) -> np.ndarray:
    llm.reset()
    llm.eval(ids)
    return _log_probs(llm.scores[: llm.n_tokens])


def _export_checkpoint(tmp_path, name: str, model, **options) -> str:
    ckpt = tmp_path / "ckpt.safetensors"
    shapescript.save(str(ckpt), model)
    out = tmp_path / "model.gguf"
    export_gguf(model_path(name), str(out), weights=str(ckpt), **options)
    return str(out)


@pytest.mark.parametrize("name", ["examples/llama.ss", "llama_halves.ss",
                                  "llama_reordered.ss"])
def test_llama_log_probs_agree_to_1e_3(tmp_path, name, make_model, source_logits,
                                       llama_cpp_model):
    m = make_model(model_path(name), seed=2, scale=4.0)
    out = _export_checkpoint(tmp_path, name, m)
    want = _log_probs(source_logits(model_path(name), m, PROMPT))
    got = _llama_cpp_log_probs(llama_cpp_model(out), PROMPT)
    assert got.shape == want.shape
    # f32 weights and cache: llama.cpp's kernels in f32 (measured ~1e-6)
    assert np.abs(got - want).max() < 1e-3


class _GgmlGelu(TorchFunctionMode):
    """GELU as llama.cpp computes it on the CPU (GGML_GELU_FP16): the input rounded to
    f16, looked up in a table of f16 values of GELU with tanh; ±10 and beyond exactly."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.nn.functional.gelu:
            x = args[0]
            table = torch.nn.functional.gelu(x.half().float(), approximate="tanh").half()
            y = torch.where(x <= -10, torch.zeros_like(x), table.to(x.dtype))
            return torch.where(x >= 10, x, y)
        return func(*args, **kwargs)


# examples/gpt2.ss starts from small weights (std 0.02), scaled up to give logits of some
# size; gpt2_conv1d.ss's are large already.
@pytest.mark.parametrize("name,scale,bound", [("examples/gpt2.ss", 4.0, 1e-3),
                                              ("gpt2_conv1d.ss", 1.0, 5e-3)])
def test_gpt2_log_probs_agree_within_the_gelu_tables_bound(tmp_path, name, scale, bound,
                                                           make_model, source_logits,
                                                           llama_cpp_model):
    m = make_model(model_path(name), seed=2, scale=scale)
    out = _export_checkpoint(tmp_path, name, m)
    got = _llama_cpp_log_probs(llama_cpp_model(out), PROMPT)
    # llama.cpp's CPU GELU rounds its input to f16 and reads a table: about 1e-3 of the
    # log-probabilities (more where activations are large, as in gpt2_conv1d.ss)...
    want = _log_probs(source_logits(model_path(name), m, PROMPT))
    assert np.abs(got - want).max() < bound
    # ...and that table is the whole difference: the source with llama.cpp's GELU agrees
    # as llama agrees
    with _GgmlGelu():
        emulated = _log_probs(source_logits(model_path(name), m, PROMPT))
    assert np.abs(got - emulated).max() < 1e-4


def _source_greedy(name: str, m, prompt: list[int], steps: int, source_logits) -> tuple:
    ids = list(prompt)
    gaps = []
    for _ in range(steps):
        last = source_logits(model_path(name), m, ids)[-1]
        top = torch.topk(last, 2).values
        gaps.append(float(top[0] - top[1]))
        ids.append(int(last.argmax()))
    return ids[len(prompt):], min(gaps)


def _llama_cpp_greedy(llm, prompt: list[int], steps: int) -> list[int]:
    """Greedy decoding with llama.cpp's own KV cache: the prompt once, then one token
    per call."""
    llm.reset()
    llm.eval(prompt)
    out = []
    for _ in range(steps):
        nxt = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        out.append(nxt)
        llm.eval([nxt])
    return out


@pytest.mark.parametrize("name", ["examples/llama.ss", "examples/gpt2.ss", "llama_halves.ss"])
def test_greedy_decoding_equals_the_sources_for_16_tokens(tmp_path, name, make_model,
                                                          source_logits, llama_cpp_model):
    m = make_model(model_path(name), seed=5, scale=6.0)
    out = _export_checkpoint(tmp_path, name, m)
    want, gap = _source_greedy(name, m, PROMPT[:5], 16, source_logits)
    # the winners are clear, so the comparison tests llama.cpp, not rounding
    assert gap > 1e-3
    assert _llama_cpp_greedy(llama_cpp_model(out), PROMPT[:5], 16) == want


# llama.cpp's matrix products round the activations to the weights' type too, so the
# bound is that rounding's (measured: 6.8e-3 in f16, 0.10 in bf16, log-probs down to -15);
# a wrong tensor or ordering gives errors of several units.
@pytest.mark.parametrize("dtype,torch_dtype,bound", [("float16", torch.float16, 2e-2),
                                                     ("bfloat16", torch.bfloat16, 0.3)])
def test_half_precision_weights_compute_the_rounded_model(tmp_path, make_model, source_logits,
                                                          llama_cpp_model, dtype, torch_dtype,
                                                          bound):
    name = "llama_halves.ss"
    m = make_model(model_path(name), seed=2)
    out = _export_checkpoint(tmp_path, name, m, dtype=dtype)
    # the source on the same weights, its matrices rounded as the file holds them
    with torch.no_grad():
        for field, p in m.named_parameters():
            if p.dim() >= 2:
                setattr(m, field, p.to(torch_dtype).float())
    want = _log_probs(source_logits(model_path(name), m, PROMPT))
    got = _llama_cpp_log_probs(llama_cpp_model(out), PROMPT)
    assert np.abs(got - want).max() < bound


def test_placeholder_tokens_tokenize_to_their_ids(tmp_path, llama_cpp_model):
    out = tmp_path / "p.gguf"
    export_gguf(model_path("llama_halves.ss"), str(out))
    llm = llama_cpp_model(str(out))
    assert llm.tokenize(b"<|3|><|17|><|63|>", add_bos=False) == [3, 17, 63]
    assert llm.detokenize([3, 17]) == b"<|3|><|17|>"


def test_a_tokenizer_round_trips_text_through_llama_cpp(tmp_path, llama_cpp_model):
    from tokenizers import ByteLevelBPETokenizer

    tok = ByteLevelBPETokenizer()
    corpus = ["the quick brown fox jumps over the lazy dog",
              "shapes are checked before anything runs, hello world"] * 10
    tok.train_from_iterator(corpus, vocab_size=300, min_frequency=1,
                            special_tokens=["<|endoftext|>"], show_progress=False)
    folder = tmp_path / "tokenizer"
    folder.mkdir()
    tok.save(str(folder / "tokenizer.json"))
    src = model_source("llama_halves.ss").replace("dim V = 64", "dim V = 320")
    (tmp_path / "big.ss").write_text(src)
    out = tmp_path / "t.gguf"
    export_gguf(str(tmp_path / "big.ss"), str(out), tokenizer=str(folder))
    llm = llama_cpp_model(str(out))
    for text in ["hello world, the lazy fox", "unseen wörds: 12345!"]:
        ids = llm.tokenize(text.encode(), add_bos=False)
        assert ids == tok.encode(text).ids
        assert llm.detokenize(ids) == text.encode()
    assert llm.token_eos() == tok.token_to_id("<|endoftext|>")


# Each architecture's example, the architecture the search finds, and the scale of its
# matrices in the test (gemma's embedding is multiplied by sqrt(D) already). GELU goes
# through llama.cpp's f16 table, which the source emulates (_GgmlGelu); the rest agrees
# as llama does.
ARCHITECTURE_EXAMPLES = [
    ("examples/architectures/qwen2.ss", "qwen2", 2.0),
    ("examples/architectures/qwen3.ss", "qwen3", 2.0),
    ("examples/architectures/gemma.ss", "gemma", 1.0),
    ("examples/architectures/phi3.ss", "phi3", 2.0),
    ("examples/architectures/neox.ss", "gptneox", 2.0),
    ("examples/architectures/starcoder2.ss", "starcoder2", 2.0),
    # a sliding window of 24: llama with the context capped at it (the prompts fit)
    ("examples/architectures/mistral.ss", "llama", 2.0),
    # windows of 6 on the first block of each pair, which llama.cpp runs: the prompts
    # are longer, so the windows matter
    ("examples/architectures/gemma2.ss", "gemma2", 1.0),
    ("examples/architectures/gemma3.ss", "gemma3", 1.0),
]


@pytest.mark.parametrize("name,arch,scale", ARCHITECTURE_EXAMPLES)
def test_each_architecture_runs_in_llama_cpp_as_the_source(tmp_path, name, arch, scale,
                                                          make_model, source_logits,
                                                          llama_cpp_model):
    m = make_model(model_path(name), seed=3, scale=scale)
    out = _export_checkpoint(tmp_path, name, m)
    llm = llama_cpp_model(out)
    assert llm.metadata["general.architecture"] == arch
    got = _llama_cpp_log_probs(llm, PROMPT)
    with _GgmlGelu():
        want = _log_probs(source_logits(model_path(name), m, PROMPT))
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-3
    # greedy decoding with llama.cpp's own cache picks the source's tokens
    with _GgmlGelu():
        tokens, gap = _source_greedy(name, m, PROMPT[:5], 16, source_logits)
    assert gap > 1e-3
    assert _llama_cpp_greedy(llm, PROMPT[:5], 16) == tokens


def _rewrites(path: str) -> list[str]:
    import gguf

    field = gguf.GGUFReader(path).fields["shapescript.rewrites"]
    return [bytes(field.parts[i]).decode() for i in field.data]


# Models whose fields llama.cpp's loader doesn't take in their form: fused or split on
# the way to the file, and the file runs as the source.
JOINED = [
    ("gpt2_separate.ss", "gpt2", 1.0, "attn_q, attn_k, attn_v fused into attn_qkv"),
    ("llama_gate_up.ss", "llama", 2.0, "ffn_up_gate split into ffn_gate, ffn_up"),
]


@pytest.mark.parametrize("name,arch,scale,rewrite", JOINED)
def test_fused_and_split_projections_run_in_llama_cpp_as_the_source(tmp_path, name, arch,
                                                                    scale, rewrite,
                                                                    make_model, source_logits,
                                                                    llama_cpp_model):
    m = make_model(model_path(name), seed=3, scale=scale)
    out = _export_checkpoint(tmp_path, name, m)
    assert rewrite in _rewrites(out)
    llm = llama_cpp_model(out)
    assert llm.metadata["general.architecture"] == arch
    with _GgmlGelu():
        want = _log_probs(source_logits(model_path(name), m, PROMPT))
        tokens, gap = _source_greedy(name, m, PROMPT[:5], 16, source_logits)
    assert np.abs(_llama_cpp_log_probs(llm, PROMPT) - want).max() < 1e-3
    assert gap > 1e-3
    assert _llama_cpp_greedy(llm, PROMPT[:5], 16) == tokens


def test_a_windowed_llama_file_says_its_context_is_the_window(tmp_path, llama_cpp_model):
    name = "examples/architectures/mistral.ss"
    out = tmp_path / "m.gguf"
    export_gguf(model_path(name), str(out))
    llm = llama_cpp_model(str(out))
    assert llm.metadata["llama.context_length"] == "24"
    assert any(r.startswith("a sliding window of 24 positions") for r in _rewrites(str(out)))
