"""The LALR(1) table of ``grammar.lark``: compiled by lark, cached on disk as JSON.

``grammar.lark`` is compiled once per process, lazily, by lark with ``parser="lalr"`` and
``strict=True`` (so the grammar has no conflicts), into plain data: ``states[s][symbol]``
is, for a terminal, the state to shift to (an int >= 0) or ``~r`` (< 0) to reduce by rule
``r``; for a nonterminal, the state to go to. The parser (``parser.py``) drives that table
with its own loop, whose reductions call the builder directly (no lark ``Tree``, no
per-token lark objects): that loop is most of what makes parsing fast.

lark has no public API for its compiled table, so ``_lark_table`` reads it from lark's
internals: lark is pinned, in ``pyproject.toml``, to the versions this was tested with,
and ``tests/syntax/test_lalr_table.py`` compiles the grammar again and compares the
result, state for state (``canonical``), with the cached table, and checks the table
against lark's own public ``InteractiveParser`` on a corpus of programs.

The compiled table is cached (``~/.cache/shapescript``, ``$XDG_CACHE_HOME/shapescript``
or ``$SHAPESCRIPT_CACHE_DIR``; ``""`` for none), keyed by the grammar's hash, which
spares each process importing lark and running the LALR analysis. The file's first line
is the SHA-256 of the JSON after it, checked before the table is used: a damaged file,
even one that is still valid JSON, is compiled again and rewritten, silently.
"""

from __future__ import annotations

import threading
from importlib import resources

from shapescript.files import atomic_write

__all__ = ["Tables", "canonical", "grammar_text", "tables"]

_TABLE_FORMAT = 2  # bump when what _lark_table writes changes
_LOCK = threading.Lock()
_TABLES: Tables | None = None


class Tables:
    """The table, ready for the parser's loop.

    ``states[s][symbol]`` as in the module docstring; ``rules[r] = (size, callback or
    None, lhs)``, the callback building the rule's value (``None`` for a unit rule, whose
    value is its one child's); ``start[name]`` and ``end[name]`` the first and the
    accepting state of each start symbol.
    """

    __slots__ = ("states", "rules", "start", "end")

    def __init__(self, states, rules, start, end) -> None:
        self.states = states
        self.rules = rules
        self.start = start
        self.end = end


def grammar_text() -> str:
    return resources.files("shapescript.syntax").joinpath("grammar.lark").read_text("utf-8")


def _lark_table(grammar: str) -> dict:
    """Compile the grammar with lark (LALR(1), strict: no conflicts) into plain data.

    The one place that reads lark's internals (``parser.parser._parse_table`` and the
    ``Shift`` action): see the module docstring.
    """
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


def _tables_from(data: dict) -> Tables:
    """The parser's tables: each rule's callback looked up in the builder's rules."""
    from shapescript.syntax.build import RULES

    rules = []
    for size, name, origin in data["rules"]:
        fn = RULES.get(name)
        if fn is None:
            if size != 1:
                raise RuntimeError(f"no builder for rule {name}")
            # a unit rule: the value stays, only the state changes
        rules.append((size, fn, origin))
    return Tables(data["states"], rules, data["start"], data["end"])


def canonical(data: dict) -> dict:
    """The table with its states numbered in a fixed order, for comparing two tables.

    lark numbers states differently from one process to the next (set order), so two
    compilations of one grammar differ in numbering only; this renumbers them by a walk
    from the start states that takes symbols in sorted order.
    """
    states = data["states"]
    order: dict[int, int] = {}
    queue = [data["start"][name] for name in sorted(data["start"])]
    for s in queue:
        order.setdefault(s, len(order))
    k = 0
    while k < len(queue):
        row = states[queue[k]]
        k += 1
        for sym in sorted(row):
            act = row[sym]
            if act >= 0 and act not in order:
                order[act] = len(order)
                queue.append(act)
    return {"rules": [list(r) for r in data["rules"]],
            "states": [{sym: (order[a] if a >= 0 else a) for sym, a in
                        sorted(states[s].items())} for s in queue],
            "start": {n: order[s] for n, s in sorted(data["start"].items())},
            "end": {n: order[s] for n, s in sorted(data["end"].items())}}


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


def _read_cache(path) -> dict | None:
    """The table cached at ``path``, or ``None`` if it is missing or damaged."""
    import hashlib
    import json
    try:
        raw = path.read_bytes()
        digest, _, body = raw.partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != digest:
            return None
        data = json.loads(body)
        data["start"] = {k: int(v) for k, v in data["start"].items()}
        data["end"] = {k: int(v) for k, v in data["end"].items()}
        return data if data.get("format") == _TABLE_FORMAT else None
    except Exception:  # noqa: BLE001 - a missing or bad cache: compile the grammar
        return None


def _write_cache(path, data: dict) -> None:
    import hashlib
    import json
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps(data, separators=(",", ":")).encode("utf-8")
        atomic_write(path, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    except Exception:  # noqa: BLE001 - no cache then
        pass


def _build_tables() -> Tables:
    grammar = grammar_text()
    try:
        path = _cache_path(grammar)
    except Exception:  # noqa: BLE001 - no usable cache folder
        path = None
    if path is not None:
        data = _read_cache(path)
        if data is not None:
            try:
                return _tables_from(data)
            except Exception:  # noqa: BLE001 - a table of another grammar: compile it
                pass
    data = _lark_table(grammar)
    result = _tables_from(data)
    if path is not None:
        _write_cache(path, data)
    return result


def tables() -> Tables:
    """The table, compiled (or read from the cache) on first use."""
    global _TABLES
    if _TABLES is None:
        with _LOCK:
            if _TABLES is None:
                _TABLES = _build_tables()
    return _TABLES
