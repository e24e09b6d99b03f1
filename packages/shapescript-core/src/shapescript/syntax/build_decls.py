"""The builder's rules for declarations and statements (see ``build.py``).

Each ``r_<alias>(b, c)`` builds the value of one alternative of ``grammar.lark`` from its
children ``c`` (tokens included), ``b`` being the file's ``Builder``. A declaration is
finished by ``Builder.decl_done``, which reports what is only known once it is whole.

* ``a, b`` in ``return a, b``/``x = a, b`` is a ``TupleExpr``; ``a, b = e`` and
  ``(a, b) = e`` destructure (``Assign.targets`` holds the ``Name``/``Attr`` targets).
* A ``##`` block documents the declaration or model field that starts on the next code
  line (``Builder.doc_at``).
"""

from __future__ import annotations

import dataclasses

from shapescript.syntax import ast
from shapescript.syntax.build_types import make_type
from shapescript import error_codes as ec


def r_devices(b, c):
    return b.decl_done(ast.Devices(c[1].value, b.sp(c[0], c[1])))


def r_devices_index(b, c):
    return b.decl_done(ast.Devices(f"{c[1].value}[{int(c[3].value)}]",
                                   b.sp(c[0], c[4])))


def r_import_python(b, c):
    name, _, last = c[2]
    return b.decl_done(ast.ImportPython(name, b.sp(c[0], last)))


def r_import_python_as(b, c):
    return b.decl_done(ast.ImportPython(c[2][0], b.sp(c[0], c[4]), c[4].value))


def r_import_module(b, c):
    name, _, last = c[1]
    return b.decl_done(ast.Import(name, b.sp(c[0], last)))


def r_import_module_as(b, c):
    return b.decl_done(ast.Import(c[1][0], b.sp(c[0], c[3]), c[3].value))


def r_from_import(b, c):
    names = c[3]
    return b.decl_done(ast.FromImport(c[1][0], tuple(names),
                                      b.sp(c[0], names[-1].span)))


def r_import_names_one(b, c):
    return [c[0]]


def r_import_names_more(b, c):
    c[0].append(c[2])
    return c[0]


def r_import_name(b, c):
    return ast.ImportName(c[0].value, b.sp(c[0], c[0]))


def r_import_name_as(b, c):
    return ast.ImportName(c[0].value, b.sp(c[0], c[2]), c[2].value)


def r_dotted_one(b, c):
    t = c[0]
    return (t.value, t, t)


def r_dotted_more(b, c):
    name, first, _ = c[0]
    return (name + "." + c[2].value, first, c[2])


def r_dim_size(b, c):
    axes = c[3]
    if len(axes) != 1:
        b.error(ec.E0101, "a dim is one size", b.sp(axes[0].span, axes[-1].span),
                f"these are {len(axes)} sizes side by side",
                help="join them with an operator, or declare a shape alias: "
                "`dim X = [ … ]`")
    size = axes[0]
    return b.decl_done(ast.DimDecl(c[1].value, b.sp(c[0], size.span),
                                   b.sp(c[1], c[1]), size=size,
                                   doc=b.doc_at(c[0])))


def r_dim_role(b, c):
    """``dim Dout ~ D``: ``D``'s size, a role of its own."""
    decl = r_dim_size(b, c)
    return dataclasses.replace(decl, new_role=True) if isinstance(decl, ast.DimDecl) else decl


def r_dim_alias(b, c):
    shp = c[3]
    t = ast.TensorTypeExpr(shp.axes, b.sp(shp.open, shp.close))
    return b.decl_done(ast.DimDecl(c[1].value, b.sp(c[0], shp.close),
                                   b.sp(c[1], c[1]), shape=t, doc=b.doc_at(c[0])))


def r_dim_alias_words(b, c):
    t = make_type(b, ("shape", c[3]), c[4])
    if type(t) is not ast.TensorTypeExpr:  # pragma: no cover - always a tensor type
        t = ast.TensorTypeExpr(c[3].axes, t.span)
    return b.decl_done(ast.DimDecl(c[1].value, b.sp(c[0], t.span),
                                   b.sp(c[1], c[1]), shape=t, doc=b.doc_at(c[0])))


def r_const_decl(b, c):
    value = c[3]
    return b.decl_done(ast.ConstDecl(c[1].value, value, b.sp(c[0], value.span),
                                     b.sp(c[1], c[1]), doc=b.doc_at(c[0])))


# fn_head: (first_tok, export, name_tok, params, ret)
def r_fn_head(b, c):
    name, params, _ = c[1]
    return (c[0], False, name, params, None)


def r_fn_head_ret(b, c):
    name, params, _ = c[1]
    return (c[0], False, name, params, c[3])


def r_export_head(b, c):
    name, params, _ = c[2]
    return (c[0], True, name, params, None)


def r_export_head_ret(b, c):
    name, params, _ = c[2]
    return (c[0], True, name, params, c[4])


def r_fn_expr(b, c):
    first, export, name, params, ret = c[0]
    body = c[2]
    return b.decl_done(ast.FnDecl(name.value, params, ret, body,
                                  b.sp(first, body.span), b.sp(name, name),
                                  export=export, doc=b.doc_at(first)))


def r_fn_block(b, c):
    first, export, name, params, ret = c[0]
    body = c[2]
    return b.decl_done(ast.FnDecl(name.value, params, ret, body,
                                  b.sp(first, body[-1].span), b.sp(name, name),
                                  export=export, doc=b.doc_at(first)))


def r_extern(b, c):
    name, params, _ = c[2]
    return b.decl_done(ast.ExternDecl(name.value, params, None, c[4].value,
                                      b.sp(c[0], c[4]), b.sp(name, name),
                                      doc=b.doc_at(c[0])))


