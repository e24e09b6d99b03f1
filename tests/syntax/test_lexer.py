"""The lexer's phases, each on its own: the scanner (context-free tokens), the layout
pass (lines, indentation, brackets, retagging, chunks) and the pattern sub-parser."""

from __future__ import annotations

from shapescript.syntax import ast
from shapescript.syntax.layout import layout
from shapescript.syntax.lexer import Lexer
from shapescript.syntax.patterns import collapse_patterns
from shapescript.syntax.scanner import MAX_UNKNOWN, scan


def _types(tokens):
    return [t.type for t in tokens]


def test_the_scanner_knows_no_context():
    toks = scan("x.to(over=1)\n", "t.ss", [])
    assert _types(toks) == ["NAME", "DOT", "TO", "LPAR", "OVER", "EQUAL", "INT", "RPAR", "NL"]
    assert [(t.line, t.col, t.start, t.end) for t in toks][-1] == (1, 13, 12, 13)


def test_the_scanner_marks_its_errors_for_the_layout_pass():
    diags: list = []
    toks = scan('a § b\nf("open\n', "t.ss", diags)
    assert _types(toks) == ["NAME", "ERR_LINE", "NAME", "NL", "NAME", "LPAR", "ERR_STRING",
                            "STRING", "NL"]
    assert [d.code for d in diags] == ["E0101", "E0103"]
    assert toks[7].value == "open"
    many = scan("§ " * (MAX_UNKNOWN + 2), "t.ss", diags := [])
    assert _types(many)[-2:] == ["ERR_REST", "ERR_REST"] and len(diags) == MAX_UNKNOWN


def test_layout_makes_lines_blocks_and_chunks():
    src = "fn f(a,\n     b):\n    x = a\n    return x\ndim D = 2\n"
    diags: list = []
    chunks = layout(src, "t.ss", scan(src, "t.ss", diags), diags)
    assert diags == [] and len(chunks) == 2
    assert _types(chunks[0].tokens) == [
        "FN", "NAME", "LPAR", "NAME", "COMMA", "NAME", "RPAR", "COLON", "NEWLINE",
        "INDENT", "NAME", "EQUAL", "NAME", "NEWLINE", "RETURN", "NAME", "NEWLINE", "DEDENT"]
    assert chunks[0].matches == {2: 6}
    assert _types(chunks[1].tokens) == ["DIM", "NAME", "EQUAL", "INT", "NEWLINE"]


def test_layout_retags_by_context():
    toks = Lexer("fn f(m) = zeros[n] + m.to + g(over=1) + m.zeros[1]\n", "t.ss").run()[0].tokens
    kinds = {(t.value, t.type) for t in toks if isinstance(t.value, str)}
    assert {("zeros", "CTOR"), ("to", "NAME"), ("over", "NAME")} <= kinds
    assert ("zeros", "NAME") in kinds  # after `.`: a field, not a constructor


def test_layout_closes_brackets_left_open_at_a_declaration():
    lx = Lexer("fn f() = g(1,\ndim D = 2\n", "t.ss")
    chunks = lx.run()
    assert [c.tokens[0].value for c in chunks] == ["fn", "dim"]
    assert [d.code for d in lx.diags] == ["E0103"]
    assert chunks[0].suppressed(chunks[0].tokens[-1].start)


def test_the_pattern_sub_parser_makes_one_token():
    src = "fn f(x) = rearrange(x, b (h w) -> b h w, h=2) + einsum(x, x: i j, j k -> i k)\n"
    lx = Lexer(src, "t.ss")
    toks = lx.run()[0].tokens
    pats = [t.value for t in toks if t.type == "PATTERN"]
    assert lx.diags == [] and len(pats) == 2
    first = pats[0]
    assert isinstance(first.inputs[0][1], ast.PatGroup) and len(first.output) == 3
    assert len(pats[1].inputs) == 2  # einsum: one input per operand


def test_a_malformed_pattern_is_reported_and_still_collapsed():
    diags: list = []
    src = "fn f(x) = rearrange(x, b ((h w)) -> b 2x)\n"
    chunks = layout(src, "t.ss", scan(src, "t.ss", diags), diags)
    assert {d.code for d in diags} == {"E0601"}
    messages = [d.message for d in diags]
    assert "groups can't be nested in a pattern" in messages
    assert "number-name in a pattern" in messages
    assert _types(chunks[0].tokens).count("PATTERN") == 1


def test_collapse_patterns_leaves_a_chunk_without_patterns_alone():
    chunk = Lexer("fn f(x) = g(x, a -> b)\n", "t.ss").run()[0]
    before = list(chunk.tokens)
    collapse_patterns(chunk, "t.ss", "", [])
    assert chunk.tokens == before and "ARROW" in _types(before)
