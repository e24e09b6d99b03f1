"""The contracts between the checker and the code generators.

Every code generation mode (a checked module, tracing for export, the Hugging Face
modeling file) is a ``CodegenContext`` for the shared expression and statement
generators, and they all read the checker's typed resolutions: a record of another
kind is a compiler bug, reported as one, never a silent fallback.
"""

from __future__ import annotations

import dataclasses

import pytest

from shapescript.check import resolutions
from shapescript.codegen.context import CodegenContext
from shapescript.compiler import check_program

SIMPLE = """\
dim D = 4
const EPS = 0.5
fn helper(x: [n D]) -> [n D] = x * EPS
fn forward(x: [n D]) -> [n D] = helper(x) + mean(x, over=D) * 0.0
"""


def _program(src: str):
    program = check_program(src, "t.ss")
    assert program.ok, [d.message for d in program.diagnostics]
    return program


def test_every_mode_is_a_codegen_context():
    from shapescript.codegen.functions import FunctionsGen
    from shapescript.codegen.module import ModuleGen
    from shapescript.codegen.traced import TracedModuleGen

    program = _program(SIMPLE)
    sig = program.main.env.fns["forward"]
    contexts = [
        ModuleGen(program.main, program, "always", "debug", None, False),
        TracedModuleGen(program, sig, checks="always", value_checks="debug", devices=None,
                        path="t.ss"),
        FunctionsGen(program, sig, context=None, calls=None, returns=None),
    ]
    for ctx in contexts:
        assert isinstance(ctx, CodegenContext), type(ctx).__name__


def test_the_three_generators_read_the_same_resolutions():
    from shapescript.codegen.functions import generate_functions
    from shapescript.codegen.module import generate
    from shapescript.codegen.traced import generate_traced

    program = _program(SIMPLE)
    assert "0.5" in generate(program.main, program)
    assert "0.5" in generate_traced(program, "forward").source
    assert "0.5" in generate_functions(program, "forward").source


def test_resolutions_are_frozen_and_named():
    kinds = set()
    for name in resolutions.__all__:
        cls = getattr(resolutions, name)
        if not isinstance(cls, type):
            continue  # the unions
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name
        kinds.add((cls.__name__, cls.kind))
    assert ("DimName", "dim") in kinds and ("FnCall", "fn") in kinds


def test_a_resolution_of_the_wrong_kind_is_a_compiler_bug():
    from shapescript.codegen.module import ModuleGen
    from shapescript.codegen.exprs import ExprGen
    from shapescript.syntax import ast

    program = _program(SIMPLE)
    cm = program.main
    call = next(n for n in _walk(cm.env.fns["forward"].decl.body) if isinstance(n, ast.Call))
    cm.res[call] = resolutions.TupleIndex(0)  # not a call's resolution
    gen = ExprGen(cm, ModuleGen(cm, program, "always", "debug", None, False))
    with pytest.raises(AssertionError, match="a call resolved to"):
        gen.expr(call)


def _walk(node):
    if dataclasses.is_dataclass(node):
        yield node
        for f in dataclasses.fields(node):
            yield from _walk(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for x in node:
            yield from _walk(x)
