"""Greedy generation written in ShapeScript (`examples/generate_*.ss`): a tensor that grows
in a loop, compared token for token with a Python greedy loop over the same forward."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def examples():
    """Imports ``examples/NAME.ss`` through the import hook; undone afterwards."""
    import shapescript

    sys.path.insert(0, str(EXAMPLES))
    shapescript.install()
    try:
        yield importlib.import_module
    finally:
        shapescript.uninstall()
        sys.path.remove(str(EXAMPLES))
        for name, mod in list(sys.modules.items()):
            if str(getattr(mod, "__file__", "") or "").startswith(str(EXAMPLES)):
                del sys.modules[name]


def python_greedy(forward, m, ids, steps: int):
    for _ in range(steps):
        pos = torch.arange(ids.shape[1]).expand(ids.shape[0], -1)
        logits = forward(m, ids, pos)
        ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return ids


@pytest.mark.parametrize("name, model", [("gpt2", "GPT2"), ("llama", "Llama")])
def test_generate_matches_a_python_greedy_loop(examples, name, model):
    base = examples(name)
    gen = examples(f"generate_{name}")
    m = getattr(base, model).init(seed=3)
    with torch.no_grad():
        # Larger weights than the initial ones, so the picks vary from step to step.
        for p in m.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.5)
    ids = torch.randint(0, 64, (3, 5), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        out = gen.generate(m, ids, 7)
        ref = python_greedy(base.forward, m, ids, 7)
    assert out.shape == (3, 12)
    assert torch.equal(out[:, :5], ids)
    assert torch.equal(out, ref)
    assert len(set(out[:, 5:].flatten().tolist())) > 1  # not one token repeated


def test_generate_with_no_steps_gives_the_prompt(examples):
    base = examples("gpt2")
    gen = examples("generate_gpt2")
    ids = torch.randint(0, 64, (2, 4), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.equal(gen.generate(base.GPT2.init(seed=0), ids, 0), ids)


def test_generate_past_the_positions_is_a_domain_error(examples):
    """Positions past `P` fail the `as … Index[P]` of the growing positions."""
    import shapescript

    base = examples("gpt2")
    gen = examples("generate_gpt2")
    ids = torch.zeros((1, 126), dtype=torch.int64)
    with torch.no_grad(), pytest.raises((shapescript.DomainError, IndexError)):
        gen.generate(base.GPT2.init(seed=0), ids, 4)
