"""Inline suppressions: ``# noqa: E0401, E0413`` at the end of a line hides those codes'
diagnostics that start on that line, in ``shapescript check`` and the editor.

A suppression hides what is reported, as the ``ignore`` setting does; it does not make a
program with an error build or run. It names its codes (a bare ``# noqa`` hides
nothing), and a code it names with no diagnostic on its line, or one that isn't a code,
is an unused suppression: warning E1901, so suppressions don't outlive the mistakes they
were for. An internal error (E0000) is never hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from shapescript.diagnostics import Diagnostic, Label
from shapescript import error_codes as ec

__all__ = ["Suppression", "apply_suppressions", "suppressions"]

UNUSED = ec.E1901
# `# noqa` then, optionally, `: CODES`; case-insensitive, as flake8 and ruff read it.
_NOQA = re.compile(r"#[ \t]*noqa(?![\w-])(?:[ \t]*:[ \t]*(?P<codes>[^#\n]*))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+\d+")


@dataclass(frozen=True, slots=True)
class Suppression:
    """One ``# noqa`` comment: its line, the columns of the comment (1-based, end
    excluded), and the codes it names with the columns of each."""

    file: str
    line: int
    col: int
    end_col: int
    codes: tuple[tuple[str, int, int], ...]


def suppressions(text: str, path: str) -> list[Suppression]:
    """The ``# noqa`` comments of ``text`` (a ``#`` inside a string is not a comment;
    ``##`` documentation is not a suppression)."""
    if "noqa" not in text.lower():
        return []
    out = []
    for i, line in enumerate(text.split("\n"), start=1):
        if "noqa" not in line.lower():
            continue
        k = _comment_start(line)
        if k is None or line.startswith("##", k):
            continue
        m = _NOQA.match(line, k)
        if m is None:
            continue
        codes = []
        if m.group("codes") is not None:
            base = m.start("codes")
            for c in _CODE.finditer(m.group("codes")):
                codes.append((c.group(0).upper(), base + c.start() + 1, base + c.end() + 1))
        end = len(line[:m.end()].rstrip())
        out.append(Suppression(path, i, k + 1, end + 1, tuple(codes)))
    return out


def _comment_start(line: str) -> int | None:
    """Where the comment of a line starts, outside any string literal."""
    quote = None
    escaped = False
    for k, c in enumerate(line):
        if quote is not None:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            return k
    return None


def apply_suppressions(diags: Sequence[Diagnostic], sources: Mapping[str, str],
                       report_unused_in: Iterable[str] = ()) -> list[Diagnostic]:
    """``diags`` less those a ``# noqa`` of their file hides (the files' texts are in
    ``sources``), and an E1901 warning for each code a suppression in one of the files
    ``report_unused_in`` names without a diagnostic to hide, sorted into place.

    >>> from shapescript.diagnostics import Diagnostic
    >>> d = Diagnostic("E0402", "error", "ranks differ", "a.ss", 1, 1, 1, 2)
    >>> apply_suppressions([d], {"a.ss": "x  # noqa: E0402\\n"}, ["a.ss"])
    []
    """
    found: dict[str, list[Suppression]] = {}
    files = {d.file for d in diags} | set(report_unused_in)
    for path in files:
        text = sources.get(path)
        if text is not None:
            found[path] = suppressions(text, path)
    if not any(found.values()):
        return list(diags)
    by_line = {(s.file, s.line): s for supps in found.values() for s in supps}
    used: set[tuple[str, int, str]] = set()
    kept = []
    for d in diags:
        s = by_line.get((d.file, d.line))
        if s is not None and d.code != ec.E0000 and any(c == d.code for c, _, _ in s.codes):
            used.add((d.file, d.line, d.code))
            continue
        kept.append(d)
    unused = [w for path in report_unused_in for s in found.get(path, ())
              for w in _unused(s, used)]
    if not unused:
        return kept
    order = {f: k for k, f in enumerate(dict.fromkeys(d.file for d in list(diags) + unused))}
    return sorted(kept + unused, key=lambda d: (order[d.file], d.line, d.column))


def _unused(s: Suppression, used: set[tuple[str, int, str]]) -> list[Diagnostic]:
    from shapescript.codes import CODES

    if not s.codes:
        return [_warning(s, s.col, s.end_col, "this suppression names no code",
                         "name the codes it hides, as in `# noqa: E0402`")]
    out = []
    for code, a, b in s.codes:
        if (s.file, s.line, code) in used:
            continue
        if code not in CODES:
            out.append(_warning(s, a, b, f"unused suppression: `{code}` is not a code",
                                f"remove `{code}` (see `shapescript explain` for the codes)"))
        else:
            out.append(_warning(s, a, b, f"unused suppression: no {code} on this line",
                                f"remove `{code}` from the comment"))
    return out


def _warning(s: Suppression, col: int, end_col: int, message: str, help: str) -> Diagnostic:
    label = Label(s.file, s.line, col, s.line, end_col, "")
    return Diagnostic(UNUSED, "warning", message, s.file, s.line, col, s.line, end_col,
                      (label,), help)
