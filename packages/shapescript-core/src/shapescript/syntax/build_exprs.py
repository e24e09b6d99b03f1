"""The builder's rules for expressions: precedence, pipes, calls, atoms (see ``build.py``).

* Expressions arrive as a flat chain of operands and operators, which ``_Chain`` turns
  into a tree with the language's precedence, loosest first: ``=>`` (right-associative,
  the body extends to the right) < ``|>`` < ``..`` (ranges; not chaining) < ``or`` <
  ``and`` < ``not`` < postfix ``as T``/``to T`` < comparisons (not chaining: E0101) <
  ``+ -`` < ``* / // % @`` < unary ``-`` < ``**`` (right-associative; ``2 ** -1`` is
  allowed) < call, index, ``.field`` (in the grammar). An operator binding tighter than
  ``as``/``to`` right after one (``i to f32 * w``) is E0101: write ``(i to f32) * w``; so
  is ``not`` after an operator binding tighter than it (``a == not b``).
* ``-1.5`` is ``UnaryOp('-', Num(1.5))``: the parser doesn't fold signs into literals.
* Pipes are desugared: ``x |> f(a)`` is ``Call(f, (x, a), piped=True)``; ``x |> f`` is
  ``Call(f, (x,), piped=True)``; a ``_`` argument of the stage receives ``x`` instead of
  the first position; ``x |> to T`` is ``Convert(x, T)``. Any other stage is E0106; the
  parser then recovers with what was probably meant (``(x |> f) as T``).
* ``Call.pattern_pos`` counts the positional arguments before the pattern, after the pipe
  is desugared (``img |> rearrange(b c h w -> b (c h w))`` has ``pattern_pos == 1``).
* ``over=(h w)``, a parenthesised list of names with no commas, is only allowed as the
  value of a keyword argument, and is ``TupleExpr((Name h, Name w))`` spanning the group.
* ``(x)`` is ``x`` (no node for parentheses), its span widened to cover them.
"""

from __future__ import annotations

from dataclasses import replace

from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.build_types import DTYPES, split_numname
from shapescript.syntax.tokens import Tok
from shapescript import error_codes as ec

# Binary operators: precedence and associativity ("L", "R", or "N" for not chaining).
PREC: dict[str, tuple[int, str]] = {
    "=>": (1, "R"), "|>": (2, "L"), "..": (3, "N"), "or": (4, "L"), "and": (5, "L"),
    "==": (8, "N"), "!=": (8, "N"), "<": (8, "N"), "<=": (8, "N"), ">": (8, "N"),
    ">=": (8, "N"), "+": (9, "L"), "-": (9, "L"), "*": (10, "L"), "/": (10, "L"),
    "//": (10, "L"), "%": (10, "L"), "@": (10, "L"), "**": (12, "R"),
}
POSTFIX_PREC = 7  # as T, to T
NOT_LEVEL = 6
NOT_OPERAND = 7  # not x: x binds as/to and tighter
NEG_OPERAND = 12  # -x: only ** binds tighter
CMP_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
ARITH_OPS = frozenset({"+", "-", "*", "/", "//", "%", "@", "**"})


class _Prefix:
    __slots__ = ("tok", "operand")

    def __init__(self, tok, operand) -> None:
        self.tok = tok
        self.operand = operand


class _ToStage:
    """``to T`` written as an operand: only valid as a pipe stage."""

    __slots__ = ("tok", "target", "span")

    def __init__(self, tok, target, span) -> None:
        self.tok = tok
        self.target = target
        self.span = span


class _Post:
    __slots__ = ("tok", "type")

    def __init__(self, tok, type) -> None:
        self.tok = tok
        self.type = type


class _Error(Exception):
    pass


def _is_dotted(e) -> bool:
    while type(e) is ast.Attr:
        e = e.value
    return type(e) is ast.Name


def r_exprlist_tuple(b, c):
    items = c[0]
    return ast.TupleExpr(tuple(items), b.sp(items[0].span, items[-1].span))


