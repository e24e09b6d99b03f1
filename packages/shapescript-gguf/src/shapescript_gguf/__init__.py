"""GGUF files that llama.cpp runs, found by computing.

>>> from shapescript_gguf import export_gguf, match_architecture
>>> match_architecture("llama.ss").arch                      # doctest: +SKIP
'llama'
>>> export_gguf("llama.ss", "llama.gguf", weights="llama.safetensors")  # doctest: +SKIP
'llama'

llama.cpp runs only the architectures it implements, so the export finds which of them
(qwen2, llama, gemma, qwen3, phi3, gptneox, starcoder2, gpt2) computes what the model's
forward function computes, and which field is which of its tensors, by computing them
in f64 on random weights. ``shapescript
export FILE --gguf OUT.gguf`` and ``shapescript.export_gguf`` are this package.

Importing it is light: torch and gguf load when a function is first called.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Match", "NoMatch", "export_gguf", "match_architecture"]

_HOMES = {
    "export_gguf": "shapescript_gguf.api",
    "match_architecture": "shapescript_gguf.search",
    "Match": "shapescript_gguf.search",
    "NoMatch": "shapescript_gguf.search",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'shapescript_gguf' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_HOMES))
