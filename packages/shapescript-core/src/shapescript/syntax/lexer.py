"""ShapeScript's lexer and post-lexer.

One pass over the source makes the tokens the LALR grammar (``grammar.lark``) reads:

* tokens by one master regular expression (floats before number-names,
  ``1.`` is not a float, so ``0..L`` is ``0 .. L``);
* logical lines: ``NEWLINE`` ends one, newlines inside ``()``/``[]`` continue it;
  ``INDENT``/``DEDENT`` by indentation, as in Python (tabs and inconsistent dedents are
  E0102);
* *chunks*: a logical line that starts in column 1 begins a new top-level chunk, which the
  parser parses on its own, so one broken declaration doesn't hide the errors in the
  others;
* retagging: ``zeros``/``ones``/… followed by ``[`` become ``CTOR``; a keyword after ``.``
  is a ``NAME`` (``x.to``); ``over`` before ``=`` or ``:`` is a ``NAME`` (``over=n``,
  ``over: Axis[n]``); ``and``/``or`` are ``OP`` tokens;
* patterns: in ``rearrange(…)``/``reduce(…)``/``repeat(…)`` the argument holding a
  top-level ``->`` and in ``einsum(…)`` everything from the top-level ``:`` to the first
  ``, NAME =`` or ``)`` collapse into one ``PATTERN`` token whose value is an
  ``ast.Pattern`` (``einsum``'s ``:`` becomes a ``,`` before it), since LALR can't parse
  ``b (h w)`` as an expression.

``##`` doc comments are found by a separate scan of the lines (``scan_docs``).
"""

from __future__ import annotations

import re

from shapescript.builtin_registry import BUILTINS_BY_NAME, CONSTRUCTOR_NAMES, PATTERN_NAMES
from shapescript.diagnostics import Diagnostic, Label
from shapescript.source import Span
from shapescript.syntax import ast


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


KEYWORDS = {
    "_": "UNDERSCORE", "dim": "DIM", "const": "CONST", "fn": "FN", "extern": "EXTERN", "export": "EXPORT",
    "model": "MODEL", "param": "PARAM", "import": "IMPORT", "from": "FROM", "python": "PYTHON",
    "devices": "DEVICES", "return": "RETURN", "if": "IF", "elif": "ELIF", "else": "ELSE",
    "for": "FOR", "in": "IN", "and": "OP", "or": "OP", "not": "NOT", "as": "AS", "to": "TO",
    "over": "OVER", "with": "WITH", "true": "TRUE", "false": "FALSE", "none": "NONE",
}

# Keywords that start a top-level declaration: one met in column 1 inside brackets ends
# the brackets (they were left open) so that the rest of the file still parses.
DECL_KEYWORDS = frozenset({"DIM", "CONST", "FN", "EXTERN", "EXPORT", "MODEL", "IMPORT", "FROM",
                           "DEVICES"})

PUNCT = {
    "(": "LPAR", ")": "RPAR", "[": "LSQB", "]": "RSQB", ",": "COMMA", ":": "COLON",
    "=": "EQUAL", ".": "DOT", "...": "ELLIPSIS", "->": "ARROW", "?": "QMARK", "-": "MINUS",
}

_BRACKETS = frozenset({"LPAR", "RPAR", "LSQB", "RSQB"})
# The registry's: `zeros[n D]` is a constructor; these calls take a bare pattern.
CONSTRUCTORS = CONSTRUCTOR_NAMES
PATTERN_CALLS = PATTERN_NAMES
PACK_CALLS = frozenset(n for n in PATTERN_NAMES if BUILTINS_BY_NAME[n].pattern == "pack")

