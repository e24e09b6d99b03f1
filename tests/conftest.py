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


def pytest_collection_modifyitems(config, items):
    """Tests marked ``cuda`` (``cuda(gpus=2)``) are skipped, saying why, where fewer CUDA
    GPUs are visible: CI has none, and runs them where one is lent
    (``benchmarks/gpu_session.sh``)."""
    marked = [(item, item.get_closest_marker("cuda")) for item in items]
    marked = [(item, mark) for item, mark in marked if mark is not None]
    if not marked:
        return
    visible, why = _cuda_gpus()
    for item, mark in marked:
        need = int(mark.kwargs.get("gpus", 1))
        if visible < need:
            item.add_marker(pytest.mark.skip(
                reason=f"needs {need} CUDA GPU{'s' if need > 1 else ''}: {why}"))


def _cuda_gpus() -> tuple[int, str]:
    """How many CUDA GPUs this process sees, and what to say when it is too few."""
    try:
        import torch
    except ImportError:
        return 0, "torch is not installed"
    if torch.version.cuda is None:
        return 0, f"torch {torch.__version__} is built without CUDA"
    if not torch.cuda.is_available():
        return 0, f"no CUDA GPU is visible (torch {torch.__version__})"
    count = torch.cuda.device_count()
    return count, f"{count} visible"


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
