"""ShapeScript's parser: ``parse(src, path) -> (Module | None, diagnostics)``.

The pipeline:

1. ``lexer.Lexer`` makes tokens, layout (``NEWLINE``/``INDENT``/``DEDENT``), ``PATTERN``
   and ``CTOR`` tokens, and splits the file into top-level chunks (one declaration each);
   ``lexer.scan_docs`` finds the ``##`` doc comments.
2. ``grammar.lark`` is compiled once per process, lazily, by lark with ``parser="lalr"``
   (and ``strict=True``, so the grammar has no conflicts); the compiled table is also
   cached on disk (``~/.cache/shapescript`` or ``$SHAPESCRIPT_CACHE_DIR``), so most
   processes don't import lark at all. The table is driven here by a small loop whose
   reductions call ``build.Builder`` directly: no lark ``Tree`` and no per-token lark
   objects, which is what makes the parser fast.
3. Each chunk is parsed on its own, so every declaration that parses is kept and one
   syntax error per broken declaration is reported; inside a broken function the
   statements after the error are parsed one by one to report their errors too. A
   syntax error that may follow from a lexical one (an unclosed bracket, a bad
   character …) is not reported twice.

How some forms are represented (details in ``build.py``'s docstring):

* pipes are desugared into calls with ``piped=True`` (``_`` marks the piped value's
  place); ``x |> to T`` is a ``Convert``;
* ``Call.pattern`` holds the bare einops pattern, ``Call.pattern_pos`` the number of
  positional arguments before it, counted after a pipe is desugared;
* ``over=(h w)``, a parenthesised list of names without commas (only allowed as a keyword
  argument's value), is a ``TupleExpr`` of ``Name`` nodes whose span covers the group;
* ``(e)`` is ``e`` with its span widened to the parentheses; ``-1.5`` is a ``UnaryOp``;
* ranges ``a..b`` bind looser than ``or`` and tighter than ``|>``, and don't chain.

Nothing here raises: any input gives a (possibly partial) module and diagnostics.
"""

from __future__ import annotations

import gc
import threading
from importlib import resources

from shapescript.diagnostics import Diagnostic
from shapescript.files import atomic_write
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.build import Builder
from shapescript.syntax.depth import may_be_too_deep, nesting_error
from shapescript.syntax.lexer import Lexer, Tok, describe, scan_docs

__all__ = ["parse", "parse_expr"]

_LOCK = threading.Lock()
_TABLES = None


class _Tables:
    """Lark's LALR(1) table, recoded for ``_drive``.

    ``states[s][symbol]`` is, for a terminal, the next state (an int >= 0) to shift to or
    ``~r`` (< 0) to reduce by ``rules[r] = (size, callback or None, lhs)``; for a
    nonterminal, the state to go to.
    """

    __slots__ = ("states", "rules", "start", "end")

    def __init__(self, states, rules, start, end) -> None:
        self.states = states
        self.rules = rules
        self.start = start
        self.end = end


def _grammar_text() -> str:
    return resources.files("shapescript.syntax").joinpath("grammar.lark").read_text("utf-8")


def _lark_table(grammar: str) -> dict:
    """Compile the grammar with lark (LALR(1), strict: no conflicts) into plain data."""
    from lark import Lark
    from lark.lexer import Lexer as LarkLexer
    from lark.parsers.lalr_analysis import Shift

    class _NoLexer(LarkLexer):  # tokens come from shapescript.syntax.lexer
        def __init__(self, conf) -> None:
            pass

        def lex(self, lexer_state, parser_state):  # pragma: no cover - never called
            return iter(())

    lark = Lark(grammar, parser="lalr", lexer=_NoLexer, strict=True,
                start=["start_decl", "start_stmt"])
    table = lark.parser.parser._parse_table
    rules: list = []
    rule_index: dict = {}
    for rule in lark.rules:
        rule_index[rule] = len(rules)
        rules.append([len(rule.expansion), str(rule.alias or rule.origin.name),
                      str(rule.origin.name)])
    states: list = [None] * (max(table.states) + 1)
    for state, actions in table.states.items():
        states[state] = {str(sym): (arg if action is Shift else ~rule_index[arg])
                         for sym, (action, arg) in actions.items()}
    return {"format": _TABLE_FORMAT, "states": states, "rules": rules,
            "start": dict(table.start_states), "end": dict(table.end_states)}


