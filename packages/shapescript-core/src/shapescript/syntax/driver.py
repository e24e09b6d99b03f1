"""The LALR(1) loop over ``lalr_table``'s table, whose reductions call the builder.

``drive`` parses one list of tokens from a start symbol (``start_decl`` for a top-level
chunk, ``start_stmt`` for the statements recovery reads after an error) and returns the
start rule's value, or a ``Fail`` at the first token the table has no action for, with
the terminals it could have taken instead (``acceptable``).
"""

from __future__ import annotations

from shapescript.syntax.build import Builder
from shapescript.syntax.lalr_table import Tables
from shapescript.syntax.tokens import Tok

__all__ = ["Fail", "acceptable", "drive", "end_token"]


class Fail:
    """A syntax error: the token met and the terminals acceptable in its place."""

    __slots__ = ("tok", "expected")

    def __init__(self, tok: Tok, expected: set[str]) -> None:
        self.tok = tok
        self.expected = expected


def end_token(tokens: list[Tok], src: str) -> Tok:
    """The ``$END`` token after ``tokens``: at the start of the next line, or at the end
    of the last line of a file that ends without a line break."""
    if tokens:
        t = tokens[-1]
        if t.type == "NEWLINE" and t.start < len(src):  # the start of the next line
            return Tok("$END", "", t.line + 1, 1, t.line + 1, 1, t.end, t.end)
        return Tok("$END", "", t.end_line, t.end_col, t.end_line, t.end_col, t.end, t.end)
    return Tok("$END", "", 1, 1, 1, 1, 0, 0)


def acceptable(tables: Tables, stack: list[int]) -> set[str]:
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


def drive(tables: Tables, start: str, tokens: list[Tok], end_tok: Tok, b: Builder):
    """The LALR(1) loop; returns the start rule's value or a ``Fail``.

    The hot loop of parsing: the state on top of the stack is kept in ``state``, and a
    missing action is a ``KeyError`` rather than a test at every step.
    """
    states = tables.states
    rules = tables.rules
    stack = [tables.start[start]]
    state = stack[0]
    values: list = []
    push_state = stack.append
    push_value = values.append
    tok = end_tok
    try:
        for tok in tokens:
            ttype = tok.type
            while True:
                act = states[state][ttype]
                if act >= 0:
                    push_state(act)
                    push_value(tok)
                    state = act
                    break
                size, fn, origin = rules[~act]
                if size == 1:
                    if fn is not None:  # else a unit rule: the value stays
                        values[-1] = fn(b, values[-1:])
                    state = states[stack[-2]][origin]
                    stack[-1] = state
                elif size:
                    s = values[-size:]
                    del values[-size:]
                    del stack[-size:]
                    push_value(fn(b, s))
                    state = states[stack[-1]][origin]
                    push_state(state)
                else:
                    push_value(fn(b, []))
                    state = states[state][origin]
                    push_state(state)
        tok = end_tok
        return _finish(tables, start, stack, values, end_tok, b)
    except KeyError:
        row = states[stack[-1]]
        if tok.type in row:
            raise  # a bug in a callback, not a syntax error
        return Fail(tok, acceptable(tables, stack))


def _finish(tables: Tables, start: str, stack: list[int], values: list, end_tok: Tok,
            b: Builder):
    """The reductions at the end of the tokens, up to the start rule's value."""
    states = tables.states
    rules = tables.rules
    end_state = tables.end[start]
    while True:
        act = states[stack[-1]]["$END"]
        if act >= 0:
            return Fail(end_tok, acceptable(tables, stack))
        size, fn, origin = rules[~act]
        if fn is None:
            del stack[-1]
        elif size:
            s = values[-size:]
            del values[-size:]
            del stack[-size:]
            values.append(fn(b, s))
        else:
            values.append(fn(b, []))
        stack.append(states[stack[-1]][origin])
        if stack[-1] == end_state:
            return values[-1]
