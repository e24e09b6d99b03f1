"""Diagnostics are capped per file (``compiler.MAX_DIAGNOSTICS_PER_FILE``): after 100, one
note says how many more there are; and the cascades that would fill the output are
suppressed where they start (one E0103 per line of unclosed brackets, one E0101 per run
of unknown characters)."""

from __future__ import annotations

from click.testing import CliRunner

from shapescript.compiler import MAX_DIAGNOSTICS_PER_FILE, check_source
from shapescript.render import render
from shapescript_cli.main import main


def test_5000_unclosed_brackets_on_a_line_are_one_error(tmp_path):
    src = "fn f(x: [n]) -> [n] = " + "(" * 5000 + "\n"
    diags = check_source(src, "u.ss")
    assert [d.code for d in diags] == ["E0103"]
    assert diags[0].notes == ("and 4,999 more brackets opened after it on this line, "
                              "never closed",)
    p = tmp_path / "u.ss"
    p.write_text(src)
    r = CliRunner().invoke(main, ["check", str(p)], env={"NO_COLOR": "1"})
    assert r.exit_code == 1 and len(r.output) < 20_000


def test_more_than_100_diagnostics_end_in_a_note(tmp_path):
    src = "fn f(x: [n]) -> [n] = x\n" + "fn g(\n" * 5000
    diags = check_source(src, "many.ss")
    assert len(diags) == MAX_DIAGNOSTICS_PER_FILE
    assert diags[-1].notes[-1] == ("and 4,900 more diagnostics in this file, not shown: "
                                   "fix these first")
    assert all("more diagnostics" not in n for d in diags[:-1] for n in d.notes)
    text = render(diags, {"many.ss": src}, "full")
    assert text.count("error[") == 100 and "4,900 more" in text


def test_the_cap_is_per_file_and_keeps_the_first(tmp_path):
    lines = [f"fn f{i}(x: [n]) -> [n] = y{i}" for i in range(150)]
    diags = check_source("\n".join(lines) + "\n", "names.ss")
    assert [d.line for d in diags] == list(range(1, 101))
    assert "50 more diagnostics" in diags[-1].notes[-1]


def test_a_file_of_unknown_characters_stays_small():
    # (`é` is a letter of a name: `$¤` are two characters no name or operator takes.)
    src = "fn f(x: [n]) -> [n] = x\n" + "x = $¤ ~ € \x00 ¤\n" * 20_000
    diags = check_source(src, "junk.ss")
    assert len(diags) == MAX_DIAGNOSTICS_PER_FILE and "more diagnostics" in diags[-1].notes[-1]
    assert diags[1].message == "unknown characters `$¤`"


def test_exactly_100_has_no_note():
    lines = [f"fn f{i}(x: [n]) -> [n] = y{i}" for i in range(100)]
    diags = check_source("\n".join(lines) + "\n", "hundred.ss")
    assert len(diags) == 100 and all(not d.notes for d in diags)


def test_a_long_line_is_shown_as_a_window_around_its_label():
    src = "fn f(x: [n]) -> [n] = " + "x + " * 5000 + "$ + " + "x + " * 5000 + "x\n"
    diags = [d for d in check_source(src, "long.ss") if d.code == "E0101"]
    text = render(diags, {"long.ss": src}, "full")
    assert len(text) < 1500
    row, caret = [ln for ln in text.splitlines() if ln.startswith(("1 |", "  |"))][1:3]
    assert row.startswith("1 | …") and row.endswith("…")
    assert row[caret.index("^")] == "$"    # the caret still points at the character


def test_short_lines_are_shown_whole():
    src = "fn f(x: [n]) -> [n] = " + "x + " * 90 + "$\n"
    diags = [d for d in check_source(src, "short.ss") if d.code == "E0101"]
    text = render(diags, {"short.ss": src}, "full")
    assert src.rstrip("\n") in text and "…" not in text
