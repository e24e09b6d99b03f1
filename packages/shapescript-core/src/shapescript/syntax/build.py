"""From the LALR parser's reductions to the syntax tree (``ast.py``).

The parser (``parser.py``) calls ``Builder.r_<alias>(children)`` for each reduction of
``grammar.lark``, with every child of the rule (tokens included), and the method returns
the value that stands for the rule. The tree is built bottom-up in one pass; there is no
intermediate lark ``Tree``.

Decisions made here (documented for the rest of the compiler):

* Expressions arrive as a flat chain of operands and operators, which ``_pratt`` turns into
  a tree with the language's precedence, loosest first: ``=>`` (right-associative, the body
  extends to the right) < ``|>`` < ``..`` (ranges; not chaining) < ``or`` < ``and`` <
  ``not`` < postfix ``as T``/``to T`` < comparisons (not chaining: E0101) < ``+ -`` <
  ``* / // % @`` < unary ``-`` < ``**`` (right-associative; ``2 ** -1`` is allowed) <
  call, index, ``.field`` (in the grammar). An operator binding tighter than ``as``/``to``
  right after one (``i to f32 * w``) is E0101: write ``(i to f32) * w``; so is ``not``
  after an operator binding tighter than it (``a == not b``).
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
* ``a, b`` in ``return a, b``/``x = a, b`` is a ``TupleExpr``; ``a, b = e`` and
  ``(a, b) = e`` destructure (``Assign.targets`` holds the ``Name``/``Attr`` targets).
* Types: ``[axes] dtype? domain?`` and ``Alias dtype? domain?`` are ``TensorTypeExpr``;
  a bare domain (``Real``, ``Index[C]``, ``Logit over C``) or dtype (``u8``, ``f16 Unit``)
  is a ``TensorTypeExpr`` with ``shape=None``; ``int float bool str`` are
  ``ScalarTypeExpr``; ``Size[K] Axis[n] Axes[n]`` are ``SpecialTypeExpr``; ``(T, U)`` is
  a ``TupleTypeExpr`` (``(T)`` is ``T``); any other name is a ``NamedTypeExpr``. The
  target of ``to`` is always a ``TensorTypeExpr`` (``to bool`` is the dtype).
* Sizes: inside ``[…]`` juxtaposed sizes are separate axes, a binary
  ``+ - * /`` joins its operands; inside ``( … )`` juxtaposition is a product
  (``SizeProd``), ``(b)`` is ``b``; ``16gh`` is ``SizeProd((SizeInt 16, SizeName gh))``.
* A ``##`` block documents the declaration or model field that starts on the next code
  line (``docs`` maps that line to the text).
"""

from __future__ import annotations

from dataclasses import replace

from shapescript import vocab
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.lexer import Tok

DTYPES = frozenset(vocab.DTYPES) | frozenset(vocab.DTYPE_CLASSES)
DOMAINS = frozenset(vocab.DOMAINS)
SCALARS = frozenset({"int", "float", "bool", "str"})
SPECIALS = frozenset({"Size", "Axis", "Axes"})

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
SIZE_OPS = frozenset({"+", "-", "*", "/"})


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


class _Shape:
    __slots__ = ("axes", "open", "close")

    def __init__(self, axes, open, close) -> None:
        self.axes = axes
        self.open = open
        self.close = close


class _Error(Exception):
    pass


def _is_dotted(e) -> bool:
    while type(e) is ast.Attr:
        e = e.value
    return type(e) is ast.Name


