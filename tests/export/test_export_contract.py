"""The exporters' contract as a property (``contract.py``): over mutants of the examples
and the fuzzer's generated programs, every export that exits 0 wrote output that loads
and runs, and none is an internal error. ``benchmarks/export_contract.py`` runs it over
many more programs."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

import contract  # noqa: E402

pytestmark = pytest.mark.slow


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LMS = (str(EXAMPLES / "gpt2.ss"), str(EXAMPLES / "llama.ss"))


@pytest.mark.parametrize("target", ["pt2", "hf", "gguf"])
def test_every_export_that_exits_0_loads_and_runs(tmp_path, target):
    pytest.importorskip({"pt2": "torch", "hf": "transformers", "gguf": "llama_cpp"}[target])
    if target == "pt2":   # the fuzzer's generated programs (export fns, plain tensors)
        cases = contract.programs(range(0, 40), ("",))[:3]
    else:                 # mutants of the language models
        cases = contract.mutants(LMS, range(0, 30))[:3]
    assert cases, "no clean program to export"
    results = []
    for seed, data in cases:
        path = tmp_path / f"p{seed}.ss"
        path.write_bytes(data)
        results.append(contract.check(str(path), target, str(tmp_path / f"out{seed}")))
        for p in tmp_path.iterdir():
            if p.name.startswith("out"):
                shutil.rmtree(p) if p.is_dir() else os.remove(p)
    assert "loaded" in results, results  # the property was tested, not only refusals
