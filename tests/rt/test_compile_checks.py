"""Checked entries under ``torch.compile``: the GPT-2 example's forward, with default
checks, traces as one graph (``fullgraph=True``), recompiles at most once over three
sequence lengths, and its domain checks still fail, as assertions in the graph."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
dynamo = pytest.importorskip("torch._dynamo")

GPT2 = Path(__file__).resolve().parents[2] / "examples" / "gpt2.ss"


@pytest.fixture(scope="module")
def gpt2():
    import shapescript

    mod = shapescript.load_module(GPT2)
    return mod, mod.GPT2.init(seed=0)


def inputs(n, top=64):
    ids = torch.randint(0, top, (2, n), generator=torch.Generator().manual_seed(n))
    return ids, torch.arange(n).expand(2, n)


def test_no_graph_break_in_the_checked_entry(gpt2):
    mod, m = gpt2
    dynamo.reset()
    explained = dynamo.explain(mod.forward)(m, *inputs(8))
    assert explained.graph_break_count == 0 and explained.graph_count == 1


def test_one_graph_compiles_and_recompiles_at_most_once(gpt2):
    from torch._dynamo.utils import counters

    mod, m = gpt2
    dynamo.reset()
    counters.clear()
    f = torch.compile(mod.forward, backend="eager", fullgraph=True)
    with torch.no_grad():
        for n in (8, 16, 24):
            ids, pos = inputs(n)
            assert torch.allclose(f(m, ids, pos), mod.forward(m, ids, pos), atol=1e-6)
    assert counters["stats"]["unique_graphs"] <= 2  # the first compile and one more


def test_a_domain_check_still_fails_when_compiled(gpt2):
    import shapescript

    mod, m = gpt2
    dynamo.reset()
    f = torch.compile(mod.forward, backend="eager", fullgraph=True)
    ids, pos = inputs(8, top=100)  # token ids past V = 64
    with torch.no_grad():
        with pytest.raises(RuntimeError, match="outside Index"):
            f(m, ids, pos)
        # Uncompiled, the same call is the DomainError with the value and its place.
        with pytest.raises(shapescript.DomainError, match=r"expected Index\[V\] = Index\[64\]"):
            mod.forward(m, ids, pos)
