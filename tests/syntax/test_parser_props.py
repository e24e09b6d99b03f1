"""Property tests of the parser (hypothesis).

1. Random well-formed expressions, printed with only the parentheses DECISIONS §1's
   precedence needs, parse back to the tree they were printed from.
2. Random text, and the spotter mutated at random, never make the parser raise: every
   problem is a diagnostic with a syntax (E01xx) or pattern (E06xx) code.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapescript.syntax import ast
from shapescript.syntax.build import iter_nodes
from shapescript.syntax.parser import parse
from test_parser import sx

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------
# 1. Expressions: a small tree language, a printer that knows the precedence, and the
#    s-expression each tree must parse to.

# Binary operators: level and associativity (L, R, or N for not chaining).
BINARY = {
    "or": (4, "L"), "and": (5, "L"),
    "==": (8, "N"), "!=": (8, "N"), "<": (8, "N"), "<=": (8, "N"), ">": (8, "N"),
    ">=": (8, "N"), "+": (9, "L"), "-": (9, "L"), "*": (10, "L"), "/": (10, "L"),
    "//": (10, "L"), "%": (10, "L"), "@": (10, "L"), "**": (12, "R"),
}
ATOM = 13
TO_TYPES = {"f32": "tensor f32", "Unit": "tensor Unit", "f16 Signed": "tensor f16 Signed"}
AS_TYPES = {"int": "scalar int", "[n] u8": "tensor [n] u8", "T": "named T",
            "[b C] Logit over C": "tensor [b C] Logit over C"}

names = st.sampled_from(["a", "b", "x", "y", "w1", "D", "_b"])
funcs = st.sampled_from(["f", "g", "mean", "torch.tanh"])
leaves = st.one_of(
    names.map(lambda n: ("name", n)),
    st.integers(0, 999).map(lambda k: ("num", str(k))),
    st.sampled_from(["1.5", "2e3", "1e-5", "0.25"]).map(lambda t: ("num", t)),
    st.sampled_from(['"s"', "true", "false", "none"]).map(lambda t: ("lit", t)),
)


def extend(inner):
    args = st.lists(inner, min_size=0, max_size=3)
    # An index item: a value, `..` (a whole axis), `...` (the axes between), `D=…`.
    items = st.one_of(inner, st.just(("whole",)), st.just(("rest",)),
                      st.tuples(st.just("named"), names, inner))
    return st.one_of(
        st.tuples(st.just("bin"), st.sampled_from(sorted(BINARY)), inner, inner),
        st.tuples(st.just("neg"), inner),
        st.tuples(st.just("not"), inner),
        st.tuples(st.just("to"), inner, st.sampled_from(sorted(TO_TYPES))),
        st.tuples(st.just("as"), inner, st.sampled_from(sorted(AS_TYPES))),
        st.tuples(st.just("call"), funcs, args),
        st.tuples(st.just("idx"), inner, st.lists(items, min_size=1, max_size=3)),
        st.tuples(st.just("attr"), inner, st.sampled_from(["w", "field"])),
        st.tuples(st.just("tuple"), st.lists(inner, min_size=2, max_size=3)),
        st.tuples(st.just("range"), inner, inner),
        st.tuples(st.just("pipe"), inner, st.one_of(
            funcs.map(lambda f: ("name", f)),
            st.tuples(st.just("call"), funcs, args),
            st.tuples(st.just("hole"), funcs, args, st.integers(0, 3)),
            st.sampled_from(sorted(TO_TYPES)).map(lambda t: ("to", t)))),
        st.tuples(st.just("lambda"), st.sampled_from([("c",), ("i", "j")]), inner),
    )


exprs = st.recursive(leaves, extend, max_leaves=12)


def show(e) -> tuple[str, int]:
    """Print a tree with the parentheses its precedence needs: (text, level)."""
    k = e[0]
    if k in ("name", "num", "lit"):
        return e[1], ATOM
    if k == "bin":
        _, op, left, right = e
        level, assoc = BINARY[op]
        lmin = level if assoc == "L" else level + 1
        rmin = level if assoc == "R" else level + 1
        return f"{wrap(left, lmin)} {op} {wrap(right, rmin)}", level
    if k == "neg":
        return "-" + wrap(e[1], 12), 11
    if k == "not":
        return "not " + wrap(e[1], 7), 6
    if k in ("to", "as"):
        return f"{wrap(e[1], 7)} {k} {e[2]}", 7
    if k == "call":
        return f"{e[1]}({', '.join(wrap(a, 0) for a in e[2])})", ATOM
    if k == "idx":
        return f"{wrap(e[1], ATOM)}[{', '.join(show_item(i) for i in e[2])}]", ATOM
    if k == "attr":
        return f"{wrap(e[1], ATOM)}.{e[2]}", ATOM
    if k == "tuple":
        return "(" + ", ".join(wrap(x, 0) for x in e[1]) + ")", ATOM
    if k == "range":
        return f"{wrap(e[1], 4)}..{wrap(e[2], 4)}", 3
    if k == "pipe":
        return f"{wrap(e[1], 2)} |> {stage(e[2])}", 2
    if k == "lambda":
        params = e[1][0] if len(e[1]) == 1 else "(" + ", ".join(e[1]) + ")"
        return f"{params} => {wrap(e[2], 1)}", 1
    raise ValueError(e)


def show_item(i) -> str:
    if i[0] == "whole":
        return ".."
    if i[0] == "rest":
        return "..."
    if i[0] == "named":
        return f"{i[1]}={wrap(i[2], 0)}"
    return wrap(i, 0)


def expected_item(i) -> str:
    if i[0] == "whole":
        return ".."
    if i[0] == "rest":
        return "..."
    if i[0] == "named":
        return f"(= {i[1]} {expected(i[2])})"
    return expected(i)


def wrap(e, min_level: int) -> str:
    text, level = show(e)
    return text if level >= min_level else f"({text})"


def stage(s) -> str:
    if s[0] == "name":
        return s[1]
    if s[0] == "call":
        return show(s)[0]
    if s[0] == "hole":
        _, f, args, at = s
        shown = [wrap(a, 0) for a in args]
        shown.insert(min(at, len(shown)), "_")
        return f"{f}({', '.join(shown)})"
    return "to " + s[1]


def expected(e) -> str:
    """The s-expression (test_parser.sx) the printed tree must parse to."""
    k = e[0]
    if k in ("name", "num"):
        return e[1]
    if k == "lit":
        return {'"s"': "'s'"}.get(e[1], e[1])
    if k == "bin":
        return f"({e[1]} {expected(e[2])} {expected(e[3])})"
    if k == "neg":
        return f"(neg {expected(e[1])})"
    if k == "not":
        return f"(not {expected(e[1])})"
    if k == "to":
        return f"(to {expected(e[1])} {TO_TYPES[e[2]]})"
    if k == "as":
        return f"(as {expected(e[1])} {AS_TYPES[e[2]]})"
    if k == "call":
        return f"(call {e[1]}{''.join(' ' + expected(a) for a in e[2])})"
    if k == "idx":
        return f"(idx {expected(e[1])}{''.join(' ' + expected_item(i) for i in e[2])})"
    if k == "attr":
        return f"{expected(e[1])}.{e[2]}"
    if k == "tuple":
        return "(tuple" + "".join(" " + expected(x) for x in e[1]) + ")"
    if k == "range":
        return f"(.. {expected(e[1])} {expected(e[2])})"
    if k == "pipe":
        x = expected(e[1])
        s = e[2]
        if s[0] == "name":
            return f"(call|> {s[1]} {x})"
        if s[0] == "call":
            return f"(call|> {s[1]} {x}{''.join(' ' + expected(a) for a in s[2])})"
        if s[0] == "hole":
            _, f, args, at = s
            shown = [expected(a) for a in args]
            shown.insert(min(at, len(shown)), x)
            return f"(call|> {f}{''.join(' ' + a for a in shown)})"
        return f"(to {x} {TO_TYPES[s[1]]})"
    if k == "lambda":
        return f"(=> ({' '.join(e[1])}) {expected(e[2])})"
    raise ValueError(e)


def check_spans(src: str, root) -> None:
    lines = src.split("\n")
    for node in iter_nodes(root):
        s = getattr(node, "span", None)
        if s is None:
            continue
        assert 0 <= s.start <= s.end <= len(src)
        assert (s.line, s.col) <= (s.end_line, s.end_col)
        if s.line == s.end_line:
            assert lines[s.line - 1][s.col - 1:s.end_col - 1] == src[s.start:s.end], node


@SETTINGS
@given(exprs)
def test_printed_expressions_parse_back(e):
    text = wrap(e, 0)
    src = f"fn f(x: int) = {text}\n"
    m, diags = parse(src, "p.ss")
    assert not diags, (text, [(d.code, d.message, d.column) for d in diags])
    fn = m.decls[0]
    assert sx(fn.body) == expected(e), text
    check_spans(src, m)


@SETTINGS
@given(exprs)
def test_expressions_in_statements_and_multiline_calls(e):
    text = wrap(e, 0)
    src = f"fn f(x: int):\n    y = g(\n        {text},\n    )\n    return y\n"
    m, diags = parse(src, "p.ss")
    assert not diags, (text, [(d.code, d.message) for d in diags])
    assign = m.decls[0].body[0]
    assert sx(assign.value) == f"(call g {expected(e)})"
    check_spans(src, m)


# ---------------------------------------------------------------------------
# 2. Anything at all: diagnostics, never an exception.

SPOTTER = (Path(__file__).parent / "programs" / "spotter.ss").read_text(encoding="utf-8")
FRAGMENTS = [
    "fn", "dim", "model", "param", "extern", "export", "import", "python", "from", "devices",
    "return", "if", "elif", "else", "for", "in", "with", "and", "or", "not", "as", "to",
    "over", "true", "none", "x", "D", "_", "16gh", "1.5", "0..L", "1e-5", "\"s\"", "\"",
    "(", ")", "[", "]", ",", ":", "=", ".", "...", "->", "=>", "|>", "?", "+", "-", "*", "/",
    "//", "%", "**", "@", "==", "<", ">=", "\n", "\n    ", "\n        ", "\t", " ", "#c",
    "## d\n", "rearrange(", "einsum(", "reduce(", "zeros[", "causal[n n]", "b c -> c b",
    "$", "\r\n", "\\",
]
fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map(" ".join)


def check_never_raises(src: str) -> None:
    m, diags = parse(src, "r.ss")
    assert m is None or isinstance(m, ast.Module)
    n_lines = src.count("\n") + src.count("\r") + 2
    for d in diags:
        # Syntax and patterns, and a fraction where a size goes (`[b 1.5]`), which the
        # parser reports with the division to write instead.
        assert d.code[:3] in ("E01", "E06") or d.code == "E0308", (d.code, d.message)
        assert 1 <= d.line <= d.end_line <= n_lines
        assert d.column >= 1 and d.end_column >= 1
        assert d.message and d.message == d.message.strip()
    if m is not None:
        for node in iter_nodes(m):
            s = getattr(node, "span", None)
            if s is not None:
                assert 0 <= s.start <= s.end <= len(src)


@SETTINGS
@given(st.text(max_size=300))
def test_random_text_never_raises(src):
    check_never_raises(src)


@SETTINGS
@given(fragment_text)
def test_random_tokens_never_raise(src):
    check_never_raises(src)


mutation = st.tuples(
    st.sampled_from(["delete", "insert", "replace", "swap_lines", "dup_line", "indent"]),
    st.integers(0, len(SPOTTER)), st.integers(0, 40), st.sampled_from(FRAGMENTS))


@SETTINGS
@given(st.lists(mutation, min_size=1, max_size=5))
def test_mutated_spotter_never_raises(mutations):
    src = SPOTTER
    for kind, pos, length, frag in mutations:
        pos = min(pos, len(src))
        if kind == "delete":
            src = src[:pos] + src[pos + length:]
        elif kind == "insert":
            src = src[:pos] + frag + src[pos:]
        elif kind == "replace":
            src = src[:pos] + frag + src[pos + length % 5:]
        else:
            lines = src.split("\n")
            i = pos % len(lines)
            j = (pos + length) % len(lines)
            if kind == "swap_lines":
                lines[i], lines[j] = lines[j], lines[i]
            elif kind == "dup_line":
                lines.insert(i, lines[j])
            else:
                lines[i] = " " * (length % 7) + lines[i]
            src = "\n".join(lines)
    check_never_raises(src)


@SETTINGS
@given(st.integers(0, 98))
def test_a_broken_line_loses_at_most_its_declaration(k):
    """Breaking one line keeps every declaration but the one whose chunk holds it."""
    lines = SPOTTER.split("\n")
    clean, _ = parse(SPOTTER, "s.ss")
    comment = lines[k].strip().startswith("#")
    lines[k] = lines[k] + " $ )("
    m, diags = parse("\n".join(lines), "s.ss")
    if not comment:
        assert diags
    kept = {getattr(d, "name", None) for d in (m.decls if m else ())}
    lost = [d for d in clean.decls if getattr(d, "name", None) not in kept]
    owner = [d for d in clean.decls if d.span.line <= k + 1][-1:]
    assert all(d in owner for d in lost), [getattr(d, "name", None) for d in lost]


def test_a_fraction_in_a_size_is_reported_by_the_parser_as_e0308():
    # What the mutation search found: the parser's own E0308 is a diagnostic it may give.
    src = "fn f(x: [b 1.5]) -> [b 1.5] = x\n"
    check_never_raises(src)
    assert [d.code for d in parse(src, "r.ss")[1]][:1] == ["E0308"]
