"""The soundness property, on 1,000 random well-typed programs: each checks clean, compiles,
and on random sizes (each generic 1 to 4, so often 1) either returns a value of its
declared shape equal to a direct torch evaluation, or fails with a ``ShapeError`` at a
``.ss`` location exactly where a documented run-time check must fail (an odd size split
in two). Nothing else: no einops or torch error, no wrong shape, no wrong value.

``benchmarks/soundness.py`` runs 10,000 of them and counts each outcome.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from gen import HypothesisChoices, program  # noqa: E402
from runner import GOOD, run  # noqa: E402


@st.composite
def programs(draw):
    ch = HypothesisChoices(draw)
    return program(ch), ch


@settings(max_examples=1000, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(programs())
def test_well_typed_programs_run_as_their_types_say(tmp_path_factory, case):
    prog, ch = case
    path = tmp_path_factory.mktemp("gen") / "prog.ss"
    outcome, detail = run(prog, ch, str(path))
    assert outcome in GOOD, f"{outcome}: {detail}\n{prog.source()}"


def test_the_generator_reaches_every_operation():
    """So a generator that lost an operation can't pass quietly."""
    from gen import RandomChoices

    text = "".join(program(RandomChoices(seed)).source() for seed in range(300))
    for needle in ("@", "einsum(", "rearrange(", "reduce(", "[0..", "|> map(", "softmax(",
                   "as [?s", "Index[", "Mask", "model W", "mdl.", "two=2", "(ones[", "+ 1]",
                   "maximum(", "logsumexp(", "hf"):
        assert needle in text, needle


def test_an_unsound_compiler_is_caught(monkeypatch, tmp_path):
    """The property fails when a run-time check is gone: without the divisibility check,
    an odd split is einops's error, which the runner reports."""
    import shapescript.rt as rt
    from gen import RandomChoices

    monkeypatch.setattr(rt, "divides", lambda x, *a: x)
    seen = set()
    for seed in range(400):
        ch = RandomChoices(seed)
        prog = program(ch)
        if "two=2" not in prog.source():
            continue
        outcome, _ = run(prog, ch, str(tmp_path / "p.ss"), tries=4)
        seen.add(outcome)
        if "runtime_crash" in seen:
            break
    assert "runtime_crash" in seen


def test_the_generator_makes_clamp_concat_convolutions_and_attention():
    from gen import RandomChoices

    made = "".join(program(RandomChoices(seed)).source() for seed in range(300))
    for op in ("clamp(", "concat(", "conv2d(", "scaled_dot_product_attention(", "causal["):
        assert op in made, op