def r_expr_tuple_two(b, c):
    return [c[0], c[2]]


def r_expr_tuple_more(b, c):
    c[0].append(c[2])
    return c[0]


def r_expr(b, c):
    x = c[0]
    t = type(x)
    if t is list:
        return _pratt(b, x)
    if t is _ToStage:
        return _pratt(b, [x])
    return x


def r_chain_one(b, c):
    # A plain operand stays itself; a list starts only when an operator is met.
    x = c[0]
    if type(x) is _Prefix:
        items = []
        while type(x) is _Prefix:
            items.append(x.tok)
            x = x.operand
        items.append(x)
        return items
    return x


def r_chain_op(b, c):
    items = c[0]
    if type(items) is not list:
        items = [items]
    items.append(c[1])
    x = c[2]
    while type(x) is _Prefix:
        items.append(x.tok)
        x = x.operand
    items.append(x)
    return items


def r_chain_post(b, c):
    items = c[0]
    if type(items) is not list:
        items = [items]
    items.append(_Post(c[1], c[2]))
    return items


def r_prefix(b, c):
    return _Prefix(c[0], c[1])


def r_to_stage(b, c):
    target = _to_target(b, c[1])
    return _ToStage(c[0], target, b.sp(c[0], target.span))


def _to_target(b, t):
    tt = type(t)
    if tt is ast.TensorTypeExpr:
        return t
    if tt is ast.NamedTypeExpr:
        return ast.TensorTypeExpr(None, t.span, alias=t.name)
    if tt is ast.ScalarTypeExpr and t.name == "bool":
        return ast.TensorTypeExpr(None, t.span, dtype="bool")
    b.error(ec.E0101, "expected a dtype or a domain after `to`", t.span,
            "not a dtype or a domain", help="for example `to f32` or `to Unit`")
    return ast.TensorTypeExpr(None, t.span)


def _pratt(b, items):
    """Precedence climbing over the flat chain (see the module docstring)."""
    return _no_stage(b, _Chain(b, items).climb(0, False))


class _Chain:
    """One chain being climbed: the items and the position reached."""

    __slots__ = ("b", "items", "pos")

    def __init__(self, b, items) -> None:
        self.b = b
        self.items = items
        self.pos = 0

    def operand(self, min_prec, allow_stage):
        b = self.b
        sp = b.sp
        it = self.items[self.pos]
        self.pos += 1
        t = type(it)
        if t is _ToStage:
            if not allow_stage:
                b.error(ec.E0101, "unexpected token `to`", it.tok,
                        "`to T` needs a value before it",
                        help="write `x to T`, or `x |> to T` in a pipe")
                return ast.Convert(ast.NoneLit(sp(it.tok, it.tok)), it.target, it.span)
            return it
        if t is not Tok:
            return it
        # A prefix operator token.
        if it.type == "MINUS":
            x = self.climb(NEG_OPERAND, False)
            x = _no_stage(b, x)
            return ast.UnaryOp("-", x, sp(it, x.span))
        if min_prec > NOT_LEVEL and min_prec != NOT_OPERAND:
            # `a == not b`: `not` binds looser than the operator before it.
            b.error(ec.E0101, "unexpected token `not`", it,
                    "`not` binds looser than the operator before it",
                    help="put it in parentheses: `(not …)`")
        x = self.climb(NOT_OPERAND, False)
        x = _no_stage(b, x)
        return ast.UnaryOp("not", x, sp(it, x.span))

    def climb(self, min_prec, allow_stage):
        b = self.b
        sp = b.sp
        items = self.items
        n = len(items)
        left = self.operand(min_prec, allow_stage)
        last_nonassoc = 0
        after_post = False
        while self.pos < n:
            it = items[self.pos]
            if type(left) is _ToStage:
                # `x |> to T ⊕ …`: `to T` ends the stage; apply ⊕ to the whole pipe.
                post = type(it) is _Post
                if (POSTFIX_PREC if post else PREC[it.value][0]) >= min_prec:
                    rest = it.tok if post else it
                    b.error(ec.E0106, "not a pipe stage", b.sp(left.span, rest),
                            "`to T` must end its pipe stage",
                            help="put the pipe in parentheses: `(x |> to T) "
                                 f"{b.text(rest)} …`")
                break
            if type(it) is _Post:
                if POSTFIX_PREC < min_prec:
                    break
                self.pos += 1
                left = _no_stage(b, left, it.tok)
                if it.tok.type == "TO":
                    target = _to_target(b, it.type)
                    left = ast.Convert(left, target, sp(left.span, target.span))
                else:
                    left = ast.AssertType(left, it.type, sp(left.span, it.type.span))
                after_post = True
                last_nonassoc = 0
                continue
            op = it.value
            prec, assoc = PREC[op]
            if prec < min_prec:
                break
            self.pos += 1
            if after_post and prec > POSTFIX_PREC:
                b.error(ec.E0101, f"unexpected token `{op}`", it,
                        f"`{op}` binds tighter than `{_last_post(b, left)}`",
                        help=f"put it in parentheses: `({b.text(left.span)}) {op} …`")
            if assoc == "N" and last_nonassoc == prec:
                if op in CMP_OPS:
                    b.error(ec.E0101, "comparisons don't chain", it,
                            f"unexpected `{op}` after a comparison",
                            help="write `a < b and b < c`")
                else:
                    b.error(ec.E0101, f"unexpected token `{op}`", it, "ranges don't chain")
            right = self.climb(prec if assoc == "R" else prec + 1, op == "|>")
            if op == "|>":
                left = _pipe(b, _no_stage(b, left, it), right, it)
            else:
                left = _binary(b, op, _no_stage(b, left, it), _no_stage(b, right), it)
            last_nonassoc = prec if assoc == "N" else 0
            after_post = False
        return left


