"""ShapeScript's exporter to Hugging Face folders that transformers loads and vLLM serves.

>>> import shapescript_hf
>>> config = shapescript_hf.export_hf("llama.ss", "llama_hf")   # doctest: +SKIP

Importing this package is light: the compiler, torch and transformers are imported when
an export runs. ``shapescript export FILE --hf DIR`` finds it through the
``shapescript.export_targets`` entry point ``hf``, and ``shapescript check --vllm``
through the ``shapescript.check_profiles`` entry point ``vllm``.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["HFExportError", "export_hf", "__version__"]


def export_hf(path: str, output: str, *, fn: str = "forward", weights: Any = None,
              seed: int = 0, dtype: str = "float32", tokenizer: str | None = None,
              max_len: int | None = None, verify: bool = True, vllm: bool = False,
              layout: str | None = None) -> dict[str, Any]:
    """Writes the model of ``fn`` in ``path`` as a Hugging Face folder ``output`` and
    returns its ``config.json`` as a dict (see ``shapescript_hf.api.export_hf``)."""
    from shapescript_hf.api import export_hf as _export_hf

    return _export_hf(path, output, fn=fn, weights=weights, seed=seed, dtype=dtype,
                      tokenizer=tokenizer, max_len=max_len, verify=verify, vllm=vllm,
                      layout=layout)


def __getattr__(name: str) -> Any:
    if name == "HFExportError":
        from shapescript_hf.api import HFExportError

        return HFExportError
    raise AttributeError(f"module 'shapescript_hf' has no attribute {name!r}")