def _tables_from(data: dict) -> _Tables:
    """The driver's tables: each rule's callback looked up on ``Builder``."""
    rules = []
    for size, name, origin in data["rules"]:
        fn = getattr(Builder, "r_" + name, None)
        if fn is None or fn is Builder._pass or fn is Builder.r_pass:
            if size != 1:
                raise RuntimeError(f"no builder for rule {name}")
            fn = None  # a unit rule: the value stays, only the state changes
        rules.append((size, fn, origin))
    return _Tables(data["states"], rules, data["start"], data["end"])


# The compiled table is cached on disk (JSON, keyed by the grammar's hash), which spares
# each process importing lark and running the LALR analysis. The file's first line is the
# SHA-256 of the JSON after it, checked before the table is used: a damaged file, even one
# that is still valid JSON, is compiled again and rewritten, silently.
# SHAPESCRIPT_CACHE_DIR chooses the folder ("" for none).
_TABLE_FORMAT = 2  # bump when what _lark_table writes changes


def _cache_path(grammar: str):
    """Where the table for ``grammar`` is cached, or ``None`` for no cache."""
    import hashlib
    import os
    from pathlib import Path
    base = os.environ.get("SHAPESCRIPT_CACHE_DIR")
    if base == "":
        return None  # set but empty: no cache on disk
    if base is None:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg, "shapescript") if xdg else os.path.join(
            os.path.expanduser("~"), ".cache", "shapescript")
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:24]
    return Path(base) / f"lalr-{_TABLE_FORMAT}-{digest}.json"


