"""Each explain page's program, run through the real checker, reports the page's code;
each page's fixed program (where it shows one) checks clean.

A page's example triggers exactly its code, once per mistake it shows, and nothing
else: a page whose program also trips another rule would teach the wrong lesson. The one
exception is the book's E1703 example, which also reports E1701 by design (the Python
value is "itself E1701").
"""

from __future__ import annotations

import pytest

from shapescript.codes import CODES, page

WITH_PROGRAM = [c for c in CODES if page(c).program is not None]
WITH_FIX = [c for c in CODES if page(c).fixed is not None]


def check(tmp_path, code: str, src: str):
    from shapescript.compiler import check_source

    for name, text in page(code).files:  # modules the example imports, beside it
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / f"{code.lower()}.ss"
    path.write_text(src, encoding="utf-8")
    if code.startswith("E33"):
        # The serving rules, which `check --vllm` and the serving exports add.
        from shapescript.api import serving_diagnostics
        from shapescript.compiler import check_program

        program = check_program(src, str(path))
        if not program.ok:
            return program.diagnostics
        found = serving_diagnostics(program, "forward")
        if code in TP_DEGREE and not found:
            # `check --vllm --tp N`: the degrees of tensor parallelism (the hf plugin's).
            from shapescript_hf.degrees import tp_diagnostics

            found = tp_diagnostics(program, "forward", TP_DEGREE[code])
        return found
    # `# noqa` comments (E19), as `shapescript check` and the editor read them.
    from shapescript.api import apply_suppressions

    return apply_suppressions(check_source(src, str(path)), {str(path): src}, [str(path)])


def describe(diags) -> str:
    return "\n".join(f"{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}" for d in diags)


# The degree `check --vllm --tp N` asks about in the pages of tensor parallelism.
TP_DEGREE = {"E3309": 3, "E3310": 2}

# Codes a page's example reports beside its own, by design (the book's pages).
ALSO = {"E1703": {"E1701"}}


@pytest.mark.parametrize("code", WITH_PROGRAM)
def test_example_reports_exactly_its_code(tmp_path, code):
    diags = check(tmp_path, code, page(code).program)
    codes = {d.code for d in diags}
    assert code in codes, describe(diags)
    assert codes - {code} == ALSO.get(code, set()), describe(diags)


@pytest.mark.parametrize("code", WITH_FIX)
def test_fixed_example_checks_clean(tmp_path, code):
    diags = check(tmp_path, code, page(code).fixed)
    assert diags == [], describe(diags)


def test_every_code_but_e0000_has_an_example():
    # `shapescript port`'s codes are about a Python model: their pages show a Python module
    # and the command instead of a program (tests/port runs each).
    port = {c for c in CODES if c.startswith("E36")}
    assert port and set(CODES) - set(WITH_PROGRAM) == {"E0000"} | port
