"""A syntax error's diagnostic: what was met, and what the grammar expected there."""

from __future__ import annotations

from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax.driver import Fail
from shapescript.syntax.tokens import describe
from shapescript import error_codes as ec

__all__ = ["syntax_error"]

_EXPR_START = {"NAME", "INT", "FLOAT", "LPAR", "MINUS", "NOT", "STRING"}
_NAMES = {
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "COMMA": "`,`",
    "COLON": "`:`", "EQUAL": "`=`", "DOT": "`.`", "ELLIPSIS": "`...`", "ARROW": "`->`",
    "QMARK": "`?`", "TILDE": "`~`", "UNDERSCORE": "`_`", "MINUS": "`-`", "OP": "an operator",
    "NEWLINE": "the end of the line", "INDENT": "an indented block",
    "DEDENT": "the end of the block", "NAME": "a name", "INT": "an integer",
    "FLOAT": "a number", "NUMNAME": "a number-name", "STRING": "a string",
    "PATTERN": "a pattern", "CTOR": "a constructor", "$END": "the end of the file",
}


def _expected_label(terms) -> str:
    if len(_EXPR_START & terms) >= 5:
        return "expected an expression"
    if "OP" in terms:
        ends = [_NAMES[t] for t in ("COMMA", "RPAR", "RSQB", "COLON", "EQUAL", "NEWLINE")
                if t in terms]
        if ends:
            return "expected an operator, " + (", ".join(ends[:-1]) + " or " + ends[-1]
                                                if len(ends) > 1 else ends[0])
    if terms <= {"FN"}:
        return "expected `fn`"
    names = []
    for t in sorted(terms):
        if t in _NAMES:
            names.append(_NAMES[t])
        elif t != "$END":
            names.append(f"`{t.lower()}`")
    names = sorted(set(names))
    if not names:
        return ""
    if len(names) == 1:
        return f"expected {names[0]}"
    if len(names) <= 4:
        return "expected " + ", ".join(names[:-1]) + " or " + names[-1]
    return "expected one of " + ", ".join(names[:6]) + (", …" if len(names) > 6 else "")


def syntax_error(fail: Fail, src: str, path: str) -> Diagnostic:
    """E0101 (E0102 for indentation) at the token the parser could not take."""
    tok = fail.tok
    expected = {t for t in fail.expected if t.isupper() or t == "$END"}
    span = Span(path, tok.line, tok.col, tok.end_line, tok.end_col, tok.start, tok.end)
    if tok.type == "INDENT":
        return Diagnostic.error(ec.E0102, "unexpected indentation", span,
                                "this line is indented more than the one before",
                                help="indent only the block after a line ending in `:`")
    if "INDENT" in expected and len(expected) == 1:
        return Diagnostic.error(ec.E0102, "expected an indented block", span,
                                "the block after `:` must be indented")
    what = describe(tok, src)
    if tok.type in ("NEWLINE", "DEDENT", "$END"):
        message = f"unexpected {what}"
    else:
        message = f"unexpected token {what}"
    return Diagnostic.error(ec.E0101, message, span, _expected_label(expected))
