"""The runtime is annotated for the type checker, and generated code inlines its helpers
without the annotations (``shapescript/unannotated.py``): the copies keep the form they always had
and need no typing imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shapescript.codegen.traced import traced_helpers_source
from shapescript.rt.standalone import helper_names, helper_source
from shapescript.unannotated import unannotated

RT = Path(__file__).resolve().parents[2] / "packages/shapescript-core/src/shapescript/rt"


@pytest.mark.parametrize("annotated,bare", [
    ("def f(x: int, y: str = 'a') -> bool:\n    return x\n",
     "def f(x, y='a'):\n    return x\n"),
    ("def f(*args: int, k: float = 1.0, **kw: object) -> None:\n    pass\n",
     "def f(*args, k=1.0, **kw):\n    pass\n"),
    ("def f(a: int, /, b: int, *, c: int) -> int:\n    return a\n",
     "def f(a, /, b, *, c):\n    return a\n"),
    ("def f(x: dict[str,\n                int],\n      y: int = 2,\n      ) -> list[\n    int]:\n    return []\n",
     "def f(x,\n      y=2,\n      ):\n    return []\n"),
    ("TABLE: dict[str, int] = {'é': 1}  # the table\n", "TABLE = {'é': 1}  # the table\n"),
    ("def f(s: str = 'é→') -> str:\n    y: list[str] = [s]  # type: ignore[misc]\n    return y\n",
     "def f(s='é→'):\n    y = [s]\n    return y\n"),
    ("class C:\n    def m(self, x: int) -> int:\n        def g(z: int) -> int:\n"
     "            return z\n        return g(x)\n",
     "class C:\n    def m(self, x):\n        def g(z):\n            return z\n        return g(x)\n"),
    ("def f(x=(1, 2)):  # no annotation: unchanged\n    return x\n",
     "def f(x=(1, 2)):  # no annotation: unchanged\n    return x\n"),
])
def test_annotations_are_cut_to_the_unannotated_form(annotated, bare):
    assert unannotated(annotated) == bare
    ast.parse(bare)


def test_a_name_declared_without_a_value_has_no_unannotated_form():
    with pytest.raises(ValueError, match="without a value"):
        unannotated("def f():\n    x: int\n    return 1\n")


def _annotations(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    found.append(f"{node.name}({arg.arg}: …)")
            if node.returns is not None:
                found.append(f"{node.name}() -> …")
        elif isinstance(node, ast.AnnAssign):
            found.append(ast.unparse(node))
    return found


def test_inlined_helpers_carry_no_annotations():
    for source in (helper_source(helper_names()),
                   helper_source(helper_names(), prefix="_ss_", namespace="_ss_rt"),
                   traced_helpers_source()):
        assert _annotations(ast.parse(source)) == []
        assert "# type: ignore" not in source


def _modules() -> list[Path]:
    return sorted(p for p in RT.glob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_every_runtime_function_is_annotated(path):
    missing = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = node.args
        params = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
        for k, arg in enumerate(params):
            if arg.annotation is None and not (k == 0 and arg.arg in ("self", "cls")):
                missing.append(f"{node.name}:{node.lineno} parameter {arg.arg}")
        if node.returns is None:
            missing.append(f"{node.name}:{node.lineno} return")
    assert missing == []
