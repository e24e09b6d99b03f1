"""Fuzzing the front end: random token soups and mutated programs never make the checker
fail. ``check_source`` never raises, never reports E0000 (a checker bug), and every
diagnostic has a registered code and a span inside its file.

The mutants come from the golden programs, the spotter and the syntax test programs:
lines deleted, duplicated or swapped, characters and tokens dropped or inserted, names
replaced by other names of the file, numbers changed. ``mutate`` is a pure function of
its random generator, so a failure's seed reproduces it.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden import GOLDEN

ROOT = GOLDEN.parents[1]
SOURCES = sorted(
    list(GOLDEN.glob("*.ss"))
    + [ROOT / "examples" / "spotter" / "spotter.ss"]
    + sorted((ROOT / "tests" / "syntax" / "programs").glob("*.ss"))
)
TEXTS = [p.read_text(encoding="utf-8") for p in SOURCES if p.exists()]

# Where mutants are checked from: beside the goldens, so `import layers` resolves.
MUTANT = str(GOLDEN / "fuzz_mutant.ss")

TOKENS = (
    "dim fn extern export model param import from python devices return if elif else for "
    "in and or not as to over with true false none Train Index Mask Logit Prob Unit Pos "
    "f32 u8 bf16 i64 Size Axis Axes rearrange reduce repeat einsum map sum mean max concat "
    "split stack topk cross_entropy causal zeros ones eye arange full randn rand print "
    "value_and_grad sgd update report save load x y n b D C 0 1 2 16 1e-5 0.5 3.0 16gh "
    "\"s\" + - * / // % ** @ == != < <= > >= |> => -> .. ? _ ... , : = . ( ) [ ] ( ) "
    "[ ] \n \n \n\n     \t #"
).split(" ")
TOKENS += ["\n", "\n    ", "\n        ", "    ", ":\n    ", "  "]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)?\b")


def mutate(text: str, rng: random.Random, steps: int) -> str:
    """``text`` after ``steps`` random edits."""
    for _ in range(steps):
        lines = text.split("\n")
        op = rng.randrange(9)
        if op == 0 and len(lines) > 1:  # delete a line
            del lines[rng.randrange(len(lines))]
        elif op == 1:  # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif op == 2 and len(lines) > 1:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in (3, 4) and text:  # drop characters
            k = rng.randrange(len(text))
            text = text[:k] + text[k + rng.randint(1, 3):]
            continue
        elif op == 5:  # insert a character or a token
            k = rng.randrange(len(text) + 1)
            piece = rng.choice(TOKENS) if rng.random() < 0.7 else chr(rng.randrange(32, 127))
            text = text[:k] + piece + text[k:]
            continue
        elif op == 6:  # replace a name by another name of the file (or a token)
            names = list(_NAME.finditer(text))
            if names:
                m = rng.choice(names)
                new = rng.choice(names).group() if rng.random() < 0.8 else rng.choice(TOKENS)
                text = text[:m.start()] + new + text[m.end():]
            continue
        elif op == 7:  # change a number
            nums = list(_NUMBER.finditer(text))
            if nums:
                m = rng.choice(nums)
                new = rng.choice(["0", "1", "2", "3", "7", "16", "-1", "0.5", "1e-5", "100", "2x"])
                text = text[:m.start()] + new + text[m.end():]
            continue
        else:  # indent or dedent a line
            i = rng.randrange(len(lines))
            lines[i] = ("    " + lines[i]) if rng.random() < 0.5 else lines[i].lstrip()
        text = "\n".join(lines)
    return text


def soup(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(TOKENS) for _ in range(n))


def assert_sane(src: str, path: str = MUTANT) -> list:
    """Check ``src`` and assert the properties every diagnostic has."""
    from shapescript.codes import CODES
    from shapescript.compiler import check_program

    program = check_program(src, path)
    diags = program.diagnostics
    sources = dict(program.sources)
    sources.setdefault(path, src)
    if any(d.code == "E0000" for d in diags):
        old = os.environ.get("SHAPESCRIPT_DEBUG")
        os.environ["SHAPESCRIPT_DEBUG"] = "1"  # again, for the traceback in the message
        try:
            notes = [d.notes for d in check_program(src, path).diagnostics if d.code == "E0000"]
        finally:
            if old is None:
                del os.environ["SHAPESCRIPT_DEBUG"]
            else:
                os.environ["SHAPESCRIPT_DEBUG"] = old
        raise AssertionError("internal error (E0000):\n" + notes[0][-1])
    for d in diags:
        assert d.code in CODES, d
        assert d.severity in ("error", "warning"), d
        assert d.message and d.message == d.message.strip(), d
        text = sources.get(d.file)
        assert text is not None, f"a diagnostic in a file that wasn't checked: {d}"
        n_lines = text.count("\n") + 1
        assert 1 <= d.line <= n_lines, (d, n_lines)
        assert d.column >= 1 and d.end_line >= d.line, d
        assert d.end_line <= n_lines + 1, (d, n_lines)
        if d.end_line == d.line:
            assert d.end_column >= d.column, d
        for lb in d.labels:
            assert lb.line >= 1 and lb.column >= 1 and lb.end_line >= lb.line, d
    return diags


SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 6))
def test_mutated_programs(seed: int, steps: int):
    rng = random.Random(seed)
    src = mutate(rng.choice(TEXTS), rng, steps)
    assert_sane(src)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_heavily_mutated_programs(seed: int):
    rng = random.Random(seed)
    src = mutate(rng.choice(TEXTS), rng, rng.randint(8, 40))
    assert_sane(src)


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 80))
def test_token_soups(seed: int, n: int):
    rng = random.Random(seed)
    body = soup(rng, n)
    # Half the soups sit inside a function body, where the expression checker sees them.
    src = body if rng.random() < 0.5 else "fn f(x: [n D], y: [n]) -> [n D]:\n    " + body
    assert_sane(src)


def test_the_sources_are_there():
    assert len(TEXTS) > 60


@pytest.mark.slow
def test_check_command_on_mutants(tmp_path: Path):
    """`shapescript check` on mutated files: exit 0 or 1, never a traceback."""
    rng = random.Random(1234)
    files = []
    for k in range(8):
        f = tmp_path / f"mutant{k}.ss"
        f.write_text(mutate(rng.choice(TEXTS), rng, rng.randint(1, 12)), encoding="utf-8")
        files.append(str(f))
    for f in files:
        r = subprocess.run([sys.executable, "-m", "shapescript_cli", "check", f],
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "NO_COLOR": "1"})
        out = r.stdout + r.stderr
        assert "Traceback" not in out, out
        assert r.returncode in (0, 1), (r.returncode, out)
