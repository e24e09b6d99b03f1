"""The einops-pattern sub-parser: a pattern's tokens to one ``PATTERN`` token.

LALR can't parse ``b (h w) -> b h w`` as an expression, so the layout pass hands each
complete chunk here: in ``rearrange(…)``/``reduce(…)``/``repeat(…)`` the argument holding a
top-level ``->``, and in ``einsum(…)`` everything from the top-level ``:`` to the first
``, NAME =`` or ``)``, collapse into one ``PATTERN`` token whose value is an
``ast.Pattern`` (``einsum``'s ``:`` becomes a ``,`` before it); in ``pack(…)``/
``unpack(…)`` the second argument (the first after a pipe) becomes an
``ast.PackPattern`` (``b * d``, ``b * d -> b d, b n d``). A malformed pattern is
E0601, with a best-effort ``ast.Pattern`` so that the parse goes on.
"""

from __future__ import annotations

from shapescript.builtin_registry import BUILTINS_BY_NAME, PATTERN_NAMES
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.scanner import KEYWORDS
from shapescript.syntax.tokens import Chunk, Tok, describe
from shapescript import error_codes as ec

__all__ = ["collapse_patterns"]

_PATTERN_HELP = "a pattern holds names, integers, `( … )` groups and `...`"
PACK_CALLS = frozenset(n for n in PATTERN_NAMES if BUILTINS_BY_NAME[n].pattern == "pack")


class _Reporter:
    """Where a pattern's errors go, and the file its spans name."""

    __slots__ = ("path", "src", "diags")

    def __init__(self, path: str, src: str, diags: list[Diagnostic]) -> None:
        self.path = path
        self.src = src
        self.diags = diags

    def span(self, t: Tok) -> Span:
        return Span(self.path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)

    def error(self, code: str, message: str, span: Span, label: str = "", **kw) -> None:
        self.diags.append(Diagnostic.error(code, message, span, label, **kw))


def collapse_patterns(chunk: Chunk, path: str, src: str, diags: list[Diagnostic]) -> None:
    """Replace each pattern's tokens in ``chunk`` by one PATTERN token."""
    rep = _Reporter(path, src, diags)
    toks = chunk.tokens
    replace: list[tuple[int, int, list[Tok]]] = []  # [start, end) -> new tokens
    for p in chunk.triggers:
        if any(a <= p < b for a, b, _ in replace):
            continue  # inside a pattern already collapsed (a malformed one)
        q = chunk.matches.get(p)
        if q is None:
            continue  # unclosed: already reported
        fname = toks[p - 1].value
        if fname == "einsum":
            found = _einsum_pattern(toks, p, q, rep)
            if found is not None:
                replace.append(found)
        elif fname in PACK_CALLS:
            span = _pack_pattern_span(toks, p, q)
            if span is not None:
                a, b = span
                replace.append((a, b, [_pack_pattern_token(toks[a:b], fname == "unpack", rep)]))
        else:
            replace.extend(_arrow_patterns(toks, p, q, rep))
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


def _einsum_pattern(toks: list[Tok], p: int, q: int, rep: _Reporter):
    """``einsum(…)`` with its ``(`` at ``p`` and ``)`` at ``q``: what replaces its pattern
    (``(start, end, tokens)``), or ``None`` if it has none (reported)."""
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
        rep.error(ec.E0601, "`einsum` needs a pattern", rep.span(toks[p - 1]),
                  "no `:` and pattern after the operands",
                  help="write the operands, `:`, then the pattern: "
                       "`einsum(x, w: b N D, N Dt -> b Dt D)`")
        return None
    end = _keywords_start(toks, colon + 1, q)
    ct = toks[colon]
    comma = Tok("COMMA", ":", ct.line, ct.col, ct.end_line, ct.end_col, ct.start, ct.end)
    ptoks = toks[colon + 1:end]
    if not ptoks:
        rep.error(ec.E0601, "expected a pattern after `:`", rep.span(ct),
                  "the pattern is missing")
        pat = ast.Pattern(((),), (), rep.span(ct))
        ptok = Tok("PATTERN", pat, ct.line, ct.end_col, ct.line, ct.end_col, ct.end, ct.end)
    else:
        ptok = _pattern_token(ptoks, True, rep)
    return colon, end, [comma, ptok]


def _arrow_patterns(toks: list[Tok], p: int, q: int, rep: _Reporter):
    """``rearrange``/``reduce``/``repeat``: split the arguments at top-level commas and
    collapse the one with a top-level ``->``."""
    out = []
    depth = 0
    run_start = p + 1
    run_arrow = False
    for k in range(p + 1, q + 1):
        t = toks[k].type
        if k == q or (t == "COMMA" and depth == 0):
            if run_arrow and k > run_start:
                out.append((run_start, k, [_pattern_token(toks[run_start:k], False, rep)]))
            run_start = k + 1
            run_arrow = False
        elif t == "LPAR" or t == "LSQB":
            depth += 1
        elif t == "RPAR" or t == "RSQB":
            depth -= 1
        elif t == "ARROW" and depth == 0:
            run_arrow = True
    return out



def _keywords_start(toks: list[Tok], lo: int, q: int) -> int:
    """The first top-level ``, NAME =`` (a keyword argument) in ``toks[lo:q]``, or ``q``."""
    depth = 0
    for k in range(lo, q):
        t = toks[k].type
        if t == "LPAR" or t == "LSQB":
            depth += 1
        elif t == "RPAR" or t == "RSQB":
            depth -= 1
        elif (t == "COMMA" and depth == 0 and k + 2 < q and toks[k + 1].type == "NAME"
              and toks[k + 2].type == "EQUAL"):
            return k
    return q

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
    end = _keywords_start(toks, start, q)
    if end <= start or (start < q and toks[start].type == "NAME" and start + 1 < q
                        and toks[start + 1].type == "EQUAL"):
        return None  # no pattern, only keyword arguments
    return start, end


