"""Rendering diagnostics: full (rustc's layout), concise (one line each) and JSON.

The only module that formats or colours a diagnostic; every phase just collects
``Diagnostic`` values. The rules, with examples, are in ``docs/diagnostics.md``:

* **full** -- for each diagnostic, ``error[CODE]: message`` and `` --> file:line:col``,
  then every labelled source line under a gutter as wide as the largest line number
  shown, ``^^^`` under the primary label (the first), ``---`` under the others, each
  with its message; a span over several lines is underlined to the end of its first
  line. Then a ``|`` line and ``= help:`` / ``= note:`` lines. Diagnostics are
  separated by a blank line; after the last, a blank line and one footer:
  ``For more information about E0413, run `shapescript explain E0413`.`` when one code
  was reported, ``For more information about an error, run `shapescript explain E0401`.``
  (the first code) when several were. Nothing else follows (no summary line).
* **concise** -- ``file:line:col: error[CODE]: message``, one line each.
* **json** -- one array of the diagnostic objects (docs/diagnostics.md).

Colour (rustc's: bold red errors, bold yellow warnings, bold blue gutter and secondary
labels) is added only when asked; the CLI asks on a terminal without ``NO_COLOR``.
Nothing here imports torch.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shapescript.diagnostics import INTERNAL_NOTE, Diagnostic, Label
from shapescript import error_codes as ec

__all__ = [
    "INTERNAL_NOTE",
    "internal_error",
    "render",
    "render_concise",
    "render_full",
    "render_json",
]

TAB_WIDTH = 4  # rustc shows a tab as four spaces

# ANSI styles, as rustc uses them.
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_RED = "\x1b[1;31m"
_YELLOW = "\x1b[1;33m"
_BLUE = "\x1b[1;34m"
_SEVERITY_STYLE = {"error": _RED, "warning": _YELLOW}


def internal_error(file: str = "", line: int = 1, column: int = 1, *,
                   note: str = INTERNAL_NOTE) -> Diagnostic:
    """The one diagnostic a compiler bug becomes, at ``file:line:column``
    (no location when ``file`` is empty). It has no label: no source line is shown.

    >>> internal_error("model.ss", 12, 5).code
    'E0000'
    """
    return Diagnostic(ec.E0000, "error", "internal error", file, line, column, line, column,
                      labels=(), help=None, notes=(note,))


def render(diags: Sequence[Diagnostic], sources: Mapping[str, str], fmt: str = "full",
           color: bool = False) -> str:
    """Render ``diags`` in the format ``fmt`` (``full``, ``concise`` or ``json``)."""
    if fmt == "full":
        return render_full(diags, sources, color)
    if fmt == "concise":
        return render_concise(diags, color=color)
    if fmt == "json":
        return render_json(diags)
    raise ValueError(f"unknown diagnostic format {fmt!r}")


# ---------------------------------------------------------------------------
# Concise and JSON


def render_concise(diags: Sequence[Diagnostic], *, color: bool = False) -> str:
    """One line per diagnostic, as compilers and editors' problem matchers read them.

    >>> from shapescript.source import Span
    >>> d = Diagnostic.error("E0201", "unknown name `w`", Span("a.ss", 3, 9, 3, 10))
    >>> render_concise([d])
    'a.ss:3:9: error[E0201]: unknown name `w`\\n'
    """
    paint = _Painter(color)
    out = []
    for d in diags:
        head = paint(f"{d.severity}[{d.code}]", _SEVERITY_STYLE.get(d.severity, _BOLD))
        where = f"{d.file}:{d.line}:{d.column}: " if d.file else ""
        out.append(f"{where}{head}: {d.message}\n")
    return "".join(out)


def render_json(diags: Sequence[Diagnostic]) -> str:
    """One JSON array of ``--format json``'s objects (``[]`` when clean), newline-terminated."""
    return json.dumps([_to_json(d) for d in diags], indent=2, ensure_ascii=False) + "\n"


def _to_json(d: Diagnostic) -> dict[str, object]:
    return {
        "code": d.code,
        "severity": d.severity,
        "message": d.message,
        "file": d.file,
        "line": d.line,
        "column": d.column,
        "end_line": d.end_line,
        "end_column": d.end_column,
        "labels": [
            {"file": lb.file, "line": lb.line, "column": lb.column, "end_line": lb.end_line,
             "end_column": lb.end_column, "message": lb.message}
            for lb in d.labels
        ],
        "help": d.help,
    }


# ---------------------------------------------------------------------------
# Full (rustc) rendering


