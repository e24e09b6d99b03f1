"""``Fail``: how the checker's pure helper modules report a user error.

Helpers (domains, broadcasting, patterns) raise ``Fail``; the checker catches it at
the expression that called the helper, turns it into a ``Diagnostic`` at
``span`` (or at that expression when ``span`` is None) and gives the expression the
error type, so one mistake makes one diagnostic.
"""

from __future__ import annotations

from shapescript.source import Span


class Fail(Exception):
    """A user error found by a checker helper.

    ``Fail.reported()`` is an error already reported elsewhere (by the parser, or at
    another node): the expression gets the error type and no diagnostic is added.
    """

    @staticmethod
    def reported() -> "Fail":
        return Fail("", "already reported")

    def __init__(self, code: str, message: str, label: str = "", *,
                 help: str | None = None, span: Span | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.label = label
        self.help = help
        self.span = span