def _last_post(b, e) -> str:
    return "to" if type(e) is ast.Convert else "as"


def _no_stage(b, x, at=None):
    """A pipe's ``to T`` stage followed by another operator: E0106; make a value."""
    if type(x) is _ToStage:
        b.error(ec.E0106, "not a pipe stage", x.span, "`to T` must end its pipe stage",
                help="put the pipe in parentheses: `(x |> to T) …`")
        return ast.Convert(ast.NoneLit(b.sp(x.tok, x.tok)), x.target, x.span)
    return x


def _binary(b, op, left, right, tok):
    span = b.sp(left.span, right.span)
    if op in ARITH_OPS:
        return ast.BinOp(op, left, right, span)
    if op in CMP_OPS:
        return ast.Compare(op, left, right, span)
    if op == "and" or op == "or":
        return ast.BoolOp(op, left, right, span)
    if op == "..":
        return ast.Range(left, right, span)
    if op == "=>":
        return ast.Lambda(_lambda_params(b, left), right, span)
    raise _Error(op)  # pragma: no cover - every OP is in PREC


def _lambda_params(b, left):
    t = type(left)
    if t is ast.Name:
        return (left.id,)
    if t is ast.TupleExpr and all(type(e) is ast.Name for e in left.items):
        return tuple(e.id for e in left.items)
    b.error(ec.E0101, "expected lambda parameters before `=>`", left.span,
            "not a name or a tuple of names", help="write `c => …` or `(a, b) => …`")
    return ()


