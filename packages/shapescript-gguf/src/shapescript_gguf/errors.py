"""The errors a GGUF export raises besides the program's own diagnostics."""

from __future__ import annotations

__all__ = ["CommandError"]


class CommandError(ValueError):
    """An error of the command rather than of the program: a bad option, a function or
    file that isn't there, a checkpoint that can't be used (exit code 2)."""