def render_full(diags: Sequence[Diagnostic], sources: Mapping[str, str],
                color: bool = False) -> str:
    """rustc's layout, one block per diagnostic, then the ``explain`` footer.

    ``sources`` maps a file name to its text; a label whose file or line isn't there
    is left out of the snippet (the `` --> `` line still says where).

    >>> from shapescript.source import Span
    >>> d = Diagnostic.error("E0403", "unknown axis `m`", Span("p.ss", 1, 37, 1, 38),
    ...                      "not an axis of `[b n D]`")
    >>> print(render_full([d], {"p.ss": "fn pool(x: [b n D]) -> [b D] = mean(x, over=m)"}), end="")
    error[E0403]: unknown axis `m`
     --> p.ss:1:37
      |
    1 | fn pool(x: [b n D]) -> [b D] = mean(x, over=m)
      |                                     ^ not an axis of `[b n D]`
    <BLANKLINE>
    For more information about E0403, run `shapescript explain E0403`.
    """
    if not diags:
        return ""
    paint = _Painter(color)
    blocks = ["\n".join(_render_one(d, sources, paint)) for d in diags]
    footer = _footer([d.code for d in diags], paint)
    text = "\n\n".join(blocks) + "\n"
    if footer:
        text += "\n" + footer + "\n"
    return text


def _footer(codes: Sequence[str], paint: "_Painter") -> str:
    # Only codes with an explain page, E0000 aside: its page says nothing the note
    # doesn't. Imported here so that rendering never needs the pages themselves.
    from shapescript.codes import CODES

    seen = list(dict.fromkeys(c for c in codes if c in CODES and c != ec.E0000))
    if not seen:
        return ""
    if len(seen) == 1:
        text = f"For more information about {seen[0]}, run `shapescript explain {seen[0]}`."
    else:
        text = f"For more information about an error, run `shapescript explain {seen[0]}`."
    return paint(text, _BOLD)


@dataclass(frozen=True, slots=True)
class _Mark:
    """One label on one source line, in display columns (0-based, end exclusive)."""

    start: int
    end: int
    message: str
    primary: bool


def _render_one(d: Diagnostic, sources: Mapping[str, str], paint: "_Painter") -> list[str]:
    style = _SEVERITY_STYLE.get(d.severity, _BOLD)
    lines = [paint(f"{d.severity}[{d.code}]", style) + paint(f": {d.message}", _BOLD)]

    # Labels by file, the diagnostic's own file first, then in order of appearance;
    # within a file, by line. Labels that can't be shown are dropped here.
    files: dict[str, dict[int, list[_Mark]]] = {d.file: {}}
    firsts: dict[str, Label] = {}
    split: dict[str, list[str]] = {}
    on_line: dict[tuple[str, int], list[tuple[int, Label]]] = {}
    for i, lb in enumerate(d.labels):
        text = sources.get(lb.file)
        if text is None:
            continue
        src_lines = split.get(lb.file)
        if src_lines is None:
            src_lines = split[lb.file] = _LINE_BREAK.split(text)
        if not 1 <= lb.line <= len(src_lines):
            continue
        firsts.setdefault(lb.file, lb)
        files.setdefault(lb.file, {})
        on_line.setdefault((lb.file, lb.line), []).append((i, lb))
    shown_lines: dict[tuple[str, int], str] = {}
    for (file, n), labels in on_line.items():
        text, shift = _window(split[file][n - 1], [lb for _, lb in labels])
        shown_lines[(file, n)] = text
        files[file][n] = [_mark(text, _shifted(lb, shift), primary=(i == 0))
                          for i, lb in labels]

    width = max((len(str(n)) for marks in files.values() for n in marks), default=1)
    pad = " " * width
    bar = paint("|", _BLUE)
    blank = f"{pad} {bar}"

    for k, (file, marks) in enumerate(files.items()):
        if k == 0:
            if file:
                lines.append(f"{pad}{paint('-->', _BLUE)} {file}:{d.line}:{d.column}")
        else:
            if not marks:
                continue
            lb = firsts[file]
            lines.append(blank)
            lines.append(f"{pad}{paint(':::', _BLUE)} {file}:{lb.line}:{lb.column}")
        if not marks:
            continue
        lines.append(blank)
        src_lines = split[file]
        previous = None
        for n in sorted(marks):
            if previous is not None and n - previous == 2:
                lines.append(_source_row(n - 1, _window(src_lines[n - 2], [])[0], width,
                                         paint))
            elif previous is not None and n - previous > 2:
                lines.append(paint("...", _BLUE))
            lines.append(_source_row(n, shown_lines[(file, n)], width, paint))
            lines.extend(f"{blank} {row}".rstrip()
                         for row in _annotation_rows(marks[n], style, paint))
            previous = n

    extras = ([("help", d.help)] if d.help else []) + [("note", n) for n in d.notes]
    if extras:
        lines.append(blank)
        for kind, text in extras:
            head = f"{pad} {paint('=', _BLUE)} {paint(kind, _BOLD)}: "
            indent = " " * (width + len(f" = {kind}: "))
            body = text.split("\n")
            lines.append(head + body[0])
            lines.extend((indent + more).rstrip() for more in body[1:])
    return [line.rstrip() for line in lines]