def _pipe(b, x, stage, tok):
    t = type(stage)
    if t is _ToStage:
        return ast.Convert(x, stage.target, b.sp(x.span, stage.span))
    span = b.sp(x.span, stage.span)
    if t is ast.Call:
        return _pipe_call(b, x, stage, span)
    if t is ast.Name or (t is ast.Attr and _is_dotted(stage)):
        return ast.Call(stage, (ast.Arg(x, x.span),), span, piped=True)
    # Not a stage: report, and recover with what was probably meant.
    help = None
    if t is ast.AssertType:
        help = (f"write `({b.text(x.span)} |> {b.text(stage.value.span)}) as "
                f"{b.text(stage.type.span)}`")
    elif t is ast.Convert:
        help = (f"write `({b.text(x.span)} |> {b.text(stage.value.span)}) to "
                f"{b.text(stage.target.span)}`")
    b.error(ec.E0106, "not a pipe stage", stage.span,
            "a pipe stage is a call, a name, a dotted name or `to T`", help=help)
    if t is ast.AssertType or t is ast.Convert:
        inner = _pipe(b, x, stage.value, tok) if (
            type(stage.value) in (ast.Call, ast.Name) or
            (type(stage.value) is ast.Attr and _is_dotted(stage.value))) else x
        if t is ast.AssertType:
            return ast.AssertType(inner, stage.type, span)
        return ast.Convert(inner, stage.target, span)
    return ast.Call(stage, (ast.Arg(x, x.span),), span, piped=True)


def _pipe_call(b, x, stage, span):
    args = stage.args
    slot = -1
    for k, a in enumerate(args):
        if type(a.value) is ast.Placeholder:
            if slot < 0:
                slot = k
                b.ph_used += 1
            else:
                b.ph_used += 1  # reported here, not again as a stray `_`
                b.error(ec.E0101, "more than one `_` in a pipe stage", a.value.span,
                        "the piped value already goes to the first `_`")
    if slot >= 0:
        old = args[slot]
        new_args = args[:slot] + (ast.Arg(x, old.span, old.name),) + args[slot + 1:]
        ppos = stage.pattern_pos
    else:
        new_args = (ast.Arg(x, x.span),) + args
        ppos = stage.pattern_pos + 1 if stage.pattern is not None else 0
    return ast.Call(stage.func, new_args, span, stage.pattern, ppos, True)


def _call(b, func, raw, end):
    args = []
    pattern = None
    ppos = 0
    npos = 0
    seen_kw = False
    for a in raw:
        if type(a) is ast.Pattern or type(a) is ast.PackPattern:
            if pattern is None:
                pattern = a
                ppos = npos
            else:
                b.error(ec.E0601, "more than one pattern in this call", a.span,
                        "a second pattern")
            if seen_kw:
                b.error(ec.E0101, "positional argument after keyword arguments",
                        a.span, "the pattern comes before keyword arguments")
            continue
        if a.name is None:
            if seen_kw:
                b.error(ec.E0101, "positional argument after keyword arguments",
                        a.span, "move it before the keyword arguments")
            npos += 1
        else:
            seen_kw = True
        args.append(a)
    return ast.Call(func, tuple(args), b.sp(func.span, end), pattern, ppos)


def r_call_empty(b, c):
    return ast.Call(c[0], (), b.sp(c[0].span, c[2]))


def r_call(b, c):
    return _call(b, c[0], c[2], c[3])


def r_call_trail(b, c):
    return _call(b, c[0], c[2], c[4])


def r_index(b, c):
    return ast.Index(c[0], tuple(c[2]), b.sp(c[0].span, c[3]))


def r_attr(b, c):
    return ast.Attr(c[0], c[2].value, b.sp(c[0].span, c[2]))


def r_name(b, c):
    t = c[0]
    return ast.Name(t.value, Span(b.file, t.line, t.col, t.end_line, t.end_col,
                                  t.start, t.end))


def r_int(b, c):
    t = c[0]
    return ast.Num(int(t.value), t.value, Span(b.file, t.line, t.col, t.end_line,
                                               t.end_col, t.start, t.end))


def r_float(b, c):
    t = c[0]
    return ast.Num(float(t.value), t.value, b.sp(t, t))


def r_numname(b, c):
    t = c[0]
    k, name = split_numname(t.value)
    span = b.sp(t, t)
    b.error(ec.E0104, "number-name outside a size", span,
            f"`{t.value}` is a product only inside a size",
            help=f"write `{k} * {name}`")
    return ast.NumName(k, name, span)


def r_string(b, c):
    return ast.Str(c[0].value, b.sp(c[0], c[0]))


