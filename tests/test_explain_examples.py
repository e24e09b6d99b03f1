"""Each explain page's program, run through the real checker, reports the page's code;
each page's fixed program (where it shows one) checks clean.

DECISIONS §27: a page's example triggers exactly its code. The book's E1703 example
also reports E1701 by design ("itself E1701"), so this asserts the code is among the
diagnostics, and lists the others in the failure message.
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
    return check_source(src, str(path))


def describe(diags) -> str:
    return "\n".join(f"{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}" for d in diags)


@pytest.mark.parametrize("code", WITH_PROGRAM)
def test_example_reports_its_code(tmp_path, code):
    diags = check(tmp_path, code, page(code).program)
    assert code in {d.code for d in diags}, describe(diags)


@pytest.mark.parametrize("code", WITH_FIX)
def test_fixed_example_checks_clean(tmp_path, code):
    diags = check(tmp_path, code, page(code).fixed)
    assert diags == [], describe(diags)


def test_every_code_but_e0000_has_an_example():
    assert set(CODES) - set(WITH_PROGRAM) == {"E0000"}
