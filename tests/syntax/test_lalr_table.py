"""The LALR table (``shapescript.syntax.lalr_table``): lark compiles it, the disk keeps it.

The table is read from lark's internals (lark has no public API for it), so these tests
hold it to lark's public API: on every program of the repository, lark's own
``InteractiveParser`` (``Lark.parse_interactive``, ``feed_token``, ``accepts``) accepts
each declaration the table accepts, stops at the same token on the others, and would
have taken the same terminals there. The cached table is compared with a fresh
compilation state for state, across processes (lark numbers states differently in
each).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.syntax import lalr_table as T
from shapescript.syntax.build import Builder
from shapescript.syntax.driver import Fail, acceptable, drive, end_token
from shapescript.syntax.lexer import Lexer
from shapescript.syntax.parser import parse

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).parent / "programs"


def _corpus() -> list[Path]:
    out = sorted(PROGRAMS.glob("*.ss")) + sorted((ROOT / "tests" / "golden").glob("*.ss"))
    return out + sorted((ROOT / "examples").rglob("*.ss"))


def test_grammar_compiles_without_conflicts_and_parses_as_the_cached_table(monkeypatch):
    src = (PROGRAMS / "spotter.ss").read_text(encoding="utf-8")
    expected = parse(src, "s.ss")
    # strict=True: a conflict would raise.
    fresh = T._tables_from(T._lark_table(T.grammar_text()))
    monkeypatch.setattr(T, "_TABLES", fresh)
    # Nodes compare by identity: two parses are the same tree when their reprs are.
    assert repr(parse(src, "s.ss")) == repr(expected)
    assert parse("fn f() = (x +\n", "e.ss") == (None, parse("fn f() = (x +\n", "e.ss")[1])


def test_the_cached_table_is_the_one_lark_compiles(tmp_path):
    # Another process (another hash seed: other state numbers) writes the cache.
    env = dict(os.environ, SHAPESCRIPT_CACHE_DIR=str(tmp_path), PYTHONHASHSEED="7")
    subprocess.run([sys.executable, "-c",
                    "from shapescript.syntax.lalr_table import tables; tables()"],
                   env=env, check=True)
    path = T._cache_path(T.grammar_text())
    cached = T._read_cache(tmp_path / path.name)
    assert cached is not None
    fresh = T._lark_table(T.grammar_text())
    assert T.canonical(cached) == T.canonical(fresh)
    assert T.canonical(json.loads(json.dumps(fresh))) == T.canonical(fresh)
    # and canonical() is no identity: a changed action shows
    changed = json.loads(json.dumps(fresh))
    row = changed["states"][changed["start"]["start_decl"]]
    row[sorted(row)[0]] = ~0
    assert T.canonical(changed) != T.canonical(fresh)


def test_a_bad_table_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", str(tmp_path))
    path = T._cache_path(T.grammar_text())
    path.write_text("{not json", "utf-8")
    tables = T._build_tables()
    assert path.read_text("utf-8").split("\n", 1)[1].startswith("{")  # a digest, then JSON
    rebuilt = T._build_tables()  # now from the cache
    assert rebuilt.states == tables.states
    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", str(tmp_path / "a_file" / "sub"))
    other = T._build_tables()  # an unusable folder: no cache, still a table
    monkeypatch.setattr(T, "_TABLES", other)
    assert parse("dim D = 3\n", "d.ss")[0].decls[0].name == "D"
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", "")
    assert T._cache_path(T.grammar_text()) is None
    assert T._build_tables().rules


@pytest.fixture(scope="module")
def lark_parser():
    from lark import Lark
    from lark.lexer import Lexer as LarkLexer

    class NoLexer(LarkLexer):  # the tokens come from ShapeScript's lexer
        def __init__(self, conf) -> None:
            pass

        def lex(self, lexer_state, parser_state):  # pragma: no cover - never called
            return iter(())

    return Lark(T.grammar_text(), parser="lalr", lexer=NoLexer, start=["start_decl"])


def _lark_outcome(lark, tokens):
    """Where lark's public interactive parser stops on ``tokens`` (``None``: it accepts
    them all), and the terminals it would take there."""
    from lark import Token
    from lark.exceptions import UnexpectedToken

    ip = lark.parse_interactive(start="start_decl")
    for k, t in enumerate(tokens):
        try:
            ip.feed_token(Token(t.type, "x"))
        except UnexpectedToken:
            return k, ip.accepts()
    try:
        ip.feed_eof()
    except UnexpectedToken:
        return len(tokens), ip.accepts()
    return None, set()


def _variants(toks):
    """A declaration's tokens, cut short, and with one token left out."""
    yield toks
    yield toks[:len(toks) // 2]
    k = len(toks) // 3
    yield toks[:k] + toks[k + 1:]


def test_the_table_agrees_with_lark_s_public_parser(lark_parser):
    table = T.tables()
    runs = failures = 0
    for path in _corpus():
        src = path.read_text(encoding="utf-8", errors="replace")
        b = Builder(str(path), src, {})
        for chunk in Lexer(src, str(path)).run():
            for toks in _variants(chunk.tokens):
                if not toks:
                    continue
                b.reset()
                try:
                    result = drive(table, "start_decl", toks, end_token(toks, src), b)
                except RecursionError:
                    continue
                where, accepts = _lark_outcome(lark_parser, toks)
                runs += 1
                if type(result) is Fail:
                    failures += 1
                    k = len(toks) if result.tok.type == "$END" else toks.index(result.tok)
                    assert where == k, (path, result.tok)
                    # (`acceptable` leaves out the end of input, which messages don't name)
                    assert result.expected - {"$END"} == accepts - {"$END"}, (path, result.tok)
                else:
                    assert where is None, (path, toks[where])
    assert runs > 1000 and failures > 500  # the corpus has both


def test_acceptable_is_the_set_of_terminals_shiftable_after_reductions():
    table = T.tables()
    stack = [table.start["start_decl"]]
    assert acceptable(table, stack) == {"DEVICES", "IMPORT", "FROM", "DIM", "CONST", "FN",
                                         "EXPORT", "EXTERN", "MODEL"}