# Whitespace and a comment are skipped in front of every token (one match per token).
_TOKEN_RE = re.compile(r"""
[ \t\f\v]*(?:\#[^\r\n]*)?
(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)
|(?P<op>\.\.\.|\.\.|->|=>|\|>|//|\*\*|==|!=|<=|>=|[-+*/%@<>()\[\],:=.?])
|(?P<nl>\r\n|\n|\r)
|(?P<float>[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)
|(?P<numname>[0-9]+[A-Za-z_][A-Za-z0-9_]*)
|(?P<int>[0-9]+)
|(?P<str>"(?:[^"\\\r\n]|\\[^\r\n])*")
|(?P<ustr>"(?:[^"\\\r\n]|\\[^\r\n])*\\?)
|(?P<eof>\Z)
|(?P<bad>[^A-Za-z0-9_\ \t\f\v\r\n\#".+*/%@<>=!|()\[\],:?-]+|.)
)""", re.VERBOSE | re.DOTALL)

# A file with more unknown characters than this (a binary file, UTF-16) has them
# reported no further: the rest of each declaration is then not parsed for errors.
MAX_UNKNOWN = 1000

_LINE_RE = re.compile(r"\r\n|\n|\r")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0"}
_ESC_RE = re.compile(r"\\(.)", re.DOTALL)