class Builder:
    """The reduction callbacks; one instance per parsed file."""

    def __init__(self, path: str, src: str, docs: dict[int, str]) -> None:
        self.file = path
        self.src = src
        self.docs = docs
        self.diags: list[Diagnostic] = []
        self.reset()

    def reset(self) -> None:
        """Forget per-declaration state (at each chunk and each declaration)."""
        self.ph_made = 0
        self.ph_used = 0
        self.sep_pairs: dict[tuple[int, str], Span] = {}
        self.joined: dict[tuple[int, str], Span] = {}

    # -- helpers -------------------------------------------------------------------

    def sp(self, a, b) -> Span:
        """The span from the start of ``a`` to the end of ``b`` (tokens or spans)."""
        return Span(self.file, a.line, a.col, b.end_line, b.end_col, a.start, b.end)

    def error(self, code: str, message: str, at, label: str = "", **kw) -> None:
        span = at if type(at) is Span else self.sp(at, at)
        self.diags.append(Diagnostic.error(code, message, span, label, **kw))

    def text(self, a, b=None) -> str:
        b = a if b is None else b
        return self.src[a.start:b.end]

    def _pass(self, c):
        return c[0]

    # -- declarations ----------------------------------------------------------------

    def _decl_done(self, decl):
        if self.ph_made != self.ph_used:
            self._stray_placeholders(decl)
        if self.joined and self.sep_pairs:
            for key, span in self.joined.items():
                other = self.sep_pairs.get(key)
                if other is not None:
                    k, n = key
                    self.diags.append(Diagnostic.warning(
                        "E0105", f"`{k}{n}` is one axis here, but `{k} {n}` is two axes "
                        "elsewhere in this declaration", span, f"one axis, {k} * {n}",
                        help=f"write `{k}*{n}` for one axis, or `{k} {n}` for two"))
        self.reset()
        return decl

    def doc_at(self, tok):
        return self.docs.get(tok.line) if self.docs else None

    def r_devices(self, c):
        return self._decl_done(ast.Devices(c[1].value, self.sp(c[0], c[1])))

    def r_devices_index(self, c):
        return self._decl_done(ast.Devices(f"{c[1].value}[{int(c[3].value)}]",
                                           self.sp(c[0], c[4])))

    def r_import_python(self, c):
        name, _, last = c[2]
        return self._decl_done(ast.ImportPython(name, self.sp(c[0], last)))

    def r_import_python_as(self, c):
        return self._decl_done(ast.ImportPython(c[2][0], self.sp(c[0], c[4]), c[4].value))

    def r_import_module(self, c):
        name, _, last = c[1]
        return self._decl_done(ast.Import(name, self.sp(c[0], last)))

    def r_import_module_as(self, c):
        return self._decl_done(ast.Import(c[1][0], self.sp(c[0], c[3]), c[3].value))

    def r_from_import(self, c):
        names = c[3]
        return self._decl_done(ast.FromImport(c[1][0], tuple(names),
                                              self.sp(c[0], names[-1].span)))

    def r_import_names_one(self, c):
        return [c[0]]

    def r_import_names_more(self, c):
        c[0].append(c[2])
        return c[0]

    def r_import_name(self, c):
        return ast.ImportName(c[0].value, self.sp(c[0], c[0]))

    def r_import_name_as(self, c):
        return ast.ImportName(c[0].value, self.sp(c[0], c[2]), c[2].value)

    def r_dotted_one(self, c):
        t = c[0]
        return (t.value, t, t)

    def r_dotted_more(self, c):
        name, first, _ = c[0]
        return (name + "." + c[2].value, first, c[2])

    def r_dim_size(self, c):
        axes = c[3]
        if len(axes) != 1:
            self.error("E0101", "a dim is one size", self.sp(axes[0].span, axes[-1].span),
                       f"these are {len(axes)} sizes side by side",
                       help="join them with an operator, or declare a shape alias: "
                            "`dim X = [ … ]`")
        size = axes[0]
        return self._decl_done(ast.DimDecl(c[1].value, self.sp(c[0], size.span),
                                           self.sp(c[1], c[1]), size=size,
                                           doc=self.doc_at(c[0])))

    def r_dim_alias(self, c):
        shp = c[3]
        t = ast.TensorTypeExpr(shp.axes, self.sp(shp.open, shp.close))
        return self._decl_done(ast.DimDecl(c[1].value, self.sp(c[0], shp.close),
                                           self.sp(c[1], c[1]), shape=t, doc=self.doc_at(c[0])))

    def r_dim_alias_words(self, c):
        t = self._type(("shape", c[3]), c[4])
        if type(t) is not ast.TensorTypeExpr:  # pragma: no cover - always a tensor type
            t = ast.TensorTypeExpr(c[3].axes, t.span)
        return self._decl_done(ast.DimDecl(c[1].value, self.sp(c[0], t.span),
                                           self.sp(c[1], c[1]), shape=t, doc=self.doc_at(c[0])))

    def r_const_decl(self, c):
        value = c[3]
        return self._decl_done(ast.ConstDecl(c[1].value, value, self.sp(c[0], value.span),
                                             self.sp(c[1], c[1]), doc=self.doc_at(c[0])))

    # fn_head: (first_tok, export, name_tok, params, ret)
    def r_fn_head(self, c):
        name, params, _ = c[1]
        return (c[0], False, name, params, None)

    def r_fn_head_ret(self, c):
        name, params, _ = c[1]
        return (c[0], False, name, params, c[3])

    def r_export_head(self, c):
        name, params, _ = c[2]
        return (c[0], True, name, params, None)

    def r_export_head_ret(self, c):
        name, params, _ = c[2]
        return (c[0], True, name, params, c[4])

    def r_fn_expr(self, c):
        first, export, name, params, ret = c[0]
        body = c[2]
        return self._decl_done(ast.FnDecl(name.value, params, ret, body,
                                          self.sp(first, body.span), self.sp(name, name),
                                          export=export, doc=self.doc_at(first)))

    def r_fn_block(self, c):
        first, export, name, params, ret = c[0]
        body = c[2]
        return self._decl_done(ast.FnDecl(name.value, params, ret, body,
                                          self.sp(first, body[-1].span), self.sp(name, name),
                                          export=export, doc=self.doc_at(first)))

    def r_extern(self, c):
        name, params, _ = c[2]
        return self._decl_done(ast.ExternDecl(name.value, params, None, c[4].value,
                                              self.sp(c[0], c[4]), self.sp(name, name),
                                              doc=self.doc_at(c[0])))

    def r_extern_ret(self, c):
        name, params, _ = c[2]
        return self._decl_done(ast.ExternDecl(name.value, params, c[4], c[6].value,
                                              self.sp(c[0], c[6]), self.sp(name, name),
                                              doc=self.doc_at(c[0])))

    def r_sig_empty(self, c):
        return (c[0], (), c[2])

    def r_sig(self, c):
        return (c[0], tuple(c[2]), c[3])

    def r_sig_trail(self, c):
        return (c[0], tuple(c[2]), c[4])

    def r_params_one(self, c):
        return [c[0]]

    def r_params_more(self, c):
        c[0].append(c[2])
        return c[0]

    def r_param_typed(self, c):
        return ast.Param(c[0].value, self.sp(c[0], c[2].span), type=c[2])

    def r_param_typed_default(self, c):
        return ast.Param(c[0].value, self.sp(c[0], c[4].span), type=c[2], default=c[4])

    def r_param_default(self, c):
        return ast.Param(c[0].value, self.sp(c[0], c[2].span), default=c[2])

    def r_model(self, c):
        fields = c[5]
        end = fields[-1].span if fields else c[2]
        return self._decl_done(ast.ModelDecl(c[1].value, tuple(fields), self.sp(c[0], end),
                                             self.sp(c[1], c[1]), doc=self.doc_at(c[0])))

    def r_fields_one(self, c):
        return [c[0]]

    def r_fields_more(self, c):
        c[0].append(c[1])
        return c[0]

    def r_field(self, c):
        t = c[3]
        return ast.ParamField(c[1].value, t, self.sp(c[0], t.span), doc=self.doc_at(c[0]))

    def r_field_init(self, c):
        return ast.ParamField(c[1].value, c[3], self.sp(c[0], c[5].span), init=c[5],
                              doc=self.doc_at(c[0]))

    # -- statements ------------------------------------------------------------------

    def r_block(self, c):
        return tuple(c[2])

    def r_block_inline(self, c):
        return (c[0],)

    def r_stmts_one(self, c):
        return [c[0]]

    def r_stmts_more(self, c):
        c[0].append(c[1])
        return c[0]

    def r_stmt_simple(self, c):
        return c[0]

    def r_stmt_pass(self, c):
        return c[0]

    def r_expr_stmt(self, c):
        e = c[0]
        return ast.ExprStmt(e, e.span)

    def _target(self, e):
        t = type(e)
        if t is ast.Name or t is ast.Attr:
            return e
        self.error("E0101", "can't assign to this expression", e.span,
                   "expected a name or a field (`m.w`)")
        return e

    def r_assign(self, c):
        lhs, value = c[0], c[2]
        if type(lhs) is ast.TupleExpr:
            targets = tuple(self._target(e) for e in lhs.items)
            if not targets:
                self.error("E0101", "can't assign to `()`", lhs.span, "nothing to assign to")
        else:
            targets = (self._target(lhs),)
        return ast.Assign(targets, value, self.sp(lhs.span, value.span))

    def r_ann_assign(self, c):
        lhs, t, value = c[0], c[2], c[4]
        if type(lhs) is not ast.Name:
            self.error("E0101", "only a name can be annotated", lhs.span,
                       "expected a name before `:`")
        return ast.Assign((lhs,), value, self.sp(lhs.span, value.span), annotation=t)

    def r_return_none(self, c):
        return ast.Return(None, self.sp(c[0], c[0]))

    def r_return_value(self, c):
        return ast.Return(c[1], self.sp(c[0], c[1].span))

    def r_pass(self, c):
        return c[0]

    def r_exprlist_tuple(self, c):
        items = c[0]
        return ast.TupleExpr(tuple(items), self.sp(items[0].span, items[-1].span))

    def r_expr_tuple_two(self, c):
        return [c[0], c[2]]

    def r_expr_tuple_more(self, c):
        c[0].append(c[2])
        return c[0]

    # if_head: (first_tok, [IfBranch], last_span)
    def r_if_head(self, c):
        body = c[3]
        br = ast.IfBranch(c[1], body, self.sp(c[0], body[-1].span))
        return (c[0], [br])

    def r_if_elif(self, c):
        body = c[4]
        c[0][1].append(ast.IfBranch(c[2], body, self.sp(c[1], body[-1].span)))
        return c[0]

    def r_if_stmt(self, c):
        first, branches = c[0]
        return ast.If(tuple(branches), None, self.sp(first, branches[-1].span))

    def r_if_else(self, c):
        first, branches = c[0]
        body = c[3]
        return ast.If(tuple(branches), body, self.sp(first, body[-1].span))

    def r_for_stmt(self, c):
        targets = c[1]
        body = c[5]
        return ast.For(tuple(t.value for t in targets), c[3], body,
                       self.sp(c[0], body[-1].span),
                       tuple(self.sp(t, t) for t in targets))

    def r_for_targets_one(self, c):
        return [c[0]]

    def r_for_targets_more(self, c):
        c[0].append(c[2])
        return c[0]

    def r_with_stmt(self, c):
        body = c[3]
        return ast.With(c[1].value, body, self.sp(c[0], body[-1].span))

    # -- expressions -------------------------------------------------------------------

    def r_expr(self, c):
        x = c[0]
        t = type(x)
        if t is list:
            return self._pratt(x)
        if t is _ToStage:
            return self._pratt([x])
        return x

    def r_chain_one(self, c):
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

    def r_chain_op(self, c):
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

    def r_chain_post(self, c):
        items = c[0]
        if type(items) is not list:
            items = [items]
        items.append(_Post(c[1], c[2]))
        return items

    def r_prefix(self, c):
        return _Prefix(c[0], c[1])

    def r_to_stage(self, c):
        target = self._to_target(c[1])
        return _ToStage(c[0], target, self.sp(c[0], target.span))

    def _to_target(self, t):
        tt = type(t)
        if tt is ast.TensorTypeExpr:
            return t
        if tt is ast.NamedTypeExpr:
            return ast.TensorTypeExpr(None, t.span, alias=t.name)
        if tt is ast.ScalarTypeExpr and t.name == "bool":
            return ast.TensorTypeExpr(None, t.span, dtype="bool")
        self.error("E0101", "expected a dtype or a domain after `to`", t.span,
                   "not a dtype or a domain", help="for example `to f32` or `to Unit`")
        return ast.TensorTypeExpr(None, t.span)

    def _pratt(self, items):
        """Precedence climbing over the flat chain (see the module docstring)."""
        n = len(items)
        pos = 0
        sp = self.sp

        def operand(min_prec, allow_stage):
            nonlocal pos
            it = items[pos]
            pos += 1
            t = type(it)
            if t is _ToStage:
                if not allow_stage:
                    self.error("E0101", "unexpected token `to`", it.tok,
                               "`to T` needs a value before it",
                               help="write `x to T`, or `x |> to T` in a pipe")
                    return ast.Convert(ast.NoneLit(sp(it.tok, it.tok)), it.target, it.span)
                return it
            if t is not Tok:
                return it
            # A prefix operator token.
            if it.type == "MINUS":
                x = climb(NEG_OPERAND, False)
                x = self._no_stage(x)
                return ast.UnaryOp("-", x, sp(it, x.span))
            if min_prec > NOT_LEVEL and min_prec != NOT_OPERAND:
                # `a == not b`: `not` binds looser than the operator before it.
                self.error("E0101", "unexpected token `not`", it,
                           "`not` binds looser than the operator before it",
                           help="put it in parentheses: `(not …)`")
            x = climb(NOT_OPERAND, False)
            x = self._no_stage(x)
            return ast.UnaryOp("not", x, sp(it, x.span))

        def climb(min_prec, allow_stage):
            nonlocal pos
            left = operand(min_prec, allow_stage)
            last_nonassoc = 0
            after_post = False
            while pos < n:
                it = items[pos]
                if type(left) is _ToStage:
                    # `x |> to T ⊕ …`: `to T` ends the stage; apply ⊕ to the whole pipe.
                    post = type(it) is _Post
                    if (POSTFIX_PREC if post else PREC[it.value][0]) >= min_prec:
                        rest = it.tok if post else it
                        self.error("E0106", "not a pipe stage", self.sp(left.span, rest),
                                   "`to T` must end its pipe stage",
                                   help="put the pipe in parentheses: `(x |> to T) "
                                        f"{self.text(rest)} …`")
                    break
                if type(it) is _Post:
                    if POSTFIX_PREC < min_prec:
                        break
                    pos += 1
                    left = self._no_stage(left, it.tok)
                    if it.tok.type == "TO":
                        target = self._to_target(it.type)
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
                pos += 1
                if after_post and prec > POSTFIX_PREC:
                    self.error("E0101", f"unexpected token `{op}`", it,
                               f"`{op}` binds tighter than `{self._last_post(left)}`",
                               help="put it in parentheses: "
                                    f"`({self.text(left.span)}) {op} …`")
                if assoc == "N" and last_nonassoc == prec:
                    if op in CMP_OPS:
                        self.error("E0101", "comparisons don't chain", it,
                                   f"unexpected `{op}` after a comparison",
                                   help="write `a < b and b < c`")
                    else:
                        self.error("E0101", f"unexpected token `{op}`", it,
                                   "ranges don't chain")
                right = climb(prec if assoc == "R" else prec + 1, op == "|>")
                if op == "|>":
                    left = self._pipe(self._no_stage(left, it), right, it)
                else:
                    left = self._binary(op, self._no_stage(left, it), self._no_stage(right),
                                        it)
                last_nonassoc = prec if assoc == "N" else 0
                after_post = False
            return left

        result = climb(0, False)
        return self._no_stage(result)

    def _last_post(self, e) -> str:
        return "to" if type(e) is ast.Convert else "as"

    def _no_stage(self, x, at=None):
        """A pipe's ``to T`` stage followed by another operator: E0106; make a value."""
        if type(x) is _ToStage:
            self.error("E0106", "not a pipe stage", x.span, "`to T` must end its pipe stage",
                       help="put the pipe in parentheses: `(x |> to T) …`")
            return ast.Convert(ast.NoneLit(self.sp(x.tok, x.tok)), x.target, x.span)
        return x

    def _binary(self, op, left, right, tok):
        span = self.sp(left.span, right.span)
        if op in ARITH_OPS:
            return ast.BinOp(op, left, right, span)
        if op in CMP_OPS:
            return ast.Compare(op, left, right, span)
        if op == "and" or op == "or":
            return ast.BoolOp(op, left, right, span)
        if op == "..":
            return ast.Range(left, right, span)
        if op == "=>":
            return ast.Lambda(self._lambda_params(left), right, span)
        raise _Error(op)  # pragma: no cover - every OP is in PREC

    def _lambda_params(self, left):
        t = type(left)
        if t is ast.Name:
            return (left.id,)
        if t is ast.TupleExpr and all(type(e) is ast.Name for e in left.items):
            return tuple(e.id for e in left.items)
        self.error("E0101", "expected lambda parameters before `=>`", left.span,
                   "not a name or a tuple of names", help="write `c => …` or `(a, b) => …`")
        return ()

    def _pipe(self, x, stage, tok):
        t = type(stage)
        if t is _ToStage:
            return ast.Convert(x, stage.target, self.sp(x.span, stage.span))
        span = self.sp(x.span, stage.span)
        if t is ast.Call:
            return self._pipe_call(x, stage, span)
        if t is ast.Name or (t is ast.Attr and _is_dotted(stage)):
            return ast.Call(stage, (ast.Arg(x, x.span),), span, piped=True)
        # Not a stage: report, and recover with what was probably meant.
        help = None
        if t is ast.AssertType:
            help = (f"write `({self.text(x.span)} |> {self.text(stage.value.span)}) as "
                    f"{self.text(stage.type.span)}`")
        elif t is ast.Convert:
            help = (f"write `({self.text(x.span)} |> {self.text(stage.value.span)}) to "
                    f"{self.text(stage.target.span)}`")
        self.error("E0106", "not a pipe stage", stage.span,
                   "a pipe stage is a call, a name, a dotted name or `to T`", help=help)
        if t is ast.AssertType or t is ast.Convert:
            inner = self._pipe(x, stage.value, tok) if (
                type(stage.value) in (ast.Call, ast.Name) or
                (type(stage.value) is ast.Attr and _is_dotted(stage.value))) else x
            if t is ast.AssertType:
                return ast.AssertType(inner, stage.type, span)
            return ast.Convert(inner, stage.target, span)
        return ast.Call(stage, (ast.Arg(x, x.span),), span, piped=True)

    def _pipe_call(self, x, stage, span):
        args = stage.args
        slot = -1
        for k, a in enumerate(args):
            if type(a.value) is ast.Placeholder:
                if slot < 0:
                    slot = k
                    self.ph_used += 1
                else:
                    self.ph_used += 1  # reported here, not again as a stray `_`
                    self.error("E0101", "more than one `_` in a pipe stage", a.value.span,
                               "the piped value already goes to the first `_`")
        if slot >= 0:
            old = args[slot]
            new_args = args[:slot] + (ast.Arg(x, old.span, old.name),) + args[slot + 1:]
            ppos = stage.pattern_pos
        else:
            new_args = (ast.Arg(x, x.span),) + args
            ppos = stage.pattern_pos + 1 if stage.pattern is not None else 0
        return ast.Call(stage.func, new_args, span, stage.pattern, ppos, True)

    # -- postfix and atoms -------------------------------------------------------------

    def _call(self, func, raw, end):
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
                    self.error("E0601", "more than one pattern in this call", a.span,
                               "a second pattern")
                if seen_kw:
                    self.error("E0101", "positional argument after keyword arguments",
                               a.span, "the pattern comes before keyword arguments")
                continue
            if a.name is None:
                if seen_kw:
                    self.error("E0101", "positional argument after keyword arguments",
                               a.span, "move it before the keyword arguments")
                npos += 1
            else:
                seen_kw = True
            args.append(a)
        return ast.Call(func, tuple(args), self.sp(func.span, end), pattern, ppos)

    def r_call_empty(self, c):
        return ast.Call(c[0], (), self.sp(c[0].span, c[2]))

    def r_call(self, c):
        return self._call(c[0], c[2], c[3])

    def r_call_trail(self, c):
        return self._call(c[0], c[2], c[4])

    def r_index(self, c):
        return ast.Index(c[0], tuple(c[2]), self.sp(c[0].span, c[3]))

    def r_attr(self, c):
        return ast.Attr(c[0], c[2].value, self.sp(c[0].span, c[2]))

    def r_name(self, c):
        t = c[0]
        return ast.Name(t.value, Span(self.file, t.line, t.col, t.end_line, t.end_col,
                                      t.start, t.end))

    def r_int(self, c):
        t = c[0]
        return ast.Num(int(t.value), t.value, Span(self.file, t.line, t.col, t.end_line,
                                                   t.end_col, t.start, t.end))

    def r_float(self, c):
        t = c[0]
        return ast.Num(float(t.value), t.value, self.sp(t, t))

    def r_numname(self, c):
        t = c[0]
        k, name = _split_numname(t.value)
        span = self.sp(t, t)
        self.error("E0104", "number-name outside a size", span,
                   f"`{t.value}` is a product only inside a size",
                   help=f"write `{k} * {name}`")
        return ast.NumName(k, name, span)

    def r_string(self, c):
        return ast.Str(c[0].value, self.sp(c[0], c[0]))

    def r_true(self, c):
        return ast.Bool(True, self.sp(c[0], c[0]))

    def r_false(self, c):
        return ast.Bool(False, self.sp(c[0], c[0]))

    def r_none(self, c):
        return ast.NoneLit(self.sp(c[0], c[0]))

    def r_placeholder(self, c):
        self.ph_made += 1
        return ast.Placeholder(self.sp(c[0], c[0]))

    def r_paren(self, c):
        # No node for parentheses, but the span covers them (so a parent's span does).
        return replace(c[1], span=self.sp(c[0], c[2]))

    def r_empty_tuple(self, c):
        return ast.TupleExpr((), self.sp(c[0], c[1]))

    def r_tuple_one(self, c):
        return ast.TupleExpr((c[1],), self.sp(c[0], c[3]))

    def r_tuple(self, c):
        return ast.TupleExpr(tuple(c[1]), self.sp(c[0], c[2]))

    def r_tuple_trail(self, c):
        return ast.TupleExpr(tuple(c[1]), self.sp(c[0], c[3]))

    r_items_two = r_expr_tuple_two
    r_items_more = r_expr_tuple_more

    def r_args_one(self, c):
        return [c[0]]

    def r_args_more(self, c):
        c[0].append(c[2])
        return c[0]

    def r_arg(self, c):
        e = c[0]
        return ast.Arg(e, e.span)

    def r_kwarg(self, c):
        e = c[2]
        return ast.Arg(e, self.sp(c[0], e.span), c[0].value)

    def r_kwarg_group(self, c):
        names = [c[3]] + c[4]
        items = tuple(ast.Name(t.value, self.sp(t, t)) for t in names)
        group = ast.TupleExpr(items, self.sp(c[2], c[5]))
        return ast.Arg(group, self.sp(c[0], c[5]), c[0].value)

    def r_name_seq_one(self, c):
        return [c[0]]

    def r_name_seq_more(self, c):
        c[0].append(c[1])
        return c[0]

    def r_arg_pattern(self, c):
        return c[0].value

    def r_indices_one(self, c):
        return [c[0]]

    def r_indices_more(self, c):
        c[0].append(c[2])
        return c[0]

    def _ctor(self, name_tok, shp, dtype_tok, fill, end):
        dtype = None
        if dtype_tok is not None:
            dtype = dtype_tok.value
            if dtype not in DTYPES:
                self.error("E0101", f"`{dtype}` is not a dtype", dtype_tok,
                           "expected a dtype such as `f32` or `i64`")
        return ast.Constructor(name_tok.value, shp.axes, self.sp(name_tok, end), dtype, fill)

    def r_ctor(self, c):
        return self._ctor(c[0], c[1], None, None, c[1].close)

    def r_ctor_dtype(self, c):
        return self._ctor(c[0], c[1], c[2], None, c[2])

    def r_ctor_fill(self, c):
        return self._ctor(c[0], c[1], None, c[3], c[4])

    def r_ctor_dtype_fill(self, c):
        return self._ctor(c[0], c[1], c[2], c[4], c[5])

    # -- types -------------------------------------------------------------------------

    def r_t_shape(self, c):
        shp = c[0]
        return ast.TensorTypeExpr(shp.axes, self.sp(shp.open, shp.close))

    def r_t_shape_words(self, c):
        return self._type(("shape", c[0]), c[1])

    def r_t_name(self, c):
        return self._type(("name", c[0]), None)

    def r_t_name_words(self, c):
        return self._type(("name", c[0]), c[1])

    def r_t_indexed(self, c):
        return self._type(("indexed", c[0], c[1]), None)

    def r_t_indexed_words(self, c):
        return self._type(("indexed", c[0], c[1]), c[2])

    def _tuple_type(self, c):
        items = c[1]
        if len(items) == 1:
            return ("type", items[0])
        return ("type", ast.TupleTypeExpr(tuple(items), self.sp(c[0], c[2])))

    def r_t_tuple(self, c):
        return self._type(self._tuple_type(c), None)

    def r_t_tuple_words(self, c):
        return self._type(self._tuple_type(c), c[3])

    def r_type_list_one(self, c):
        return [c[0]]

    def r_type_list_more(self, c):
        c[0].append(c[2])
        return c[0]

    def r_words_one(self, c):
        return [c[0]]

    def r_words_more(self, c):
        c[0].append(c[1])
        return c[0]

    def r_tw_name(self, c):
        return ("w", c[0], None)

    def r_tw_indexed(self, c):
        return ("w", c[0], c[1])

    def r_tw_over(self, c):
        # (the class axis's name, `layers.C` for a dim of an imported module; its last token)
        name, _, last = c[1]
        return ("over", c[0], (name, last))

    def _type(self, head, words):
        kind = head[0]
        if kind == "type":
            t = head[1]
            if words:
                self._bad_word(words[0], "unexpected `{}` after a tuple type")
            return t
        if kind == "shape":
            shp = head[1]
            start, end = shp.open, shp.close
            shape = shp.axes
            ws = words or ()
        elif kind == "name":
            name, start, end = head[1]
            shape = None
            if name in SCALARS and not words:
                return ast.ScalarTypeExpr(name, self.sp(start, end))
            if name in DTYPES or name in DOMAINS:
                ws = [("w", start, None)] + (words or [])
            else:
                if not words:
                    return ast.NamedTypeExpr(name, self.sp(start, end))
                dtype, domain, last = self._words(words)
                return ast.TensorTypeExpr(None, self.sp(start, last), alias=name, dtype=dtype,
                                          domain=domain)
        else:  # indexed: Index[C], Size[K], Axis[n], Axes[n]
            tok, shp = head[1], head[2]
            start, end = tok, shp.close
            shape = None
            if tok.value in SPECIALS:
                if words:
                    self._bad_word(words[0], "unexpected `{}` after `" + tok.value + "[…]`")
                return ast.SpecialTypeExpr(tok.value, self._one_axis_name(tok, shp),
                                           self.sp(tok, shp.close))
            ws = [("w", tok, shp)] + (words or [])
        dtype, domain, last = self._words(ws)
        return ast.TensorTypeExpr(shape, self.sp(start, last or end), dtype=dtype,
                                  domain=domain)

    def _one_axis_name(self, tok, shp) -> str:
        axes = shp.axes
        if len(axes) == 1 and type(axes[0]) is ast.SizeName and axes[0].module is None:
            return axes[0].name
        self.error("E0101", f"expected one axis name in `{tok.value}[…]`",
                   self.sp(shp.open, shp.close), "expected a single name",
                   help=f"for example `{tok.value}[n]`")
        return ""

    def _bad_word(self, w, template):
        tok = w[1]
        self.error("E0101", template.format(tok.value), tok, "not part of this type")

    def _words(self, words):
        """``dtype? domain? (over NAME)?`` → (dtype, DomainExpr, last token or span)."""
        dtype = None
        domain = None
        last = None
        for w in words:
            kind, tok, extra = w
            if kind == "over":
                over, last = extra
                if domain is None or domain.over is not None or domain.index is not None:
                    self.error("E0101", "unexpected `over`", tok,
                               "`over` follows a domain such as `Logit`",
                               help="for example `Logit over C`")
                    continue
                domain = ast.DomainExpr(domain.name, self.sp(domain.span, last), over=over)
                continue
            name = tok.value
            last = extra.close if extra is not None else tok
            if extra is not None:
                if name != "Index":
                    self.error("E0101", f"unexpected `[` after `{name}`", extra.open,
                               "only `Index[…]` takes a size here")
                    continue
                if domain is not None:
                    self.error("E0101", "a type has one domain", tok, "a second domain")
                    continue
                axes = extra.axes
                if len(axes) != 1:
                    self.error("E0101", "`Index[…]` takes one size",
                               self.sp(extra.open, extra.close),
                               f"{len(axes)} sizes here", help="for example `Index[C]`")
                index = axes[0] if axes else None
                domain = ast.DomainExpr("Index", self.sp(tok, extra.close), index=index)
                continue
            if name in DTYPES:
                if dtype is not None:
                    self.error("E0101", "a type has one dtype", tok, "a second dtype")
                elif domain is not None:
                    self.error("E0101", "the dtype comes before the domain", tok,
                               f"`{name}` after the domain",
                               help=f"write `{name} {domain.name}`")
                else:
                    dtype = name
                continue
            if name in DOMAINS:
                if domain is not None:
                    self.error("E0101", "a type has one domain", tok, "a second domain")
                else:
                    domain = ast.DomainExpr(name, self.sp(tok, tok))
                continue
            self.error("E0101", f"`{name}` is not a dtype or a domain", tok,
                       "expected a dtype (`f32`, `u8` …) or a domain (`Real`, `Unit` …)")
        return dtype, domain, last

    # -- sizes -------------------------------------------------------------------------

    def r_shape_empty(self, c):
        return _Shape((), c[0], c[1])

    def r_shape(self, c):
        axes = c[1]
        prev = None
        for a in axes:
            if prev is not None and type(a) is ast.SizeName and a.module is None:
                self.sep_pairs[(prev.value, a.name)] = a.span
            prev = a if type(a) is ast.SizeInt else None
        return _Shape(tuple(axes), c[0], c[2])

    def r_axes_one(self, c):
        return [self._axis(c[0])]

    def r_axes_more(self, c):
        c[0].append(self._axis(c[1]))
        return c[0]

    def r_axis_op(self, c):
        items = c[0]
        if type(items) is not list:
            items = [items]
        items.append(c[1])
        items.append(c[2])
        return items

    def _axis(self, items):
        if type(items) is not list:
            return items
        sp = self.sp
        terms = [items[0]]
        ops = []
        for k in range(1, len(items), 2):
            tok = items[k]
            f = items[k + 1]
            op = tok.value
            if op not in SIZE_OPS:
                if op == "//":
                    self.error("E0101", "`//` in a size", tok, "sizes divide with `/`",
                               help="`/` in a size already rounds down")
                    op = "/"
                else:
                    self.error("E0101", f"`{op}` in a size", tok, "not a size operator",
                               help="sizes use `+ - * /`")
                    op = "*"
            if op == "*" or op == "/":
                t = terms[-1]
                terms[-1] = ast.SizeBin(op, t, f, sp(t.span, f.span))
            else:
                ops.append(op)
                terms.append(f)
        res = terms[0]
        for op, t in zip(ops, terms[1:]):
            res = ast.SizeBin(op, res, t, sp(res.span, t.span))
        return res

    def r_f_int(self, c):
        t = c[0]
        return ast.SizeInt(int(t.value), Span(self.file, t.line, t.col, t.end_line, t.end_col,
                                              t.start, t.end))

    def r_f_numname(self, c):
        t = c[0]
        k, name = _split_numname(t.value)
        digits = len(t.value) - len(name)
        f = self.file
        ks = Span(f, t.line, t.col, t.line, t.col + digits, t.start, t.start + digits)
        ns = Span(f, t.line, t.col + digits, t.end_line, t.end_col, t.start + digits, t.end)
        span = self.sp(t, t)
        self.joined[(k, name)] = span
        return ast.SizeProd((ast.SizeInt(k, ks), ast.SizeName(name, ns)), span)

    def r_f_name(self, c):
        t = c[0]
        return ast.SizeName(t.value, Span(self.file, t.line, t.col, t.end_line, t.end_col,
                                          t.start, t.end))

    def r_f_dotted(self, c):
        return ast.SizeName(c[2].value, self.sp(c[0], c[2]), module=c[0].value)

    def r_f_unknown(self, c):
        return ast.SizeUnknown(c[1].value, self.sp(c[0], c[1]))

    def r_f_ellipsis(self, c):
        return ast.SizeEllipsis(self.sp(c[0], c[0]))

    def r_f_group(self, c):
        axes = c[1]
        if len(axes) == 1:
            return axes[0]
        return ast.SizeProd(tuple(axes), self.sp(c[0], c[2]))

    # -- after a declaration -------------------------------------------------------------

    def _stray_placeholders(self, decl) -> None:
        for node in iter_nodes(decl):
            if type(node) is ast.Placeholder:
                self.error("E0101", "`_` outside a pipe stage", node.span,
                           "the placeholder `_` is only an argument of a pipe stage",
                           help="write `x |> f(a, _)` to pass `x` in its place")


def _split_numname(text: str) -> tuple[int, str]:
    k = 0
    while k < len(text) and text[k].isdigit():
        k += 1
    return int(text[:k]), text[k:]


def iter_nodes(node):
    """Every syntax node under ``node`` (itself included), depth first, iteratively."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(reversed(x))
            continue
        fields = getattr(type(x), "__dataclass_fields__", None)
        if fields is None:
            continue
        yield x
        for name in reversed(list(fields)):
            v = getattr(x, name)
            if v is None or type(v) in (str, int, float, bool) or type(v) is Span:
                continue
            stack.append(v)
