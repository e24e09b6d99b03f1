"""Shared helpers: compile ShapeScript source into a module, as the import hook does."""

from __future__ import annotations

import types
from pathlib import Path

import pytest


def compile_module(src: str, path: Path, **options) -> types.ModuleType:
    """Write ``src`` to ``path``, compile it and run it as a fresh module."""
    from shapescript.compiler import compile_file
    from shapescript.render import render_full

    path.write_text(src, encoding="utf-8")
    out = compile_file(str(path), **options)
    if out.python is None:
        raise AssertionError(render_full(out.diagnostics, out.sources, color=False))
    mod = types.ModuleType(path.stem)
    mod.__file__ = str(path)
    exec(compile(out.python, str(path), "exec"), mod.__dict__)
    return mod


@pytest.fixture
def ss(tmp_path):
    """``ss(src, name="m", **options)`` compiles ``src`` as ``name.ss`` in a temp folder."""

    def make(src: str, name: str = "m", **options) -> types.ModuleType:
        return compile_module(src, tmp_path / f"{name}.ss", **options)

    return make


@pytest.fixture(autouse=True)
def _fresh_devices():
    """Device lines are process-wide (DECISIONS §10): forget them between tests."""
    import sys

    yield
    device = sys.modules.get("shapescript.rt.device")
    if device is not None:
        device.reset_devices()


@pytest.fixture(scope="session")
def compile_ss():
    """``compile_module`` itself, for module-scoped fixtures."""
    return compile_module
