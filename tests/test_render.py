"""Golden renderings of diagnostics: full (rustc's layout), concise and JSON."""

from __future__ import annotations

import json
import re

from shapescript.diagnostics import Diagnostic, Label
from shapescript.render import (
    INTERNAL_NOTE,
    internal_error,
    render,
    render_concise,
    render_full,
    render_json,
)
from shapescript.source import Span

UNTYPED = """\
import python torch

dim D = 32
dim C = 4

fn saved_head() -> [D C]:
    return torch.load("weights.pt")[5]
"""

# Book chapter 10, character for character.
BOOK_E0413 = """\
error[E0413]: the shape of this Python value is unknown
 --> untyped.ss:7:12
  |
7 |     return torch.load("weights.pt")[5]
  |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^ the return type is `[D C]`
  |
  = help: assert its shape with `as [D C]`

For more information about E0413, run `shapescript explain E0413`.
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def e0413() -> Diagnostic:
    return Diagnostic.error(
        "E0413", "the shape of this Python value is unknown",
        Span("untyped.ss", 7, 12, 7, 39), "the return type is `[D C]`",
        help="assert its shape with `as [D C]`")


def test_book_e0413_example():
    assert render_full([e0413()], {"untyped.ss": UNTYPED}, False) == BOOK_E0413


def test_render_dispatches_on_format():
    assert render([e0413()], {"untyped.ss": UNTYPED}, "full") == BOOK_E0413
    assert render([e0413()], {}, "concise") == render_concise([e0413()])
    assert render([e0413()], {}, "json") == render_json([e0413()])


def test_nothing_to_render():
    assert render_full([], {}, False) == ""
    assert render_concise([]) == ""
    assert render_json([]) == "[]\n"


def test_several_diagnostics_one_code_use_the_books_footer():
    src = "fn f(x: [n]) -> [n] = a + b\n"
    d1 = Diagnostic.error("E0201", "unknown name `a`", Span("t.ss", 1, 23, 1, 24), "not found")
    d2 = Diagnostic.error("E0201", "unknown name `b`", Span("t.ss", 1, 27, 1, 28), "not found")
    assert render_full([d1, d2], {"t.ss": src}, False) == """\
error[E0201]: unknown name `a`
 --> t.ss:1:23
  |
1 | fn f(x: [n]) -> [n] = a + b
  |                       ^ not found

error[E0201]: unknown name `b`
 --> t.ss:1:27
  |
1 | fn f(x: [n]) -> [n] = a + b
  |                           ^ not found

For more information about E0201, run `shapescript explain E0201`.
"""


def test_several_codes_give_one_footer_naming_the_first():
    src = "dim D = 32\nfn f(x: [n D]) -> [n] = x\n"
    d1 = Diagnostic.error("E0402", "ranks differ", Span("t.ss", 2, 25, 2, 26),
                          "`[n D]`, expected `[n]`")
    d2 = Diagnostic.warning("E0105", "`2 n` beside `2n`", Span("t.ss", 2, 6, 2, 7))
    assert render_full([d1, d2], {"t.ss": src}, False) == """\
error[E0402]: ranks differ
 --> t.ss:2:25
  |
2 | fn f(x: [n D]) -> [n] = x
  |                         ^ `[n D]`, expected `[n]`

warning[E0105]: `2 n` beside `2n`
 --> t.ss:2:6
  |
2 | fn f(x: [n D]) -> [n] = x
  |      ^

For more information about an error, run `shapescript explain E0402`.
"""


def test_secondary_labels_on_one_line_hang_below_rustc_style():
    src = "fn f(a: [n], b: [m], c: [k]) -> [n] = add3(a, b, c)\n"
    d = Diagnostic.error("E0401", "sizes differ", Span("t.ss", 1, 50, 1, 51), "third",
                         extra=(Label("t.ss", 1, 44, 1, 45, "first"),
                                Label("t.ss", 1, 47, 1, 48, "second")))
    assert render_full([d], {"t.ss": src}, False) == """\
error[E0401]: sizes differ
 --> t.ss:1:50
  |
1 | fn f(a: [n], b: [m], c: [k]) -> [n] = add3(a, b, c)
  |                                            -  -  ^ third
  |                                            |  |
  |                                            |  second
  |                                            first

For more information about E0401, run `shapescript explain E0401`.
"""


def test_labels_on_other_lines_gaps_and_gutter_width():
    src = "".join(f"# line {i}\n" for i in range(1, 13))
    # One unlabelled line between two labelled ones is shown; a longer gap is `...`.
    d = Diagnostic.error("E0401", "sizes differ", Span("t.ss", 12, 3, 12, 7), "here",
                         extra=(Label("t.ss", 3, 3, 3, 7, "declared"),
                                Label("t.ss", 5, 3, 5, 7, "used")))
    assert render_full([d], {"t.ss": src}, False) == """\
error[E0401]: sizes differ
  --> t.ss:12:3
   |
3  | # line 3
   |   ---- declared
4  | # line 4
5  | # line 5
   |   ---- used
...
12 | # line 12
   |   ^^^^ here

For more information about E0401, run `shapescript explain E0401`.
"""


def test_label_in_another_file():
    d = Diagnostic.error("E0404", "dtypes differ", Span("main.ss", 1, 1, 1, 4), "bf16",
                         extra=(Label("lib.ss", 2, 4, 2, 7, "expects f32"),))
    sources = {"main.ss": "abc\n", "lib.ss": "x\nfn g(y: [n])\n"}
    assert render_full([d], sources, False) == """\
error[E0404]: dtypes differ
 --> main.ss:1:1
  |
