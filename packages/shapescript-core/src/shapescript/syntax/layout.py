"""The layout pass: the scanner's tokens to chunks of tokens the LALR grammar reads.

* logical lines: ``NEWLINE`` ends one, line breaks inside ``()``/``[]`` continue it;
  ``INDENT``/``DEDENT`` by indentation, as in Python (tabs and inconsistent dedents are
  E0102);
* brackets are matched (E0103 for one never closed, E0101 for a stray closer); a
  declaration keyword met in column 1 inside brackets closes them all (they were left
  open), so the rest of the file still parses;
* *chunks*: a logical line that starts in column 1 begins a new top-level chunk, which
  the parser parses on its own, so one broken declaration doesn't hide the errors in the
  others;
* retagging: ``zeros``/``ones``/… followed by ``[`` become ``CTOR``; a keyword after
  ``.`` is a ``NAME`` (``x.to``); ``over`` before ``=`` or ``:`` is a ``NAME``
  (``over=n``, ``over: Axis[n]``); so is a keyword that is no Python keyword
  (``dim``) starting an argument before ``=`` (``f(x, dim=0)``) or an ``extern fn``'s
  parameter before ``:``;
* each chunk's einops patterns (and ``pack``/``unpack``'s) are collapsed into ``PATTERN``
  tokens (``patterns.collapse_patterns``) once the chunk is complete.

A lexical error marks the chunk (``Chunk.error_at``, ``Chunk.local_error_at``) so that
the syntax errors that may follow from it aren't reported too.
"""

from __future__ import annotations

from shapescript.builtin_registry import CONSTRUCTOR_NAMES, PATTERN_NAMES
from shapescript.diagnostics import Diagnostic, Label
from shapescript.source import Span
from shapescript.syntax.patterns import collapse_patterns
from shapescript.syntax.scanner import KEYWORDS
from shapescript.syntax.tokens import Chunk, Tok
from shapescript import error_codes as ec

__all__ = ["CONSTRUCTORS", "DECL_KEYWORDS", "PATTERN_CALLS", "layout"]

# Keywords that start a top-level declaration: one met in column 1 inside brackets ends
# the brackets (they were left open) so that the rest of the file still parses.
DECL_KEYWORDS = frozenset({"DIM", "CONST", "FN", "EXTERN", "EXPORT", "MODEL", "IMPORT",
                           "FROM", "DEVICES"})
# The built-in registry says which names are constructors (`zeros[n D]`) and which calls
# take a bare pattern; the lexer reads their brackets and patterns differently.
CONSTRUCTORS = CONSTRUCTOR_NAMES
PATTERN_CALLS = PATTERN_NAMES

_BRACKETS = frozenset({"LPAR", "RPAR", "LSQB", "RSQB"})
_MARKERS = frozenset({"ERR_LINE", "ERR_STRING", "ERR_REST"})
# The tokens that need more than appending (at the start of a line or after `.`, all do).
_SPECIAL = _BRACKETS | _MARKERS | {"NL", "EQUAL", "COLON"}
# Token types a keyword may have: after `.` such a token is an attribute's name.
_KEYWORD_TYPES = frozenset(KEYWORDS.values()) - {"UNDERSCORE"}
# Keywords that may name an `extern fn`'s parameter and its keyword argument (`dim: int`,
# `index_copy(x, dim=0, …)`), as the Python functions they type name theirs: those that
# are not Python keywords too (Python could not take `in=`), nor literals.
_PARAM_KEYWORDS = frozenset({"DIM", "CONST", "FN", "EXTERN", "EXPORT", "MODEL", "PARAM",
                             "PYTHON", "DEVICES", "TO"})


def layout(src: str, path: str, tokens: list[Tok], diags: list[Diagnostic]) -> list[Chunk]:
    """The chunks of a file from its scanned ``tokens``; errors are appended to ``diags``."""
    return _Layout(src, path, diags).run(tokens)


