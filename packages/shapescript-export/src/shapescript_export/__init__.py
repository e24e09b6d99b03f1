"""ShapeScript's exporter to torch.export and AOTInductor.

>>> import shapescript
>>> ep = shapescript.export("attention.ss", "causal_attention", "attn.pt2")  # doctest: +SKIP

Importing this package is light: the compiler and torch are imported when an export
runs. ``shapescript export`` finds this target (``shapescript_export.target:TARGET``)
through the ``shapescript.export_targets`` entry point. The Hugging Face and GGUF
exporters build on what is here: ``shapes`` (dynamic shapes and example inputs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["ExportError", "export", "export_module", "model_export", "__version__"]

if TYPE_CHECKING:
    from shapescript_export.errors import ExportError


def export(path: str, fn: str | None = None, output: str | None = None, *, aoti: bool = False,
           checks: str = "always", value_checks: str = "debug",
           devices: str | None = None, weights: Any = None, seed: int | None = None) -> Any:
    """Exports the function ``fn`` of the ShapeScript file ``path`` with torch.export,
    in this Python, and returns the ``torch.export.ExportedProgram``.

    ``fn`` defaults to the file's only ``export fn``. With ``output``, it also writes
    the ``.pt2`` program there, or with ``aoti=True`` an AOTInductor package.
    ``checks``, ``value_checks`` and ``devices`` are as for ``shapescript build``.

    A function that takes a model first (``fn guess(m: Spotter, img: Images u8)``)
    exports with the model's fields as the program's parameters, and the data alone as
    its inputs: ``weights`` is a checkpoint path (its first model of that type) or a
    model value; without, new weights from ``seed`` (default 0) as ``M.init`` makes them.

    Raises ``shapescript.ShapeScriptError`` for a file with errors, ``ValueError`` for a
    missing or ambiguous function, and torch's error (with a note giving the ``.ss``
    location) when torch can't export it.

    >>> ep = export("attention.ss", "causal_attention")          # doctest: +SKIP
    >>> y = ep.module()(x, w_qkv, w_o)                           # doctest: +SKIP
    """
    from shapescript_export.api import export as _export

    return _export(path, fn, output, aoti=aoti, checks=checks, value_checks=value_checks,
                   devices=devices, weights=weights, seed=seed)


def export_module(path: str, fn: str | None = None, *, checks: str = "always",
                  value_checks: str = "debug", devices: str | None = None) -> str:
    """The source of the Python module that exports ``fn`` (what ``--emit-python``
    writes): it needs only torch and einops, and ``python FILE -o OUT.pt2 [--aoti]``
    runs it."""
    from shapescript_export.api import prepare

    return prepare(path, fn, checks=checks, value_checks=value_checks,
                   devices=devices).source


def __getattr__(name: str) -> Any:
    if name == "ExportError":
        from shapescript_export.errors import ExportError

        return ExportError
    if name == "model_export":
        # What the model exporters share (``--hf``, ``--gguf``, ``.pt2 --weights``).
        import importlib

        return importlib.import_module("shapescript_export.model_export")
    raise AttributeError(f"module 'shapescript_export' has no attribute {name!r}")
