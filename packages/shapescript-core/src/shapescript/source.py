"""Source files and spans: where every node and diagnostic points."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A region of one source file.

    Lines and columns count from 1, in characters; ``end_line``/``end_col`` are
    exclusive (the column just after the last character). ``start``/``end`` are
    character offsets into the source text.
    """

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int = 0
    end: int = 0

    def to(self, other: "Span") -> "Span":
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.file, self.line, self.col, other.end_line, other.end_col,
                    self.start, other.end)


NO_SPAN = Span("<builtin>", 1, 1, 1, 1)
