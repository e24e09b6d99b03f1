"""Every failure the fuzzer ever found, minimised (``regressions/*.ss``, kept by
``benchmarks/fuzz.py --save`` or by hand), and the hand-written cases of the robustness
issue: each must now be an ordinary outcome (clean, errors or not UTF-8)."""

from __future__ import annotations

from pathlib import Path

import pytest

import fuzzer

FILES = sorted(fuzzer.REGRESSIONS.glob("*.ss"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_regression(path: Path):
    # What the import-and-run stage found is run too.
    out = fuzzer.run(path.read_bytes(), str(path), search=[],
                     execute=path.stem.startswith(("import-", "unsound-")))
    assert not out.failed, out.detail


def test_there_are_regressions():
    assert len(FILES) >= 10