class _Layout:
    """The pass's state. ``run`` keeps what changes at every token in local variables (it
    is the lexer's hot loop) and calls methods for what happens once a line."""

    def __init__(self, src: str, path: str, diags: list[Diagnostic]) -> None:
        self.src = src
        self.path = path
        self.diags = diags
        self.chunks: list[Chunk] = []
        self.indents = [0]
        self.tab_reported = False
        self.dedent_reported = False

    def tok_span(self, t: Tok) -> Span:
        return Span(self.path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)

    def error(self, code: str, message: str, span: Span, label: str = "", **kw) -> None:
        self.diags.append(Diagnostic.error(code, message, span, label, **kw))

    # -- the pass ----------------------------------------------------------------------

    def run(self, tokens: list[Tok]) -> list[Chunk]:
        chunk = Chunk()
        toks = chunk.tokens
        stack: list[int] = []  # indices (in toks) of open brackets
        line = 1
        line_start = 1 if self.src.startswith("\ufeff") else 0
        at_line_start = True
        line_has_tokens = False
        prev = ""  # the type of the last token appended
        append = toks.append
        src = self.src
        indents = self.indents
        special = _SPECIAL
        for tok in tokens:
            ttype = tok.type
            if ttype in special or at_line_start or prev == "DOT":
                if ttype == "NL":
                    if line_has_tokens and not stack:
                        if chunk.local_errs:
                            chunk.end_line(tok.start)
                        append(Tok("NEWLINE", "\n", line, tok.col, line, tok.col + 1,
                                   tok.start, tok.start + 1))
                        prev = "NEWLINE"
                        line_has_tokens = False
                    line += 1
                    line_start = tok.end
                    at_line_start = True
                    continue
                if ttype in _MARKERS:
                    self.marker(tok, chunk, stack, line)
                    continue
                if prev == "DOT" and ttype in _KEYWORD_TYPES and (
                        ttype != "OP" or tok.value in ("and", "or")):
                    tok.type = ttype = "NAME"  # x.to, m.in …: attribute names may be keywords
                elif (ttype == "EQUAL" or ttype == "COLON") and prev == "OVER":
                    toks[-1].type = "NAME"  # over=n, over: Axis[n]
                elif (prev in _PARAM_KEYWORDS and stack and toks[-2].type in ("LPAR", "COMMA")
                      and (ttype == "EQUAL" or (ttype == "COLON" and toks[0].type == "EXTERN"))):
                    toks[-1].type = "NAME"  # f(x, dim=0); extern fn f(x: …, dim: int)
                if at_line_start:
                    at_line_start = False
                    col = tok.col
                    if stack:
                        changes = col == 1 and ttype in DECL_KEYWORDS
                    else:  # (a line indented as the one before, with spaces, changes nothing)
                        changes = col == 1 or col - 1 != indents[-1] or bool(
                            src[line_start:tok.start].strip(" "))
                    if changes:
                        chunk, line_has_tokens = self.line_start(
                            chunk, stack, tok, line, line_start, line_has_tokens)
                        toks = chunk.tokens
                        append = toks.append
                line_has_tokens = True
                if ttype in _BRACKETS and not self.bracket(chunk, stack, tok, prev):
                    continue
            append(tok)
            prev = ttype
        self.end_of_file(chunk, stack, line, line_start, line_has_tokens)
        return self.chunks

    def marker(self, tok: Tok, chunk: Chunk, stack: list[int], line: int) -> None:
        """A lexical error the scanner reported (see ``scanner``'s docstring)."""
        if tok.type == "ERR_REST":
            chunk.error_at(tok.start)
            return
        chunk.local_error_at(tok.start)
        if tok.type == "ERR_STRING":
            # The string swallowed the rest of the line, closing brackets included:
            # those opened on this line aren't reported again (E0103).
            toks = chunk.tokens
            while stack and toks[stack[-1]].line == line:
                stack.pop()

    def line_start(self, chunk: Chunk, stack: list[int], tok: Tok, line: int,
                   line_start: int, line_has_tokens: bool) -> tuple[Chunk, bool]:
        """The first token of a physical line: brackets left open, indentation, and a
        new chunk at column 1. Returns the chunk the token goes to and whether the
        logical line has tokens already."""
        toks = chunk.tokens
        col = tok.col
        start = tok.start
        if stack and col == 1 and tok.type in DECL_KEYWORDS:
            self.close_all(toks, stack)
            chunk.error_at(toks[stack[0]].start)
            stack.clear()
            if line_has_tokens:
                pt = toks[-1]
                toks.append(Tok("NEWLINE", "\n", pt.end_line, pt.end_col, pt.end_line,
                                pt.end_col, pt.end, pt.end))
                line_has_tokens = False
        if stack:
            return chunk, line_has_tokens
        indents = self.indents
        indent = col - 1
        if indent or len(indents) > 1:
            lead = self.src[line_start:start]
            if "\t" in lead or "\f" in lead or "\v" in lead:
                indent = self.tabs(chunk, line, line_start, start, col, lead)
        if indent == 0:
            while len(indents) > 1:
                indents.pop()
                toks.append(Tok("DEDENT", "", line, col, line, col, start, start))
            if toks:
                self.finish(chunk)
                chunk = Chunk()
            self.dedent_reported = False
        elif indent > indents[-1]:
            indents.append(indent)
            toks.append(Tok("INDENT", "", line, 1, line, col, line_start, start))
        elif indent < indents[-1]:
            while indent < indents[-1]:
                indents.pop()
                toks.append(Tok("DEDENT", "", line, col, line, col, start, start))
            if indent != indents[-1]:
                self.bad_dedent(chunk, line, line_start, start, col)
        return chunk, line_has_tokens

    def bracket(self, chunk: Chunk, stack: list[int], tok: Tok, prev: str) -> bool:
        """Match a bracket; False to drop it (a stray closer, reported)."""
        toks = chunk.tokens
        ttype = tok.type
        if ttype == "LPAR" or ttype == "LSQB":
            idx = len(toks)
            if prev == "NAME":
                pt = toks[-1]
                pv = pt.value
                if ttype == "LSQB":
                    if pv in CONSTRUCTORS and not (idx > 1 and toks[-2].type == "DOT"):
                        pt.type = "CTOR"
                elif pv in PATTERN_CALLS and not (idx > 1 and toks[-2].type == "DOT"):
                    chunk.triggers.append(idx)
            stack.append(idx)
            return True
        want = "LPAR" if ttype == "RPAR" else "LSQB"
        if stack and toks[stack[-1]].type == want:
            chunk.matches[stack.pop()] = len(toks)
            return True
        return self.mismatch(chunk, toks, stack, tok, want)

    def end_of_file(self, chunk: Chunk, stack: list[int], line: int, line_start: int,
                    line_has_tokens: bool) -> None:
        toks = chunk.tokens
        n = len(self.src)
        last_col = n - line_start + 1
        if stack:
            self.close_all(toks, stack)
            chunk.error_at(toks[stack[0]].start)
        if line_has_tokens:
            toks.append(Tok("NEWLINE", "\n", line, last_col, line, last_col, n, n))
        indents = self.indents
        while len(indents) > 1:
            indents.pop()
            toks.append(Tok("DEDENT", "", line, last_col, line, last_col, n, n))
        if toks:
            self.finish(chunk)

    def finish(self, chunk: Chunk) -> None:
        if chunk.triggers:
            collapse_patterns(chunk, self.path, self.src, self.diags)
        self.chunks.append(chunk)

    # -- errors ------------------------------------------------------------------------

    def close_all(self, toks: list[Tok], stack: list[int]) -> None:
        """Brackets left open (at the end of the file or of a declaration): E0103.

        One per line: the brackets opened after it on its line are one mistake with it
        (5,000 `(` in a row are not 5,000 errors), counted in a note."""
        k = 0
        while k < len(stack):
            ot = toks[stack[k]]
            j = k + 1
            while j < len(stack) and toks[stack[j]].line == ot.line:
                j += 1
            closer = ")" if ot.type == "LPAR" else "]"
            more = j - k - 1
            notes = (f"and {more:,} more bracket{'s' if more > 1 else ''} opened after it on "
                     "this line, never closed",) if more else ()
            self.error(ec.E0103, f"unclosed `{ot.value}`", self.tok_span(ot),
                       "this bracket is never closed", help=f"add `{closer}` where it ends",
                       notes=notes)
            k = j

    def tabs(self, chunk: Chunk, line: int, line_start: int, start: int, col: int,
             lead: str) -> int:
        if not self.tab_reported:
            self.error(ec.E0102, "tab in indentation",
                       Span(self.path, line, 1, line, col, line_start, start),
                       "indent with spaces", help="ShapeScript indents with spaces only")
            self.tab_reported = True
        chunk.error_at(line_start)
        return len(lead.expandtabs(8))

    def bad_dedent(self, chunk: Chunk, line: int, line_start: int, start: int,
                   col: int) -> None:
        if not self.dedent_reported:
            self.error(ec.E0102, "unindent does not match any outer indentation level",
                       Span(self.path, line, 1, line, col, line_start, start),
                       "this line's indentation", help="indent it as the block it belongs to")
            self.dedent_reported = True
        chunk.error_at(line_start)

    def mismatch(self, chunk: Chunk, toks: list[Tok], stack: list[int], tok: Tok,
                 want: str) -> bool:
        """A closing bracket that doesn't close the innermost one; True to keep it."""
        value = tok.value
        deeper = [k for k in range(len(stack)) if toks[stack[k]].type == want]
        if deeper:
            k = deeper[-1]
            chunk.error_at(toks[stack[k + 1]].start)
            for idx in stack[k + 1:]:
                ot = toks[idx]
                closer = ")" if ot.type == "LPAR" else "]"
                self.error(ec.E0103, f"unclosed `{ot.value}`", self.tok_span(ot),
                           "this bracket is never closed",
                           help=f"add `{closer}` before `{value}`",
                           extra=(Label.at(self.tok_span(tok),
                                           f"`{value}` closes an outer bracket"),))
            chunk.matches[stack[k]] = len(toks)
            del stack[k:]
            return True
        chunk.local_error_at(tok.start)
        self.error(ec.E0101, f"unexpected closing `{value}`", self.tok_span(tok),
                   "no bracket is open here" if not stack
                   else f"`{toks[stack[-1]].value}` is open here")
        return False