_PACK_HELP = ("a pack pattern is names and one `*` (`b * d`); unpack's adds `->` and a "
              "pattern for each part (`b * d -> b d, b n d`)")


def _pack_pattern_token(ptoks: list[Tok], unpack: bool, rep: _Reporter) -> Tok:
    """One PATTERN token holding an ``ast.PackPattern``; problems are E0601."""
    first, last = ptoks[0], ptoks[-1]
    path = rep.path
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
            what = "`,`" if tt == "COMMA" else describe(t, rep.src)
            rep.error(ec.E0601, f"unexpected {what} in a pattern", sp, "not allowed here",
                      help=_PACK_HELP)
    stars = [x for x in sides[0] if type(x) is ast.PatStar]
    if len(stars) != 1:
        at = span if not stars else stars[1].span
        rep.error(ec.E0601, "a pack pattern has one `*`" + ("" if stars else ", and this has none"),
                  at, "the packed axis is `*`" if not stars else "a second `*`", help=_PACK_HELP)
    if unpack and arrow is None:
        rep.error(ec.E0601, "expected `->` in this pattern", span, "unpack needs its parts",
                  help="give each part its pattern after `->`: `b * d -> b d, b n d`")
    pat = ast.PackPattern(tuple(sides[0]), tuple(tuple(x) for x in sides[1:]), span)
    return Tok("PATTERN", pat, first.line, first.col, last.end_line, last.end_col, first.start,
               last.end)


def _pattern_token(ptoks: list[Tok], einsum: bool, rep: _Reporter) -> Tok:
    first, last = ptoks[0], ptoks[-1]
    span = Span(rep.path, first.line, first.col, last.end_line, last.end_col, first.start,
                last.end)
    pat = _parse(ptoks, einsum, span, rep)
    return Tok("PATTERN", pat, first.line, first.col, last.end_line, last.end_col, first.start,
               last.end)


def _parse(ptoks: list[Tok], einsum: bool, span: Span, rep: _Reporter) -> ast.Pattern:
    """An einops pattern from its tokens; problems are E0601 (best-effort result)."""
    arrows = [k for k, t in enumerate(ptoks) if t.type == "ARROW"]
    if not arrows:
        rep.error(ec.E0601, "expected `->` in this pattern", span, "this pattern has no `->`",
                  help="a pattern maps input axes to output axes: `b n d -> b d n`")
        lhs, rhs = ptoks, []
    else:
        a = arrows[0]
        if len(arrows) > 1:
            rep.error(ec.E0601, "more than one `->` in this pattern", rep.span(ptoks[arrows[1]]),
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
    ins = tuple(_terms(side, rep) for side in inputs)
    out = _terms(rhs, rep)
    return ast.Pattern(ins, out, span)


def _terms(toks: list[Tok], rep: _Reporter) -> tuple:
    """One side of a pattern (or one einsum input): names, integers, groups, ``...``."""
    out: list = []
    group: list | None = None
    group_tok: Tok | None = None
    path = rep.path
    for t in toks:
        tt = t.type
        sp = Span(path, t.line, t.col, t.end_line, t.end_col, t.start, t.end)
        if tt == "NAME" or (t.value in KEYWORDS and t.value.isidentifier() and t.value != "_"):
            # A pattern's names are its own: `dim` and `in` are axis names there.
            term: ast.PatName | ast.PatInt | ast.PatEllipsis = ast.PatName(t.value, sp)
        elif tt == "INT":
            term = ast.PatInt(int(t.value), sp)
        elif tt == "ELLIPSIS":
            term = ast.PatEllipsis(sp)
        elif tt == "LPAR":
            if group is not None:
                rep.error(ec.E0601, "groups can't be nested in a pattern", sp,
                          "a group inside a group", help="write one level of `( … )`")
                continue
            group = []
            group_tok = t
            continue
        elif tt == "RPAR":
            if group is None:  # pragma: no cover - brackets are matched by the layout pass
                rep.error(ec.E0601, "unexpected `)` in a pattern", sp, "no group is open")
                continue
            g = group_tok
            assert g is not None  # set with `group`
            gspan = Span(path, g.line, g.col, t.end_line, t.end_col, g.start, t.end)
            out.append(ast.PatGroup(tuple(group), gspan))
            group = None
            continue
        elif tt == "NUMNAME":
            rep.error(ec.E0601, "number-name in a pattern", sp, "not a pattern axis",
                      help=f"write the group `({_numname_split(t.value)})`")
            continue
        else:
            what = "`,`" if tt == "COMMA" else describe(t, rep.src)
            rep.error(ec.E0601, f"unexpected {what} in a pattern", sp, "not allowed here",
                      help=_PATTERN_HELP)
            continue
        if group is not None:
            group.append(term)
        else:
            out.append(term)
    if group is not None and group_tok is not None:  # pragma: no cover - matched brackets
        rep.error(ec.E0601, "unclosed group in a pattern", rep.span(group_tok), "never closed")
    return tuple(out)


def _numname_split(text: str) -> str:
    k = 0
    while k < len(text) and text[k].isdigit():
        k += 1
    return f"{text[:k]} {text[k:]}"
