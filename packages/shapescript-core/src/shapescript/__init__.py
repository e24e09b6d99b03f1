"""ShapeScript: a statically shape-typed language for tensor programs, compiled to PyTorch.

>>> import shapescript
>>> python, diagnostics = shapescript.compile("fn f(x: [n]) -> [n] = x", "f.ss")

Importing this package stays light: torch is imported only when the runtime is first
used (``shapescript.rt``, the import hook, the error classes), so ``shapescript check``
never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapescript.diagnostics import Diagnostic

__version__ = "0.1.0"

__all__ = [
    "Diagnostic", "compile", "install", "uninstall", "devices", "train", "export",
    "save", "load", "Key", "load_module", "ShapeScriptError", "ShapeError", "DeviceError", "DomainError", "__version__",
]

if TYPE_CHECKING:
    from shapescript.errors import DeviceError, DomainError, ShapeError, ShapeScriptError


def compile(src: str, path: str) -> tuple[str | None, list[Diagnostic]]:
    """Compile ShapeScript source: the Python module's text (None on errors) and the
    diagnostics, sorted by position. Nothing runs.

    >>> python, diags = compile("dim D = 4\\nfn f(x: [n D]) -> [n D] = x", "f.ss")
    """
    from shapescript.compiler import compile_source

    out = compile_source(src, path)
    return out.python, out.diagnostics


def install(checks: str | None = None, value_checks: str | None = None,
            stubs: str | bool | None = None) -> None:
    """Install the import hook: ``import spotter`` then finds ``spotter.ss`` (and, with
    ``stubs="pyrefly"`` or ``"jaxtyping"``, writes ``spotter.pyi`` next to it)."""
    from shapescript.importer import install as _install

    _install(checks=checks, value_checks=value_checks, stubs=stubs)


def uninstall() -> None:
    """Remove the import hook."""
    from shapescript.importer import uninstall as _uninstall

    _uninstall()


def devices(spec: str | None = None) -> Any:
    """Set the device of every ShapeScript program in this process (``"cuda[0]"``)."""
    from shapescript.rt.device import devices as _devices

    return _devices(spec)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext shapescript`` in Jupyter/IPython: the ``%%shapescript`` cell magic,
    from the ``lsp`` extra (found through the ``shapescript.notebook`` entry point)."""
    from shapescript.plugins import KNOWN_NOTEBOOK, NOTEBOOK, load_entry_point, missing_hint

    cells = load_entry_point(NOTEBOOK, KNOWN_NOTEBOOK.name)
    if cells is None:
        raise ImportError(missing_hint("%%shapescript cells", KNOWN_NOTEBOOK.extra))
    cells.load_ipython_extension(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext shapescript``."""
    from shapescript.plugins import KNOWN_NOTEBOOK, NOTEBOOK, load_entry_point

    cells = load_entry_point(NOTEBOOK, KNOWN_NOTEBOOK.name)
    if cells is not None:
        cells.unload_ipython_extension(ipython)


def __getattr__(name: str) -> Any:
    if name in ("ShapeScriptError", "ShapeError", "DeviceError", "DomainError"):
        from shapescript import errors

        return getattr(errors, name)
    if name == "train":
        from shapescript.rt.ops import train

        return train
    if name == "load_module":
        from shapescript.configured import load_module

        return load_module
    if name in ("save", "load", "Key"):
        from shapescript.rt import checkpoint

        return getattr(checkpoint, name)
    if name in ("export", "export_hf", "export_gguf"):
        # Found through the export targets' entry points, as the CLI finds them.
        from shapescript.plugins import python_api

        return python_api(name)
    if name == "port":
        # `shapescript port`'s function, found through its command's entry point.
        from shapescript.plugins import command_api

        return command_api(name)
    if name == "rt":
        import importlib

        return importlib.import_module("shapescript.rt")
    raise AttributeError(f"module 'shapescript' has no attribute {name!r}")
