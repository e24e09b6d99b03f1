"""ShapeScript's lexer: the scanner, then the layout pass, over one file.

``scanner.scan`` makes context-free tokens; ``layout.layout`` turns them into the chunks
of tokens the grammar reads (logical lines, indentation, brackets, retagging, one chunk
per top-level declaration), and has ``patterns.collapse_patterns`` make each einops
pattern one ``PATTERN`` token. ``##`` doc comments are found apart, by
``doc_comments.scan_docs``.
"""

from __future__ import annotations

from shapescript.diagnostics import Diagnostic
from shapescript.syntax.layout import CONSTRUCTORS, DECL_KEYWORDS, PATTERN_CALLS, layout
from shapescript.syntax.scanner import KEYWORDS, PUNCT, scan
from shapescript.syntax.tokens import Chunk, Tok, describe

__all__ = ["CONSTRUCTORS", "DECL_KEYWORDS", "KEYWORDS", "PATTERN_CALLS", "PUNCT", "Chunk",
           "Lexer", "Tok", "describe"]


class Lexer:
    """Turns one source file into chunks of tokens, collecting diagnostics in ``diags``.

    >>> [t.type for t in Lexer("fn f() = x.to\\n", "f.ss").run()[0].tokens]
    ['FN', 'NAME', 'LPAR', 'RPAR', 'EQUAL', 'NAME', 'DOT', 'NAME', 'NEWLINE']
    """

    def __init__(self, src: str, path: str) -> None:
        self.src = src
        self.path = path
        self.diags: list[Diagnostic] = []
        self.chunks: list[Chunk] = []

    def run(self) -> list[Chunk]:
        self.chunks = layout(self.src, self.path, scan(self.src, self.path, self.diags),
                             self.diags)
        return self.chunks
