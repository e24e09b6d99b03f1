"""The scanner: ShapeScript's source text to a flat list of tokens, context-free.

One master regular expression makes every token (floats before number-names, and ``1.``
is not a float, so ``0..L`` is ``0 .. L``); whitespace and comments are skipped in front
of each. Names become keywords by ``KEYWORDS`` alone (``and``/``or`` are ``OP`` tokens),
punctuation by ``PUNCT``; strings are unescaped. What depends on the tokens around one
(retagging, brackets, indentation, patterns) is the layout pass's (``layout.py``).

Besides the grammar's terminals the list holds, for the layout pass:

* ``NL``: a physical line break (``start`` at the break, ``end`` where the next line
  starts);
* ``ERR_LINE``: a lexical error reported here (unknown characters) whose effects end
  with its logical line; ``ERR_STRING``: the same for an unterminated string, which
  swallowed the rest of its line, closing brackets included; ``ERR_REST``: an error not
  reported (past ``MAX_UNKNOWN``) after which the declaration's syntax errors aren't
  either.

Errors (E0101 unknown characters, E0103 an unterminated string) go to ``diags``.
"""

from __future__ import annotations

import re
import sys
import unicodedata

from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax.tokens import Tok
from shapescript import error_codes as ec

__all__ = ["KEYWORDS", "MAX_UNKNOWN", "PUNCT", "scan", "unescape"]

KEYWORDS = {
    "_": "UNDERSCORE", "dim": "DIM", "const": "CONST", "fn": "FN", "extern": "EXTERN",
    "export": "EXPORT", "model": "MODEL", "param": "PARAM", "import": "IMPORT", "from": "FROM",
    "python": "PYTHON", "devices": "DEVICES", "return": "RETURN", "if": "IF", "elif": "ELIF",
    "else": "ELSE",
    "for": "FOR", "in": "IN", "and": "OP", "or": "OP", "not": "NOT", "as": "AS", "to": "TO",
    "over": "OVER", "with": "WITH", "true": "TRUE", "false": "FALSE", "none": "NONE",
}

PUNCT = {
    "(": "LPAR", ")": "RPAR", "[": "LSQB", "]": "RSQB", ",": "COMMA", ":": "COLON",
    "=": "EQUAL", ".": "DOT", "...": "ELLIPSIS", "->": "ARROW", "?": "QMARK", "-": "MINUS",
    "~": "TILDE",
}

# Whitespace and a comment are skipped in front of every token (one match per token).
_TOKEN_RE = re.compile(r"""
[ \t\f\v]*(?:\#[^\r\n]*)?
(?:(?P<name>[^\W\d]\w*)
|(?P<op>\.\.\.|\.\.|->|=>|\|>|//|\*\*|==|!=|<=|>=|[-+*/%@<>()\[\],:=.?~])
|(?P<nl>\r\n|\n|\r)
|(?P<float>[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)
|(?P<numname>[0-9]+[^\W\d]\w*)
|(?P<int>[0-9]+)
|(?P<str>"(?:[^"\\\r\n]|\\[^\r\n])*")
|(?P<ustr>"(?:[^"\\\r\n]|\\[^\r\n])*\\?)
|(?P<eof>\Z)
|(?P<bad>[^\w\ \t\f\v\r\n\#".+*/%@<>=!|()\[\],:?~-]+|.)
)""", re.VERBOSE | re.DOTALL)

# A file with more unknown characters than this (a binary file, UTF-16) has them
# reported no further: the rest of each declaration is then not parsed for errors.
MAX_UNKNOWN = 1000

