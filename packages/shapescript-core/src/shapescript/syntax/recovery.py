"""What the parser does after a syntax error, and what it reports having dropped.

Each top-level chunk is parsed on its own, so a syntax error costs one declaration: the
parser drops it, records it as an ``ast.DroppedDecl`` (its span, and the name its head
declares: ``dropped_decl``) in ``Module.dropped``, and goes on with the next chunk. Inside
a broken ``fn`` (or ``export fn``), the statements after the error are parsed one by one
(``recover_statements``), only to report their syntax errors too; nothing of the
function is kept.
"""

from __future__ import annotations

from collections.abc import Iterator

from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.build import Builder
from shapescript.syntax.driver import Fail, drive, end_token
from shapescript.syntax.lalr_table import Tables
from shapescript.syntax.scanner import KEYWORDS
from shapescript.syntax.syntax_errors import syntax_error
from shapescript.syntax.tokens import Chunk, Tok

__all__ = ["dropped_decl", "recover_statements"]

_LAYOUT = frozenset({"NEWLINE", "INDENT", "DEDENT"})
_DECL_WORDS = frozenset({"fn", "dim", "const", "model"})


def dropped_decl(tokens: list[Tok], path: str) -> ast.DroppedDecl:
    """The record of a chunk the parser could not keep (``tokens`` is not empty)."""
    first = tokens[0]
    last = next((t for t in reversed(tokens) if t.type not in _LAYOUT), first)
    span = Span(path, first.line, first.col, last.end_line, last.end_col, first.start,
                last.end)
    names = []
    for k, t in enumerate(tokens):
        if t.col == 1 and t.type not in _LAYOUT:  # the first token of a line
            name = _head_name(tokens, k)
            if name is not None:
                names.append(name)
    return ast.DroppedDecl(span, tuple(names))


def _word(t: Tok) -> str | None:
    """The text of a token that is a word: a name, or a keyword, even one retagged as
    a name (``fn`` after a stray ``.``)."""
    if t.type == "NAME" or t.type == "CTOR" or (type(t.value) is str and t.value in KEYWORDS):
        return t.value
    return None


def _head_name(toks: list[Tok], i: int) -> str | None:
    """The name a declaration head at ``toks[i]`` declares (see ``ast.DroppedDecl``):
    ``[export] [extern] fn|dim|const|model NAME``, or ``import [python] a.b [as c]`` (``c``,
    else ``a``). Words are read by their text: the layout pass may have retagged them."""
    n = len(toks)
    if _word(toks[i]) == "import":
        i += 1
        if i + 1 < n and _word(toks[i]) == "python" and _word(toks[i + 1]):
            i += 1
        first = _word(toks[i]) if i < n else None
        if first is None:
            return None
        i += 1
        while i + 1 < n and toks[i].type == "DOT" and _word(toks[i + 1]):
            i += 2
        if i + 1 < n and _word(toks[i]) == "as" and _word(toks[i + 1]):
            return toks[i + 1].value
        return first
    if _word(toks[i]) == "export":
        i += 1
    if i < n and _word(toks[i]) == "extern":
        i += 1
    if i + 1 < n and _word(toks[i]) in _DECL_WORDS:
        return _word(toks[i + 1])
    return None


def _statements_after(tokens: list[Tok], k: int) -> Iterator[list[Tok]]:
    """Split the tokens after the error at ``k`` into statements to parse one by one."""
    n = len(tokens)
    # Skip to the end of the broken logical line.
    while k < n and tokens[k].type != "NEWLINE":
        k += 1
    k += 1
    while k < n:
        while k < n and tokens[k].type in ("INDENT", "DEDENT"):
            k += 1
        if k >= n:
            return
        start = k
        k = _statement_end(tokens, k)
        yield tokens[start:k]


def _statement_end(tokens: list[Tok], k: int) -> int:
    """Where the statement starting at ``k`` ends (with its block, and the ``elif`` and
    ``else`` branches of an ``if``)."""
    n = len(tokens)
    depth = 0
    while k < n:
        t = tokens[k].type
        if t == "INDENT":
            depth += 1
        elif t == "DEDENT":
            depth -= 1
            if depth < 0:
                break
            if depth == 0 and (k + 1 >= n or tokens[k + 1].type not in ("ELIF", "ELSE")):
                return k + 1
        elif t == "NEWLINE" and depth == 0:
            if k + 1 < n and tokens[k + 1].type in ("INDENT", "ELIF", "ELSE"):
                k += 1
                continue
            return k + 1
        k += 1
    return k


def recover_statements(tables: Tables, toks: list[Tok], bad_tok: Tok, b: Builder, src: str,
                       path: str, diags: list[Diagnostic], chunk: Chunk) -> None:
    """Report the syntax errors of the statements after a broken one in a function."""
    try:
        k = toks.index(bad_tok)
    except ValueError:
        return
    for stmt in _statements_after(toks, k):
        if not stmt:
            continue
        if stmt[0].type in ("ELIF", "ELSE"):
            continue
        try:
            result = drive(tables, "start_stmt", stmt, end_token(stmt, src), b)
        except RecursionError:
            return
        if type(result) is Fail:
            if not chunk.suppressed(result.tok.start):
                diags.append(syntax_error(result, src, path))
            # Errors inside this statement's block: recurse into what follows the error.
            if result.tok.type != "$END":
                recover_statements(tables, stmt, result.tok, b, src, path, diags, chunk)
