"""Runs the planted semantic bugs of ``role_cases.py`` and sorts each one.

    uv run python tests/soundness/roles/role_runner.py [-v]

For each case: the hand-written torch bug must run and differ from the torch fix (the
bug is silent in torch); the corrected ShapeScript must check clean and equal the torch
fix (no false positive). The buggy ShapeScript is then *caught statically* (a
diagnostic), *caught at run time* (a ``ShapeError`` or ``DomainError``), *prevented by
construction* (it runs and gives the corrected value: named axes aligned it), or
*missed* (it runs and gives the wrong value).
"""

from __future__ import annotations

import collections
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))

from role_cases import CASES, HEADER, SIZES, Case  # noqa: E402

OUTCOMES = ("caught statically", "prevented by construction", "caught at run time", "missed")


def inputs(case: Case, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    out = []
    for spec in case.args:
        kind, _, rest = spec.rpartition(":")
        words = rest.split()
        if kind == "i":
            bound, words = SIZES[words[0]], words[1:]
        shape = [SIZES[w] if w in SIZES else int(w) for w in words]
        if kind == "i":
            out.append(torch.randint(0, bound, shape, generator=g))
        elif kind == "m":
            out.append(torch.rand(shape, generator=g) > 0.5)
        else:
            out.append(torch.randn(shape, generator=g))
    return out


def compile_case(src: str, name: str) -> tuple[types.ModuleType | None, list[str]]:
    from shapescript.compiler import compile_source

    path = f"{name}.ss"
    out = compile_source(HEADER + src, path)
    errors = [f"{d.code} {d.message}" for d in out.diagnostics if d.severity == "error"]
    if out.python is None or errors:
        return None, errors
    mod = types.ModuleType(name)
    exec(compile(out.python, path, "exec"), mod.__dict__)
    return mod, []


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a.float(), b.float(), atol=1e-5)


def run_case(case: Case) -> tuple[str, str]:
    """``(outcome, detail)`` of the buggy version; raises ``AssertionError`` when the case
    itself is wrong (the torch bug isn't silent, or the corrected version fails)."""
    from shapescript import DomainError, ShapeError

    args = inputs(case)
    want = case.torch_fix(*args)
    bad = case.torch_bug(*args)
    assert not same(bad, want), f"{case.name}: the torch bug gives the right value"
    fixed, errors = compile_case(case.fix, case.name + "_fix")
    assert fixed is not None, f"{case.name}: the corrected version fails to check: {errors}"
    got = fixed.f(*args)
    assert same(got, want), f"{case.name}: the corrected version differs from torch"
    buggy, errors = compile_case(case.bug, case.name)
    if buggy is None:
        return "caught statically", errors[0]
    try:
        got = buggy.f(*args)
    except (ShapeError, DomainError) as exc:
        return "caught at run time", str(exc)
    if same(got, want):
        return "prevented by construction", ""
    return "missed", ""


def main() -> int:
    verbose = "-v" in sys.argv
    counts: collections.Counter[str] = collections.Counter()
    by_kind: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case in CASES:
        outcome, detail = run_case(case)
        counts[outcome] += 1
        by_kind[case.kind][outcome] += 1
        if verbose:
            print(f"{case.name:45} {outcome:26} {detail[:90]}")
    total = len(CASES)
    good = counts["caught statically"] + counts["prevented by construction"]
    print(f"{total} planted bugs, {good} caught statically or prevented ({100 * good / total:.0f}%)")
    for o in OUTCOMES:
        print(f"  {o:28} {counts[o]:3}")
    for kind, c in sorted(by_kind.items()):
        print(f"  {kind:14} " + ", ".join(f"{o}: {c[o]}" for o in OUTCOMES if c[o]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
