"""The incremental checker gives what a fresh check gives, edit after edit."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from shapescript.api import IncrementalChecker, check_program, walk

SPOTTER = Path(__file__).resolve().parents[2] / "examples" / "spotter" / "spotter.ss"


def _n(text):
    # Unknown sizes are numbered per process (`?k#5`): the numbers differ, not the types.
    return re.sub(r"#\d+", "#", text or "")


def _diags(program):
    return [(d.code, d.line, d.column, d.end_line, d.end_column, _n(d.message),
             tuple((lb.line, lb.column, _n(lb.message)) for lb in d.labels), d.help)
            for d in program.diagnostics]


def _types(program):
    """Each typed node's position and type, for the main file."""
    cm = program.main
    if cm is None:
        return []
    return sorted((n.span.line, n.span.col, n.span.end_line, n.span.end_col, type(n).__name__,
                   _n(str(cm.types[id(n)])))
                  for n in walk(cm.env.module.decls) if id(n) in cm.types)


EDITS = ["    x = 1", "    return y", "", "    h = gelu(x)", "## doc", "dim Q = 3",
         "fn bad(x: [n]) -> [n] = x +", "    z = mean(x, over=D)", "fn (", "  ", ")"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_edits_match_a_fresh_check(seed: int):
    src = SPOTTER.read_text()
    path = str(SPOTTER)
    ic = IncrementalChecker(path)
    rng = random.Random(seed)
    cur = src
    modes = set()
    for _ in range(60):
        lines = cur.split("\n")
        k = rng.randrange(len(lines))
        r = rng.random()
        if r < 0.3:
            lines[k] += rng.choice(["x", " + 1", "(", "D", "  "])
        elif r < 0.55:
            indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
            lines.insert(k, indent + rng.choice(EDITS).lstrip())
        elif r < 0.75:
            del lines[k]
        elif r < 0.9:
            lines[k] = lines[k].replace("D", "C", 1)
        else:
            lines = src.split("\n")
        cur = "\n".join(lines)
        got = ic.update(cur)
        modes.add(ic.last)
        want = check_program(cur, path)
        assert _diags(got) == _diags(want), cur
        assert _types(got) == _types(want), cur
    assert "incremental" in modes and "full" in modes


def test_an_edit_in_a_body_checks_only_that_function():
    src = SPOTTER.read_text()
    ic = IncrementalChecker(str(SPOTTER))
    ic.update(src)
    edited = src.replace("    var = mean(square(x - mu), over=D)",
                         "    var = mean(square(x - mu), over=C)")
    p = ic.update(edited)
    assert ic.last == "incremental"
    assert [d.code for d in p.diagnostics] == [d.code for d in check_program(edited, str(SPOTTER)).diagnostics]
    assert p.diagnostics and p.diagnostics[0].line == src[:src.index("    var = mean")].count("\n") + 1
    # A line added above a function moves its diagnostics with it.
    moved = "dim Extra = 3\n" + edited
    p = ic.update(moved)
    assert p.diagnostics[0].line == check_program(moved, str(SPOTTER)).diagnostics[0].line
    # A dim's edit checks the file again.
    ic.update(moved.replace("dim D = 32", "dim D = 48"))
    assert ic.last == "full"
