"""Quick fixes: the edit a diagnostic's help names, as text edits in ShapeScript's
positions. The language server offers them as code actions and ``shapescript check
--fix`` applies them, so both make the same edits.

A help names an edit in one of three forms:

* ``… with `as T` …``: append `` as T`` to the marked expression (assert its type);
* ``write `X```: replace the marked text with ``X``, when ``X`` respells it (the same
  text but for spaces and ``*``: ``2n`` → ``2 * n``); a ``write`` help that shows a
  larger rewrite (``a < b and b < c`` for the second ``<``) leaves the edit to the user;
* ``add `X` before `Y```: insert ``X`` where the diagnostic's second label (the ``Y``)
  starts.

A help whose text has a placeholder (``…``) names no edit: the user has to finish it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shapescript.diagnostics import Diagnostic

__all__ = ["Edit", "Fix", "apply_edits", "quick_fix"]

_AS_HELP = re.compile(r"assert (?:its|the) \w+ with `as ([^`…]+)`")
_WRITE_HELP = re.compile(r"^write `([^`…]+)`$")
_ADD_HELP = re.compile(r"^add `([^`…]+)` before `[^`]+`$")


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text from ``line:col`` to ``end_line:end_col`` (1-based, columns in
    characters, the end excluded) of ``file`` with ``text``."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A diagnostic's quick fix: its title (as an editor shows it) and its edits."""

    title: str
    edits: tuple[Edit, ...]


def quick_fix(d: Diagnostic, text: str) -> Fix | None:
    r"""The fix ``d``'s help names, or None; ``text`` is the text of ``d``'s file.

    >>> from shapescript.diagnostics import Diagnostic
    >>> d = Diagnostic("E0104", "error", "m", "a.ss", 1, 9, 1, 11, help="write `2 * n`")
    >>> quick_fix(d, "dim D = 2n\n").edits[0].text
    '2 * n'
    """
    help_text = d.help
    if not help_text:
        return None
    if m := _AS_HELP.search(help_text):
        here = Edit(d.file, d.end_line, d.end_column, d.end_line, d.end_column,
                    f" as {m.group(1)}")
        return Fix(f"Assert with `as {m.group(1)}`", (here,))
    if (m := _WRITE_HELP.match(help_text)) and _respells(
            _marked(text, d), m.group(1)):
        here = Edit(d.file, d.line, d.column, d.end_line, d.end_column, m.group(1))
        return Fix(f"Write `{m.group(1)}`", (here,))
    if (m := _ADD_HELP.match(help_text)) and len(d.labels) > 1:
        at = d.labels[1]
        here = Edit(at.file, at.line, at.column, at.line, at.column, m.group(1))
        return Fix(f"Add `{m.group(1)}`", (here,))
    return None


def apply_edits(text: str, edits: Iterable[Edit]) -> tuple[str, int]:
    """``text`` with ``edits`` made, and how many were made. An edit that overlaps one
    made before it (or starts where it does) is left out: a fix that depends on
    another is found again once the file is checked again."""
    starts = _line_starts(text)
    made: list[tuple[int, int, str]] = []
    for e in edits:
        a = _offset(starts, text, e.line, e.col)
        b = _offset(starts, text, e.end_line, e.end_col)
        if a is None or b is None or b < a:
            continue
        if any(a < y and x < b or a == x for x, y, _ in made):
            continue
        made.append((a, b, e.text))
    for a, b, new in sorted(made, reverse=True):
        text = text[:a] + new + text[b:]
    return text, len(made)


def _marked(text: str, d: Diagnostic) -> str | None:
    starts = _line_starts(text)
    a = _offset(starts, text, d.line, d.column)
    b = _offset(starts, text, d.end_line, d.end_column)
    return None if a is None or b is None or b <= a else text[a:b]


def _respells(marked: str | None, new: str) -> bool:
    def bare(s: str) -> str:
        return "".join(c for c in s if not c.isspace() and c != "*")

    return marked is not None and bare(marked) == bare(new)


def _line_starts(text: str) -> Sequence[int]:
    starts = [0]
    k = text.find("\n")
    while k >= 0:
        starts.append(k + 1)
        k = text.find("\n", k + 1)
    return starts


def _offset(starts: Sequence[int], text: str, line: int, col: int) -> int | None:
    if not 1 <= line <= len(starts):
        return None
    end = starts[line] - 1 if line < len(starts) else len(text)
    k = starts[line - 1] + col - 1
    return k if starts[line - 1] <= k <= end else None
