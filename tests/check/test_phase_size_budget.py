"""The checker and the code generator stay readable: no module over 600 lines, no function
over 80 unless its top (its docstring, or the comments before its first statement) says
why, with "Long:" or "Long on purpose:"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import shapescript.check
import shapescript.codegen

PHASES = {
    "check": Path(shapescript.check.__file__).parent,
    "codegen": Path(shapescript.codegen.__file__).parent,
}
REASON = re.compile(r"\bLong(?: on purpose)?:")


def _top(lines: list[str], fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function's text from its `def` to its first statement after the docstring."""
    rest = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    end = rest[0].lineno - 1 if rest else fn.end_lineno
    return "\n".join(lines[fn.lineno - 1:end])


def too_long(folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 600:
            out.append(f"{path.name}: {text.count(chr(10))} lines")
        lines = text.split("\n")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                if size > 80 and not REASON.search(_top(lines, node)):
                    out.append(f"{path.name}: {node.name}() is {size} lines")
    return out


@pytest.mark.parametrize("phase", sorted(PHASES))
def test_no_module_or_function_of_the_phase_is_too_long(phase):
    assert not too_long(PHASES[phase])


def test_the_budget_sees_a_long_module_and_an_unexplained_long_function(tmp_path):
    body = "\n".join(f"    x = {i}" for i in range(85))
    (tmp_path / "big.py").write_text("\n" * 601, encoding="utf-8")
    (tmp_path / "fns.py").write_text(
        f"def plain():\n{body}\n\n\n"
        f"def explained():\n    # Long on purpose: one table.\n{body}\n\n\n"
        f'def documented():\n    """Does it.\n\n    Long: one walk."""\n{body}\n',
        encoding="utf-8")
    assert too_long(tmp_path) == ["big.py: 601 lines", "fns.py: plain() is 86 lines"]
