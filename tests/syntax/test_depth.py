"""Nesting limits (``shapescript.syntax.depth``): a program nested deeper than an
expression may (64 levels) or than blocks may (16) is one E0107 per declaration, never a
RecursionError; a program at the limits goes through every phase, and the Python it
compiles to is one Python's own parser and compiler accept."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from shapescript.compiler import check_source, compile_source, to_code
from shapescript.syntax.depth import MAX_BLOCKS, MAX_EXPR_DEPTH, may_be_too_deep, nesting_error
from shapescript.syntax.lexer import Lexer
from shapescript.syntax.parser import parse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import fuzzer  # noqa: E402


def nest(pre: str, mid: str, post: str, n: int) -> str:
    return pre * n + mid + post * n


# name → a program whose one function nests an expression about `n` levels deep.
EXPRS = {
    "sum": lambda n: "fn f(x: [n]) -> [n] = " + " + ".join(["x"] * n),
    "product": lambda n: "fn f(x: [n]) -> [n] = " + " * ".join(["x"] * n),
    "right-nested": lambda n: "fn f(x: [n]) -> [n] = " + nest("x - (", "x", ")", n // 2),
    "negations": lambda n: "fn f(x: [n]) -> [n] = " + "-" * n + "x",
    "calls": lambda n: "fn g(x: [n]) -> [n] = x\nfn f(x: [n]) -> [n] = " + nest("g(", "x", ")", n),
    "builtin calls": lambda n: "fn f(x: [n]) -> [n] = " + nest("exp(", "x", ")", n),
    "pipes": lambda n: "fn g(x: [n]) -> [n] = x\nfn f(x: [n]) -> [n] = x" + " |> g" * n,
    "to": lambda n: "fn f(x: [n]) -> [n] f32 = x" + " to f32" * n,
    "as": lambda n: "fn f(x: [n]) -> [n] = x" + " as [n]" * (n // 2),
    "and": lambda n: "fn f(x: [n]) -> [n] Mask = " + " and ".join(["x > 0.0"] * (n // 2)),
    "not": lambda n: "fn f(x: [n]) -> [n] Mask = " + "not " * n + "(x > 0.0)",
    "size sum": lambda n: "fn f(x: [" + " + ".join(["n"] * n) + "]) -> [" +
                          " + ".join(["n"] * n) + "] = x",
    "size parens": lambda n: "fn f(x: [" + nest("(", "n", " + 1)", n // 2) + "]) -> [" +
                             nest("(", "n", " + 1)", n // 2) + "] = x",
    "dim sum": lambda n: "dim D = " + " + ".join(["1"] * n) + "\nfn f(x: [D]) -> [D] = x",
    "constructor": lambda n: "fn f() -> [" + " + ".join(["2"] * n) + "] = zeros[" +
                             " + ".join(["2"] * n) + "]",
}


def blocks(head: str, n: int, body: str = "return x") -> str:
    lines = ["fn f(x: [n]) -> [n]:", "    y = x"]
    lines += ["    " * (i + 1) + head for i in range(n)]
    lines += ["    " * (n + 1) + body, "    return y"]
    return "\n".join(lines)


BLOCKS = {"if": "if 1 > 0:", "for": "for i in 0..2:", "with": "with Train:"}


def compiles(src: str) -> None:
    out = compile_source(src + "\n", "deep.ss")
    assert out.python is not None, [(d.code, d.message) for d in out.diagnostics]
    to_code(out, "deep.ss")  # Python's parser and compiler accept the generated code


def one_e0107(src: str) -> None:
    diags = check_source(src + "\nfn other(x: [n]) -> [n] = y\n", "deep.ss")
    codes = [d.code for d in diags]
    assert codes.count("E0107") == 1 and "E0000" not in codes, diags
    assert "E0201" in codes  # the other declarations are still checked


@pytest.mark.parametrize("name", sorted(EXPRS))
def test_expressions_at_the_limit_compile(name):
    compiles(EXPRS[name](MAX_EXPR_DEPTH - 6))


@pytest.mark.parametrize("n", [MAX_EXPR_DEPTH + 10, 300, 3000])
@pytest.mark.parametrize("name", sorted(EXPRS))
def test_deeper_expressions_are_e0107(name, n):
    one_e0107(EXPRS[name](n * 2 if name in ("right-nested", "as", "and", "size parens") else n))


@pytest.mark.parametrize("head", sorted(BLOCKS))
def test_blocks_at_the_limit_compile(head):
    compiles(blocks(BLOCKS[head], MAX_BLOCKS, "y = y + x"))


@pytest.mark.parametrize("n", [MAX_BLOCKS + 1, 100, 300])
@pytest.mark.parametrize("head", sorted(BLOCKS))
def test_deeper_blocks_are_e0107(head, n):
    src = blocks(BLOCKS[head], n)
    one_e0107(src)
    [d] = [d for d in check_source(src, "deep.ss") if d.code == "E0107"]
    assert d.message == "blocks nested too deeply" and d.line == MAX_BLOCKS + 3


def test_the_limits_hold_deep_in_a_callers_stack():
    """The phases have room to recurse even when called from deep code."""
    def at_depth(k):
        if k:
            return at_depth(k - 1)
        for name in EXPRS:
            compiles(EXPRS[name](MAX_EXPR_DEPTH - 6))
        compiles(blocks("if 1 > 0:", MAX_BLOCKS, "y = " + " + ".join(["x"] * 40)))
    at_depth(sys.getrecursionlimit() // 3)


def test_an_error_deep_inside_is_rendered():
    from shapescript.render import render

    src = "fn f(x: [n]) -> [2] = " + nest("exp(", "x", ")", MAX_EXPR_DEPTH - 6) + "\n"
    diags = check_source(src, "deep.ss")
    assert [d.code for d in diags] == ["E0401"]
    assert "error[E0401]" in render(diags, {"deep.ss": src}, "full")


def _chunks(src: str):
    return [c for c in Lexer(src, "x.ss").run() if c.tokens]


def test_the_cheap_test_never_misses_a_deep_declaration():
    """``may_be_too_deep`` (tokens only) is False only where the walk finds nothing: on
    every file of the repository, every limit case above and hundreds of fuzzed and generated programs."""
    texts = [d.decode("utf-8", "replace") for _, d in fuzzer.corpus()]
    texts += [f(n) + "\n" for f in EXPRS.values() for n in (10, 40, 60, 63, 64, 65, 70)]
    texts += [blocks(h, n) + "\n" for h in BLOCKS.values() for n in (15, 16, 17)]
    texts += [fuzzer.program(s).data.decode("utf-8", "replace") for s in range(300)]
    rng = random.Random(0)
    texts += [fuzzer.Gen(rng).valid_program() for _ in range(200)]
    checked = 0
    for text in texts:
        module, _ = parse(text, "x.ss")
        if module is None:
            continue
        # Match declarations to chunks by their first line.
        by_line = {c.tokens[0].line: c for c in _chunks(text)}
        for decl in module.decls:
            chunk = by_line.get(decl.span.line)
            if chunk is None:
                continue
            checked += 1
            if not may_be_too_deep(chunk.tokens):
                assert nesting_error(decl, "x.ss") is None, text[:300]
    assert checked > 1500
