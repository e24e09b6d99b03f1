"""The tokens the scanner makes and the layout pass groups into chunks.

A ``Tok`` is one token (its ``type`` is a terminal of ``grammar.lark``); a ``Chunk`` is
the tokens of one top-level declaration, with what the layout pass learnt about them
(matched brackets, where lexical errors were reported), ready for the parser.
"""

from __future__ import annotations

__all__ = ["Chunk", "Tok", "describe"]


class Tok:
    """A token. Positions use the names of ``Span``'s fields (1-based, end exclusive)."""

    __slots__ = ("type", "value", "line", "col", "end_line", "end_col", "start", "end")

    def __init__(self, type: str, value, line: int, col: int, end_line: int, end_col: int,
                 start: int, end: int) -> None:
        self.type = type
        self.value = value
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        self.start = start
        self.end = end

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Tok({self.type}, {self.value!r}, {self.line}:{self.col})"


class Chunk:
    """The tokens of one top-level declaration (with its block), ready for the parser."""

    __slots__ = ("tokens", "matches", "err_at", "local_errs", "open_errs", "triggers")

    def __init__(self) -> None:
        self.tokens: list[Tok] = []
        self.matches: dict[int, int] = {}  # index of an opening bracket -> its closer
        self.err_at: int | None = None  # offset of the first lexical error, if any
        self.local_errs: list[list[int]] = []  # [start, end of its logical line]
        self.open_errs = 0  # local_errs[open_errs:] are still open (their line goes on)
        self.triggers: list[int] = []  # indices of the "(" of rearrange/reduce/repeat/einsum

    def error_at(self, pos: int) -> None:
        """A lexical error at ``pos``: the parser's errors after it are not reported."""
        if self.err_at is None or pos < self.err_at:
            self.err_at = pos

    def local_error_at(self, pos: int) -> None:
        """A lexical error at ``pos`` whose effects end with its logical line."""
        self.local_errs.append([pos, 1 << 62])

    def end_line(self, pos: int) -> None:
        """A logical line ends at ``pos``: it bounds the local errors still open (all of
        them: they were met before ``pos``). Only those are visited, so a file with an
        error on every line stays linear."""
        errs = self.local_errs
        for k in range(self.open_errs, len(errs)):
            e = errs[k]
            if e[1] > pos and e[0] <= pos:
                e[1] = pos
        self.open_errs = len(errs)

    def suppressed(self, pos: int) -> bool:
        """Whether a syntax error at ``pos`` may be a consequence of a lexical one."""
        if self.err_at is not None and pos >= self.err_at:
            return True
        for a, b in self.local_errs:
            if a <= pos <= b:
                return True
        return False


def describe(tok: Tok, src: str) -> str:
    """How a token is named in a message: its text, or what it stands for."""
    t = tok.type
    if t == "NEWLINE":
        return "end of line"
    if t == "INDENT":
        return "indentation"
    if t == "DEDENT":
        return "end of block"
    if t == "$END":
        return "end of file"
    if t == "PATTERN":
        return "pattern"
    text = src[tok.start:tok.end]
    if len(text) > 30:
        text = text[:27] + "..."
    return f"`{text}`"