_SIMPLE = {"int": "INT", "float": "FLOAT", "numname": "NUMNAME", "str": "STRING"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0"}
_ESC_RE = re.compile(r"\\(.)", re.DOTALL)


def unescape(body: str) -> str:
    """A string literal's text (without its quotes) with its escapes replaced."""
    if "\\" not in body:
        return body
    return _ESC_RE.sub(lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


def scan(src: str, path: str, diags: list[Diagnostic]) -> list[Tok]:
    """The tokens of ``src`` (see the module docstring); errors are appended to ``diags``.

    >>> [t.type for t in scan("x.to(1)\\n", "x.ss", [])]
    ['NAME', 'DOT', 'TO', 'LPAR', 'INT', 'RPAR', 'NL']
    """
    out: list[Tok] = []
    append = out.append
    # One string object per distinct name, operator or number (``sys.intern``: across the
    # chunks an editor parses one by one too): the tree keeps these texts, and a large file
    # names the same few things many times.
    intern = sys.intern
    keywords = KEYWORDS
    punct = PUNCT
    line = 1
    line_start = 1 if src.startswith("\ufeff") else 0  # a byte-order mark: not a column
    unknown = 0  # runs of unknown characters met
    for m in _TOKEN_RE.finditer(src, line_start):
        kind: str = m.lastgroup  # type: ignore[assignment]  # every alternative is a named group
        start, end = m.span(kind)
        if kind == "name":
            value = src[start:end]
            value = intern(value)
            ttype = keywords.get(value, "NAME")
            if not value.isascii() and _unusable(value):
                col = start - line_start + 1
                diags.append(Diagnostic.error(
                    ec.E0101, f"the name `{value}` can't be a Python name as written",
                    Span(path, line, col, line, col + (end - start), start, end),
                    "not an identifier in normal form", help=_unusable(value)))
                append(Tok("ERR_LINE", None, line, col, line, col, start, start))
                continue
        elif kind == "op":
            value = src[start:end]
            value = intern(value)
            ttype = punct.get(value, "OP")
        elif kind == "nl":
            col = start - line_start + 1
            line_start = end
            append(Tok("NL", None, line, col, line, col + 1, start, end))
            line += 1
            continue
        elif kind == "eof":
            break
        else:
            value = src[start:end]
            if kind == "str":
                ttype = "STRING"
                value = unescape(value[1:-1])
            elif kind == "ustr":
                col = start - line_start + 1
                _unterminated(diags, path, line, col, start)
                append(Tok("ERR_STRING", None, line, col, line, col + 1, start, start))
                ttype = "STRING"
                value = unescape(value[1:].rstrip("\\"))
            elif kind == "bad":  # a run of bad characters is one error
                col = start - line_start + 1
                unknown += 1
                if unknown > MAX_UNKNOWN:
                    append(Tok("ERR_REST", None, line, col, line, col, start, start))
                else:
                    _unknown(diags, path, value, line, col, start, end)
                    append(Tok("ERR_LINE", None, line, col, line, col, start, start))
                continue
            else:
                ttype = _SIMPLE[kind]
                value = intern(value)
        col = start - line_start + 1
        append(Tok(ttype, value, line, col, line, col + (end - start), start, end))
    return out


def _unusable(name: str) -> str | None:
    """Why a non-ASCII name can't be used (None: it can): names are Python's identifiers,
    in the form Python keeps them (NFKC), so two names never become one in the compiled
    module (`ﬁle` would be Python's `file`)."""
    if not name.isidentifier():
        return "a name is letters, digits and `_`, starting with a letter or `_`"
    normal = unicodedata.normalize("NFKC", name)
    return None if normal == name else f"write it `{normal}`, as Python reads it"


def _unterminated(diags: list[Diagnostic], path: str, line: int, col: int, start: int) -> None:
    diags.append(Diagnostic.error(
        ec.E0103, "unterminated string", Span(path, line, col, line, col + 1, start, start + 1),
        "this string is never closed", help='close it with `"` on the same line'))


def _unknown(diags: list[Diagnostic], path: str, value: str, line: int, col: int, start: int,
             end: int) -> None:
    shown = value if len(value) <= 20 else value[:20] + "…"
    what = "character" if len(value) == 1 else "characters"
    diags.append(Diagnostic.error(
        ec.E0101, f"unknown {what} `{shown}`" if shown.isprintable()
        else f"unknown {what} {shown!r}",
        Span(path, line, col, line, col + len(value), start, end),
        "not part of ShapeScript's syntax"))
