"""Golden tests of the checker: each program in this folder states its diagnostics inline
(README.md), and each program with diagnostics has its rendering in ``NAME.out``.

``SHAPESCRIPT_UPDATE_GOLDENS=1`` rewrites the ``.out`` files instead of comparing them
(and deletes those of programs that became clean). Review every rewritten file by eye.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from golden import GOLDEN, PROGRAMS, actual, annotations, check, describe, expected, rendered
from shapescript.codes import CODES

UPDATE = os.environ.get("SHAPESCRIPT_UPDATE_GOLDENS") == "1"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_diagnostics_match_the_annotations(path: Path):
    diags, sources = check(path)
    want, got = expected(path, sources), actual(diags)
    missing, extra = want - got, got - want
    assert not missing and not extra, (
        f"missing: {sorted(missing)}\nunexpected: {sorted(extra)}\n\n{describe(diags)}")


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_rendering_matches_the_golden(path: Path):
    diags, sources = check(path)
    out = path.with_suffix(".out")
    if not diags:
        if UPDATE and out.exists():
            out.unlink()
        assert not out.exists(), f"{out.name} is stale: the program checks clean"
        return
    text = rendered(diags, sources)
    if UPDATE:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
        return
    assert out.exists(), (f"{out.name} is missing: run with SHAPESCRIPT_UPDATE_GOLDENS=1 "
                          "and review it")
    assert text == out.read_text(encoding="utf-8")


def test_no_orphan_renderings():
    stems = {p.stem for p in PROGRAMS}
    assert [o.name for o in GOLDEN.glob("*.out") if o.stem not in stems] == []


def test_there_are_enough_goldens():
    assert len(PROGRAMS) >= 60
    clean = [p for p in PROGRAMS if not annotations(p.read_text(encoding="utf-8"))]
    assert len(clean) >= 20, "clean programs cover the language's features"


def test_every_registered_code_is_triggered():
    """Every code of `shapescript explain --list` but E0000 is some golden's annotation
    (E0000 is covered by the forced-failure tests below)."""
    seen: set[str] = set()
    for p in PROGRAMS:
        seen |= {code for _, code in annotations(p.read_text(encoding="utf-8"))}
    # `shapescript port`'s codes are about a Python model, not a program: tests/port
    # triggers each. The tensor-parallel degree's codes need `check --vllm --tp N`:
    # tests/test_explain_examples.py runs their pages with a degree.
    port = {c for c in CODES if c.startswith("E36")}
    missing = set(CODES) - {"E0000", "E3309", "E3310"} - port - seen
    assert not missing, sorted(missing)
    assert not seen - set(CODES), "annotations name unregistered codes"


def test_annotation_notation():
    text = "x = 1   #~ E0401 E0402\ny = 2\n#~^ E0201\nz #~^^ E0101\n"
    assert annotations(text) == {(1, "E0401"): 1, (1, "E0402"): 1, (2, "E0201"): 1,
                                 (2, "E0101"): 1}


# ---------------------------------------------------------------------------
# E0000: an internal failure is one diagnostic, never a traceback, exit code 3

BOOM = "fn f(x: [n]) -> [n] = x + x\n"


def _explode(*args, **kwargs):
    raise RuntimeError("boom")


def test_internal_failure_is_one_e0000(monkeypatch):
    from shapescript.check.exprs import ExprChecker
    from shapescript.compiler import check_source

    monkeypatch.setattr(ExprChecker, "e_BinOp", _explode)
    diags = check_source(BOOM, "boom.ss")
    assert [d.code for d in diags] == ["E0000"]
    assert diags[0].severity == "error" and diags[0].message == "internal error"
    assert diags[0].line >= 1


def test_internal_failure_in_the_declarations_is_one_e0000(monkeypatch):
    from shapescript.check import declare
    from shapescript.compiler import check_source

    monkeypatch.setattr(declare.Declarer, "signature", _explode)
    diags = check_source(BOOM, "boom.ss")
    assert [d.code for d in diags] == ["E0000"]


def test_check_command_exits_3_without_a_traceback(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from shapescript.check.exprs import ExprChecker
    from shapescript_cli.main import main

    monkeypatch.setattr(ExprChecker, "e_BinOp", _explode)
    monkeypatch.delenv("SHAPESCRIPT_DEBUG", raising=False)
    f = tmp_path / "boom.ss"
    f.write_text(BOOM, encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(f)], prog_name="shapescript")
    assert r.exit_code == 3, r.output
    assert "error[E0000]: internal error" in r.output
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


_SUBPROCESS = """
import sys
from shapescript.check.exprs import ExprChecker
def explode(*a, **k):
    raise RuntimeError("boom")
ExprChecker.e_BinOp = explode
from shapescript_cli.main import main
sys.argv = ["shapescript", "check", sys.argv[1]]
main()
"""


@pytest.mark.slow
def test_check_subprocess_exits_3_without_a_traceback(tmp_path):
    f = tmp_path / "boom.ss"
    f.write_text(BOOM, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "SHAPESCRIPT_DEBUG"}
    env["NO_COLOR"] = "1"
    r = subprocess.run([sys.executable, "-c", _SUBPROCESS, str(f)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "error[E0000]: internal error" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr
