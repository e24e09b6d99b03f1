"""The syntax layer stays readable: no module over 600 lines, no function over 80 (a
longer one says why in its first docstring line starting with "Long:")."""

from __future__ import annotations

import ast
from pathlib import Path

import shapescript.syntax

SYNTAX = Path(shapescript.syntax.__file__).parent


def test_no_syntax_module_or_function_is_too_long():
    too_long = []
    for path in sorted(SYNTAX.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 600:
            too_long.append(f"{path.name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                doc = ast.get_docstring(node) or ""
                if size > 80 and "Long:" not in doc:
                    too_long.append(f"{path.name}: {node.name}() is {size} lines")
    assert not too_long, too_long
