"""The code registry and its explain pages (DECISIONS §27, book-17-errors.txt)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shapescript.codes import CODES, explain, normalize_code, page


def _span(prefix: str, lo: int, hi: int) -> list[str]:
    return [f"E{prefix}{i:02d}" for i in range(lo, hi + 1)]


EXPECTED = (
    ["E0000"] + _span("01", 1, 8) + _span("02", 1, 5) + _span("03", 1, 8)
    + _span("04", 1, 11) + ["E0413", "E0414", "E0415", "E0416", "E0417", "E0418"] + _span("05", 1, 4) + _span("06", 1, 6)
    + _span("07", 1, 6) + _span("08", 1, 5) + _span("09", 1, 3) + _span("10", 1, 4)
    + _span("11", 1, 2) + _span("17", 1, 9) + _span("19", 1, 1) + _span("33", 1, 10)
    + _span("36", 1, 5)
)
# `shapescript port`'s codes are about the Python model being ported: their pages show a
# Python module and the command (tests/port triggers each).
PORT = set(_span("36", 1, 5))

# Book chapter 17, "Errors": each page's meaning, program and fix, verbatim.
BOOK = {
    "E1701": (
        "Python in an exported function. An export fn, and every function it calls, can’t use a name from import python, or anything reached through one: a call such as torch.load(\"w.pt\"), a value such as torch.pi, or a pipe stage such as |> torch.tanh. In a notebook, a Python variable is the same. torch.export records torch operations only, and a Python call could do anything.",
        'dim D = 768\n\nimport python torch\n\nexport fn load_qkv() -> [D 3*D]:\n    return torch.load("w_qkv.pt") as [D 3*D]\n',
        "Pass the value in as a parameter, or give a torch function a type with extern fn, as in extern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\". See Export functions.",
    ),
    "E1702": (
        "extern fn outside torch, called by an exported function. An exported function can call an extern fn whose Python function is in torch or one of its submodules, or in math. One from another module could run any Python, which torch.export can’t record.",
        'extern fn mystery(x: [...]) -> [...] = "mylib.mystery"\n\nexport fn f(x: [n]) -> [n]:\n    return mystery(x)\n',
        "See Export functions.",
    ),
    "E1703": (
        "as on a Python value in an exported function. In an exported function every value must come from torch operations. A Python value, such as one an earlier line got from Python (itself E1701), can’t be given a type with as there.",
        "dim D = 768\n\nimport python numpy\n\nexport fn scale(x: [n D]) -> [n D]:\n    w = numpy.ones(768)\n    return x * (w as [D])\n",
        "Pass the value in as a parameter of the function. See Export functions.",
    ),
    "E1704": (
        "Value or operation with no torch-only lowering in an exported function. Models, modes, logs records, sinks, gradients, optimizer state, schedules, datasets and batches exist only on the host, and so do the built-ins that make or use them, such as print, save, value_and_grad and update. Changing a model’s field and a for loop over anything but a range are the same.",
        "dim D = 64\n\nexport fn f(x: [n D]) -> [n D]:\n    print(x)\n    return x\n",
        "An exported program is for inference: pass the model’s fields in as tensors. See Export functions.",
    ),
    "E1705": (
        "Parameter of an export fn that isn’t a tensor with a shape. The parameters of an exported function are the program’s inputs, and torch.export traces it with example tensors whose shapes, and which of whose axes may change, come from the parameters’ types. A parameter without a shape, a model, or an int, float or bool without a default has none.",
        "export fn f(x: [n], k: int) -> [n]:\n    return x * k\n",
        "Give it a tensor type such as [b n D], or a host scalar a default, which the exported program keeps. See Export functions.",
    ),
    "E1706": (
        "return inside an if on a tensor in an exported function. An if on a [] Mask becomes torch.cond, whose branches each give values, which come out of the if; a branch can’t return from the function.",
        "export fn f(x: [n]) -> [n]:\n    if sum(x) > 0:\n        return x\n    return -x\n",
        "Assign the value in both branches and return it after the if: if sum(x) > 0: y = x / else: y = -x, then return y. See Control flow in exported programs.",
    ),
}

SEED = Path("/work/shared/seeds/book-17-errors.txt")


def test_registry_holds_exactly_the_initial_codes():
    assert list(CODES) == EXPECTED
    assert "E0412" not in CODES
    assert not [c for c in CODES if c.startswith("E34")]
    for code, entry in CODES.items():
        assert entry.code == code
        assert entry.title and entry.title == entry.title.strip()
        assert entry.severity == ("warning" if code in ("E0105", "E0417", "E1901") else "error")


@pytest.mark.parametrize("code", EXPECTED)
def test_every_code_has_a_page_in_the_books_form(code):
    p = page(code)
    assert CODES[code].explain == p.text == explain(code)
    lines = p.text.split("\n")
    assert lines[0] == code and lines[1] == ""
    assert p.text.endswith("\n") and not p.text.endswith("\n\n")
    meaning = lines[2]
    assert len(meaning) > 40, "a paragraph saying what the code means"
    if code == "E0000":
        assert p.program is None
        return
    if code in PORT:
        assert p.program is None and "```python file=" in p.text and "\n```sh\nshapescript port " in p.text
        return
    assert p.program and p.program.strip(), "a program that triggers the code"
    assert p.program.endswith("\n") and "\t" not in p.program
    # The page goes on after the program: the fix, in words.
    after = p.text.split(f"```ss\n{p.program}```", 1)[1]
    fix = [para for para in after.split("\n\n") if para.strip() and not para.startswith("```")]
    assert fix, "a fix after the program"
    if p.fixed is not None:
        assert p.fixed != p.program
    for name, text in p.files:
        assert re.fullmatch(r"[a-z_][a-z0-9_]*\.ss", name) and text.strip()


@pytest.mark.parametrize("code", sorted(BOOK))
def test_book_pages_are_the_books_text(code):
    meaning, program, fix = BOOK[code]
    p = page(code)
    assert p.program == program
    assert p.text == f"{code}\n\n{meaning}\n\n```ss\n{program}```\n\n{fix}\n"
    if SEED.exists():  # the book itself, where the seeds are at hand
        seed = SEED.read_text(encoding="utf-8")
        for part in (meaning, program.rstrip("\n"), fix):
            assert part in seed


def test_explain_accepts_spellings_and_rejects_unknown_codes():
    assert explain("e0413") == explain("0413") == explain(" E0413 ") == CODES["E0413"].explain
    assert normalize_code("413") == "E0413"
    with pytest.raises(KeyError):
        explain("E9999")
    with pytest.raises(KeyError):
        explain("E0412")
    with pytest.raises(ValueError):
        explain("oops")
    with pytest.raises(ValueError):
        explain("E12345")


def test_pages_and_registry_agree():
    pages_dir = Path(__import__("shapescript").__file__).parent / "explanations"
    on_disk = sorted(p.stem for p in pages_dir.glob("*.md"))
    assert on_disk == sorted(CODES)


def test_importing_the_registry_reads_no_page():
    import subprocess
    import sys

    code = ("import shapescript.codes as c, sys; "
            "print(c.page.cache_info().currsize, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "False"]


def test_docs_list_every_code():
    docs = (Path(__file__).parents[1] / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    for code, entry in CODES.items():
        assert f"| {code} | {entry.title}" in docs


def test_every_registered_code_is_a_constant_and_nothing_else_is():
    from shapescript import error_codes

    constants = {n: v for n, v in vars(error_codes).items() if re.fullmatch(r"E\d{4}", n)}
    assert all(n == v for n, v in constants.items())
    assert list(constants) == list(CODES)


def test_no_use_site_writes_a_code_as_a_string():
    # Use sites write `ec.E0414` (shapescript.error_codes): a literal would escape the
    # registry. The table itself and the constants are the two places a code is spelt.
    import ast as pyast
    import io
    import tokenize
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    homes = {"codes.py", "error_codes.py"}
    found = []
    for path in sorted(root.glob("packages/*/src/**/*.py")):
        if path.name in homes and path.parent.name == "shapescript":
            continue
        text = path.read_text(encoding="utf-8")
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING:
                try:
                    value = pyast.literal_eval(tok.string)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, str) and re.fullmatch(r"E\d{4}", value):
                    found.append(f"{path.relative_to(root)}:{tok.start[0]}: {value}")
    assert found == []