def unescape(body: str) -> str:
    if "\\" not in body:
        return body
    return _ESC_RE.sub(lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


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


class Lexer:
    """Turns one source file into chunks of tokens, collecting diagnostics."""

    def __init__(self, src: str, path: str) -> None:
        self.src = src
        self.path = path
        self.diags: list[Diagnostic] = []
        self.unknown = 0  # runs of unknown characters met
        self.chunks: list[Chunk] = []

    # -- helpers -------------------------------------------------------------------

    def span(self, line: int, col: int, end_line: int, end_col: int, start: int,
             end: int) -> Span:
        return Span(self.path, line, col, end_line, end_col, start, end)

    def tok_span(self, t: Tok) -> Span:
        return Span(self.path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)

    def error(self, code: str, message: str, span: Span, label: str = "", **kw) -> None:
        self.diags.append(Diagnostic.error(code, message, span, label, **kw))

    # -- the pass ------------------------------------------------------------------

    def run(self) -> list[Chunk]:
        src = self.src
        KW = KEYWORDS
        PU = PUNCT
        CTORS = CONSTRUCTORS
        TRIG = PATTERN_CALLS
        BRACKETS = _BRACKETS

        chunk = Chunk()
        toks = chunk.tokens
        append = toks.append
        stack: list[int] = []  # indices (in toks) of open brackets
        indents = [0]
        line = 1
        line_start = 0
        at_line_start = True
        line_has_tokens = False
        self.tab_reported = False
        self.dedent_reported = False
        prev = ""  # the type of the last token appended

        if src.startswith("\ufeff"):
            line_start = 1  # a byte-order mark: not a column
        for m in _TOKEN_RE.finditer(src, line_start):
            kind = m.lastgroup
            if kind == "name":
                start = m.start(kind)
                end = m.end()
                value = src[start:end]
                ttype = KW.get(value)
                if ttype is None:
                    ttype = "NAME"
                elif prev == "DOT" and ttype != "UNDERSCORE":
                    ttype = "NAME"  # x.to, m.in …: attribute names may be keywords
            elif kind == "op":
                start = m.start(kind)
                end = m.end()
                value = src[start:end]
                ttype = PU.get(value, "OP")
                if ttype in BRACKETS:
                    pass  # handled below
                elif ttype == "EQUAL" or ttype == "COLON":
                    if prev == "OVER":
                        toks[-1].type = "NAME"  # over=n, over: Axis[n]
            elif kind == "nl":
                if line_has_tokens and not stack:
                    start = m.start(kind)
                    col = start - line_start + 1
                    if chunk.local_errs:
                        chunk.end_line(start)
                    append(Tok("NEWLINE", "\n", line, col, line, col + 1, start, start + 1))
                    prev = "NEWLINE"
                    line_has_tokens = False
                line += 1
                line_start = m.end()
                at_line_start = True
                continue
            elif kind == "eof":
                break
            else:
                start = m.start(kind)
                end = m.end()
                value = src[start:end]
                if kind == "int":
                    ttype = "INT"
                elif kind == "float":
                    ttype = "FLOAT"
                elif kind == "numname":
                    ttype = "NUMNAME"
                elif kind == "str":
                    ttype = "STRING"
                    value = unescape(value[1:-1])
                elif kind == "ustr":
                    ttype = "STRING"
                    col = start - line_start + 1
                    self.error("E0103", "unterminated string",
                               self.span(line, col, line, col + 1, start, start + 1),
                               "this string is never closed",
                               help='close it with `"` on the same line')
                    chunk.local_error_at(start)
                    # The string swallowed the rest of the line, closing brackets
                    # included: those opened on this line aren't reported again (E0103).
                    while stack and toks[stack[-1]].line == line:
                        stack.pop()
                    value = unescape(value[1:].rstrip("\\"))
                else:  # bad characters: a run of them is one error
                    self.unknown += 1
                    if self.unknown > MAX_UNKNOWN:
                        chunk.error_at(start)
                        continue
                    col = start - line_start + 1
                    shown = value if len(value) <= 20 else value[:20] + "…"
                    what = "character" if len(value) == 1 else "characters"
                    self.error("E0101", f"unknown {what} `{shown}`" if shown.isprintable()
                               else f"unknown {what} {shown!r}",
                               self.span(line, col, line, col + len(value), start, end),
                               "not part of ShapeScript's syntax")
                    chunk.local_error_at(start)
                    continue

            col = start - line_start + 1

            # -- the start of a physical line ------------------------------------
            if at_line_start:
                at_line_start = False
                if stack and col == 1 and ttype in DECL_KEYWORDS:
                    self._close_all(toks, stack)
                    chunk.error_at(toks[stack[0]].start)
                    stack = []
                    if line_has_tokens:
                        pt = toks[-1]
                        append(Tok("NEWLINE", "\n", pt.end_line, pt.end_col, pt.end_line,
                                   pt.end_col, pt.end, pt.end))
                        line_has_tokens = False
                if not stack:
                    indent = col - 1
                    if indent or len(indents) > 1:
                        lead = src[line_start:start]
                        if "\t" in lead or "\f" in lead or "\v" in lead:
                            indent = self._tabs(chunk, line, line_start, start, col, lead)
                    if indent == 0:
                        while len(indents) > 1:
                            indents.pop()
                            append(Tok("DEDENT", "", line, col, line, col, start, start))
                        if toks:
                            self._finish(chunk)
                            chunk = Chunk()
                            toks = chunk.tokens
                            append = toks.append
                        self.dedent_reported = False
                    elif indent > indents[-1]:
                        indents.append(indent)
                        append(Tok("INDENT", "", line, 1, line, col, line_start, start))
                    elif indent < indents[-1]:
                        while indent < indents[-1]:
                            indents.pop()
                            append(Tok("DEDENT", "", line, col, line, col, start, start))
                        if indent != indents[-1]:
                            self._bad_dedent(chunk, line, line_start, start, col)
            line_has_tokens = True

            tok = Tok(ttype, value, line, col, line, col + (end - start), start, end)

            if ttype in BRACKETS:
                if ttype == "LPAR" or ttype == "LSQB":
                    idx = len(toks)
                    if prev == "NAME":
                        pt = toks[-1]
                        pv = pt.value
                        if ttype == "LSQB":
                            if pv in CTORS and not (idx > 1 and toks[-2].type == "DOT"):
                                pt.type = "CTOR"
                        elif pv in TRIG and not (idx > 1 and toks[-2].type == "DOT"):
                            chunk.triggers.append(idx)
                    stack.append(idx)
                else:
                    want = "LPAR" if ttype == "RPAR" else "LSQB"
                    if stack and toks[stack[-1]].type == want:
                        chunk.matches[stack.pop()] = len(toks)
                    elif not self._mismatch(chunk, toks, stack, tok, want):
                        continue
            append(tok)
            prev = ttype

        # -- end of file -------------------------------------------------------------
        n = len(src)
        last_col = n - line_start + 1
        if stack:
            self._close_all(toks, stack)
            chunk.error_at(toks[stack[0]].start)
        if line_has_tokens:
            append(Tok("NEWLINE", "\n", line, last_col, line, last_col, n, n))
        while len(indents) > 1:
            indents.pop()
            append(Tok("DEDENT", "", line, last_col, line, last_col, n, n))
        if toks:
            self._finish(chunk)
        return self.chunks

    def _close_all(self, toks, stack) -> None:
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
            self.error("E0103", f"unclosed `{ot.value}`", self.tok_span(ot),
                       "this bracket is never closed", help=f"add `{closer}` where it ends",
                       notes=notes)
            k = j

    def _tabs(self, chunk, line, line_start, start, col, lead) -> int:
        if not self.tab_reported:
            self.error("E0102", "tab in indentation",
                       self.span(line, 1, line, col, line_start, start), "indent with spaces",
                       help="ShapeScript indents with spaces only")
            self.tab_reported = True
        chunk.error_at(line_start)
        return len(lead.expandtabs(8))

    def _bad_dedent(self, chunk, line, line_start, start, col) -> None:
        if not self.dedent_reported:
            self.error("E0102", "unindent does not match any outer indentation level",
                       self.span(line, 1, line, col, line_start, start),
                       "this line's indentation", help="indent it as the block it belongs to")
            self.dedent_reported = True
        chunk.error_at(line_start)

    def _mismatch(self, chunk, toks, stack, tok, want) -> bool:
        """A closing bracket that doesn't close the innermost one; True to keep it."""
        value = tok.value
        deeper = [k for k in range(len(stack)) if toks[stack[k]].type == want]
        if deeper:
            k = deeper[-1]
            chunk.error_at(toks[stack[k + 1]].start)
            for idx in stack[k + 1:]:
                ot = toks[idx]
                closer = ")" if ot.type == "LPAR" else "]"
                self.error("E0103", f"unclosed `{ot.value}`", self.tok_span(ot),
                           "this bracket is never closed",
                           help=f"add `{closer}` before `{value}`",
                           extra=(_label(self.tok_span(tok),
                                         f"`{value}` closes an outer bracket"),))
            chunk.matches[stack[k]] = len(toks)
            del stack[k:]
            return True
        chunk.local_error_at(tok.start)
        self.error("E0101", f"unexpected closing `{value}`", self.tok_span(tok),
                   "no bracket is open here" if not stack
                   else f"`{toks[stack[-1]].value}` is open here")
        return False

    def _finish(self, chunk: Chunk) -> None:
        if chunk.triggers:
            collapse_patterns(chunk, self)
        self.chunks.append(chunk)


def _label(span: Span, message: str) -> Label:
    return Label.at(span, message)


# ---------------------------------------------------------------------------
# Patterns


def collapse_patterns(chunk: Chunk, lx: Lexer) -> None:
    """Replace each pattern's tokens by one PATTERN token (see the module docstring)."""
    toks = chunk.tokens
    matches = chunk.matches
    replace: list[tuple[int, int, list[Tok]]] = []  # [start, end) -> new tokens
    for p in chunk.triggers:
        if any(a <= p < b for a, b, _ in replace):
            continue  # inside a pattern already collapsed (a malformed one)
        q = matches.get(p)
        if q is None:
            continue  # unclosed: already reported
        fname = toks[p - 1].value
        if fname == "einsum":
            colon = -1
            depth = 0
            for k in range(p + 1, q):
                t = toks[k].type
                if t == "LPAR" or t == "LSQB":
                    depth += 1
                elif t == "RPAR" or t == "RSQB":
                    depth -= 1
                elif t == "COLON" and depth == 0:
                    colon = k
                    break
            if colon < 0:
                lx.error("E0601", "`einsum` needs a pattern", lx.tok_span(toks[p - 1]),
                         "no `:` and pattern after the operands",
                         help="write the operands, `:`, then the pattern: "
                              "`einsum(x, w: b N D, N Dt -> b Dt D)`")
                continue
            end = q
            depth = 0
            for k in range(colon + 1, q):
                t = toks[k].type
                if t == "LPAR" or t == "LSQB":
                    depth += 1
                elif t == "RPAR" or t == "RSQB":
                    depth -= 1
                elif (t == "COMMA" and depth == 0 and k + 2 < q and toks[k + 1].type == "NAME"
                      and toks[k + 2].type == "EQUAL"):
                    end = k
                    break
            ct = toks[colon]
            comma = Tok("COMMA", ":", ct.line, ct.col, ct.end_line, ct.end_col, ct.start, ct.end)
            ptoks = toks[colon + 1:end]
            if not ptoks:
                lx.error("E0601", "expected a pattern after `:`", lx.tok_span(ct),
                         "the pattern is missing")
                pat = ast.Pattern(((),), (), lx.tok_span(ct))
                ptok = Tok("PATTERN", pat, ct.line, ct.end_col, ct.line, ct.end_col, ct.end,
                           ct.end)
            else:
                ptok = _pattern_token(ptoks, True, lx)
            replace.append((colon, end, [comma, ptok]))
        elif fname in PACK_CALLS:
            span = _pack_pattern_span(toks, p, q)
            if span is not None:
                a, b = span
                replace.append((a, b, [_pack_pattern_token(toks[a:b], fname == "unpack", lx)]))
        else:
            # Split the arguments at top-level commas; collapse the one with a top-level ->.
            depth = 0
            run_start = p + 1
            run_arrow = False
            for k in range(p + 1, q + 1):
                t = toks[k].type
                if k == q or (t == "COMMA" and depth == 0):
                    if run_arrow and k > run_start:
                        replace.append((run_start, k, [_pattern_token(toks[run_start:k], False,
                                                                      lx)]))
                    run_start = k + 1
                    run_arrow = False
                elif t == "LPAR" or t == "LSQB":
                    depth += 1
                elif t == "RPAR" or t == "RSQB":
                    depth -= 1
                elif t == "ARROW" and depth == 0:
                    run_arrow = True
    if not replace:
        return
    replace.sort(key=lambda r: r[0])
    out: list[Tok] = []
    pos = 0
    for a, b, new in replace:
        if a < pos:
            continue
        out.extend(toks[pos:a])
        out.extend(new)
        pos = b
    out.extend(toks[pos:])
    chunk.tokens = out


def _pattern_token(ptoks: list[Tok], einsum: bool, lx: Lexer) -> Tok:
    first, last = ptoks[0], ptoks[-1]
    span = Span(lx.path, first.line, first.col, last.end_line, last.end_col, first.start,
                last.end)
    pat = parse_pattern(ptoks, einsum, span, lx)
    return Tok("PATTERN", pat, first.line, first.col, last.end_line, last.end_col, first.start,
               last.end)


def _pack_pattern_span(toks: list[Tok], p: int, q: int) -> tuple[int, int] | None:
    """Where the pattern of ``pack(…)``/``unpack(…)`` (``(`` at ``p``, ``)`` at ``q``) is:
    its second argument (the first after a pipe), up to the first top-level ``, NAME =``
    or the ``)``; None when there is no such argument (the checker says what is missing)."""
    piped = p >= 2 and toks[p - 2].type == "OP" and toks[p - 2].value == "|>"
    start = p + 1
    depth = 0
    if not piped:
        start = -1
        for k in range(p + 1, q):
            t = toks[k].type
            if t == "LPAR" or t == "LSQB":
                depth += 1
            elif t == "RPAR" or t == "RSQB":
                depth -= 1
            elif t == "COMMA" and depth == 0:
                start = k + 1
                break
        if start < 0:
            return None
    end = q
    for k in range(start, q):
        t = toks[k].type
        if t == "LPAR" or t == "LSQB":
            depth += 1
        elif t == "RPAR" or t == "RSQB":
            depth -= 1
        elif (t == "COMMA" and depth == 0 and k + 2 < q and toks[k + 1].type == "NAME"
              and toks[k + 2].type == "EQUAL"):
            end = k
            break
    if end <= start or (start < q and toks[start].type == "NAME" and start + 1 < q
                        and toks[start + 1].type == "EQUAL"):
        return None  # no pattern, only keyword arguments
    return start, end


_PACK_HELP = ("a pack pattern is names and one `*` (`b * d`); unpack's adds `->` and a "
              "pattern for each part (`b * d -> b d, b n d`)")


def _pack_pattern_token(ptoks: list[Tok], unpack: bool, lx: Lexer) -> Tok:
    """One PATTERN token holding an ``ast.PackPattern``; problems are E0601."""
    first, last = ptoks[0], ptoks[-1]
    path = lx.path
    span = Span(path, first.line, first.col, last.end_line, last.end_col, first.start, last.end)
    sides: list[list] = [[]]
    arrow: Tok | None = None
    for t in ptoks:
        tt = t.type
        sp = Span(path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)
        if tt == "NAME" or (t.value in KEYWORDS and t.value.isidentifier() and t.value != "_"):
            sides[-1].append(ast.PatName(t.value, sp))
        elif tt == "OP" and t.value == "*" and arrow is None:
            sides[-1].append(ast.PatStar(sp))
        elif tt == "ARROW" and unpack and arrow is None:
            arrow = t
            sides.append([])
        elif tt == "COMMA" and arrow is not None:
            sides.append([])
        else:
            what = "`,`" if tt == "COMMA" else describe(t, lx.src)
            lx.error("E0601", f"unexpected {what} in a pattern", sp, "not allowed here",
                     help=_PACK_HELP)
    stars = [x for x in sides[0] if type(x) is ast.PatStar]
    if len(stars) != 1:
        at = span if not stars else stars[1].span
        lx.error("E0601", "a pack pattern has one `*`" + ("" if stars else ", and this has none"),
                 at, "the packed axis is `*`" if not stars else "a second `*`", help=_PACK_HELP)
    if unpack and arrow is None:
        lx.error("E0601", "expected `->` in this pattern", span, "unpack needs its parts",
                 help="give each part its pattern after `->`: `b * d -> b d, b n d`")
    pat = ast.PackPattern(tuple(sides[0]), tuple(tuple(x) for x in sides[1:]), span)
    return Tok("PATTERN", pat, first.line, first.col, last.end_line, last.end_col, first.start,
               last.end)


_PATTERN_HELP = "a pattern holds names, integers, `( … )` groups and `...`"


def parse_pattern(ptoks: list[Tok], einsum: bool, span: Span, lx: Lexer) -> ast.Pattern:
    """An einops pattern from its tokens; problems are E0601 (best-effort result)."""
    arrows = [k for k, t in enumerate(ptoks) if t.type == "ARROW"]
    if not arrows:
        lx.error("E0601", "expected `->` in this pattern", span, "this pattern has no `->`",
                 help="a pattern maps input axes to output axes: `b n d -> b d n`")
        lhs, rhs = ptoks, []
    else:
        a = arrows[0]
        if len(arrows) > 1:
            lx.error("E0601", "more than one `->` in this pattern", lx.tok_span(ptoks[arrows[1]]),
                     "a second `->`")
            rhs = ptoks[a + 1:arrows[1]]
        else:
            rhs = ptoks[a + 1:]
        lhs = ptoks[:a]
    if einsum:
        inputs = []
        cur: list[Tok] = []
        for t in lhs:
            if t.type == "COMMA":
                inputs.append(cur)
                cur = []
            else:
                cur.append(t)
        inputs.append(cur)
    else:
        inputs = [lhs]
    ins = tuple(_pattern_terms(side, lx) for side in inputs)
    out = _pattern_terms(rhs, lx)
    return ast.Pattern(ins, out, span)


def _pattern_terms(toks: list[Tok], lx: Lexer) -> tuple:
    out: list = []
    group: list | None = None
    group_tok: Tok | None = None
    path = lx.path
    for t in toks:
        tt = t.type
        sp = Span(path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)
        if tt == "NAME" or (t.value in KEYWORDS and t.value.isidentifier() and t.value != "_"):
            # A pattern's names are its own: `dim` and `in` are axis names there.
            term = ast.PatName(t.value, sp)
        elif tt == "INT":
            term = ast.PatInt(int(t.value), sp)
        elif tt == "ELLIPSIS":
            term = ast.PatEllipsis(sp)
        elif tt == "LPAR":
            if group is not None:
                lx.error("E0601", "groups can't be nested in a pattern", sp,
                         "a group inside a group", help="write one level of `( … )`")
                continue
            group = []
            group_tok = t
            continue
        elif tt == "RPAR":
            if group is None:  # pragma: no cover - brackets are matched by the lexer
                lx.error("E0601", "unexpected `)` in a pattern", sp, "no group is open")
                continue
            g = group_tok
            gspan = Span(path, g.line, g.col, t.end_line, t.end_col, g.start, t.end)
            out.append(ast.PatGroup(tuple(group), gspan))
            group = None
            continue
        elif tt == "NUMNAME":
            lx.error("E0601", "number-name in a pattern", sp, "not a pattern axis",
                     help=f"write the group `({_numname_split(t.value)})`")
            continue
        else:
            what = "`,`" if tt == "COMMA" else describe(t, lx.src)
            lx.error("E0601", f"unexpected {what} in a pattern", sp, "not allowed here",
                     help=_PATTERN_HELP)
            continue
        if group is not None:
            group.append(term)
        else:
            out.append(term)
    if group is not None and group_tok is not None:  # pragma: no cover - matched brackets
        lx.error("E0601", "unclosed group in a pattern", lx.tok_span(group_tok), "never closed")
    return tuple(out)


def _numname_split(text: str) -> str:
    k = 0
    while k < len(text) and text[k].isdigit():
        k += 1
    return f"{text[:k]} {text[k:]}"


# ---------------------------------------------------------------------------
# Doc comments


def scan_docs(src: str, path: str) -> tuple[dict[int, str], str | None, tuple[Span, ...]]:
    """Find the ``##`` blocks.

    Returns the doc text by the line of the code line that follows each block (the parser
    attaches it to a declaration or a model field starting on that line), the module's
    doc (a block at the very top followed by a blank line) and every block's span.
    """
    if "##" not in src:
        return {}, None, ()
    if "\r" not in src:
        return _scan_docs_fast(src, path)
    docs: dict[int, str] = {}
    spans: list[Span] = []
    module_doc: str | None = None
    block: list[str] = []
    block_start = None  # (line, col, offset)
    block_end = None  # (line, end_col, offset)
    block_is_top = False
    seen_code = False
    offset = 0
    lineno = 0
    pos = 0
    n = len(src)
    while pos <= n:
        m = _LINE_RE.search(src, pos)
        if m is None:
            text = src[pos:]
            nxt = n + 1
            line_end = n
        else:
            text = src[pos:m.start()]
            nxt = m.end()
            line_end = m.start()
        lineno += 1
        offset = pos
        stripped = text.lstrip(" \t\f\v")
        if stripped.startswith("##"):
            body = stripped[2:]
            if body.startswith(" "):
                body = body[1:]
            if not block:
                lead = len(text) - len(stripped)
                block_start = (lineno, lead + 1, offset + lead)
                block_is_top = not seen_code
            block.append(body.rstrip())
            block_end = (lineno, len(text) + 1, line_end)
        elif not stripped:
            # A blank line ends a block: at the very top it documents the module,
            # elsewhere it documents nothing.
            if block:
                if block_is_top and module_doc is None:
                    module_doc = "\n".join(block)
                spans.append(_block_span(path, block_start, block_end))
                block = []
        elif stripped.startswith("#"):
            pass
        else:
            seen_code = True
            if block:
                docs[lineno] = "\n".join(block)
                spans.append(_block_span(path, block_start, block_end))
                block = []
        if m is None:
            break
        pos = nxt
    if block:
        if block_is_top and module_doc is None:
            module_doc = "\n".join(block)
        spans.append(_block_span(path, block_start, block_end))
    return docs, module_doc, tuple(spans)


_DOC_LINE_RE = re.compile(r"^([ \t\f\v]*)##(.*)$", re.MULTILINE)
_COMMENTS_BETWEEN_RE = re.compile(r"\n(?:[ \t\f\v]*#[^\n]*\n)*")
_BLANK_OR_COMMENTS_RE = re.compile(r"(?:[ \t\f\v]*(?:#[^\n]*)?\n)*[ \t\f\v]*(?:#[^\n]*)?\Z")


def _scan_docs_fast(src: str, path: str):
    """``scan_docs`` for sources whose lines end in ``\\n``: visits only the ``##`` lines."""
    docs: dict[int, str] = {}
    spans: list[Span] = []
    module_doc = None
    count = src.count
    n = len(src)
    line = 1
    counted = 0  # offset up to which newlines are counted into `line`
    block: list[str] = []
    top_possible = True
    b_line = b_col = b_off = 0
    e_line = e_col = e_off = 0
    for m in _DOC_LINE_RE.finditer(src):
        start = m.start()
        line += count("\n", counted, start)
        counted = start
        body = m.group(2)
        if body[:1] == " ":
            body = body[1:]
        if block and (line == e_line + 1 or _COMMENTS_BETWEEN_RE.fullmatch(src, e_off, start)):
            block.append(body.rstrip())
        else:
            if block:
                module_doc = _close_block(src, path, docs, spans, block, b_line, b_col, b_off,
                                          e_line, e_col, e_off, top_possible, module_doc)
                top_possible = False
            block = [body.rstrip()]
            lead = len(m.group(1))
            b_line, b_col, b_off = line, lead + 1, start + lead
            if top_possible:
                top_possible = _BLANK_OR_COMMENTS_RE.match(src, 0, start) is not None
        e_line, e_col, e_off = line, m.end() - start + 1, m.end()
    if block:
        module_doc = _close_block(src, path, docs, spans, block, b_line, b_col, b_off, e_line,
                                  e_col, e_off, top_possible, module_doc)
    del n
    return docs, module_doc, tuple(spans)


def _close_block(src, path, docs, spans, block, b_line, b_col, b_off, e_line, e_col, e_off,
                 top, module_doc):
    spans.append(Span(path, b_line, b_col, e_line, e_col, b_off, e_off))
    text = "\n".join(block)
    # What follows the block: skip comment lines; a blank line or the end of the file
    # ends it (the module's doc at the very top), a code line takes it.
    pos = e_off + 1
    line = e_line + 1
    n = len(src)
    while pos <= n:
        nl = src.find("\n", pos)
        end = n if nl < 0 else nl
        stripped = src[pos:end].strip(" \t\f\v")
        if not stripped:
            break
        if stripped[0] == "#":
            if stripped.startswith("##"):
                break  # another doc block (after a comment line)
            pos = end + 1
            line += 1
            continue
        docs[line] = text
        return module_doc
    if top and module_doc is None:
        return text
    return module_doc


def _block_span(path: str, start, end) -> Span:
    return Span(path, start[0], start[1], end[0], end[1], start[2], end[2])
