"""Open files and positions: a ``Document`` (a file's text, its checker and its last
check), and the conversion between ShapeScript's positions and the editor's.

ShapeScript counts lines and columns from 1, columns in characters (code points). The
editor counts both from 0, columns in the units of the position encoding agreed when
the session starts: UTF-16 code units unless the client offers UTF-8 or UTF-32. A line
of ASCII reads the same in all of them; a line with ``é``, ``→`` or an emoji in a
comment or a string does not, so every position that crosses the protocol goes through
``Lines``.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from shapescript import api

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def uri_to_path(uri: str) -> str:
    """A ``file:`` URI's path (other schemes: the URI itself, as a name)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    return unquote(parsed.path)


def path_to_uri(path: str) -> str:
    """The URI of a file ShapeScript names (prelude names become their files)."""
    real = api.prelude_file(path) or path
    if real.startswith("<") or "://" in real:
        return real
    return Path(os.path.abspath(real)).as_uri()


def units(s: str, encoding: str) -> int:
    """How many of ``encoding``'s code units the text ``s`` is."""
    if s.isascii() or encoding == UTF32:
        return len(s)
    if encoding == UTF8:
        return len(s.encode("utf-8"))
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)  # a surrogate pair each


class Lines:
    """A text cut into lines, converting columns between characters (ShapeScript's)
    and the editor's code units.

    >>> lines = Lines("# é → 😀\\nx", "utf-16")
    >>> lines.position(1, 8)          # after the emoji: 7 characters, 8 UTF-16 units
    0:8
    >>> lines.chars(0, 8)
    7
    """

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        # An array, not a list: a large file has a hundred thousand lines, and a list
        # holds an integer object for each.
        self.starts = array("q", [0])
        self.starts.extend(m.end() for m in re.finditer("\n", text))
        self.ascii = text.isascii()

    def line(self, i: int) -> str:
        """The text of the 0-based line ``i``, without its line end."""
        if not 0 <= i < len(self.starts):
            return ""
        end = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[i]:end]

    def units(self, i: int, col: int) -> int:
        """The 0-based character column ``col`` of line ``i``, in code units."""
        if self.ascii or col <= 0:
            return max(col, 0)
        line = self.line(i)
        return units(line[:col], self.encoding) + max(col - len(line), 0)

    def chars(self, i: int, col: int) -> int:
        """The 0-based code-unit column ``col`` of line ``i``, in characters (a column
        inside a character is that character's; past the line's end, its end)."""
        if self.ascii or col <= 0:
            return max(col, 0)
        line = self.line(i)
        if self.encoding == UTF32:
            return min(col, len(line))
        n = 0
        for k, c in enumerate(line):
            n += units(c, self.encoding)
            if n > col:
                return k
        return len(line)

    def position(self, line: int, col: int) -> lsp.Position:
        """The editor's position of ShapeScript's 1-based ``line:col``."""
        i = max(line - 1, 0)
        return lsp.Position(i, self.units(i, max(col - 1, 0)))

    def range(self, line: int, col: int, end_line: int, end_col: int) -> lsp.Range:
        return lsp.Range(self.position(line, col), self.position(end_line, end_col))

    def point(self, pos: lsp.Position) -> tuple[int, int]:
        """ShapeScript's 1-based ``(line, column)`` of an editor's position."""
        return pos.line + 1, self.chars(pos.line, pos.character) + 1

    def offset(self, pos: lsp.Position) -> int:
        """The character offset in the text of an editor's position."""
        if pos.line >= len(self.starts):
            return len(self.text)
        return min(self.starts[pos.line] + self.chars(pos.line, pos.character), len(self.text))

    def slice(self, span: Any) -> str:
        """The text of ``span``, by its lines and columns."""
        starts = self.starts
        if span.line - 1 >= len(starts) or span.end_line - 1 >= len(starts):
            return ""
        return self.text[starts[span.line - 1] + span.col - 1:
                         starts[span.end_line - 1] + span.end_col - 1]


@lru_cache(maxsize=16)
def _disk_lines(path: str, stamp: tuple[int, int], encoding: str) -> Lines:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError):
        text = ""
    return Lines(text, encoding)


def disk_lines(path: str, encoding: str = UTF16) -> Lines:
    """The lines of a file on disk (a prelude name: its file), read again when it
    changes."""
    real = api.prelude_file(path) or path
    try:
        st = os.stat(real)
    except OSError:
        return Lines("", encoding)
    return _disk_lines(real, (st.st_mtime_ns, st.st_size), encoding)


@dataclass(frozen=True)
class Checked:
    """A finished check of one text: what a document answers with once it is applied.
    ``deps``: the files the check depends on, when no checker is kept to ask."""

    text: str
    lines: Lines
    program: Any
    deps: frozenset[str] | None = None


