"""Diagnostics as values: collected by every phase, rendered once by ``render``."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapescript.source import Span

# What an internal error (E0000) tells the user, wherever one is made.
INTERNAL_NOTE = (
    "this is a bug in ShapeScript, not in your program; please report it, with this file"
)


@dataclass(frozen=True, slots=True)
class Label:
    """A span with a message; a diagnostic's first label is its primary span."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str

    @staticmethod
    def at(span: Span, message: str = "") -> "Label":
        return Label(span.file, span.line, span.col, span.end_line, span.end_col, message)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error or warning, with the fields of ``--format json``."""

    code: str
    severity: str  # "error" | "warning"
    message: str
    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    labels: tuple[Label, ...] = field(default=())
    help: str | None = None
    notes: tuple[str, ...] = field(default=())

    @staticmethod
    def error(code: str, message: str, span: Span, label: str = "", *,
              help: str | None = None, extra: tuple[Label, ...] = (),
              notes: tuple[str, ...] = ()) -> "Diagnostic":
        """An error at ``span`` whose primary label says ``label``."""
        return Diagnostic(code, "error", message, span.file, span.line, span.col,
                          span.end_line, span.end_col, (Label.at(span, label),) + extra,
                          help, notes)

    @staticmethod
    def warning(code: str, message: str, span: Span, label: str = "", *,
                help: str | None = None) -> "Diagnostic":
        return Diagnostic(code, "warning", message, span.file, span.line, span.col,
                          span.end_line, span.end_col, (Label.at(span, label),), help)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.line, self.column, self.code)
