"""The fuzzer in CI: 1,000 programs (mutants of every ``.ss`` file in the repository and
generated programs, ``fuzzer.py``), none of which may end in an internal error, a crash,
a malformed diagnostic or a hang; ``benchmarks/fuzz.py`` runs ten times as many.

The programs are fixed (seeds 0–999 over this tree's files), so a failure here reproduces
with ``python -c "import fuzzer; print(fuzzer.run_case(fuzzer.program(SEED)))"`` in this
folder, and ``benchmarks/fuzz.py --start SEED --count 1 --save`` keeps it, minimised, as a
regression.
"""

from __future__ import annotations

import collections
import random

import pytest

import fuzzer

CI_PROGRAMS = 1000
BATCHES = 10


@pytest.mark.parametrize("batch", range(BATCHES))
def test_fuzzed_programs_never_fail(batch: int):
    size = CI_PROGRAMS // BATCHES
    counts: collections.Counter[str] = collections.Counter()
    failures = []
    for seed in range(batch * size, (batch + 1) * size):
        case = fuzzer.program(seed)
        out = fuzzer.run_case(case)
        counts[out.kind] += 1
        if out.failed:
            failures.append(f"seed {seed} ({case.kind} of {case.origin.parent}): "
                            f"{out.kind}\n{out.detail[-3000:]}")
    assert not failures, "\n\n".join(failures)
    # The programs reach every stage: some are clean, most have errors.
    assert counts["errors"] > size // 4, counts


def test_the_corpus_is_every_ss_file():
    files = {p.name for p, _ in fuzzer.corpus()}
    assert {"spotter.ss", "prelude.ss", "nn.ss", "layers.ss", "llama.ss"} <= files
    assert len(files) > 100


def test_programs_are_a_function_of_their_seed():
    assert fuzzer.program(17) == fuzzer.program(17)
    assert fuzzer.program(17).data != fuzzer.program(18).data


def test_every_mutation_changes_some_program():
    rng = random.Random(5)
    corpus = [d for _, d in fuzzer.corpus()][:20]
    for m in fuzzer.MUTATIONS:
        assert any(m(d, rng, corpus[0]) != d for d in corpus), m.__name__


def test_generated_programs_reach_the_code_generator():
    kinds = collections.Counter(
        fuzzer.run(fuzzer.Gen(random.Random(s)).program().encode(), "gen.ss", []).kind
        for s in range(150))
    assert kinds["clean"] >= 3, kinds
    assert not any(kinds[k] for k in fuzzer.FAILURES), kinds


def test_the_oracle_sees_each_kind_of_failure(monkeypatch):
    """The oracle reports what it exists to find (so a quiet run means something)."""
    from shapescript.check.exprs import ExprChecker

    good = b"fn f(x: [n]) -> [n] = x + x\n"
    assert fuzzer.run(good, "ok.ss", []).kind == "clean"
    assert fuzzer.run(b"fn f(x: [n]) -> [n] = y\n", "e.ss", []).kind == "errors"
    assert fuzzer.run(b"# caf\xe9\n", "l.ss", []).kind == "not-utf8"

    def boom(*a, **k):
        raise RuntimeError("boom")
    monkeypatch.setattr(ExprChecker, "e_BinOp", boom)
    out = fuzzer.run(good, "b.ss", [])
    assert out.kind == "internal" and "RuntimeError" in out.detail
    monkeypatch.undo()

    import shapescript.render
    monkeypatch.setattr(shapescript.render, "render", boom)
    assert fuzzer.run(b"fn f(x: [n]) -> [n] = y\n", "r.ss", []).kind == "crash"
    monkeypatch.undo()

    def slow(*a, **k):
        while True:
            pass
    monkeypatch.setattr(ExprChecker, "e_BinOp", slow)
    assert fuzzer.run(good, "h.ss", [], limit=0.3).kind == "hang"


def test_minimize_keeps_the_failure(monkeypatch):
    from shapescript.check.exprs import ExprChecker

    def boom(*a, **k):
        raise RuntimeError("boom")
    monkeypatch.setattr(ExprChecker, "e_Compare", boom)
    data = b"dim D = 4\n\nfn f(x: [n]) -> [n] = x\n\nfn g(x: [n]) -> [n] Mask = x > 0.0\n"
    sig = fuzzer.run(data, "m.ss", []).signature()
    assert sig.startswith("internal:RuntimeError")
    small = fuzzer.minimize(data, "m.ss", sig, budget=30)
    assert len(small) < len(data) and b">" in small
    assert fuzzer.run(small, "m.ss", []).signature() == sig


@pytest.mark.slow
def test_the_check_command_on_fuzzed_files(tmp_path):
    """`shapescript check` on fuzzed files, bytes as they are: exit 0 or 1, never a
    traceback."""
    import os
    import subprocess
    import sys

    files = []
    for seed in range(40, 52):
        f = tmp_path / f"fuzzed{seed}.ss"
        f.write_bytes(fuzzer.program(seed).data)
        files.append(str(f))
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "check", *files],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "NO_COLOR": "1"})
    out = r.stdout + r.stderr
    assert "Traceback" not in out, out[-3000:]
    assert r.returncode in (0, 1), (r.returncode, out[-3000:])
