"""Helpers of the GGUF tests (fixtures: ``conftest.py``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MODELS = Path(__file__).resolve().parent / "models"


def model_path(name: str) -> str:
    """A model of tests/gguf/models, or an example (``examples/llama.ss``)."""
    if name.startswith("examples/"):
        return str(ROOT / name)
    return str(MODELS / name)


def model_source(name: str) -> str:
    """The text of a model (see ``model_path``), to change in a test."""
    return Path(model_path(name)).read_text(encoding="utf-8")
