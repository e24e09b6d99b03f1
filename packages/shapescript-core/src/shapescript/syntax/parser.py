"""ShapeScript's parser: ``parse(src, path) -> (Module | None, diagnostics)``.

The phases, each its own module:

1. the **scanner** (``scanner.py``) makes context-free tokens;
2. the **layout** pass (``layout.py``) makes logical lines (``NEWLINE``/``INDENT``/
   ``DEDENT``), matches brackets, retags tokens by context, and splits the file into
   top-level chunks (one declaration each), having the **pattern** sub-parser
   (``patterns.py``) make each einops pattern one ``PATTERN`` token; ``doc_comments.py``
   finds the ``##`` doc comments apart;
3. the **parser** (here and ``driver.py``) runs the LALR(1) table of ``grammar.lark``
   (``lalr_table.py``) over each chunk on its own, so every declaration that parses is
   kept and one syntax error per broken declaration is reported (``syntax_errors.py``);
   inside a broken function the statements after the error are parsed one by one to
   report their errors too (``recovery.py``). A syntax error that may follow from a
   lexical one (an unclosed bracket, a bad character …) is not reported twice;
4. the **builder** (``build.py`` and its rules in ``build_*.py``) makes the tree
   (``ast.py``) in the parser's reductions: no lark ``Tree``.

The result, ``ast.Module``, holds the declarations kept and, in ``Module.dropped``, a
record of each one the parser dropped (``ast.DroppedDecl``: its span and the name it
declares), for the checker. How some forms are represented is in the ``build_*``
modules' docstrings.

Nothing here raises: any input gives a (possibly partial) module and diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass

from shapescript.gc_pause import paused_gc
from shapescript.diagnostics import INTERNAL_NOTE, Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.build import Builder
from shapescript.syntax.depth import may_be_too_deep, nesting_error
from shapescript.syntax.doc_comments import scan_docs
from shapescript.syntax.driver import Fail, drive, end_token
from shapescript.syntax.lalr_table import Tables, tables
from shapescript.syntax.lexer import Lexer
from shapescript.syntax.recovery import dropped_decl, recover_statements
from shapescript.syntax.syntax_errors import syntax_error
from shapescript.syntax.tokens import Chunk, Tok
from shapescript import error_codes as ec

__all__ = ["Parsed", "parse", "parse_expr", "parse_file"]


@dataclass(frozen=True)
class Parsed:
    """What parsing one file gives: the module (``None`` only if no declaration could be
    parsed), the diagnostics, sorted, and the declarations the parser dropped (also in
    ``module.dropped`` when there is a module)."""

    module: ast.Module | None
    diagnostics: tuple[Diagnostic, ...]
    dropped: tuple[ast.DroppedDecl, ...]


def parse(src: str, path: str) -> tuple[ast.Module | None, list[Diagnostic]]:
    """Parse one file. ``Module`` is ``None`` only if no declaration could be parsed.

    >>> module, diags = parse("dim D = 4\\nfn f(x: [D]) -> [D] = x +\\n", "f.ss")
    >>> [d.name for d in module.decls], [d.names for d in module.dropped], diags[0].code
    (['D'], [('f',)], 'E0101')
    """
    result = parse_file(src, path)
    return result.module, list(result.diagnostics)


def parse_file(src: str, path: str) -> Parsed:
    """Parse one file, keeping the record of what was dropped even with no module.

    >>> parse_file("fn f( = 1\\n", "f.ss").dropped[0].names
    ('f',)
    """
    diags: list[Diagnostic] = []
    try:
        if not isinstance(src, str):
            src = src.decode("utf-8", "replace") if isinstance(src, (bytes, bytearray)) \
                else str(src)
        with paused_gc():
            return _parse(src, path, diags)
    except Exception as e:  # noqa: BLE001 - never raise: an internal error is a diagnostic
        diags.append(_internal(e, path))
        return Parsed(None, tuple(diags), ())


def _internal(e: BaseException, path: str, span: Span | None = None) -> Diagnostic:
    from shapescript.term import debug_enabled

    notes: tuple[str, ...] = (INTERNAL_NOTE,)
    if debug_enabled():
        import traceback
        notes += ("".join(traceback.format_exception(e)),)
    return Diagnostic.error(ec.E0000, "internal error", span or Span(path, 1, 1, 1, 1, 0, 0),
                            notes=notes)


def _tok_span(path: str, t: Tok) -> Span:
    return Span(path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)


def _parse(src: str, path: str, diags: list[Diagnostic]) -> Parsed:
    table = tables()
    lx = Lexer(src, path)
    chunks = lx.run()
    docs, module_doc, doc_spans = scan_docs(src, path)
    b = Builder(path, src, docs)
    decls: list = []
    dropped: list[ast.DroppedDecl] = []
    for chunk in chunks:
        if not chunk.tokens:
            continue
        decl = _parse_decl(table, chunk, src, path, b, diags)
        if decl is None:
            dropped.append(dropped_decl(chunk.tokens, path))
        else:
            decls.append(decl)
    diags.extend(lx.diags)
    diags.extend(b.diags)
    diags.sort(key=Diagnostic.sort_key)
    if not decls and dropped:
        return Parsed(None, tuple(diags), tuple(dropped))
    return Parsed(ast.Module(tuple(decls), path, module_doc, doc_spans, tuple(dropped)),
                  tuple(diags), tuple(dropped))


def _parse_decl(table: Tables, chunk: Chunk, src: str, path: str, b: Builder,
                diags: list[Diagnostic]):
    """The declaration of one chunk, or ``None`` if it is dropped (its errors reported)."""
    toks = chunk.tokens
    first = toks[0]
    b.reset()
    try:
        result = drive(table, "start_decl", toks, end_token(toks, src), b)
    except RecursionError:  # the builder's precedence climbing, past any sane depth
        diags.append(Diagnostic.error(ec.E0107, "expression nested too deeply",
                                      _tok_span(path, first), "in this declaration",
                                      help="name parts of the expression with `=`"))
        return None
    except Exception as e:  # noqa: BLE001
        diags.append(_internal(e, path, _tok_span(path, first)))
        return None
    if type(result) is Fail:
        if not chunk.suppressed(result.tok.start):
            diags.append(syntax_error(result, src, path))
            if first.type in ("FN", "EXPORT") and result.tok.type != "$END":
                recover_statements(table, toks, result.tok, b, src, path, diags, chunk)
        return None
    if may_be_too_deep(toks):
        deep = nesting_error(result, path)
        if deep is not None:  # later phases recurse: they never see this declaration
            diags.append(deep)
            return None
    return result


def parse_expr(src: str, path: str = "<expr>") -> tuple[ast.Expr | None, list[Diagnostic]]:
    """Parse one expression (for tests and tools): ``fn _() = <src>``'s body."""
    wrapped = "fn _e() = " + src.replace("\n", " ") + "\n"
    module, diags = parse(wrapped, path)
    if module is None or not module.decls:
        return None, diags
    decl = module.decls[0]
    body = decl.body if isinstance(decl, ast.FnDecl) else None
    return (body if not isinstance(body, tuple) else None), diags
