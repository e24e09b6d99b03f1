"""The ports every test of this folder shares: each architecture is ported once per
session, at small widths, with random weights from its configuration."""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

_BASE = {"vocab_size": 61, "hidden_size": 32, "num_hidden_layers": 2,
         "num_attention_heads": 4, "max_position_embeddings": 64}
# name: (class, config options, its model's name in the program, GGUF architecture)
ARCHITECTURES = {
    "llama": ("LlamaForCausalLM", {**_BASE, "intermediate_size": 48, "num_key_value_heads": 2},
              "Llama", "llama"),
    "qwen2": ("Qwen2ForCausalLM", {**_BASE, "intermediate_size": 48, "num_key_value_heads": 2},
              "Qwen2", "qwen2"),
    "mistral": ("MistralForCausalLM", {**_BASE, "intermediate_size": 48,
                                       "num_key_value_heads": 2, "sliding_window": 5},
                "Mistral", None),
    "gpt2": ("GPT2LMHeadModel", {"vocab_size": 61, "n_embd": 32, "n_layer": 2, "n_head": 4,
                                 "n_positions": 64, "bos_token_id": 0, "eos_token_id": 0},
             "GPT2", "gpt2"),
    "neox": ("GPTNeoXForCausalLM", {**_BASE, "intermediate_size": 48,
                                    "hidden_act": "gelu_pytorch_tanh"}, "GPTNeoX", "gptneox"),
    "gemma": ("GemmaForCausalLM", {**_BASE, "intermediate_size": 48, "num_key_value_heads": 1,
                                   "head_dim": 8, "pad_token_id": 0, "eos_token_id": 1,
                                   "bos_token_id": 2}, "Gemma", "gemma"),
    "phi3": ("Phi3ForCausalLM", {**_BASE, "intermediate_size": 48, "num_key_value_heads": 2,
                                 "pad_token_id": 0, "eos_token_id": 1, "bos_token_id": 2},
             "Phi3", "phi3"),
}


@pytest.fixture(scope="session")
def ported(tmp_path_factory):
    """``ported(name)``: (report, source model) of the architecture's port, made once."""
    from shapescript_port import port
    from shapescript_port.source import load_source

    done: dict[str, object] = {}
    folder = tmp_path_factory.mktemp("ports")

    def get(name: str):
        if name not in done:
            cls, options, _, _ = ARCHITECTURES[name]
            report = port(cls, str(folder / f"{name}.ss"),
                          weights=str(folder / f"{name}.safetensors"), config=options)
            done[name] = (report, load_source(cls, options).model)
        return done[name]

    return get