def r_extern_ret(b, c):
    name, params, _ = c[2]
    return b.decl_done(ast.ExternDecl(name.value, params, c[4], c[6].value,
                                      b.sp(c[0], c[6]), b.sp(name, name),
                                      doc=b.doc_at(c[0])))


def r_extern_with(b, c):
    decl = r_extern(b, c)
    return dataclasses.replace(decl, one_of=tuple(c[6]), span=b.sp(c[0], c[6][-1][1]))


def r_extern_ret_with(b, c):
    decl = r_extern_ret(b, c)
    return dataclasses.replace(decl, one_of=tuple(c[8]), span=b.sp(c[0], c[8][-1][1]))


def r_one_of_one(b, c):
    return [(c[0].value, b.sp(c[0], c[0]))]


def r_one_of_more(b, c):
    if c[1].value != "or":
        b.error(ec.E0101, f"unexpected `{c[1].value}` in `with`", b.sp(c[1], c[1]),
                "expected `or`", help="name the parameters a call needs one of: `with a or b`")
    return c[0] + [(c[2].value, b.sp(c[2], c[2]))]


def r_sig_empty(b, c):
    return (c[0], (), c[2])


def r_sig(b, c):
    return (c[0], tuple(c[2]), c[3])


def r_sig_trail(b, c):
    return (c[0], tuple(c[2]), c[4])


def r_params_one(b, c):
    return [c[0]]


def r_params_more(b, c):
    c[0].append(c[2])
    return c[0]


def r_param_typed(b, c):
    return ast.Param(c[0].value, b.sp(c[0], c[2].span), type=c[2])


def r_param_typed_default(b, c):
    return ast.Param(c[0].value, b.sp(c[0], c[4].span), type=c[2], default=c[4])


def r_param_default(b, c):
    return ast.Param(c[0].value, b.sp(c[0], c[2].span), default=c[2])


def r_model(b, c):
    fields = c[5]
    end = fields[-1].span if fields else c[2]
    return b.decl_done(ast.ModelDecl(c[1].value, tuple(fields), b.sp(c[0], end),
                                     b.sp(c[1], c[1]), doc=b.doc_at(c[0])))


def r_fields_one(b, c):
    return [c[0]]


def r_fields_more(b, c):
    c[0].append(c[1])
    return c[0]


def r_field(b, c):
    t = c[3]
    return ast.ParamField(c[1].value, t, b.sp(c[0], t.span), doc=b.doc_at(c[0]))


def r_field_init(b, c):
    return ast.ParamField(c[1].value, c[3], b.sp(c[0], c[5].span), init=c[5],
                          doc=b.doc_at(c[0]))


def r_block(b, c):
    return tuple(c[2])


def r_block_inline(b, c):
    return (c[0],)


def r_stmts_one(b, c):
    return [c[0]]


def r_stmts_more(b, c):
    c[0].append(c[1])
    return c[0]


def r_stmt_simple(b, c):
    return c[0]


def r_stmt_pass(b, c):
    return c[0]


def r_expr_stmt(b, c):
    e = c[0]
    return ast.ExprStmt(e, e.span)


def _target(b, e):
    t = type(e)
    if t is ast.Name or t is ast.Attr:
        return e
    b.error(ec.E0101, "can't assign to this expression", e.span,
            "expected a name or a field (`m.w`)")
    return e


def r_assign(b, c):
    lhs, value = c[0], c[2]
    if type(lhs) is ast.TupleExpr:
        targets = tuple(_target(b, e) for e in lhs.items)
        if not targets:
            b.error(ec.E0101, "can't assign to `()`", lhs.span, "nothing to assign to")
    else:
        targets = (_target(b, lhs),)
    return ast.Assign(targets, value, b.sp(lhs.span, value.span))


def r_ann_assign(b, c):
    lhs, t, value = c[0], c[2], c[4]
    if type(lhs) is not ast.Name:
        b.error(ec.E0101, "only a name can be annotated", lhs.span,
                "expected a name before `:`")
    return ast.Assign((lhs,), value, b.sp(lhs.span, value.span), annotation=t)


def r_return_none(b, c):
    return ast.Return(None, b.sp(c[0], c[0]))


def r_return_value(b, c):
    return ast.Return(c[1], b.sp(c[0], c[1].span))


# if_head: (first_tok, [IfBranch], last_span)
def r_if_head(b, c):
    body = c[3]
    br = ast.IfBranch(c[1], body, b.sp(c[0], body[-1].span))
    return (c[0], [br])


def r_if_elif(b, c):
    body = c[4]
    c[0][1].append(ast.IfBranch(c[2], body, b.sp(c[1], body[-1].span)))
    return c[0]


def r_if_stmt(b, c):
    first, branches = c[0]
    return ast.If(tuple(branches), None, b.sp(first, branches[-1].span))


def r_if_else(b, c):
    first, branches = c[0]
    body = c[3]
    return ast.If(tuple(branches), body, b.sp(first, body[-1].span))


def r_for_stmt(b, c):
    targets = c[1]
    body = c[5]
    return ast.For(tuple(t.value for t in targets), c[3], body,
                   b.sp(c[0], body[-1].span),
                   tuple(b.sp(t, t) for t in targets))


def r_for_targets_one(b, c):
    return [c[0]]


def r_for_targets_more(b, c):
    c[0].append(c[2])
    return c[0]


def r_with_stmt(b, c):
    body = c[3]
    return ast.With(c[1].value, body, b.sp(c[0], body[-1].span))