# Lines end as the lexer ends them (LF, CRLF or a lone CR), so line numbers agree.
_LINE_BREAK = re.compile(r"\r\n|\n|\r")

# A source line longer than this is shown as a window around its labels, so that one
# diagnostic in a minified or generated file doesn't print megabytes.
LONG_LINE = 400
_MARGIN = 60


def _window(text: str, labels: list[Label]) -> tuple[str, int]:
    """The part of a long source line to show (with "…" where it is cut) and how many
    characters its columns move left by; a line of at most ``LONG_LINE`` characters is
    shown whole."""
    if len(text) <= LONG_LINE:
        return text, 0
    starts = [max(lb.column - 1, 0) for lb in labels] or [0]
    ends = [lb.end_column - 1 if lb.end_line == lb.line else lb.column for lb in labels] or [0]
    lo = max(0, min(starts) - _MARGIN)
    hi = min(len(text), max(max(ends), min(starts) + 1) + _MARGIN, lo + LONG_LINE)
    shown = ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")
    return shown, lo - (1 if lo else 0)


def _shifted(lb: Label, shift: int) -> Label:
    if not shift:
        return lb
    end = lb.end_column - shift if lb.end_line == lb.line else lb.end_column
    return Label(lb.file, lb.line, lb.column - shift, lb.end_line, max(end, 1), lb.message)


def _source_row(n: int, text: str, width: int, paint: "_Painter") -> str:
    shown = _expand(text.rstrip("\r"))
    return f"{paint(str(n).ljust(width), _BLUE)} {paint('|', _BLUE)} {shown}".rstrip()


def _mark(text: str, lb: Label, primary: bool) -> _Mark:
    """The display columns under ``lb`` on its first line (to the line's end when the
    label runs onto later lines; at least one column)."""
    text = text.rstrip("\r")
    start_char = max(lb.column - 1, 0)
    end_char = lb.end_column - 1 if lb.end_line == lb.line else len(text)
    start = _column(text, start_char)
    end = max(_column(text, end_char), start + 1)
    return _Mark(start, end, lb.message, primary)


def _annotation_rows(marks: list[_Mark], style: str, paint: "_Painter") -> list[str]:
    """The underline row, then rustc's connector rows for the labels not written
    inline: the rightmost label's message goes after the underline, the others hang
    below their start on ``|`` lines, rightmost first."""
    marks = sorted(marks, key=lambda m: (m.start, not m.primary))
    width = max(m.end for m in marks)
    cells: list[tuple[str, str]] = [(" ", "")] * width
    # Secondary underlines first, so the primary's carets win where they overlap.
    for m in sorted(marks, key=lambda m: m.primary):
        char, st = ("^", style) if m.primary else ("-", _BLUE)
        for c in range(m.start, m.end):
            cells[c] = (char, st)
    underline = _join(cells, paint)

    inline = marks[-1]
    hanging = [m for m in marks[:-1] if m.message]
    if inline.message:
        underline += " " + paint(inline.message, _style_of(inline, style))
    rows = [underline]
    if not hanging:
        return rows

    def bars(upto: list[_Mark]) -> list[tuple[str, str]]:
        row: list[tuple[str, str]] = [(" ", "")] * (max(m.start for m in upto) + 1)
        for m in upto:
            row[m.start] = ("|", _style_of(m, style))
        return row

    rows.append(_join(bars(hanging), paint))
    for i in range(len(hanging) - 1, -1, -1):
        m = hanging[i]
        row = bars(hanging[:i]) if i else []
        row = row + [(" ", "")] * (m.start - len(row))
        rows.append(_join(row, paint) + paint(m.message, _style_of(m, style)))
    return rows


def _style_of(m: _Mark, style: str) -> str:
    return style if m.primary else _BLUE


def _join(cells: list[tuple[str, str]], paint: "_Painter") -> str:
    out, run, run_style = [], "", None
    for char, st in cells:
        if st != run_style and run:
            out.append(paint(run, run_style) if run_style else run)
            run = ""
        run_style = st
        run += char
    if run:
        out.append(paint(run, run_style) if run_style else run)
    return "".join(out)


def _column(text: str, index: int) -> int:
    """The display column of character ``index``; past the end each counts one (a span
    may point at the end of a line)."""
    return _display_width(text[:index]) + max(index - len(text), 0)


def _expand(text: str) -> str:
    return text.replace("\t", " " * TAB_WIDTH)


def _display_width(text: str) -> int:
    """Terminal columns: a tab is four, a wide (East Asian) character two, a combining
    mark none."""
    width = 0
    for ch in text:
        if ch == "\t":
            width += TAB_WIDTH
        elif unicodedata.combining(ch):
            continue
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            width += 2
        else:
            width += 1
    return width


class _Painter:
    """Wraps text in an ANSI style, or leaves it alone when colour is off."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str | None) -> str:
        if not self.color or not style or not text:
            return text
        return f"{style}{text}{_RESET}"
