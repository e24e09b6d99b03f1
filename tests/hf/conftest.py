"""Fixtures of the Hugging Face tests: exported folders of the examples, and the source
to compare them with.

transformers copies a folder's remote code into ``$HF_HOME/modules``: these tests point
``HF_HOME`` at a temporary folder before transformers is imported.
"""

from __future__ import annotations

import os
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="shapescript-hf-home-")
os.environ["HF_HOME"] = _HOME
os.environ["HF_MODULES_CACHE"] = os.path.join(_HOME, "modules")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from hf_helpers import EXAMPLES  # noqa: E402


@pytest.fixture(scope="session")
def folders(tmp_path_factory):
    """``folders(name, **options)``: the example ``name`` (llama, gpt2) exported with new
    weights from seed 1 (or ``options``), once per session."""
    from shapescript_hf import export_hf

    done: dict[tuple, str] = {}
    root = tmp_path_factory.mktemp("hf")

    def get(name: str, **options) -> str:
        key = (name, tuple(sorted(options.items())))
        if key not in done:
            out = root / f"{name}_{len(done)}"
            options.setdefault("seed", 1)
            export_hf(str(EXAMPLES / f"{name}.ss"), str(out), **options)
            done[key] = str(out)
        return done[key]

    return get


@pytest.fixture(scope="session")
def source():
    """``source(name, seed=1)``: (the compiled source, its model from that seed)."""
    from shapescript_export.model_export import load_model_source, make_weights

    done: dict[tuple, tuple] = {}

    def get(name: str, seed: int = 1):
        if (name, seed) not in done:
            src = load_model_source(str(EXAMPLES / f"{name}.ss"))
            done[(name, seed)] = (src, make_weights(src, seed=seed))
        return done[(name, seed)]

    return get
