"""What the parser's recovery reports having dropped (``Module.dropped``), and the
checker's use of it: a name whose declaration was dropped is a silent error where it is
used, not an unknown name (the syntax error explains it)."""

from __future__ import annotations

from shapescript.compiler import check_source
from shapescript.incremental import IncrementalChecker
from shapescript.syntax.parser import parse, parse_file


def _dropped(src: str):
    return [(d.names, d.span.line, d.span.col, d.span.end_line) for d in
            parse_file(src, "t.ss").dropped]


def test_each_broken_declaration_is_recorded_with_the_name_it_declares():
    src = ("dim D = 4\n"
           "fn f(x: [D]) -> [D] = x +\n"
           "dim E = (\n"
           "model M:\n    param w: [D\n"
           "export fn g(x: [D]) -> [D]:\n    y = x +\n    return y\n"
           "extern fn h(x: [D]) -> [D] = torch.h\n"
           "import python torch.nn as nn nn\n"
           "import layers.core extra\n"
           "devices cpu cpu\n"
           "fn ok() = 1\n")
    module, diags = parse(src, "t.ss")
    assert [d.name for d in module.decls] == ["D", "ok"]
    assert [d.names for d in module.dropped] == [
        ("f",), ("E",), ("M",), ("g",), ("h",), ("nn",), ("layers",), ()]
    assert repr(module.dropped) == repr(parse_file(src, "t.ss").dropped)
    assert diags and all(d.code.startswith("E01") for d in diags)


def test_a_dropped_declaration_spans_its_tokens():
    assert _dropped("fn f() =\n\nfn g(x: [n]) -> [n]:\n    return (x +\n") == [
        (("f",), 1, 1, 1), (("g",), 3, 1, 4)]


def test_nothing_kept_still_reports_what_was_dropped():
    src = "fn f( = 1\nmodel M\n"
    result = parse_file(src, "t.ss")
    assert result.module is None
    assert [d.names for d in result.dropped] == [("f",), ("M",)]
    assert parse(src, "t.ss") == (None, list(result.diagnostics))


def test_a_head_swallowed_by_a_broken_line_is_recorded_too():
    # A bracket left open, and `x.` then a stray `]`: the `fn` on the next line is read
    # as an attribute's name, so `h` never begins a declaration of its own.
    src = "fn g(x: (n]) -> [n] = x.]\nfn h(x: [n]) -> [n] = x\n"
    assert [d.names for d in parse_file(src, "t.ss").dropped] == [("g", "h")]


def test_the_uses_of_a_dropped_name_are_silent():
    for nl in ("\n", "\r\n", "\r"):
        src = nl.join(["fn f(x: [n]) -> [n] = x +", "fn g(x: [n]) -> [n] = f(x)",
                       "model M", "fn k(m: M) = 1", ""])
        codes = [d.code for d in check_source(src, "t.ss")]
        assert codes == ["E0101", "E0101"], (nl, codes)  # no E0201 for `f` or `M`


def test_a_use_of_a_name_never_declared_is_still_unknown():
    codes = [d.code for d in check_source("fn f( = 1\nfn g() = h()\n", "t.ss")]
    assert "E0201" in codes


def test_the_editor_s_checker_carries_what_was_dropped():
    src = "fn f(x: [n]) -> [n] = x +\nfn g(x: [n]) -> [n] = f(x)\n"
    inc = IncrementalChecker("t.ss")
    first = inc.update(src)
    assert [d.code for d in first.diagnostics] == ["E0101"]
    edited = inc.update("\n" + src)  # the chunks move down a line
    assert [(d.code, d.line) for d in edited.diagnostics] == [("E0101", 2)]
    assert [(d.code, d.line) for d in check_source("\n" + src, "t.ss")] == [("E0101", 2)]