def _build_tables() -> _Tables:
    import hashlib
    import json
    import os
    grammar = _grammar_text()
    path = None
    try:
        path = _cache_path(grammar)
        if path is None:
            raise FileNotFoundError
        raw = path.read_bytes()
        digest, _, body = raw.partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != digest:
            raise ValueError("a damaged parser table")
        data = json.loads(body)
        data["start"] = {k: int(v) for k, v in data["start"].items()}
        data["end"] = {k: int(v) for k, v in data["end"].items()}
        if data.get("format") == _TABLE_FORMAT:
            return _tables_from(data)
    except Exception:  # noqa: BLE001 - a missing or bad cache: compile the grammar
        pass
    data = _lark_table(grammar)
    tables = _tables_from(data)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            body = json.dumps(data, separators=(",", ":")).encode("utf-8")
            atomic_write(path, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        except Exception:  # noqa: BLE001 - no cache then
            pass
    return tables


def _tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        with _LOCK:
            if _TABLES is None:
                _TABLES = _build_tables()
    return _TABLES


class _Fail:
    __slots__ = ("tok", "expected")

    def __init__(self, tok, expected) -> None:
        self.tok = tok
        self.expected = expected


def _acceptable(tables: _Tables, stack: list) -> set[str]:
    """The terminals the parser could shift next from ``stack`` (after any reductions).

    LALR merges lookaheads, so a state's row may list terminals that this particular
    stack can't accept; simulating the reductions gives the exact set for messages.
    """
    states = tables.states
    rules = tables.rules
    out = set()
    for term in states[stack[-1]]:
        if not (term.isupper() or term == "$END"):
            continue
        st = list(stack)
        for _ in range(10_000):
            act = states[st[-1]].get(term)
            if act is None:
                break
            if act >= 0:
                out.add(term)
                break
            size, _fn, origin = rules[~act]
            if size:
                del st[-size:]
            goto = states[st[-1]].get(origin)
            if goto is None:
                out.add(term)  # accepting
                break
            st.append(goto)
    return out


def _drive(tables: _Tables, start: str, tokens, end_tok: Tok, b: Builder):
    """The LALR(1) loop; returns the start rule's value or a ``_Fail``."""
    states = tables.states
    rules = tables.rules
    stack = [tables.start[start]]
    values: list = []
    push_state = stack.append
    push_value = values.append
    tok = end_tok
    try:
        for tok in tokens:
            ttype = tok.type
            while True:
                act = states[stack[-1]][ttype]
                if act >= 0:
                    push_state(act)
                    push_value(tok)
                    break
                size, fn, origin = rules[~act]
                if fn is None:  # unit rule
                    del stack[-1]
                elif size == 1:
                    values[-1] = fn(b, values[-1:])
                    del stack[-1]
                elif size:
                    s = values[-size:]
                    del values[-size:]
                    del stack[-size:]
                    push_value(fn(b, s))
                else:
                    push_value(fn(b, []))
                push_state(states[stack[-1]][origin])
        tok = end_tok
        end_state = tables.end[start]
        while True:
            act = states[stack[-1]]["$END"]
            if act >= 0:
                return _Fail(end_tok, _acceptable(tables, stack))
            size, fn, origin = rules[~act]
            if fn is None:
                del stack[-1]
            elif size:
                s = values[-size:]
                del values[-size:]
                del stack[-size:]
                push_value(fn(b, s))
            else:
                push_value(fn(b, []))
            push_state(states[stack[-1]][origin])
            if stack[-1] == end_state:
                return values[-1]
    except KeyError:
        row = states[stack[-1]]
        if tok.type in row:
            raise  # a bug in a callback, not a syntax error
        return _Fail(tok, _acceptable(tables, stack))


# -- error messages ---------------------------------------------------------------------

_EXPR_START = {"NAME", "INT", "FLOAT", "LPAR", "MINUS", "NOT", "STRING"}
_NAMES = {
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "COMMA": "`,`",
    "COLON": "`:`", "EQUAL": "`=`", "DOT": "`.`", "ELLIPSIS": "`...`", "ARROW": "`->`",
    "QMARK": "`?`", "UNDERSCORE": "`_`", "MINUS": "`-`", "OP": "an operator",
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


def _syntax_error(fail: _Fail, src: str, path: str) -> Diagnostic:
    tok = fail.tok
    expected = {t for t in fail.expected if t.isupper() or t == "$END"}
    span = Span(path, tok.line, tok.col, tok.end_line, tok.end_col, tok.start, tok.end)
    if tok.type == "INDENT":
        return Diagnostic.error("E0102", "unexpected indentation", span,
                                "this line is indented more than the one before",
                                help="indent only the block after a line ending in `:`")
    if "INDENT" in expected and len(expected) == 1:
        return Diagnostic.error("E0102", "expected an indented block", span,
                                "the block after `:` must be indented")
    what = describe(tok, src)
    if tok.type in ("NEWLINE", "DEDENT", "$END"):
        message = f"unexpected {what}"
    else:
        message = f"unexpected token {what}"
    return Diagnostic.error("E0101", message, span, _expected_label(expected))


# -- the parser -------------------------------------------------------------------------


def _end_token(tokens: list[Tok], src: str) -> Tok:
    if tokens:
        t = tokens[-1]
        if t.type == "NEWLINE" and t.start < len(src):  # the start of the next line
            return Tok("$END", "", t.line + 1, 1, t.line + 1, 1, t.end, t.end)
        # (a file that ends without a line break ends on its last line)
        return Tok("$END", "", t.end_line, t.end_col, t.end_line, t.end_col, t.end, t.end)
    return Tok("$END", "", 1, 1, 1, 1, 0, 0)


def _statements_after(tokens: list[Tok], k: int):
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
                    k += 1
                    break
            elif t == "NEWLINE" and depth == 0:
                if k + 1 < n and tokens[k + 1].type == "INDENT":
                    k += 1
                    continue
                if k + 1 < n and tokens[k + 1].type in ("ELIF", "ELSE"):
                    k += 1
                    continue
                k += 1
                break
            k += 1
        yield tokens[start:k]


def parse(src: str, path: str) -> tuple[ast.Module | None, list[Diagnostic]]:
    """Parse one file. ``Module`` is ``None`` only if no declaration could be parsed."""
    diags: list[Diagnostic] = []
    try:
        if not isinstance(src, str):
            src = src.decode("utf-8", "replace") if isinstance(src, (bytes, bytearray)) \
                else str(src)
        gc_was_on = gc.isenabled()
        gc.disable()  # the parser allocates many small acyclic objects
        try:
            return _parse(src, path, diags)
        finally:
            if gc_was_on:
                gc.enable()
    except Exception as e:  # noqa: BLE001 - never raise: an internal error is a diagnostic
        diags.append(_internal(e, path))
        return None, diags


def _internal(e: BaseException, path: str, span: Span | None = None) -> Diagnostic:
    from shapescript.term import debug_enabled

    notes = ("this is a bug in ShapeScript, not in your program; please report it, "
             "with this file",)
    if debug_enabled():
        import traceback
        notes += ("".join(traceback.format_exception(e)),)
    return Diagnostic.error("E0000", "internal error", span or Span(path, 1, 1, 1, 1, 0, 0),
                            notes=notes)


def _parse(src: str, path: str, diags: list[Diagnostic]):
    tables = _tables()
    lx = Lexer(src, path)
    chunks = lx.run()
    docs, module_doc, doc_spans = scan_docs(src, path)
    b = Builder(path, src, docs)
    decls: list = []
    failed = 0
    for chunk in chunks:
        toks = chunk.tokens
        if not toks:
            continue
        b.reset()
        end = _end_token(toks, src)
        first = toks[0]
        try:
            result = _drive(tables, "start_decl", toks, end, b)
        except RecursionError:  # the builder's precedence climbing, past any sane depth
            failed += 1
            diags.append(Diagnostic.error(
                "E0107", "expression nested too deeply",
                Span(path, first.line, first.col, first.end_line, first.end_col, first.start,
                     first.end), "in this declaration",
                help="name parts of the expression with `=`"))
            continue
        except Exception as e:  # noqa: BLE001
            failed += 1
            diags.append(_internal(e, path, Span(path, first.line, first.col, first.end_line,
                                                 first.end_col, first.start, first.end)))
            continue
        if type(result) is _Fail:
            failed += 1
            if not chunk.suppressed(result.tok.start):
                diags.append(_syntax_error(result, src, path))
                if first.type in ("FN", "EXPORT") and result.tok.type != "$END":
                    _recover_statements(tables, toks, result.tok, b, src, path, diags, chunk)
            continue
        if may_be_too_deep(toks):
            deep = nesting_error(result, path)
            if deep is not None:  # later phases recurse: they never see this declaration
                failed += 1
                diags.append(deep)
                continue
        decls.append(result)
    diags.extend(lx.diags)
    diags.extend(b.diags)
    diags.sort(key=Diagnostic.sort_key)
    if not decls and failed:
        return None, diags
    return ast.Module(tuple(decls), path, module_doc, doc_spans), diags


def _recover_statements(tables, toks, bad_tok, b, src, path, diags, chunk) -> None:
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
            result = _drive(tables, "start_stmt", stmt, _end_token(stmt, src), b)
        except RecursionError:
            return
        if type(result) is _Fail:
            if not chunk.suppressed(result.tok.start):
                diags.append(_syntax_error(result, src, path))
            # Errors inside this statement's block: recurse into what follows the error.
            if result.tok.type != "$END":
                _recover_statements(tables, stmt, result.tok, b, src, path, diags, chunk)


def parse_expr(src: str, path: str = "<expr>") -> tuple[ast.Expr | None, list[Diagnostic]]:
    """Parse one expression (for tests and tools): ``fn _() = <src>``'s body."""
    wrapped = "fn _e() = " + src.replace("\n", " ") + "\n"
    module, diags = parse(wrapped, path)
    if module is None or not module.decls:
        return None, diags
    decl = module.decls[0]
    return (decl.body if isinstance(decl, ast.FnDecl) else None), diags
