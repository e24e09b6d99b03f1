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
                   _n(str(cm.types[n])))
                  for n in walk(cm.env.module.decls) if n in cm.types)


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


def test_an_overlay_gives_an_imported_module_its_unsaved_text(tmp_path: Path):
    layers = tmp_path / "layers.ss"
    layers.write_text("dim D = 8\n\nfn block(x: [b D]) -> [b D] = x * 2.0\n")
    main = tmp_path / "main.ss"
    text = "from layers import block, D\n\nfn f(x: [b D]) -> [b D]:\n    y = block(x)\n    return y\n"
    unsaved: dict[str, str] = {}
    ic = IncrementalChecker(str(main), overlay=unsaved.get)
    assert ic.update(text).ok
    # layers.ss is edited, not saved: its buffer's `block` drops an axis.
    edited = "dim D = 8\n\nfn block(x: [b D]) -> [b] = sum(x, over=D)\n"
    unsaved[str(layers)] = edited
    p = ic.update(text)  # the same text: checked again, against the buffer
    assert ic.last == "full"
    assert [d.code for d in p.diagnostics] == ["E0402"] and p.diagnostics[0].file == str(main)
    assert p.sources[str(layers)] == edited
    # An edit inside the importer's body keeps the imported check while the buffer stays.
    p = ic.update(text.replace("    return y", "    return y "))
    assert ic.last == "incremental" and [d.code for d in p.diagnostics] == ["E0402"]
    # The buffer is closed without saving: the file on disk is the module again.
    del unsaved[str(layers)]
    assert ic.update(text).ok
    # A checker without an overlay reads the disk, and the shared cache of imported
    # modules doesn't hand it the buffer's check.
    unsaved[str(layers)] = edited
    IncrementalChecker(str(main), overlay=unsaved.get).update(text)
    assert IncrementalChecker(str(main)).update(text).ok
