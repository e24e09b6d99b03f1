"""The Hugging Face folder of the llama example in bf16 on the GPU, against transformers'
own `LlamaForCausalLM` holding the same weights (`benchmarks/native_llama.py`): the same
logits to bf16's precision, and the same tokens from cached greedy generation."""

from __future__ import annotations

import sys

import pytest

from cuda_helpers import BENCHMARKS, EXAMPLES

pytestmark = pytest.mark.cuda
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    import shapescript_hf

    sys.path.insert(0, str(BENCHMARKS))
    try:
        from native_llama import reference_model
    finally:
        sys.path.remove(str(BENCHMARKS))
    folder = tmp_path_factory.mktemp("llama_bf16")
    shapescript_hf.export_hf(str(EXAMPLES / "llama.ss"), str(folder), seed=1,
                             dtype="bfloat16")
    ours = transformers.AutoModelForCausalLM.from_pretrained(
        str(folder), trust_remote_code=True, dtype=torch.bfloat16).cuda().eval()
    native = reference_model(str(folder)).cuda().eval()
    return ours, native


def test_the_folder_in_bf16_on_the_gpu_gives_the_native_logits(models):
    ours, native = models
    assert next(ours.parameters()).dtype is torch.bfloat16
    assert next(native.parameters()).dtype is torch.bfloat16
    ids = torch.randint(0, 64, (4, 48), generator=torch.Generator().manual_seed(0)).cuda()
    with torch.no_grad():
        a = ours(input_ids=ids, use_cache=False).logits
        b = native(input_ids=ids, use_cache=False).logits
    assert a.device.type == "cuda" and a.shape == b.shape == (4, 48, 64)
    # bf16 keeps 8 bits of mantissa: the two orders of the same sums differ by a few ulps.
    scale = b.float().abs().max()
    assert ((a.float() - b.float()).abs().max() / scale).item() < 5e-2
    assert (a.argmax(-1) == b.argmax(-1)).float().mean().item() > 0.9


def test_cached_greedy_generation_on_the_gpu_matches_native(models):
    # In f32 (the bf16 weights upcast, so both hold the same numbers): bf16's rounding
    # could tip a near tie between two tokens either way, f32's doesn't.
    import copy

    ours, native = (copy.deepcopy(m).float() for m in models)
    prompt = torch.randint(0, 64, (2, 12), generator=torch.Generator().manual_seed(1)).cuda()

    def greedy(model):
        return model.generate(prompt, max_new_tokens=8, min_new_tokens=8, do_sample=False,
                              use_cache=True, pad_token_id=0)

    with torch.no_grad():
        a, b = greedy(ours), greedy(native)
    assert a.device.type == "cuda" and a.shape == (2, 20)
    assert a.tolist() == b.tolist()