1 | abc
  | ^^^ bf16
  |
 ::: lib.ss:2:4
  |
2 | fn g(y: [n])
  |    --- expects f32

For more information about E0404, run `shapescript explain E0404`.
"""


def test_multiline_span_is_underlined_to_the_end_of_its_first_line():
    src = "fn f(x: [n]) -> [n]:\n    return g(x,\n             x)\n"
    d = Diagnostic.error("E0501", "this call takes 1 argument", Span("t.ss", 2, 12, 3, 15),
                         "2 arguments given")
    assert render_full([d], {"t.ss": src}, False) == """\
error[E0501]: this call takes 1 argument
 --> t.ss:2:12
  |
2 |     return g(x,
  |            ^^^^ 2 arguments given

For more information about E0501, run `shapescript explain E0501`.
"""


def test_help_then_notes_with_continuation_lines():
    d = Diagnostic.error("E0201", "unknown name `w`", Span("t.ss", 1, 1, 1, 2), "",
                         help="declare it\nas a parameter", notes=("one", "two"))
    assert render_full([d], {"t.ss": "w\n"}, False) == """\
error[E0201]: unknown name `w`
 --> t.ss:1:1
  |
1 | w
  | ^
  |
  = help: declare it
          as a parameter
  = note: one
  = note: two

For more information about E0201, run `shapescript explain E0201`.
"""


def test_tabs_and_wide_characters_keep_carets_aligned():
    src = "\tx = \"日本\" + y\n"
    d = Diagnostic.error("E0201", "unknown name `y`", Span("t.ss", 1, 13, 1, 14), "here")
    out = render_full([d], {"t.ss": src}, False).splitlines()
    assert out[3] == '1 |     x = "日本" + y'
    assert out[4] == "  | " + " " * 17 + "^ here"  # a tab is 4 columns, 日 and 本 2 each


def test_span_at_end_of_line_and_empty_span_get_one_caret():
    d = Diagnostic.error("E0103", "unclosed `(`", Span("t.ss", 1, 6, 1, 6), "")
    out = render_full([d], {"t.ss": "f(x, \n"}, False).splitlines()
    assert out[4] == "  |      ^"


def test_missing_source_shows_the_location_only():
    d = Diagnostic.error("E0204", "module `layres` not found", Span("t.ss", 3, 8, 3, 14),
                         "no layres.ss", help="check the name")
    assert render_full([d], {}, False) == """\
error[E0204]: module `layres` not found
 --> t.ss:3:8
  |
  = help: check the name

For more information about E0204, run `shapescript explain E0204`.
"""


def test_internal_error_as_in_decisions():
    d = internal_error("model.ss", 12, 5)
    assert d.code == "E0000" and d.severity == "error" and d.notes == (INTERNAL_NOTE,)
    # No footer: E0000 has nothing to explain beyond its note.
    assert render_full([d], {"model.ss": "x\n" * 20}, False) == """\
error[E0000]: internal error
 --> model.ss:12:5
  |
  = note: this is a bug in ShapeScript, not in your program; please report it, with this file
"""


def test_colour_only_when_asked():
    plain = render_full([e0413()], {"untyped.ss": UNTYPED}, False)
    coloured = render_full([e0413()], {"untyped.ss": UNTYPED}, True)
    assert "\x1b" not in plain
    assert coloured.startswith("\x1b[1;31merror[E0413]\x1b[0m")
    assert "\x1b[1;34m|\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == plain
    warning = Diagnostic.warning("E0105", "w", Span("t.ss", 1, 1, 1, 2))
    assert render_full([warning], {}, True).startswith("\x1b[1;33mwarning[E0105]")
    assert "\x1b" not in render_concise([warning])
    assert ANSI.sub("", render_concise([warning], color=True)) == render_concise([warning])


def test_concise():
    d2 = Diagnostic.warning("E0105", "`2 n` beside `2n`", Span("b.ss", 2, 6, 2, 7))
    assert render_concise([e0413(), d2]) == (
        "untyped.ss:7:12: error[E0413]: the shape of this Python value is unknown\n"
        "b.ss:2:6: warning[E0105]: `2 n` beside `2n`\n")


def test_json_schema():
    d = Diagnostic.error("E0401", "sizes differ", Span("t.ss", 2, 5, 2, 9), "primary",
                         extra=(Label("t.ss", 1, 1, 1, 3, "secondary"),), notes=("n",))
    data = json.loads(render_json([d, e0413()]))
    assert isinstance(data, list) and len(data) == 2
    keys = {"code", "severity", "message", "file", "line", "column", "end_line",
            "end_column", "labels", "help"}
    assert all(set(obj) == keys for obj in data)
    first = data[0]
    assert (first["code"], first["severity"], first["message"]) == ("E0401", "error",
                                                                     "sizes differ")
    assert (first["file"], first["line"], first["column"], first["end_line"],
            first["end_column"]) == ("t.ss", 2, 5, 2, 9)
    assert first["help"] is None
    assert first["labels"] == [
        {"file": "t.ss", "line": 2, "column": 5, "end_line": 2, "end_column": 9,
         "message": "primary"},
        {"file": "t.ss", "line": 1, "column": 1, "end_line": 1, "end_column": 3,
         "message": "secondary"},
    ]
    assert data[1]["help"] == "assert its shape with `as [D C]`"
    assert data[1]["end_column"] == 39


def test_output_is_deterministic():
    diags = [e0413(), internal_error("x.ss")]
    sources = {"untyped.ss": UNTYPED}
    assert render_full(diags, sources, True) == render_full(list(diags), dict(sources), True)
    assert render_json(diags) == render_json(diags)