def r_true(b, c):
    return ast.Bool(True, b.sp(c[0], c[0]))


def r_false(b, c):
    return ast.Bool(False, b.sp(c[0], c[0]))


def r_none(b, c):
    return ast.NoneLit(b.sp(c[0], c[0]))


def r_placeholder(b, c):
    b.ph_made += 1
    return ast.Placeholder(b.sp(c[0], c[0]))


def r_paren(b, c):
    # No node for parentheses, but the span covers them (so a parent's span does).
    return replace(c[1], span=b.sp(c[0], c[2]))


def r_empty_tuple(b, c):
    return ast.TupleExpr((), b.sp(c[0], c[1]))


def r_tuple_one(b, c):
    return ast.TupleExpr((c[1],), b.sp(c[0], c[3]))


def r_tuple(b, c):
    return ast.TupleExpr(tuple(c[1]), b.sp(c[0], c[2]))


def r_tuple_trail(b, c):
    return ast.TupleExpr(tuple(c[1]), b.sp(c[0], c[3]))


r_items_two = r_expr_tuple_two

r_items_more = r_expr_tuple_more


def r_args_one(b, c):
    return [c[0]]


def r_args_more(b, c):
    c[0].append(c[2])
    return c[0]


def r_arg(b, c):
    e = c[0]
    return ast.Arg(e, e.span)


def r_kwarg(b, c):
    e = c[2]
    return ast.Arg(e, b.sp(c[0], e.span), c[0].value)


def r_kwarg_group(b, c):
    names = [c[3]] + c[4]
    items = tuple(ast.Name(t.value, b.sp(t, t)) for t in names)
    group = ast.TupleExpr(items, b.sp(c[2], c[5]))
    return ast.Arg(group, b.sp(c[0], c[5]), c[0].value)


def r_name_seq_one(b, c):
    return [c[0]]


def r_name_seq_more(b, c):
    c[0].append(c[1])
    return c[0]


def r_arg_pattern(b, c):
    return c[0].value


def r_index_expr(b, c):
    return c[0]


def r_index_whole(b, c):
    t = c[0]
    if t.value != "..":
        b.error(ec.E0101, f"unexpected `{t.value}`", t, "expected an index",
                help="an index is a value, a range `a..b`, `..` (a whole axis) or `...`")
    return ast.WholeAxis(b.sp(t, t))


def r_index_rest(b, c):
    return ast.RestAxes(b.sp(c[0], c[0]))


def r_index_named(b, c):
    e = c[2]
    return ast.NamedIndex(c[0].value, e, b.sp(c[0], e.span), b.sp(c[0], c[0]))


def r_indices_one(b, c):
    return [c[0]]


def r_indices_more(b, c):
    c[0].append(c[2])
    return c[0]


def _ctor(b, name_tok, shp, dtype_tok, fill, end, keyword=None):
    dtype = None
    if dtype_tok is not None:
        dtype = dtype_tok.value
        if dtype not in DTYPES:
            b.error(ec.E0101, f"`{dtype}` is not a dtype", dtype_tok,
                    "expected a dtype such as `f32` or `i64`")
    return ast.Constructor(name_tok.value, shp.axes, b.sp(name_tok, end), dtype, fill,
                           keyword.value if keyword is not None else None)


def r_ctor(b, c):
    return _ctor(b, c[0], c[1], None, None, c[1].close)


def r_ctor_dtype(b, c):
    return _ctor(b, c[0], c[1], c[2], None, c[2])


def r_ctor_fill(b, c):
    return _ctor(b, c[0], c[1], None, c[3], c[4])


def r_ctor_dtype_fill(b, c):
    return _ctor(b, c[0], c[1], c[2], c[4], c[5])


def r_ctor_named(b, c):
    return _ctor(b, c[0], c[1], None, c[5], c[6], keyword=c[3])


def r_ctor_dtype_named(b, c):
    return _ctor(b, c[0], c[1], c[2], c[6], c[7], keyword=c[4])