@dataclass
class Document:
    """One open file: its text, its incremental checker and its last check.

    ``encoding`` is the position encoding agreed with the editor; ``overlay`` gives the
    text of another open file by its absolute path (its unsaved edits), or None."""

    uri: str
    text: str = ""
    version: int | None = None
    checker: Any = None
    program: Any = None
    # The last check whose main module exists (kept while the text doesn't parse at
    # all, so completion still knows the file's names).
    good: Any = None
    encoding: str = UTF16
    overlay: Callable[[str], str | None] | None = None
    lines: Lines = field(default_factory=lambda: Lines(""))
    deps: frozenset[str] | None = None
    _others: dict[str, Lines] = field(default_factory=dict, repr=False)

    @property
    def path(self) -> str:
        return uri_to_path(self.uri)

    def update(self, text: str) -> Any:
        """Checks ``text``, reusing what the last version's check can, and makes it the
        document's state."""
        self.apply(self.check(text), self.version)
        return self.program

    def check(self, text: str, *, fresh: bool = False, incremental: bool = True,
              cancelled: Callable[[], bool] | None = None) -> Checked:
        """The check of ``text``, without changing what the document answers with (a
        check runs on a worker thread while requests read the last state).

        ``fresh`` forgets the last check (the files it imports may have changed on
        disk); ``incremental=False`` keeps no checker afterwards (a large file: its
        checker's records would double its memory, and it is checked only on save).
        ``cancelled`` is polled during the check: True raises ``api.CheckCancelled``."""
        checker = None if fresh or not incremental else self.checker
        if checker is None:
            checker = api.IncrementalChecker(self.path, overlay=self.overlay, keep=incremental)
        checker.cancelled = cancelled
        try:
            program = checker.update(text)
        finally:
            checker.cancelled = None
        self.checker = checker if incremental else None
        lines = self.lines
        if lines.text != text or lines.encoding != self.encoding:
            lines = Lines(text, self.encoding)
        return Checked(text, lines, program,
                       checker.dependencies() if not incremental else None)

    def apply(self, checked: Checked, version: int | None) -> None:
        """Makes ``checked`` the state the document answers with."""
        self.text, self.lines, self.program = checked.text, checked.lines, checked.program
        self.version = version
        self.deps = checked.deps
        self._others = {}
        if checked.program.main is not None:
            self.good = checked.program

    def depends_on(self, path: str) -> bool:
        """Whether the last check read the file at ``path`` or looked for a module
        there (see ``IncrementalChecker.depends_on``)."""
        if self.checker is not None:
            return bool(self.checker.depends_on(path))
        return os.path.abspath(path) in (self.deps or frozenset())

    @property
    def module(self) -> Any:
        """The checked main module of the current text (None when nothing parsed)."""
        p = self.program
        return None if p is None or p.main is None else p.main

    @property
    def known(self) -> Any:
        """The current checked module, else the last one there was (for completion
        while the file doesn't parse at all)."""
        if self.module is not None:
            return self.module
        p = self.good
        return None if p is None or p.main is None else p.main

    # -- other files' text -------------------------------------------------------------
    def is_self(self, path: str) -> bool:
        return path == self.path or (not path.startswith("<")
                                     and os.path.abspath(path) == os.path.abspath(self.path))

    def lines_of(self, path: str) -> Lines:
        """The lines of the file ``path`` as this check read it: this document, an
        imported module's checked text, another open file's buffer, else the disk."""
        if self.is_self(path):
            return self.lines
        got = self._others.get(path)
        if got is not None:
            return got
        text = (self.program.sources.get(path) if self.program is not None else None)
        if text is None and self.overlay is not None and not path.startswith("<"):
            text = self.overlay(os.path.abspath(path))
        got = Lines(text, self.encoding) if text is not None else disk_lines(path, self.encoding)
        self._others[path] = got
        return got

    def source(self, path: str, span: Any) -> str:
        """The text of ``span`` in the file ``path``."""
        return self.lines_of(path).slice(span)

    def slice(self, span: Any) -> str:
        """The text of ``span`` in this file."""
        return self.lines.slice(span)

    # -- positions -------------------------------------------------------------------------
    def point(self, pos: lsp.Position) -> tuple[int, int]:
        """ShapeScript's 1-based ``(line, column)`` in this file of an editor's position."""
        return self.lines.point(pos)

    def range_in(self, path: str, line: int, col: int, end_line: int,
                 end_col: int) -> lsp.Range:
        """The editor's range of a place in the file ``path``."""
        return self.lines_of(path).range(line, col, end_line, end_col)

    def span_range(self, span: Any) -> lsp.Range:
        return self.range_in(span.file, span.line, span.col, span.end_line, span.end_col)

    def location(self, span: Any) -> lsp.Location:
        return lsp.Location(path_to_uri(span.file), self.span_range(span))
