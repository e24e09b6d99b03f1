"""Fixtures of the GGUF tests: the source's logits, models, llama.cpp (helpers:
``gguf_helpers``)."""

from __future__ import annotations

import os

import pytest

# A failing GGML_ASSERT would otherwise call gdb for a backtrace.
os.environ.setdefault("GGML_NO_BACKTRACE", "1")

@pytest.fixture
def source_logits():
    """``source_logits(path, model, ids)``: the compiled forward function's logits
    ``[n, V]`` for one sequence at positions 0 … n-1, computed in f64 on the model's
    weights (as the search computes it). That is the truth llama.cpp's f32 is compared
    with: torch's own f32 run of a model with large activations is further from it than
    llama.cpp's."""
    import torch
    from shapescript_gguf.source import _Fields, _Watch, load_source

    loaded: dict[str, object] = {}

    def run(path: str, model, ids: list[int]):
        src = loaded.get(path) or load_source(path)
        loaded[path] = src
        fields = _Fields({name: p.detach().double() for name, p in model.named_parameters()})
        t = torch.tensor([ids])
        args = [fields, t] + ([torch.arange(len(ids))[None]] if src.has_pos else [])
        with torch.no_grad(), _Watch():
            return src.forward(*args)[0]

    return run


@pytest.fixture
def make_model():
    """``make_model(path, seed, scale)``: the file's model from ``M.init(seed=…)``, every
    matrix multiplied by ``scale`` (so that its logits are far from uniform and greedy
    decoding has clear winners)."""
    import torch
    from shapescript_gguf.source import load_source

    def make(path: str, seed: int = 0, scale: float = 1.0):
        cls = load_source(path).model_class()
        m = cls.init(seed=seed)
        with torch.no_grad():
            for name, p in m.named_parameters():
                if p.dim() >= 2:
                    setattr(m, name, p * scale)
        return m

    return make


@pytest.fixture
def llama_cpp_model():
    """``llama_cpp_model(path)``: the file loaded in llama.cpp on the CPU, logits kept for
    every position, its key/value cache in f32."""
    import llama_cpp

    made = []

    def load(path: str, **kw):
        llm = llama_cpp.Llama(model_path=path, n_ctx=64, n_batch=64, logits_all=True,
                              type_k=0, type_v=0, n_threads=2, verbose=False, **kw)
        made.append(llm)
        return llm

    yield load
    for llm in made:
        llm.close()
